"""The documentation site builds offline with warnings as errors, and holds what it promises.

Slow (about a minute: it runs the findings' checks and autodoc imports every room); ``.ci/run``
also builds the site after the tests.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.slow
def test_docs_build_with_warnings_as_errors(tmp_path):
    pytest.importorskip("sphinx", reason="the docs extra is in the test extra: pip install -e '.[test]'")
    pytest.importorskip("myst_nb")
    out = tmp_path / "html"
    t = time.perf_counter()
    res = subprocess.run([sys.executable, "-m", "sphinx", "-W", "--keep-going", "-b", "html", "-q",
                          "-d", str(tmp_path / "doctrees"), str(ROOT / "docs"), str(out)],
                         capture_output=True, text=True, timeout=600)
    secs = time.perf_counter() - t
    assert res.returncode == 0, res.stderr[-5000:]
    assert secs < 300, f"the docs build took {secs:.0f} s (target: under 5 minutes)"
    page = lambda p: (out / p).read_text(encoding="utf-8")  # noqa: E731
    assert "Thm 3" in page("_generated/findings.html") and "refuted" in page("_generated/findings.html")
    api = page("api.html")
    for name in ("optimal_mechanism", "epsilon_lower_bound", "make_report", "PPCADP", "fda_weights",
                 # the engine's other public parts, and every room
                 "as_mechanism", "catalogue", "room_of", "proof_path", "erratum_outcome", "best_event_bound",
                 "hockey_stick", "SafeLaplace", "laplace_log_ratio_sup", "dpverify.selftest", "dpverify.survey"):
        assert name in api, name
    assert "Primitives (paper 002)" not in api and "(paper 002)" in api
    assert "erratum" in page("_generated/glossary.html") and "e^ε" in page("_generated/glossary.html")
    assert (out / "_generated" / "proofs" / "rr" / "nary_optimum.html").is_file()
    assert (out / "_generated" / "notebooks" / "rr_paper_figures.html").is_file()
    assert "A short tour" in page("_generated/tour.html")
