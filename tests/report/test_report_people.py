"""The report as the person it is handed to reads it: findings first, self-tests apart, reasons,
captions, one heading level 1, changes since a baseline."""

from __future__ import annotations

import json
import re

import pytest
from report_html_checks import check_report_html

from dpverify.claims import Outcome, Source, Verdict, claim, unregister
from dpverify.claims.model import SELF_TEST
from dpverify.cli import main
from dpverify.report import load_report, make_report
from dpverify.report.entries import reason

IDS = ("zzpeople.paper_ok", "zzpeople.paper_wrong", "zzpeople.paper_unsaid", "zzpeople.selftest", "zzpeople.crash")


def _fig(outcome):
    from matplotlib.figure import Figure

    fig = Figure(figsize=(3, 2))
    ax = fig.add_subplot()
    ax.plot([0, 1], [0, outcome.figure_data["y"]])
    ax.set_xlabel("x (units)"), ax.set_ylabel("y (units)")
    fig._dpverify_caption = "The line from 0 to y, drawn for the test."
    return fig


@pytest.fixture()
def people(tmp_path):
    flip = {"value": 3}  # the wrong claim's check reads this: a second run can change its verdict

    claim(IDS[0], source=Source("003", "§1"), statement="one plus one is two", method="exact computation")(
        lambda thorough=False: Outcome(Verdict.HOLDS if 1 + 1 == 2 else Verdict.REFUTED, {"sum": 2}))
    claim(IDS[1], source=Source("001", "§2", "Thm 3"), statement="three is even", method="exact computation",
          expected="refuted", figure=_fig)(
        lambda thorough=False: Outcome(Verdict.HOLDS if flip["value"] % 2 == 0 else Verdict.REFUTED,
                                       {"value": flip["value"], "remainder_mod_2": flip["value"] % 2},
                                       figure_data={"y": 0.5},
                                       summary=f"{flip['value']} leaves remainder {flip['value'] % 2} when halved."))
    claim(IDS[2], source=Source("004", "§5"), statement="two thirds is a round number", method="exact computation",
          expected="erratum")(
        lambda thorough=False: Outcome(Verdict.ERRATUM if (2 / 3) * 3 != 2.5 else Verdict.HOLDS,
                                       {"printed_value": 0.6666666666666666, "tight_delta": 2 / 3}))
    claim(IDS[3], source=Source(SELF_TEST, "auditor"), statement="a planted bug is caught", method="audit",
          expected="refuted")(
        lambda thorough=False: Outcome(Verdict.REFUTED if 2 > 1 else Verdict.INCONCLUSIVE, {"epsilon_lb": 1.5},
                                       summary="the bug's lower bound 1.5 exceeds its claimed ε = 1."))

    def crash(thorough=False):
        raise ZeroDivisionError("division by zero in the check")

    claim(IDS[4], source=Source("002"), statement="a check that crashes", method="property")(crash)
    yield flip
    for i in IDS:
        unregister(i)


def _section(page: str, sid: str) -> str:
    start = page.index(f'<section id="{sid}"')
    return page[start: page.index("</section>", start)]


def test_the_page_opens_with_errors_then_findings(people, tmp_path):
    rep = make_report(tmp_path, only="zzpeople.")
    page = rep.html.read_text(encoding="utf-8")
    check_report_html(page)
    assert page.count("<h1") == 1
    assert re.findall(r'<section id="([^"]+)"', page)[:3] == ["errors", "findings", "summary"]
    errors = _section(page, "errors")
    assert IDS[4] in errors and "ZeroDivisionError: division by zero in the check" in errors
    findings = _section(page, "findings")
    # the papers' non-holds claims, each with its reason and a link to its evidence
    assert IDS[1] in findings and "3 leaves remainder 1 when halved." in findings
    assert f'href="#claim-{IDS[1].replace(".", "-")}-evidence"' in findings
    assert f'id="claim-{IDS[1].replace(".", "-")}-evidence"' in page
    assert IDS[2] in findings and "(generated from the evidence)" in findings  # no summary: made from evidence
    assert IDS[0] not in findings and IDS[3] not in findings  # holds; a self-test is no paper's finding
    # the self-test has its own section, and the paper table does not count it
    selftests = _section(page, "self-tests")
    assert f'id="claim-{IDS[3].replace(".", "-")}"' in selftests
    summary = _section(page, "summary")
    assert "dpverify&#x27;s self-tests" in summary or "dpverify's self-tests" in summary
    doc = rep.document
    assert doc["summary"]["papers_counts"]["refuted"] == 1 and doc["summary"]["counts"]["refuted"] == 2
    assert doc["summary"]["self_tests"] == 1
    assert [c["self_test"] for c in doc["claims"] if c["id"] == IDS[3]] == [True]
    # figure with its own caption, numbered
    assert "<strong>Figure 1.</strong> The line from 0 to y, drawn for the test." in page
    # readable evidence: words for keys, rounded numbers with the full value on hover
    wrong = page[page.index(f'id="claim-{IDS[2].replace(".", "-")}"'):]
    assert '>Tight δ<' in wrong and 'title="0.6666666666666666">0.6667<' in wrong
    assert json.loads(rep.json.read_text(encoding="utf-8"))["claims"][2]["evidence"]["tight_delta"] == 2 / 3


def test_reason_falls_back_to_the_evidence():
    c = {"verdict": "refuted", "method": "audit", "summary": "", "evidence": {"epsilon_lb": 2.0, "n": 10}}
    assert reason(c) == "The audit check concluded refuted: ε lower bound = 2, n = 10."
    assert reason({"verdict": "error", "error": "Traceback ...\nValueError: bad"}) == "The check raised ValueError: bad"
    assert reason({**c, "summary": "Given."}) == "Given."


def test_baseline_shows_the_changes(people, tmp_path, capsys):
    old = tmp_path / "old"
    assert main(["report", "--only", "zzpeople.", "--out", str(old), "--json"]) == 1  # the crash differs
    capsys.readouterr()
    people["value"] = 4  # now "three is even" holds: its verdict changes
    new = tmp_path / "new"
    assert main(["report", "--only", "zzpeople.", "--out", str(new), "--baseline", str(old)]) == 1
    page = (new / "report.html").read_text(encoding="utf-8")
    changes = _section(page, "changes")
    assert "Changes since the baseline" in changes and IDS[1] in changes and "verdict" in changes
    assert load_report(new)["comparison"]["changes"]
    assert main(["report", "--only", "zzpeople.", "--out", str(new), "--baseline", str(tmp_path / "none")]) == 2
