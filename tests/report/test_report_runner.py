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
        assert by[cid].verdict == Verdict.INCONCLUSIVE
        assert by[cid].outcome.evidence["error"] == "timed out after 1.5 s"
        assert by[cid].seconds >= 1.5
    # the claims that waited for a free worker ran and were not charged for the wait
    assert by["zzrun.c_ok"].verdict == Verdict.HOLDS and by["zzrun.c_ok"].error is None
    assert by["zzrun.e_ok"].verdict == Verdict.HOLDS
    assert by["zzrun.d_dies"].verdict == Verdict.INCONCLUSIVE
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
    assert by["zzrun.a_stuck"]["verdict"] == "inconclusive" and "exceeded 1 s" in by["zzrun.a_stuck"]["error"]
    assert by["zzrun.c_ok"]["verdict"] == "holds"
    page = rep.html.read_text(encoding="utf-8")
    assert "timed out after 1 s" in page and "check failed: traceback" in page
    # the traceback of a timeout says where the claim was when it was stopped
    assert "it was stopped here" in by["zzrun.a_stuck"]["error"] and "_stuck" in by["zzrun.a_stuck"]["error"]
