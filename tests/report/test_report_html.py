"""The report files: what report.html and report.json contain, for a throw-away set of claims."""

from __future__ import annotations

import json
import re

import pytest
from report_demo_claims import PREFIX, register_demo, unregister_demo
from report_html_checks import check_report_html

from dpverify.claims import Outcome, Source, Verdict, all_claims, claim, unregister
from dpverify.cli import main
from dpverify.report import SCHEMA, load_report, make_report, render_html


@pytest.fixture(scope="module")
def demo():
    register_demo()
    yield
    unregister_demo()


@pytest.fixture(scope="module")
def report(demo, tmp_path_factory):
    out = tmp_path_factory.mktemp("report")
    return make_report(out, only=PREFIX, command="pytest demo")


def test_files_written_and_json_schema(report):
    assert report.html.is_file() and report.json.is_file()
    doc = load_report(report.json)
    assert doc == json.loads(json.dumps(report.document))
    assert doc["schema"] == SCHEMA
    assert doc["summary"]["total"] == 4
    assert doc["summary"]["counts"] == {"holds": 2, "erratum": 0, "refuted": 1, "inconclusive": 0, "error": 1}
    assert sorted(doc["summary"]["differ_from_expected"]) == ["zzreport.cex", "zzreport.crash"]
    by = {c["id"]: c for c in doc["claims"]}
    assert by["zzreport.formula"]["seeds"] == {"seed": 1234}
    assert by["zzreport.formula"]["figure"] is True and by["zzreport.formula"]["figure_error"] is None
    assert by["zzreport.badfig"]["figure"] is False
    assert "this figure cannot be drawn" in by["zzreport.badfig"]["figure_error"]
    assert "kaput" in by["zzreport.crash"]["error"] and "Traceback" in by["zzreport.crash"]["error"]
    assert by["zzreport.formula"]["evidence"]["p_true"]["latex"].startswith("\\frac")
    assert by["zzreport.cex"]["paper"] == "003" and by["zzreport.crash"]["paper"] == "seed-x"
    prov = doc["provenance"]
    for key in ("dpverify_version", "git_revision", "python", "platform", "packages", "command", "started_utc"):
        assert key in prov, key
    for pkg in ("numpy", "scipy", "sympy", "cvxpy", "clarabel", "highspy", "matplotlib"):
        assert pkg in prov["packages"]
    assert prov["command"] == "pytest demo"
    assert re.fullmatch(r"[0-9a-f]{40}|unknown", prov["git_revision"])
    assert all(c["seconds"] >= 0 for c in doc["claims"]) and doc["total_seconds"] >= 0


def test_html_is_valid_and_self_contained(report):
    page = report.html.read_text(encoding="utf-8")
    parsed = check_report_html(page)
    assert parsed.tags.get("img") == 1  # the one figure; the failing one is reported, not drawn
    assert parsed.tags.get("math", 0) >= 1
    assert "<script" not in page.lower() and "http://" not in page.replace("http://www.w3.org/1998/Math/MathML", "")


def test_html_shows_every_part_of_a_claim(report):
    page = report.html.read_text(encoding="utf-8")
    summary = page[page.index('id="summary"'): page.index("</section>", page.index('id="summary"'))]
    assert "4 claims" in summary and "2 differ from the expected verdict" in summary
    # one section per paper: the two known seeds by title, the unknown seed on its own
    assert "Cai, Wu, Wang" in page and "Zhou, Lu, Wu" in page and "Other source: seed-x" in page
    assert page.index("Zhou, Lu, Wu") < page.index("Other source: seed-x")
    art = _article(page, "zzreport.formula")
    assert "p = e^ε/(1+e^ε) equals 1/(1+e^−ε)" in art
    # within the paper's own section the source is where in the paper (its key is no name for people)
    assert "source §4.2, Thm 5.4 / eq. (5.11)" in art and "004" not in art and "symbolic" in art
    assert "<math" in art and "<mfrac>" in art  # the sympy expression as MathML
    assert "13/16" in art and "0.8125" in art  # the fraction, with its value
    assert 'class="conf"' in art  # the confidence level is marked
    assert "40 items" in art  # long arrays shortened in the page
    assert 'src="data:image/png;base64,' in art
    cex = _article(page, "zzreport.cex")
    assert 'class="cex"' in cex and "expected erratum" in cex
    assert 'href="#proof-audit-hockey_stick-md"' in cex and 'id="proof-audit-hockey_stick-md"' in page
    assert "The exact (ε, δ) curve" in page  # the proof document is embedded, rendered
    crash = _article(page, "zzreport.crash")
    assert "Traceback" in crash and "kaput &lt;b&gt;not bold&lt;/b&gt;" in crash and "<b>not bold" not in page
    assert "the figure could not be drawn" in _article(page, "zzreport.badfig")
    assert "∞" in _article(page, "zzreport.badfig")
    for key in ("git_revision", "numpy", "highspy", "Random seeds used by the checks", "Run time per claim"):
        assert key in page


def _article(page: str, cid: str) -> str:
    start = page.index(f'<article id="claim-{cid.replace(".", "-")}"')
    return page[start: page.index("</article>", start)]


def test_parallel_run_renders_the_same(report, tmp_path):
    """Through worker processes the evidence arrives as JSON; formulas must still become MathML."""
    rep2 = make_report(tmp_path, only=PREFIX, jobs=2, timeout=60)
    v1 = {c["id"]: (c["verdict"], c["evidence"]) for c in report.document["claims"]}
    v2 = {c["id"]: (c["verdict"], c["evidence"]) for c in rep2.document["claims"]}
    assert v1.keys() == v2.keys()
    for k in v1:
        assert v1[k][0] == v2[k][0]
        if k != "zzreport.crash":  # the crash's message is the same, its traceback differs
            assert v1[k][1] == v2[k][1]
    page = rep2.html.read_text(encoding="utf-8")
    check_report_html(page)
    assert "<mfrac>" in _article(page, "zzreport.formula")
    assert rep2.document["timeout"] == 60 and rep2.document["jobs"] == 2


def test_unknown_proof_is_flagged_not_linked(tmp_path):
    claim("zzreport.noproof", source=Source("001"), statement="s", method="property", proof="nowhere/missing.md")(
        lambda thorough=False: Outcome(Verdict.HOLDS if 2 > 1 else Verdict.REFUTED, {"n": 1}))
    try:
        rep = make_report(tmp_path, only="zzreport.noproof")
    finally:
        unregister("zzreport.noproof")
    page = rep.html.read_text(encoding="utf-8")
    check_report_html(page)
    assert "nowhere/missing.md (document not found)" in page
    assert "PPCA" in page  # seed 001's title


def test_validation_of_inputs(demo, tmp_path):
    with pytest.raises(ValueError, match="no claim matches"):
        make_report(tmp_path, only="no.such.room.")
    with pytest.raises(ValueError, match="jobs"):
        make_report(tmp_path, only=PREFIX, jobs=0)
    with pytest.raises(TypeError, match="jobs"):
        make_report(tmp_path, only=PREFIX, jobs=1.5)
    with pytest.raises(ValueError, match="timeout"):
        make_report(tmp_path, only=PREFIX, timeout=float("nan"))
    with pytest.raises(TypeError, match="out_dir"):
        make_report(3, only=PREFIX)
    (tmp_path / "afile").write_text("x")
    with pytest.raises(ValueError, match="out_dir"):
        make_report(tmp_path / "afile", only=PREFIX)
    bad = tmp_path / "bad.json"
    bad.write_text('{"claims": []}')
    with pytest.raises(ValueError, match="not a dpverify report"):
        load_report(bad)
    with pytest.raises(FileNotFoundError):
        load_report(tmp_path / "none.json")
    with pytest.raises(TypeError):
        render_html([1, 2])


def test_cli_report(demo, tmp_path, capsys):
    out = tmp_path / "r"
    assert main(["report", "--only", PREFIX, "--out", str(out)]) == 1  # two verdicts differ from expected
    text = capsys.readouterr().out
    assert "differs: zzreport.cex expected erratum, got refuted" in text
    assert (out / "report.html").is_file() and (out / "report.json").is_file()
    assert main(["report", "--only", "zzreport.formula", "--out", str(out), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert [c["id"] for c in doc["claims"]] == ["zzreport.formula"]
    assert load_report(out)["claims"][0]["id"] == "zzreport.formula"  # files replaced
    assert main(["report", "--only", PREFIX]) == 2  # --out missing
    assert "--out DIR is required" in capsys.readouterr().err
    assert main(["report", "--only", "no.such.", "--out", str(out)]) == 2


def test_every_registered_room_appears_without_changes(demo):
    """The report iterates all_claims(): a claim registered anywhere is in it."""
    ids = {c.id for c in all_claims(PREFIX)}
    doc_ids = set()
    claim("zzreport.late", source=Source("002"), statement="registered after import", method="property")(
        lambda thorough=False: Outcome(Verdict.HOLDS if 1 < 2 else Verdict.REFUTED))
    try:
        import tempfile

        with tempfile.TemporaryDirectory() as d:
            doc_ids = {c["id"] for c in make_report(d, only=PREFIX).document["claims"]}
    finally:
        unregister("zzreport.late")
    assert doc_ids == ids | {"zzreport.late"}
