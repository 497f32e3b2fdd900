"""Issue 31, second review: claims files that attack the supervision itself cannot turn a run green.

Each case is a claims file from the review, adapted: a check that sends the parent a pickle
whose ``__reduce__`` calls ``os._exit(0)``; a check that forges reports for other claims (as
pickles, and as well-formed JSON for another task or a second time); a check that monkeypatches
the supervisor so later claims report their expected verdict (a module attribute, a function's
code, or from a thread that does it after the check returned); a file nested too deeply to parse
(that exits at import); a check that escapes by double fork and ``setsid``; a check that prints a
fake JSON result to stdout; a check that modifies a module beside its file and creates a file.
Each runs through ``dpverify verify FILE --json`` (``--jobs 1``; ``--jobs 2`` and pytest are
marked slow: a subprocess each), in a subprocess, and through pytest: the exit status is non-zero, the named claims have the stated verdicts (the
attacker's own claim an ``error`` naming the reason), and stdout never holds the fake JSON.

Before the fix (the supervisor of the first wave of issue 31) the pickle case exited 0 with the
fake JSON, the forge and monkeypatch cases reported later claims as holding, the deep file ended
with a traceback, the escaped process outlived the run, the print case put the fake JSON before
the real one, and the tree case reported ``holds``.

A two-faced file (it exits 0 only in the process named ``MainProcess``) fooled pytest, which imported
the file itself to collect it, and ``dpverify verify``, which imported it after a guarded load;
neither imports a claims file in its own process now (:mod:`dpverify.claims.remote`).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import pytest

import dpverify

FAKE = '[{"id": "FAKEGREEN.a", "verdict": "holds"}]'

HEAD = '''import os, sys, time
from dpverify.claims import Outcome, Source, Verdict, claim

def _results_conn():  # the open pipe a check's process reports on, found through the stack
    f = sys._getframe()
    while f is not None:
        for name in ("writer", "results"):
            conn = f.f_locals.get(name)
            if hasattr(conn, "send_bytes") and not conn.closed:
                return conn
        f = f.f_back

def _claim(name, **kw):
    return claim("{room}." + name, source=Source("mine"), statement="s", method="property", **kw)

@_claim("z_refuted")
def _z(thorough=False):
    return Outcome(Verdict.REFUTED, {{"why": "really refuted"}})
'''

PICKLE = '''
class Boom:
    def __reduce__(self):
        return (os._exit, (0,))

@_claim("a_attacker")
def _a(thorough=False):
    os.write(1, FAKE.encode() + b"\\n")
    _results_conn().send(Boom())
    time.sleep(5)
    return Outcome(Verdict.HOLDS)
'''

FORGE_PICKLE = '''
@_claim("a_attacker")
def _a(thorough=False):
    for i in range(4):
        _results_conn().send((i, "ok", ("holds", {"route": "property"}, None, 0.01, None, ""), 0))
    return Outcome(Verdict.HOLDS)
'''

FORGE_JSON = '''
import json
@_claim("a_attacker")
def _a(thorough=False):
    for i in range(4):  # one of them is its own task: then a second message
        msg = {"i": i, "kind": "ok", "left": 0, "verdict": "holds", "evidence": {"route": "property"},
               "figure": None, "seconds": 0.01, "error": None, "summary": ""}
        _results_conn().send_bytes(json.dumps(msg).encode())
    return Outcome(Verdict.HOLDS)
'''

PATCH = '''
@_claim("a_attacker")
def _a(thorough=False):
    import dpverify.claims.server as s
    orig = s.payload
    def fake(run, c, thorough):
        v, ev, fig, secs, err, summ = orig(run, c, thorough)
        return (c.expected.value, ev, fig, secs, None, summ)
    s.payload = fake
    return Outcome(Verdict.HOLDS)

@_claim("b_broken")
def _b(thorough=False):
    raise RuntimeError("broken")
'''

CODESWAP = '''
@_claim("a_attacker")
def _a(thorough=False):
    import dpverify.claims.runner as r
    def fake(c, *, thorough=False):
        from dpverify.claims.model import Outcome, Result
        return Result(c, Outcome(c.expected, {"route": "property"}), 0.0, None)
    r.run_claim.__code__ = fake.__code__
    return Outcome(Verdict.HOLDS)

@_claim("b_broken")
def _b(thorough=False):
    raise RuntimeError("broken")
'''

THREAD = '''
import threading
@_claim("a_attacker")
def _a(thorough=False):
    def later():
        time.sleep(0.3)
        import dpverify.claims.server as s
        orig = s.payload
        s.payload = lambda run, c, thorough: (c.expected.value,) + tuple(orig(run, c, thorough))[1:]
    threading.Thread(target=later, daemon=True).start()
    return Outcome(Verdict.HOLDS)

@_claim("b_broken")
def _b(thorough=False):
    time.sleep(0.6)
    raise RuntimeError("broken")
'''

HIDE = '''
def _in_loading_child():
    f = sys._getframe()
    while f is not None:
        if f.f_code.co_name == "_records":
            return True
        f = f.f_back
    return False

@_claim("a_attacker")
def _a(thorough=False):
    return Outcome(Verdict.HOLDS)

if not _in_loading_child():  # declared, but hidden from the loading child
    @claim("zzhosthide.y_hidden", source=Source("mine"), statement="s", method="property")
    def _y(thorough=False):
        return Outcome(Verdict.REFUTED)
'''

DEEP = "os._exit(0)\n" + "X = " + "+".join(["1"] * 3000) + "\n" + '''
@_claim("a_attacker")
def _a(thorough=False):
    return Outcome(Verdict.HOLDS)
'''

ESCAPE = '''
@_claim("a_attacker")
def _a(thorough=False):
    pid = os.fork()
    if pid == 0:
        os.setsid()
        if os.fork() == 0:
            with open(os.environ["ZZHOST_PIDS"] + "/escaped.pid", "w") as f:
                f.write(str(os.getpid()))
            time.sleep(60)
            os._exit(0)
        os._exit(0)
    os.waitpid(pid, 0)
    deadline = time.time() + 5
    while not os.path.exists(os.environ["ZZHOST_PIDS"] + "/escaped.pid") and time.time() < deadline:
        time.sleep(0.01)
    return Outcome(Verdict.HOLDS)
'''

PRINT = '''
@_claim("a_attacker")
def _a(thorough=False):
    print(FAKE, flush=True)
    os.write(1, FAKE.encode() + b"\\n")
    return Outcome(Verdict.REFUTED)
'''

TREE = '''
import helper_mod

@_claim("a_attacker")
def _a(thorough=False):
    with open(helper_mod.__file__, "a") as f:
        f.write("LIMIT = 999\\n")
    with open(os.path.join(os.path.dirname(__file__), "notes_claims_data.json"), "w") as f:
        f.write("{}")
    return Outcome(Verdict.HOLDS)
'''

TWOFACE = '''
import multiprocessing
if multiprocessing.current_process().name == "MainProcess":
    os.write(1, FAKE.encode() + b"\\n")
    os._exit(0)

@_claim("a_attacker")
def _a(thorough=False):
    return Outcome(Verdict.HOLDS)
'''

# name: (file body, {claim name: verdict} (None: one error row for the file), text in the attacker's row)
CASES = {
    # the check's process sends its worker more than its one report: "sent a second message" (or,
    # where it reports to the supervisor itself, "malformed message")
    "pickle": (PICKLE, {"a_attacker": "error", "z_refuted": "refuted"}, "message"),
    "forge_pickle": (FORGE_PICKLE, {"a_attacker": "error", "z_refuted": "refuted"}, "message"),
    "forge_json": (FORGE_JSON, {"a_attacker": "error", "z_refuted": "refuted"}, "message"),
    # each check of a user's file runs in a fresh process: a patch reaches nothing but its own claim
    "monkeypatch": (PATCH, {"a_attacker": "holds", "b_broken": "error", "z_refuted": "refuted"}, ""),
    "codeswap": (CODESWAP, {"a_attacker": "holds", "b_broken": "error", "z_refuted": "refuted"}, ""),
    "thread": (THREAD, {"a_attacker": "holds", "b_broken": "error", "z_refuted": "refuted"}, ""),
    # every claim of the file is an error (its worker sees a claim the loading child did not report),
    # and the hidden claim, declared in the text, has an error row of its own
    "hide": (HIDE, {"a_attacker": "error", "y_hidden": "error", "z_refuted": "error"}, "did not report"),
    "deep": (DEEP, None, "RecursionError"),
    "escape": (ESCAPE, {"a_attacker": "error", "z_refuted": "refuted"}, "process(es) running"),
    "print": (PRINT, {"a_attacker": "refuted", "z_refuted": "refuted"}, ""),
    "tree": (TREE, {"a_attacker": "error", "z_refuted": "refuted"}, "modified"),
    "twoface": (TWOFACE, {"a_attacker": "holds", "z_refuted": "refuted"}, ""),
}
XFAIL: dict = {}  # none left: the parent (verify's, pytest's) never imports a claims file


def _write(case: str, tmp_path) -> tuple[str, object, dict]:
    body, _, _ = CASES[case]
    room = f"zzhost{case.replace('_', '')}"
    folder = tmp_path / "claims"
    folder.mkdir()
    pids = tmp_path / "pids"
    pids.mkdir()
    (folder / "helper_mod.py").write_text("LIMIT = 1\n")
    f = folder / f"claims_{case}.py"
    f.write_text((HEAD.replace("{room}", room).replace("{{", "{").replace("}}", "}")
                  + f"FAKE = {FAKE!r}\n" + body))
    env = {**os.environ, "ZZHOST_PIDS": str(pids),
           "PYTHONPATH": os.path.dirname(os.path.dirname(dpverify.__file__))}  # this dpverify, in the child too
    return room, f, env


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rpartition(")")[2].split()[0] != "Z"
    except FileNotFoundError:
        return False


def _no_escaped_process(tmp_path) -> None:
    p = tmp_path / "pids" / "escaped.pid"
    if p.exists():
        pid = int(p.read_text())
        deadline = time.time() + 5
        while time.time() < deadline and _alive(pid):
            time.sleep(0.05)
        assert not _alive(pid), "the process the check left running outlived the run"


@pytest.mark.parametrize("mode", ["jobs1", pytest.param("jobs2", marks=pytest.mark.slow),
                                  pytest.param("pytest", marks=pytest.mark.slow)])
@pytest.mark.parametrize("case", sorted(CASES))
def test_hostile_claims_file_cannot_turn_the_run_green(case, mode, tmp_path, request):
    kind = "pytest" if mode == "pytest" else "verify"
    if (case, kind) in XFAIL:
        request.applymarker(pytest.mark.xfail(reason=XFAIL[case, kind], strict=True))
    room, f, env = _write(case, tmp_path)
    _, verdicts, text = CASES[case]
    if kind == "pytest":
        proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly",
                               f.name], cwd=f.parent, env=env, capture_output=True, text=True, timeout=120)
        assert proc.returncode != 0, proc.stdout[-3000:]
        failing = [k for k, v in (verdicts or {"a_attacker": "error"}).items() if v != "holds"]
        for name in failing if verdicts else []:
            assert f"{room}.{name}" in proc.stdout, (name, proc.stdout[-3000:])
        if verdicts is None:
            assert "RecursionError" in proc.stdout and "claims_deep.py" in proc.stdout, proc.stdout[-3000:]
        _no_escaped_process(tmp_path)
        return
    proc = subprocess.run([sys.executable, "-m", "dpverify", "verify", str(f), "--json", "--jobs", mode[-1]],
                          cwd=tmp_path / "pids", env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode != 0, (proc.stdout[-2000:], proc.stderr[-2000:])
    assert "FAKEGREEN" not in proc.stdout, proc.stdout[:2000]
    rows = {r["id"]: r for r in json.loads(proc.stdout)}  # stdout is the JSON alone
    if verdicts is None:
        assert len(rows) == 1 and all(r["verdict"] == "error" and text in r["summary"] for r in rows.values()), rows
    else:
        got = {k: rows[f"{room}.{k}"]["verdict"] for k in verdicts}
        if mode == "jobs2" and case in ("escape", "tree"):  # what is seen while both ran is blamed on both
            got["z_refuted"] = "refuted" if text in rows[f"{room}.z_refuted"]["summary"] else got["z_refuted"]
        assert got == verdicts, rows
        assert text in rows[f"{room}.a_attacker"]["summary"], rows[f"{room}.a_attacker"]
    _no_escaped_process(tmp_path)


def _report(**change):
    msg = {"i": 3, "kind": "ok", "left": 0, "tampered": None, "threads": 0, "verdict": "holds", "evidence": {"route": "property"},
           "figure": None, "seconds": 0.5, "error": None, "summary": ""}
    return {**msg, **change}


@pytest.mark.parametrize("change", [
    {"i": 2}, {"i": True}, {"i": "3"}, {"verdict": "fine"}, {"verdict": ["holds"]}, {"evidence": []},
    {"seconds": -1.0}, {"seconds": 1}, {"seconds": "inf"}, {"left": -1}, {"left": 1.0}, {"error": 3},
    {"summary": {}}, {"kind": "done"}, {"extra": 1}, {"threads": -1}, {"threads": 1.0}, {"tampered": 3},
    {"tampered": ""},
])
def test_a_report_is_checked_field_by_field(change):
    from dpverify.claims.protocol import ProtocolError, check_result

    check_result(_report(), 3)  # the well-formed report passes: each change below is what flips it
    with pytest.raises(ProtocolError):
        check_result(_report(**change), 3)


def test_a_message_is_json_bytes_never_a_pickle():
    import multiprocessing as mp
    import pickle

    from dpverify.claims.protocol import ProtocolError, read_result, send

    reader, writer = mp.Pipe(duplex=False)
    send(writer, _report())
    assert read_result(reader, 3)["verdict"] == "holds"
    writer.send_bytes(pickle.dumps(("not", "json")))
    with pytest.raises(ProtocolError, match="not JSON"):
        read_result(reader, 3)
    writer.send_bytes(b'{"i": NaN}')
    with pytest.raises(ProtocolError, match="not JSON"):
        read_result(reader, 3)


def test_the_tree_snapshot_sees_new_removed_and_changed_files_but_not_caches(tmp_path):
    from dpverify.claims.treeguard import TreeSnapshot

    (tmp_path / "a.py").write_text("x = 1\n")
    (tmp_path / "__pycache__").mkdir()
    snap = TreeSnapshot([str(tmp_path)])
    assert snap.changed() is None
    (tmp_path / "__pycache__" / "a.pyc").write_bytes(b"0")
    (tmp_path / "dpverify-stack-1.txt").write_text("")
    assert snap.changed() is None
    (tmp_path / "b.json").write_text("{}")
    assert snap.changed().endswith("b.json (created)")
    assert snap.changed() is None  # one claim is blamed per change
    with open(tmp_path / "a.py", "a") as f:
        f.write("y = 2\n")
    assert snap.changed().endswith("a.py (changed)")
    (tmp_path / "b.json").unlink()
    assert snap.changed().endswith("b.json (removed)")


def test_a_folder_past_the_cap_is_not_listed_and_says_so(tmp_path, monkeypatch):
    from dpverify.claims import treeguard

    monkeypatch.setattr(treeguard, "MAX_FILES", 3)
    for k in range(5):
        (tmp_path / f"f{k}.txt").write_text("")
    snap = treeguard.TreeSnapshot([str(tmp_path)])
    assert snap.folders == [] and "more than 3 files" in snap.notes[0]


def test_a_shared_worker_retires_after_a_check_that_patched_the_engine():
    """Claims that share a long-lived worker (the shipped rooms' group; here, claims defined in this
    test module) are kept apart by the engine tripwire: the check that rebinds an engine function or
    swaps its code is an ``error`` naming it, and the next claim runs in a fresh worker, reporting
    its own verdict.  Without the tripwire the victim would report ``holds``."""
    from dpverify.claims.model import Claim, Method, Outcome, Source, Verdict
    from dpverify.claims.runner import run_claim
    from dpverify.claims.supervisor import supervise

    def rebind(thorough=False):
        import dpverify.claims.server as s

        orig = s.payload
        s.payload = lambda run, c, thorough: (c.expected.value,) + tuple(orig(run, c, thorough))[1:]
        return Outcome(Verdict.HOLDS)

    def swap(thorough=False):
        import dpverify.claims.execute as e

        def fake(c, outcome, sampled=()):
            from dpverify.claims.model import Outcome as O
            return O(c.expected, {"route": "property"})
        e.with_route.__code__ = fake.__code__
        return Outcome(Verdict.HOLDS)

    def victim(thorough=False):
        return Outcome(Verdict.REFUTED, {"why": "really"})

    def mk(name, check):
        return Claim(f"zzshared.{name}", Source("mine"), "s", Method.PROPERTY, Verdict.HOLDS, check)

    for attack, where in ((rebind, "dpverify.claims.server.payload"), (swap, "dpverify.claims.execute.with_route")):
        res = supervise([mk("a", attack), mk("b", victim)], run_claim, thorough=False, jobs=1, timeout=60)
        assert res[0].verdict is Verdict.ERROR and where in res[0].outcome.summary, res[0].outcome.summary
        assert res[1].verdict is Verdict.REFUTED, res[1].outcome.summary
