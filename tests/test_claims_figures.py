"""A user's own figure functions are drawn by the process that runs the check (the parent never imports
the claims file) and reach ``verify --save``, ``report FILE`` and ``report --from``; a plain ``verify``
and the pytest plugin draw nothing; what a hostile check sends instead of a figure is a figure error,
never markup and never a crash, and no verdict changes."""

from __future__ import annotations

import base64
import html
import json
import os
import re
import subprocess
import sys
import textwrap

import pytest

CLAIMS = textwrap.dedent('''
    import os
    from dpverify.claims import claim, Outcome, Verdict, Source

    def _fig(outcome):
        from matplotlib.figure import Figure
        with open(os.environ["ZZFIG_RUNS"], "a") as f:
            f.write("drawn\\n")
        fig = Figure(figsize=(3, 2))
        fig.add_subplot().plot(outcome.figure_data["x"], outcome.figure_data["y"])
        fig._dpverify_caption = "Counts <b>per</b> bin"
        return fig

    def _raises(outcome):
        raise ValueError("boom <b>&amp;</b> 'x'")

    def _exits(outcome):
        raise SystemExit("bye")

    def _junk(outcome):
        return "<script>alert(0)</script>"

    DATA = {"x": [0, 1, 2], "y": [3, 1, 2]}

    def _forge(name, value):  # in the check's own process: what the figure is sent as
        import dpverify.report.figures as F
        import dpverify.claims.server as S
        if name == "drawn":
            S.drawn_figure = lambda r, data: value
        else:
            F.image_to_json = lambda img: value

    def _holds(n):
        import sys
        return Outcome(Verdict.HOLDS, {"n": n, "mpl": "matplotlib" in sys.modules}, figure_data=DATA)

    @claim("zzfig.good", source=Source("My paper", "§1"), statement="a figure", method="exact computation", figure=_fig)
    def _good(thorough=False):
        return _holds(1)

    @claim("zzfig.raises", source=Source("My paper", "§2"), statement="b", method="exact computation", figure=_raises)
    def _r(thorough=False):
        return _holds(2)

    @claim("zzfig.junk", source=Source("My paper", "§3"), statement="c", method="exact computation", figure=_junk)
    def _j(thorough=False):
        return _holds(3)

    @claim("zzfig.exits", source=Source("My paper", "§8"), statement="h", method="exact computation", figure=_exits)
    def _x(thorough=False):
        return _holds(8)

    @claim("zzfig.forged", source=Source("My paper", "§4"), statement="d", method="exact computation", figure=_fig)
    def _f(thorough=False):
        _forge("image", {"png_base64": os.environ["ZZFIG_SCRIPT"], "width": 1, "height": 1,
                         "caption": "<script>alert(1)</script>"})
        return _holds(4)

    @claim("zzfig.header", source=Source("My paper", "§5"), statement="e", method="exact computation", figure=_fig)
    def _h(thorough=False):  # a PNG signature whose header does not give the size stated
        _forge("image", {"png_base64": os.environ["ZZFIG_HEADER"], "width": 1, "height": 1, "caption": ""})
        return _holds(5)

    @claim("zzfig.big", source=Source("My paper", "§6"), statement="f", method="exact computation", figure=_fig)
    def _b(thorough=False):
        _forge("image", {"png_base64": "A" * 8_000_004, "width": 1, "height": 1, "caption": ""})
        return _holds(6)

    @claim("zzfig.malformed", source=Source("My paper", "§7"), statement="g", method="exact computation", figure=_fig)
    def _m(thorough=False):
        _forge("drawn", ["<script>alert(3)</script>"])
        return _holds(7)
''')

ERRORS = {  # claim -> the last line of its figure error
    "zzfig.raises": "ValueError: boom <b>&amp;</b> 'x'",
    "zzfig.junk": "TypeError: fig must be a matplotlib Figure, got str",
    "zzfig.exits": "SystemExit: bye",
    "zzfig.forged": "the check's process sent a figure that is not accepted: the data is not a PNG image "
                    "(no PNG signature and IHDR header)",
    "zzfig.header": "the check's process sent a figure that is not accepted: the PNG header gives the size "
                    "(5, 5), not the 1 × 1 stated",
    "zzfig.big": "the figure function drew a figure with an image larger than 8000000 base64 characters",
    "zzfig.malformed": "the check's process sent a malformed figure (not a drawn image or an error)",
}


@pytest.fixture(scope="module")
def mine(tmp_path_factory):
    """The claims file (in a folder of its own: the run's file guard watches it) and the environment."""
    root = tmp_path_factory.mktemp("figs")
    (root / "c").mkdir()
    (root / "c" / "claims_figs.py").write_text(CLAIMS, encoding="utf-8")
    header = b"\x89PNG\r\n\x1a\n" + b"\x00\x00\x00\x0dIHDR" + (5).to_bytes(4, "big") * 2 + b"\x08\x02\x00\x00\x00"
    env = dict(os.environ, ZZFIG_RUNS=str(root / "runs.txt"),
               ZZFIG_SCRIPT=base64.b64encode(b'"><script>alert(1)</script>').decode("ascii"),
               ZZFIG_HEADER=base64.b64encode(header).decode("ascii"))
    return root, env


def _run(mine, *args, tool="dpverify"):
    root, env = mine
    cmd = [sys.executable, "-m", tool, *args]
    return subprocess.run(cmd, cwd=root / "c", env=env, capture_output=True, text=True, timeout=300)


def _drawn(mine) -> list[str]:
    p = mine[0] / "runs.txt"
    out = p.read_text().split() if p.exists() else []
    p.unlink(missing_ok=True)
    return out


def _check_page(page: str, errors: dict[str, str]) -> None:
    """One figure (the good one), every figure error quoted exactly (escaped), no markup from a check."""
    assert len(re.findall(r'<img src="data:image/png;base64,[A-Za-z0-9+/=]+"', page)) == 1
    assert "Counts &lt;b&gt;per&lt;/b&gt; bin" in page and "<b>per</b>" not in page
    assert "<script" not in page and "alert(" not in page.replace("alert(1)&lt;", "")
    assert "&lt;script&gt;alert(1)" not in page  # the forged caption is dropped with its image
    for cid, err in errors.items():
        assert html.escape(err, quote=True) in page, cid
    assert "<b>&amp;" not in page


def test_plain_verify_draws_no_figure(mine):
    """No figure asked for: no figure function runs (and none is in the output)."""
    _drawn(mine)
    r = _run(mine, "verify", "claims_figs.py", "--json")
    assert r.returncode == 0, r.stderr[-3000:]
    rows = json.loads(r.stdout)
    assert {x["id"]: x["verdict"] for x in rows} == {f"zzfig.{k}": "holds" for k in
                                                      ("good", "raises", "junk", "exits", "forged", "header", "big",
                                                                          "malformed")}
    assert _drawn(mine) == [] and "figure_image" not in r.stdout
    assert not any(x["evidence"]["mpl"] for x in rows)  # matplotlib is not even imported where the checks run


def test_verify_save_and_report_from_keep_a_users_figures(mine, tmp_path):
    """``verify --save``: the good figure's image, each failure's figure error; verdicts as without figures.
    ``report --from`` the saved file: the same figure and errors in the page, nothing drawn again."""
    _drawn(mine)
    saved = tmp_path / "out.json"
    r = _run(mine, "verify", "claims_figs.py", "--save", str(saved))
    assert r.returncode == 0, r.stderr[-3000:]
    assert _drawn(mine) == ["drawn"] * 4  # good, and the three whose image is forged after drawing
    doc = json.loads(saved.read_text(encoding="utf-8"))
    rows = {e["id"]: e for e in doc["claims"]}
    assert all(e["verdict"] == "holds" and e["as_expected"] for e in rows.values())
    good = rows["zzfig.good"]
    png = base64.b64decode(good["figure_image"]["png_base64"], validate=True)
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and good["figure"] is True and good["figure_error"] is None
    assert good["figure_image"]["caption"] == "Counts <b>per</b> bin"
    assert good["figure_data"] == {"x": [0, 1, 2], "y": [3, 1, 2]}  # the data, as before
    for cid, err in ERRORS.items():
        e = rows[cid]
        assert e["figure"] is False and "figure_image" not in e, cid
        assert e["figure_error"].rstrip("\n").splitlines()[-1] == err, (cid, e["figure_error"][-500:])
        assert e["figure_data"] == {"x": [0, 1, 2], "y": [3, 1, 2]}
    assert 'raise ValueError("boom <b>&amp;</b> \'x\'")' in rows["zzfig.raises"]["figure_error"]  # the traceback

    rep = _run(mine, "report", "--from", str(saved), "--out", str(tmp_path / "rep"))
    assert rep.returncode == 0, rep.stderr[-3000:]
    assert _drawn(mine) == []
    page = (tmp_path / "rep" / "report.html").read_text(encoding="utf-8")
    _check_page(page, {k: rows[k]["figure_error"] for k in ERRORS})
    again = {e["id"]: e for e in json.loads((tmp_path / "rep" / "report.json").read_text())["claims"]}
    assert again["zzfig.good"]["figure_image"] == good["figure_image"]
    assert {k: again[k]["figure_error"] for k in ERRORS} == {k: rows[k]["figure_error"] for k in ERRORS}


def test_report_of_a_users_file_draws_its_figures(mine, tmp_path):
    _drawn(mine)
    r = _run(mine, "report", "claims_figs.py", "--out", str(tmp_path / "rep"))
    assert r.returncode == 0, r.stderr[-3000:]
    assert _drawn(mine) == ["drawn"] * 4
    doc = json.loads((tmp_path / "rep" / "report.json").read_text(encoding="utf-8"))
    rows = {e["id"]: e for e in doc["claims"]}
    assert all(e["verdict"] == "holds" for e in rows.values())
    assert rows["zzfig.good"]["figure"] is True
    for cid, err in ERRORS.items():
        assert rows[cid]["figure_error"].rstrip("\n").splitlines()[-1] == err, cid
    _check_page((tmp_path / "rep" / "report.html").read_text(encoding="utf-8"),
                {k: rows[k]["figure_error"] for k in ERRORS})


def test_pytest_plugin_draws_nothing(mine):
    """The pytest plugin runs the same claims file as before: every item passes, no figure is drawn."""
    _drawn(mine)
    r = _run(mine, "-q", "-p", "no:cacheprovider", "-p", "no:randomly", "claims_figs.py", tool="pytest")
    assert r.returncode == 0, r.stdout[-3000:]
    assert "16 passed" in r.stdout, r.stdout[-3000:]  # each claim quick and thorough
    assert _drawn(mine) == []
