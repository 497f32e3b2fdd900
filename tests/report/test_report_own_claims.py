"""``dpverify report PATH``: the report of a user's own claims file, run supervised; ``--from`` the same
page without running anything; the status line first; JSON-form evidence rendered as in-process."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import textwrap

import pytest

CLAIMS = textwrap.dedent('''
    import os
    from dpverify.claims import claim, Outcome, Verdict, Source

    @claim("mine.bound", source=Source("My paper", "§2", "(3)"), statement="The bound `B(0)` is e^ε-infinite.",
           method="exact computation")
    def _bound(thorough=False):
        with open(os.environ["MINE_RUNS"], "a") as f:
            f.write("bound\\n")
        return Outcome(Verdict.HOLDS, {"bound_at_zero": float("inf"), "naive_noise_is_lap(1/eps)_gap": 0.5,
                                       "printed_excerpt": "MT2m-1-1R(1)"})

    @claim("mine.sum", source=Source("My paper", "§1"), statement="1 + 1 = 2", method="exact computation",
           expected=os.environ.get("MINE_EXPECTED", "holds"))
    def _sum(thorough=False):
        return Outcome(Verdict.HOLDS, {"sum": 2})
''')


def _dpverify(tmp_path, *args, env_extra=None):
    import os

    # the runs file is outside the claims' folder: a check that writes into it is an error (the tree guard)
    env = dict(os.environ, MINE_RUNS=str(tmp_path.parent / f"{tmp_path.name}-runs.txt"), **(env_extra or {}))
    return subprocess.run([sys.executable, "-m", "dpverify", *args], cwd=tmp_path, capture_output=True,
                          text=True, timeout=300, env=env)


def _articles(page: str) -> str:
    """The claims' articles, without the run time (which differs between two runs)."""
    arts = re.findall(r"<article .*?</article>", page, re.S)
    return "\n".join(re.sub(r"\d+\.\d\d s", "", a) for a in arts)


@pytest.fixture
def mine(tmp_path):
    (tmp_path / "my_claims.py").write_text(CLAIMS, encoding="utf-8")
    return tmp_path


def test_report_of_a_users_claims_file(mine):
    r = _dpverify(mine, "report", "my_claims.py", "--out", "rep")
    assert r.returncode == 0, r.stderr
    page = (mine / "rep" / "report.html").read_text(encoding="utf-8")
    doc = json.loads((mine / "rep" / "report.json").read_text(encoding="utf-8"))
    assert sorted(c["id"] for c in doc["claims"]) == ["mine.bound", "mine.sum"]
    # the status line comes first, green, with the counts, version and date
    status = re.search(r'<p id="status" class="status (ok|bad)"[^>]*>(.*?)</p>', page, re.S)
    assert status and status.group(1) == "ok" and "All 2 claims gave the expected verdict" in status.group(2)
    assert page.index('id="status"') < page.index("<section") and "dpverify " in status.group(2)
    # a supervised run's evidence arrives as JSON ("inf"): shown as ∞, as an in-process run shows it
    assert doc["claims"][0]["evidence"]["bound_at_zero"] == "inf"
    assert "<td>∞</td>" in page and "<td>inf</td>" not in page
    assert ">Naive noise is Lap(1/ε) gap<" in page  # humanised key
    assert "MT2m-1-1R(1)" not in page and "MT2m-1-1R(1)" in json.dumps(doc)  # the excerpt: JSON only
    assert "<code>B(0)</code>" in page and "<msup><mi>e</mi><mi>ε</mi></msup>" in page  # backticks and math set, not shown raw
    assert (mine.parent / f"{mine.name}-runs.txt").read_text().split() == ["bound"]  # ran once


def test_status_line_is_red_when_a_verdict_differs(mine):
    r = _dpverify(mine, "report", "my_claims.py", "--out", "rep", env_extra={"MINE_EXPECTED": "refuted"})
    assert r.returncode == 1
    page = (mine / "rep" / "report.html").read_text(encoding="utf-8")
    status = re.search(r'<p id="status" class="status (ok|bad)"[^>]*>(.*?)</p>', page, re.S)
    assert status.group(1) == "bad" and "1 of 2 claims differ from the expected verdict" in status.group(2)


def test_from_saved_results_gives_the_same_page_without_running(mine):
    r = _dpverify(mine, "verify", "my_claims.py", "--save", "saved.json")
    assert r.returncode == 0, r.stderr
    r = _dpverify(mine, "report", "my_claims.py", "--out", "live")
    assert r.returncode == 0, r.stderr
    runs = (mine.parent / f"{mine.name}-runs.txt").read_text().split()
    r = _dpverify(mine, "report", "--from", "saved.json", "--out", "saved")
    assert r.returncode == 0, r.stderr
    assert (mine.parent / f"{mine.name}-runs.txt").read_text().split() == runs  # --from ran nothing
    live = (mine / "live" / "report.html").read_text(encoding="utf-8")
    saved = (mine / "saved" / "report.html").read_text(encoding="utf-8")
    assert _articles(live) == _articles(saved) and "∞" in _articles(saved)


def test_in_process_and_supervised_runs_render_alike(tmp_path):
    """The page is drawn from the JSON form of the evidence: a float, a sympy expression and a Fraction
    look the same whether the check ran here or in a worker."""
    from fractions import Fraction

    import sympy as sp

    from dpverify.claims import Outcome, Source, Verdict, claim, get_claim, result_to_json, run_claims, unregister
    from dpverify.report.render import render_html

    @claim("zzalike.x", source=Source("My paper", "§1"), statement="x", method="exact computation")
    def _x(thorough=False):
        return Outcome(Verdict.HOLDS, {"b": float("inf"), "f": sp.Rational(1, 3) + sp.sqrt(2),
                                       "q": Fraction(1, 3), "n": float("-inf")})

    try:
        c = get_claim("zzalike.x")
        here = run_claims([c], supervised=False)
        there = run_claims([c], supervised=True)
    finally:
        unregister("zzalike.x")

    def page(results):
        doc = {"claims": [{**result_to_json(r), "seconds": 0.0} for r in results], "provenance": {}, "summary": {}}
        return _articles(render_html(doc))

    assert page(here) == page(there)
    assert "∞" in page(here) and "−∞" in page(here) and "<math" in page(here)


def test_paths_and_from_together_are_refused(mine):
    r = _dpverify(mine, "report", "my_claims.py", "--from", "x.json", "--out", "rep")
    assert r.returncode == 2 and "not both" in r.stderr and r.stderr.count("\n") == 1


def test_a_file_that_dies_at_import_gives_error_rows(mine):
    (mine / "claims_dies.py").write_text(textwrap.dedent('''
        import os
        from dpverify.claims import claim, Outcome, Verdict, Source
        os._exit(0)

        @claim("dies.a", source=Source("p"), statement="a", method="property")
        def _a(thorough=False):
            return Outcome(Verdict.HOLDS)
    '''), encoding="utf-8")
    r = _dpverify(mine, "report", "claims_dies.py", "--out", "rep")
    assert r.returncode == 1, r.stderr
    doc = json.loads((mine / "rep" / "report.json").read_text(encoding="utf-8"))
    assert [(c["id"], c["verdict"]) for c in doc["claims"]] == [("dies.a", "error")]



@pytest.fixture
def figure_claim(tmp_path):
    """A claim registered in this process whose figure function counts its calls."""
    from matplotlib.figure import Figure

    from dpverify.claims import Outcome, Source, Verdict, claim, unregister

    calls = []

    def figure(outcome):
        calls.append(1)
        fig = Figure(figsize=(2, 1))
        fig.add_subplot().plot([1, 2, 3], outcome.figure_data["y"])
        return fig

    @claim("zzfigsaved.fig", source=Source("My paper", "§4"), statement="a figure", method="exact computation",
           figure=figure)
    def _fig(thorough=False):
        return Outcome(Verdict.HOLDS, {"n": 3}, figure_data={"y": [0.0, 1.0, 0.5]})

    yield calls
    unregister("zzfigsaved.fig")


def test_from_uses_the_figures_verify_saved(figure_claim, tmp_path, capsys):
    from dpverify.cli import main

    saved = tmp_path / "saved.json"
    assert main(["verify", "--only", "zzfigsaved.", "--save", str(saved)]) == 0
    assert len(figure_claim) == 1
    assert main(["report", "--from", str(saved), "--out", str(tmp_path / "rep")]) == 0
    assert len(figure_claim) == 1  # not drawn again
    page = (tmp_path / "rep" / "report.html").read_text(encoding="utf-8")
    assert page.count("<figure>") == 1 and "data:image/png;base64," in page
    # flips: an image that is not a PNG is not embedded; the figure is drawn again instead
    doc = json.loads(saved.read_text(encoding="utf-8"))
    doc["claims"][0]["figure_image"]["png_base64"] = "PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg=="
    (tmp_path / "tampered.json").write_text(json.dumps(doc), encoding="utf-8")
    assert main(["report", "--from", str(tmp_path / "tampered.json"), "--out", str(tmp_path / "rep2")]) == 0
    assert len(figure_claim) == 2
    page2 = (tmp_path / "rep2" / "report.html").read_text(encoding="utf-8")
    assert "PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg" not in page2 and page2.count("<figure>") == 1
