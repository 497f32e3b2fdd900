"""Run claims: in-process, or in parallel worker processes with a time limit.

A check that raises, or that runs past its time limit, becomes an
``inconclusive`` result carrying the traceback; the other claims still run.
"""

from __future__ import annotations

import concurrent.futures as cf
import multiprocessing as mp
import time
import traceback
from typing import Any, Callable, Iterable

from dpverify.claims.evidence import to_jsonable
from dpverify.claims.model import Claim, Outcome, Result, Verdict
from dpverify.claims.registry import get_claim

Progress = Callable[[Result], None]


def run_claim(c: Claim, *, thorough: bool = False) -> Result:
    """Run one claim's check in this process; exceptions become ``inconclusive``."""
    t0 = time.perf_counter()
    try:
        outcome = c.check(thorough=thorough)
        if not isinstance(outcome, Outcome):
            raise TypeError(f"check of {c.id} returned {type(outcome).__name__}, not Outcome")
        err = None
    except Exception as exc:  # a crashing check must not stop the others
        err = traceback.format_exc()
        outcome = Outcome(Verdict.INCONCLUSIVE, {"error": f"{type(exc).__name__}: {exc}"})
    return Result(c, outcome, time.perf_counter() - t0, err)


def _run_by_id(claim_id: str, thorough: bool) -> tuple[str, dict, Any, float, str | None]:
    r = run_claim(get_claim(claim_id), thorough=thorough)
    fig = to_jsonable(r.outcome.figure_data) if r.outcome.figure_data is not None else None
    return (r.outcome.verdict.value, to_jsonable(dict(r.outcome.evidence)), fig, r.seconds, r.error)


def run_claims(
    claims: Iterable[Claim],
    *,
    thorough: bool = False,
    jobs: int = 1,
    timeout: float | None = None,
    progress: Progress | None = None,
) -> list[Result]:
    """Run claims and return their results in the given order.

    Parameters
    ----------
    claims : iterable of Claim
    thorough : bool
        Passed to every check (long sweeps).
    jobs : int
        1 runs in this process (no time limit enforced); more runs that many
        worker processes, each claim limited to ``timeout`` seconds (default:
        the claim's own ``timeout``).
    progress : callable, optional
        Called with each :class:`Result` as it completes.
    """
    claims = list(claims)
    if isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1:
        raise ValueError(f"jobs must be an integer >= 1, got {jobs!r}")
    if timeout is not None and not timeout > 0:
        raise ValueError(f"timeout must be > 0, got {timeout!r}")
    results: dict[str, Result] = {}
    if jobs == 1:
        for c in claims:
            r = run_claim(c, thorough=thorough)
            results[c.id] = r
            if progress:
                progress(r)
        return [results[c.id] for c in claims]

    ctx = mp.get_context("fork")
    pool = cf.ProcessPoolExecutor(max_workers=jobs, mp_context=ctx)
    try:
        futs = {pool.submit(_run_by_id, c.id, thorough): c for c in claims}
        starts = {f: time.perf_counter() for f in futs}
        pending = set(futs)
        while pending:
            done, pending = cf.wait(pending, timeout=0.5, return_when=cf.FIRST_COMPLETED)
            for f in done:
                c = futs[f]
                try:
                    verdict, ev, fig, secs, err = f.result()
                    r = Result(c, Outcome(Verdict(verdict), ev, fig), secs, err)
                except Exception as exc:
                    r = Result(
                        c,
                        Outcome(Verdict.INCONCLUSIVE, {"error": f"worker failed: {type(exc).__name__}: {exc}"}),
                        time.perf_counter() - starts[f],
                        traceback.format_exc(),
                    )
                results[c.id] = r
                if progress:
                    progress(r)
            now = time.perf_counter()
            for f in list(pending):
                c = futs[f]
                limit = timeout if timeout is not None else c.timeout
                if f.running() and now - starts[f] > limit:
                    # running() is only true once a worker picked it up; restart clock until then
                    pending.discard(f)
                    f.cancel()
                    r = Result(
                        c,
                        Outcome(Verdict.INCONCLUSIVE, {"error": f"timed out after {limit:g} s"}),
                        now - starts[f],
                        f"TimeoutError: claim {c.id} exceeded {limit:g} s",
                    )
                    results[c.id] = r
                    if progress:
                        progress(r)
                elif not f.running():
                    starts[f] = now
    finally:
        procs = list(getattr(pool, "_processes", {}).values())
        pool.shutdown(wait=False, cancel_futures=True)
        for p in procs:
            if p.is_alive():
                p.kill()
    return [results[c.id] for c in claims]


def result_to_json(r: Result) -> dict[str, Any]:
    """The machine-readable form of a result (the ``--json`` schema)."""
    c = r.claim
    return {
        "id": c.id,
        "source": str(c.source),
        "source_parts": {"seed": c.source.seed, "section": c.source.section, "equation": c.source.equation},
        "statement": c.statement,
        "method": c.method.value,
        "expected": c.expected.value,
        "verdict": r.outcome.verdict.value,
        "as_expected": r.as_expected,
        "evidence": to_jsonable(dict(r.outcome.evidence)),
        "proof": c.proof,
        "seconds": round(r.seconds, 4),
        "error": r.error,
    }
