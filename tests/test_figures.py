"""Every figure of the claims registry has axis labels, a legend where more than one line is drawn,
and a caption (its own, or the claim's statement, as the report prints it).

The notebooks' figures get the same check in tests/test_notebooks.py (at every ``savefig``).
"""

from __future__ import annotations

import pytest
from figure_checks import figure_problems

from dpverify.claims import all_claims, run_claims
from dpverify.report.figures import figure_caption, figure_to_png

WITH_FIGURES = [c for c in all_claims() if c.figure is not None]


@pytest.fixture(scope="module")
def results():
    """Every figure claim run once, in two worker processes (figure data then arrives as JSON, as in a report)."""
    return {r.claim.id: r for r in run_claims(WITH_FIGURES, jobs=2)}


def test_some_claims_have_figures():
    assert len(WITH_FIGURES) >= 5


@pytest.mark.parametrize("claim", WITH_FIGURES, ids=[c.id for c in WITH_FIGURES])
def test_claim_figure_is_labelled_and_captioned(claim, results):
    result = results[claim.id]
    assert result.error is None, result.error
    fig = claim.figure(result.outcome)
    assert figure_problems(fig) == [], f"{claim.id}: {figure_problems(fig)}"
    caption = figure_caption(fig, result.outcome.figure_data) or claim.statement
    assert len(caption.split()) >= 4, f"{claim.id}: no caption"
    assert figure_to_png(fig).width > 100  # it draws


def test_the_check_itself_finds_missing_labels():
    from matplotlib.figure import Figure

    fig = Figure()
    ax = fig.add_subplot()
    ax.plot([0, 1], [0, 1])
    ax.plot([0, 1], [1, 0])
    assert set(figure_problems(fig)) == {"axes 0: no x label", "axes 0: no y label",
                                         "axes 0: 2 lines but no legend"}
    ax.set_xlabel("k"), ax.set_ylabel("MSE"), ax.legend(["a", "b"])
    assert figure_problems(fig) == []
