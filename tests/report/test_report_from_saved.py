"""``dpverify verify --save FILE`` writes the report's JSON; ``dpverify report --from FILE`` builds the
report from it without running any claim again."""

from __future__ import annotations

import json

import pytest

from dpverify.claims import Outcome, Source, Verdict, claim, unregister
from dpverify.cli import main
from dpverify.report import load_report

RUNS: list[str] = []


@pytest.fixture
def once_claims():
    """Claims whose checks may run once: a second run fails loudly (and is counted)."""
    from matplotlib.figure import Figure

    def once(cid, verdict, evidence, **kw):
        def check(thorough=False):
            RUNS.append(cid)
            if RUNS.count(cid) > 1:
                raise AssertionError(f"{cid} ran again")
            return Outcome(verdict, evidence, figure_data={"y": [0.0, 1.0]}, summary=f"{cid} ran")

        claim(cid, source=Source("001", "§1"), statement=f"statement of {cid}", method="exact computation",
              expected=verdict, **kw)(check)

    def figure(outcome):
        fig = Figure(figsize=(2, 1))
        fig.add_subplot().plot(outcome.figure_data["y"])
        return fig

    RUNS.clear()
    once("zzonce.holds", Verdict.HOLDS, {"x": 1.5, "n": 3}, figure=figure)
    once("zzonce.refuted", Verdict.REFUTED, {"counterexample": [1, 2]})
    yield
    unregister("zzonce.holds")
    unregister("zzonce.refuted")


def test_verify_saves_the_report_json_and_report_reads_it_without_running(once_claims, tmp_path, capsys):
    saved = tmp_path / "results.json"
    assert main(["verify", "--only", "zzonce.", "--save", str(saved)]) == 0
    assert sorted(RUNS) == ["zzonce.holds", "zzonce.refuted"]
    capsys.readouterr()
    doc = load_report(saved)  # the report's schema
    assert {c["id"]: c["verdict"] for c in doc["claims"]} == {"zzonce.holds": "holds", "zzonce.refuted": "refuted"}

    out = tmp_path / "rep"
    assert main(["report", "--from", str(saved), "--out", str(out), "--json"]) == 0
    assert sorted(RUNS) == ["zzonce.holds", "zzonce.refuted"]  # no check ran again
    printed = json.loads(capsys.readouterr().out)
    written = load_report(out)
    for d in (printed, written):
        assert {c["id"]: (c["verdict"], c["evidence"], c["summary"]) for c in d["claims"]} == {
            c["id"]: (c["verdict"], c["evidence"], c["summary"]) for c in doc["claims"]}
        assert d["provenance"] == doc["provenance"]  # the run's provenance, not this command's
    page = (out / "report.html").read_text(encoding="utf-8")
    assert "zzonce.holds" in page and "ran again" not in page
    assert [c["figure"] for c in written["claims"] if c["id"] == "zzonce.holds"] == [True]  # drawn from saved data
    assert "data:image/png;base64," in page


def test_report_from_its_own_json_and_with_a_baseline(once_claims, tmp_path, capsys):
    first = tmp_path / "first"
    assert main(["report", "--only", "zzonce.", "--out", str(first)]) == 0
    again = tmp_path / "again"
    assert main(["report", "--from", str(first / "report.json"), "--out", str(again),
                 "--baseline", str(first)]) == 0
    assert sorted(RUNS) == ["zzonce.holds", "zzonce.refuted"]
    doc = load_report(again)
    assert doc["comparison"]["changes"] == [] and doc["comparison"]["compared"] == 2


def test_from_needs_a_report_file(tmp_path, capsys):
    bad = tmp_path / "bad.json"
    bad.write_text("[1, 2]")
    assert main(["report", "--from", str(bad), "--out", str(tmp_path / "o")]) == 2
    assert "not a dpverify report" in capsys.readouterr().err
    assert main(["report", "--from", str(tmp_path / "none.json"), "--out", str(tmp_path / "o")]) == 2
