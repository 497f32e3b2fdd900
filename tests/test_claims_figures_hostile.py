"""A user's figure function, drawn by the check's process after the check (``verify --save``, ``report``),
cannot change its claim's verdict, evidence or route; what it draws is capped and its text is written
even when it cannot be encoded as UTF-8; a process that ends or hangs while drawing says so; a report
forged by the check's process is held to the engine's rules by the parent (an audit cannot hold)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

CLAIMS = textwrap.dedent('''
    import gc, json, os, sys, time
    from dpverify.claims import claim, Outcome, Verdict, Source
    from dpverify.claims.model import note_sampling

    def _frames():
        f = sys._getframe()
        while f is not None:
            yield f
            f = f.f_back

    def _walker(outcome):  # rewrites every result, outcome and report it can reach on the stack
        from dpverify.claims.model import Outcome as O, Result as R
        for f in _frames():
            for v in list(f.f_locals.values()):
                if isinstance(v, R):
                    v = v.outcome
                if isinstance(v, O):
                    object.__setattr__(v, "verdict", Verdict.HOLDS)
                    object.__setattr__(v, "summary", "forged by the figure")
                    if isinstance(v.evidence, dict):
                        v.evidence["route"] = "exact computation"
                        v.evidence.pop("sampling_ran", None)
                if isinstance(v, dict) and "verdict" in v:
                    v.update(verdict="holds", summary="forged by the figure")
        outcome.evidence["route"] = "exact computation"
        outcome.evidence["eps"] = "forged by the figure"
        from matplotlib.figure import Figure
        fig = Figure(figsize=(1, 1))
        fig.add_subplot().plot([0, 1], [0, 1])
        return fig

    def _surrogate(outcome):
        raise FileNotFoundError("no data file " + b"caf\\xe9.csv".decode("utf-8", "surrogateescape"))

    def _long_caption(outcome):
        from matplotlib.figure import Figure
        fig = Figure(figsize=(1, 1))
        fig.add_subplot()
        fig._dpverify_caption = "x" * 70_000_000  # more than a report may carry
        return fig

    def _exits(outcome):
        os._exit(3)

    def _hangs(outcome):
        while True:
            time.sleep(0.05)

    def _forge(verdict, figure):  # what a check can do without any figure: send a report of its own
        from multiprocessing.connection import Connection
        i = next(f.f_locals["i"] for f in _frames() if "i" in f.f_locals)
        w = [o for o in gc.get_objects() if isinstance(o, Connection) and o.writable and not o.closed]
        msg = {"i": i, "kind": "ok", "left": 0, "tampered": None, "threads": 0, "verdict": verdict,
               "evidence": {"route": "audit"}, "figure": figure, "seconds": 0.0, "error": None,
               "summary": "forged", "drawn": None}
        w[-1].send_bytes(json.dumps(msg).encode())
        os._exit(0)

    def _deep(n):
        x = 1
        for _ in range(n):
            x = [x]
        return x

    @claim("zzhost.audit", source=Source("p"), statement="s", method="audit", expected="refuted", figure=_walker)
    def _a(thorough=False):
        return Outcome(Verdict.INCONCLUSIVE, {"n": 1}, figure_data={"x": [1]}, summary="no violation found")

    @claim("zzhost.sim", source=Source("p"), statement="s", method="simulation", figure=_walker)
    def _s(thorough=False):
        note_sampling("simulation")
        return Outcome(Verdict.HOLDS, {"eps": 1.0}, figure_data={"x": [1]}, summary="ok")

    @claim("zzhost.surrogate", source=Source("p"), statement="s", method="property", figure=_surrogate)
    def _u(thorough=False):
        return Outcome(Verdict.HOLDS, {"f": b"caf\\xe9".decode("utf-8", "surrogateescape")}, summary="ok")

    @claim("zzhost.caption", source=Source("p"), statement="s", method="property", figure=_long_caption)
    def _c(thorough=False):
        return Outcome(Verdict.HOLDS, {"n": 1}, summary="ok")

    @claim("zzhost.exits", source=Source("p"), statement="s", method="property", figure=_exits)
    def _e(thorough=False):
        return Outcome(Verdict.HOLDS, {"n": 1}, summary="ok")

    @claim("zzhost.hangs", source=Source("p"), statement="s", method="property", figure=_hangs, timeout=3)
    def _h(thorough=False):
        return Outcome(Verdict.HOLDS, {"n": 1}, summary="ok")

    @claim("zzhost.forged", source=Source("p"), statement="s", method="audit", expected="refuted")
    def _f(thorough=False):
        _forge("holds", None)

    @claim("zzhost.deep", source=Source("p"), statement="s", method="audit", expected="refuted")
    def _d(thorough=False):
        _forge("refuted", _deep(300))
''')

NOFIG = textwrap.dedent('''
    import sys
    from dpverify.claims import claim, Outcome, Verdict, Source

    @claim("zznofig.x", source=Source("p"), statement="s", method="property")
    def _x(thorough=False):
        return Outcome(Verdict.HOLDS, {"mpl": "matplotlib" in sys.modules}, summary="ok")
''')


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    """``verify claims_host.py --save``: the saved document's rows by id, and the folder."""
    root = tmp_path_factory.mktemp("host")
    (root / "c").mkdir()
    (root / "c" / "claims_host.py").write_text(CLAIMS, encoding="utf-8")
    out = root / "out.json"
    r = subprocess.run([sys.executable, "-m", "dpverify", "verify", "claims_host.py", "--save", str(out), "--jobs", "2"],
                       cwd=root / "c", capture_output=True, text=True, timeout=300)
    assert out.exists(), r.stderr[-3000:]
    doc = json.loads(out.read_text(encoding="utf-8"))
    return {e["id"]: e for e in doc["claims"]}, root


def test_a_figure_function_changes_nothing_the_check_reported(saved):
    rows, _ = saved
    a = rows["zzhost.audit"]  # an audit can only refute: the figure function could make it "holds" before
    assert (a["verdict"], a["summary"]) == ("inconclusive", "no violation found")
    assert a["evidence"] == {"n": 1, "route": "audit"}
    s = rows["zzhost.sim"]
    assert (s["verdict"], s["summary"]) == ("holds", "ok")
    assert s["evidence"] == {"eps": 1.0, "route": "simulation", "sampling_ran": "simulation"}
    assert s["figure"] is True and a["figure"] is True  # the figure is still drawn, from a copy


def test_the_parent_holds_a_forged_report_to_the_engines_rules(saved):
    rows, _ = saved
    f = rows["zzhost.forged"]
    assert f["verdict"] == "error" and "an audit can only conclude" in f["summary"], f["summary"]
    d = rows["zzhost.deep"]
    assert d["verdict"] == "error" and "nested deeper than 150 levels" in d["summary"], d["summary"]


def test_text_that_is_not_utf8_is_escaped_not_a_crash(saved, tmp_path):
    rows, root = saved
    u = rows["zzhost.surrogate"]
    assert u["verdict"] == "holds" and u["evidence"]["f"] == "caf\\udce9"
    assert u["figure_error"].rstrip().splitlines()[-1] == "FileNotFoundError: no data file caf\\udce9.csv"
    rep = subprocess.run([sys.executable, "-m", "dpverify", "report", "--from", str(root / "out.json"), "--out",
                          str(tmp_path / "rep")], capture_output=True, text=True, timeout=300)
    assert rep.returncode == 1 and "Traceback" not in rep.stderr, rep.stderr[-3000:]  # 1: some claims are errors
    assert "caf\\udce9.csv" in (tmp_path / "rep" / "report.html").read_text(encoding="utf-8")


def test_a_long_caption_is_a_figure_error_of_its_own_claim(saved):
    c = saved[0]["zzhost.caption"]
    assert c["verdict"] == "holds" and c["figure"] is False
    assert c["figure_error"] == "the figure function drew a figure with a caption longer than 10000 characters"


def test_a_process_that_ends_or_hangs_while_drawing_says_so(saved):
    rows, _ = saved
    e, h = rows["zzhost.exits"], rows["zzhost.hangs"]
    assert e["verdict"] == "error" and "exited with code 3 while drawing its figure" in e["summary"], e["summary"]
    assert h["verdict"] == "error" and "ran past its 3 s limit, while drawing its figure" in h["summary"], h["summary"]


def test_only_a_file_with_a_figure_imports_drawing_and_before_any_check(tmp_path):
    """The loading child records which claims have a figure; the parent imports matplotlib (once, before
    any worker is forked, so in no claim's time) only when one of them does and figures are kept."""
    (tmp_path / "claims_nofig.py").write_text(NOFIG, encoding="utf-8")
    (tmp_path / "claims_host.py").write_text(CLAIMS, encoding="utf-8")
    code = textwrap.dedent('''
        import sys
        from dpverify.claims.loading import claims_to_run
        from dpverify.claims.remote import wants_figure
        _, claims, _ = claims_to_run(["claims_nofig.py"], figures=True)
        print([wants_figure(c) for c in claims], "matplotlib" in sys.modules)
        _, claims, _ = claims_to_run(["claims_host.py"], figures=False)
        print(sorted({wants_figure(c) for c in claims}), "matplotlib" in sys.modules)
        _, claims, _ = claims_to_run(["claims_host.py"], figures=True)
        print(sorted({wants_figure(c) for c in claims}), "matplotlib" in sys.modules)
    ''')
    r = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=120,
                       env=dict(os.environ, MPLBACKEND="Agg"))
    assert r.stdout.split("\n")[:3] == ["[False] False", "[False] False", "[False, True] True"], r.stderr[-2000:]
    out = tmp_path / "nofig.json"
    v = subprocess.run([sys.executable, "-m", "dpverify", "verify", "claims_nofig.py", "--save", str(out)],
                       cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert v.returncode == 0, v.stderr[-2000:]
    (row,) = json.loads(out.read_text(encoding="utf-8"))["claims"]
    assert row["evidence"]["mpl"] is False  # the check of a file without figures runs without matplotlib
