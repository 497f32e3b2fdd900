"""The runner under a report: stuck, crashing and dying claims never stop the others.

Regression tests for the parallel path (each claim in its own forked process):
with a pool of reusable workers, claims stuck in every worker blocked the
queue, and queued claims were reported as timed out without ever running.
"""

from __future__ import annotations

import os
import time

import pytest

from dpverify.claims import Outcome, Source, Verdict, all_claims, claim, run_claims, unregister
from dpverify.report import make_report

IDS = ("zzrun.a_stuck", "zzrun.b_stuck", "zzrun.c_ok", "zzrun.d_dies", "zzrun.e_ok")


def _stuck(thorough=False):
    time.sleep(60)
    return Outcome(Verdict.HOLDS)


def _ok(thorough=False):
    return Outcome(Verdict.HOLDS if sum(range(5)) == 10 else Verdict.REFUTED, {"sum": sum(range(5))})


def _dies(thorough=False):
    os._exit(3)  # the interpreter itself goes away (as on a segfault in a solver)


@pytest.fixture
def stuck_claims():
    for cid, fn in zip(IDS, (_stuck, _stuck, _ok, _dies, _ok)):
        claim(cid, source=Source("seed-x"), statement=cid, method="property")(fn)
    yield
    for cid in IDS:
        unregister(cid)


def test_stuck_claims_in_every_worker_do_not_block_the_rest(stuck_claims):
    t0 = time.perf_counter()
    res = run_claims(all_claims("zzrun."), jobs=2, timeout=1.5)
    wall = time.perf_counter() - t0
    by = {r.claim.id: r for r in res}
    assert [r.claim.id for r in res] == list(IDS)
    for cid in ("zzrun.a_stuck", "zzrun.b_stuck"):
        assert by[cid].verdict == Verdict.ERROR
        assert by[cid].outcome.evidence["error"] == "timed out after 1.5 s"
        assert by[cid].seconds >= 1.5
    # the claims that waited for a free worker ran and were not charged for the wait
    assert by["zzrun.c_ok"].verdict == Verdict.HOLDS and by["zzrun.c_ok"].error is None
    assert by["zzrun.e_ok"].verdict == Verdict.HOLDS
    assert by["zzrun.d_dies"].verdict == Verdict.ERROR
    assert "exited with code 3" in by["zzrun.d_dies"].outcome.evidence["error"]
    assert wall < 20, wall


def test_timeout_with_one_job_isolates(stuck_claims, tmp_path):
    claims = [c for c in all_claims("zzrun.") if c.id in ("zzrun.a_stuck", "zzrun.c_ok")]
    with pytest.raises(TypeError, match="isolate"):
        run_claims(claims, isolate=1)
    t0 = time.perf_counter()
    rep = make_report(tmp_path, claims=claims, jobs=1, timeout=1.0)
    assert time.perf_counter() - t0 < 20
    by = {c["id"]: c for c in rep.document["claims"]}
    assert by["zzrun.a_stuck"]["verdict"] == "error" and "exceeded 1 s" in by["zzrun.a_stuck"]["error"]
    assert by["zzrun.c_ok"]["verdict"] == "holds"
    page = rep.html.read_text(encoding="utf-8")
    assert "timed out after 1 s" in page and "check failed: traceback" in page
    # the traceback of a timeout says where the claim was when it was stopped
    err = by["zzrun.a_stuck"]["error"]
    assert "it was stopped here" in err and "in _stuck" in err
    assert "_run_in_processes" not in err  # the parent's frames, inherited by the fork, are cut


def _square(x):
    return x * x


def _uses_processes(thorough=False):
    import multiprocessing as mp

    with mp.get_context("fork").Pool(2) as pool:
        r = pool.map(_square, range(4))
    return Outcome(Verdict.HOLDS if r == [0, 1, 4, 9] else Verdict.REFUTED, {"squares": r})


def _stuck_with_child(thorough=False):
    import multiprocessing as mp

    child = mp.get_context("fork").Process(target=time.sleep, args=(60,))
    child.start()
    with open(os.environ["ZZRUN_PIDFILE"], "w") as f:
        f.write(str(child.pid))
    time.sleep(60)
    return Outcome(Verdict.HOLDS)


def test_checks_may_start_processes_and_are_stopped_with_them(tmp_path, monkeypatch):
    if not os.path.isdir("/proc"):
        pytest.skip("needs /proc to see whether the child process is gone")
    pidfile = tmp_path / "child.pid"
    monkeypatch.setenv("ZZRUN_PIDFILE", str(pidfile))
    claim("zzrun.pool", source=Source("seed-x"), statement="pool", method="property")(_uses_processes)
    claim("zzrun.child", source=Source("seed-x"), statement="child", method="property")(_stuck_with_child)
    try:
        res = run_claims(all_claims("zzrun.child") + all_claims("zzrun.pool"), jobs=2, timeout=3)
    finally:
        unregister("zzrun.pool")
        unregister("zzrun.child")
    by = {r.claim.id: r for r in res}
    assert by["zzrun.pool"].verdict == Verdict.HOLDS, by["zzrun.pool"].error
    assert by["zzrun.child"].verdict == Verdict.ERROR
    child = int(pidfile.read_text())
    deadline = time.time() + 5
    while time.time() < deadline and _alive(child):
        time.sleep(0.1)
    assert not _alive(child), "the process started by the stopped check is still running"


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split()[2] != "Z"  # a zombie is dead, only not yet reaped
    except FileNotFoundError:
        return False
