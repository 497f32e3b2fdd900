"""``dpverify report --compare``: what changed between two runs."""

from __future__ import annotations

import copy
import json

import pytest
from report_demo_claims import PREFIX, register_demo, unregister_demo
from report_html_checks import check_report_html

from dpverify.cli import main
from dpverify.report import compare_reports, load_report, make_report
from dpverify.report.compare import flatten_evidence


def _doc(*claims):
    return {"schema": "dpverify-report/1", "provenance": {"git_revision": "abc"}, "claims": list(claims)}


def _c(cid, verdict="holds", expected="holds", **ev):
    return {"id": cid, "verdict": verdict, "expected": expected, "evidence": ev}


def test_page_without_changes_says_so(demo, tmp_path):
    first = make_report(tmp_path / "a", only="zzreport.formula")
    second = make_report(tmp_path / "b", only="zzreport.formula", compare_with=first.document)
    assert second.document["comparison"]["changes"] == []
    page = second.html.read_text(encoding="utf-8")
    check_report_html(page)
    assert "No verdict changed" in page and 'href="#changes"' in page
    with pytest.raises(ValueError, match="old"):
        make_report(tmp_path / "c", only="zzreport.formula", compare_with={"no": "claims"})


def test_identical_runs_have_no_changes():
    d = _doc(_c("a.x", d=1.0, f={"sympy": "x + 1", "latex": "x + 1"}, arr=[1, 2, 3]))
    cmp = compare_reports(d, copy.deepcopy(d))
    assert cmp.changes == () and cmp.compared == 1 and not cmp.verdict_changed


def test_each_kind_of_change_is_found():
    old = _doc(
        _c("a.same", d=1.0),
        _c("a.flip", d=1.0),
        _c("a.gone"),
        _c("a.moved", d=1.0, tiny=1.0, n=[1, 2], f={"sympy": "x + 1", "latex": "x + 1"},
           fr={"fraction": "1/2", "float": 0.5}, inf="inf", msg="run 1", nested={"k": 3}),
    )
    new = _doc(
        _c("a.same", d=1.0),
        _c("a.flip", verdict="refuted", d=1.0),
        _c("a.moved", d=1.5, tiny=1.0 + 1e-13, n=[1, 2, 3], f={"sympy": "x + 2", "latex": "x + 2"},
           fr={"fraction": "2/3", "float": 2 / 3}, inf=7.0, msg="run 2", nested={"k": 3}),
        _c("a.new"),
    )
    cmp = compare_reports(old, new)
    got = {(c.kind, c.claim_id, c.field) for c in cmp.changes}
    assert got == {
        ("verdict", "a.flip", "verdict"),
        ("removed", "a.gone", ""),
        ("new", "a.new", ""),
        ("evidence", "a.moved", "d"),
        ("evidence", "a.moved", "n#len"),
        ("evidence", "a.moved", "n[2]"),
        ("evidence", "a.moved", "f"),
        ("evidence", "a.moved", "fr"),
        ("evidence", "a.moved", "inf"),
    }
    assert cmp.changes[0].kind == "verdict"  # verdict changes first
    d = next(c for c in cmp.changes if c.field == "d")
    assert d.old == 1.0 and d.new == 1.5 and d.rel_change == pytest.approx(0.5)
    assert cmp.verdict_changed
    js = cmp.to_json()
    json.dumps(js)
    assert js["counts"] == {"verdict": 1, "expected": 0, "removed": 1, "evidence": 6, "new": 1}
    # a looser tolerance hides the small move, never a verdict change
    loose = compare_reports(old, new, rtol=0.6)
    assert ("evidence", "a.moved", "d") not in {(c.kind, c.claim_id, c.field) for c in loose.changes}
    assert loose.verdict_changed


def test_nan_and_inf_compare_sensibly():
    a = _doc(_c("a.x", n="nan", i="inf", z=0.0))
    b = _doc(_c("a.x", n="nan", i="inf", z=1e-13))
    assert compare_reports(a, b).changes == ()
    c = _doc(_c("a.x", n=1.0, i="-inf", z=0.0))
    assert {ch.field for ch in compare_reports(a, c).changes} == {"n", "i"}


def test_flatten_and_validation():
    assert dict(flatten_evidence({"a": [1, {"b": 2}]})) == {"a#len": 2, "a[0]": 1, "a[1].b": 2}
    with pytest.raises(ValueError, match="old"):
        compare_reports({"x": 1}, _doc())
    with pytest.raises(ValueError, match="rtol"):
        compare_reports(_doc(), _doc(), rtol=-1)
    with pytest.raises(ValueError, match="rtol"):
        compare_reports(_doc(), _doc(), rtol=float("nan"))


@pytest.fixture
def demo():
    register_demo()
    yield
    unregister_demo()


def test_cli_compare_two_runs(demo, tmp_path, capsys):
    old = make_report(tmp_path / "old", only=PREFIX).json
    # an edited old report: one verdict and one number differ, one claim is extra
    doc = load_report(old)
    by = {c["id"]: c for c in doc["claims"]}
    by["zzreport.formula"]["verdict"] = "refuted"
    by["zzreport.formula"]["evidence"]["confidence"] = 0.5
    doc["claims"].append(dict(by["zzreport.badfig"], id="zzreport.retired"))
    edited = tmp_path / "edited.json"
    edited.write_text(json.dumps(doc))

    assert main(["report", "--compare", str(old), str(old), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["changes"] == []

    # against a fresh run (its --only taken from the old report), writing the new report too
    assert main(["report", "--compare", str(edited), "--out", str(tmp_path / "new"), "--json"]) == 1
    js = json.loads(capsys.readouterr().out)
    got = {(c["kind"], c["claim"], c["field"]) for c in js["changes"]}
    assert ("verdict", "zzreport.formula", "verdict") in got
    assert ("evidence", "zzreport.formula", "confidence") in got
    assert ("removed", "zzreport.retired", "") in got
    assert (tmp_path / "new" / "report.json").is_file() and (tmp_path / "new" / "report.html").is_file()
    # the new report shows the changes too, linked to the claims
    assert load_report(tmp_path / "new")["comparison"]["changes"] == js["changes"]
    page = (tmp_path / "new" / "report.html").read_text(encoding="utf-8")
    check_report_html(page)
    changes = page[page.index('<section id="changes">'):]
    changes = changes[: changes.index("</section>")]
    assert '<a href="#claim-zzreport-formula">zzreport.formula</a>' in changes
    assert "zzreport.retired" in changes and "confidence" in changes

    assert main(["report", "--compare", str(edited), str(old)]) == 1
    table = capsys.readouterr().out
    assert "zzreport.formula" in table and "verdict" in table and "removed" in table

    assert main(["report", "--compare", str(tmp_path / "missing.json")]) == 2
    assert main(["report", "--compare", str(old), str(old), str(old)]) == 2
    assert main(["report", "--compare", str(old), str(old), "--out", str(tmp_path / "x")]) == 2
