"""Run claims: in-process, or supervised in worker processes with a time limit.

A check that raises, or that runs past its time limit, becomes an
``error`` result carrying the traceback (for a time-out: the stack
where the check was stopped); the other claims still run.

Every result's evidence records the *route* that produced its verdict (key ``route``: a
:class:`~dpverify.claims.model.Method` value, the one the check's outcome names or else the
claim's method) and, when the check sampled (:func:`~dpverify.claims.model.note_sampling`), what
it ran (key ``sampling_ran``).  The engine keeps the labels true: an audit concludes only
``refuted`` or ``inconclusive``; a claim labelled with an exact method (``exact computation``,
``symbolic``, ``solver cross-check``, ``property``) may not return a verdict whose route is
``simulation`` or ``audit``, and a check of such a claim that sampled must name its route; a
result that breaks these rules becomes an ``error`` saying why.  Sampling noted in another thread
while a check runs counts as the check's (:func:`~dpverify.claims.model.sampling_notes`), which is
sound because claims run one at a time: in process in turn, and in a supervised run one claim at
a time per worker process (and process group; :mod:`dpverify.claims.supervisor`), so a stuck or
dying check only ever costs its own claim.  Sampling in a process the check itself forks is not
seen.
"""

from __future__ import annotations

import time
import traceback
from typing import Any, Callable, Iterable

from dpverify.claims.checks import check_instance, check_items
from dpverify.claims.evidence import to_jsonable
from dpverify.claims.execute import as_error, with_route
from dpverify.claims.model import (
    AUDIT_VERDICTS,
    Claim,
    Outcome,
    Result,
    Verdict,
    check_timeout,
    label_error,
    sampling_notes,
)
from dpverify.claims.remote import RemoteCheck, failed_result
from dpverify.claims.supervisor import supervise
from dpverify.validation import check_bool, check_positive_int

Progress = Callable[[Result], None]


__all__ = ["AUDIT_VERDICTS", "errors_first", "label_error", "result_to_json", "run_claim", "run_claims"]


def run_claim(c: Claim, *, thorough: bool = False) -> Result:
    """Run one claim's check in this process; exceptions become ``error`` results.

    So does a check that returns something other than an :class:`Outcome`, an
    audit-method check that concludes anything but ``refuted`` or ``inconclusive``
    (the engine enforces :data:`AUDIT_VERDICTS`), and a result whose route the
    claim's label does not allow (:func:`label_error`).  The evidence of every
    result records its ``route``.
    """
    check_instance(c, Claim, "c")
    thorough = check_bool(thorough, "thorough")
    t0 = time.perf_counter()
    notes: set = set()
    try:
        with sampling_notes() as notes:
            outcome = c.check(thorough=thorough)
        if not isinstance(outcome, Outcome):
            raise TypeError(f"the check of claim {c.id!r} returned {type(outcome).__name__}, not an Outcome")
        err = None
    except (KeyboardInterrupt, GeneratorExit):
        raise
    except BaseException as exc:  # a crashing check (even sys.exit or a test-framework skip) must not stop the others
        err = traceback.format_exc()
        first = (str(exc).strip().splitlines() or [""])[0]
        outcome = Outcome(Verdict.ERROR, {"error": f"{type(exc).__name__}: {first}"},
                          summary=f"the check raised {type(exc).__name__}: {first}")
    why = label_error(c, outcome, notes) if outcome.verdict is not Verdict.ERROR else None
    if why is not None:
        outcome = as_error(outcome, why)
        err = f"LabelError: {why}"
    seconds = time.perf_counter() - t0
    if outcome.verdict is not Verdict.ERROR and seconds > c.timeout:  # in-process: the limit is checked after the fact
        why = f"the check of {c.id} ran {seconds:.1f} s, over its declared time limit of {c.timeout:g} s"
        outcome = as_error(outcome, why)
        err = f"TimeoutError: {why}"
    return Result(c, with_route(c, outcome, notes), seconds, err)


def errors_first(results: Iterable[Result]) -> list[Result]:
    """The results with the ``error`` ones first (otherwise in the given order)."""
    results = check_items(results, Result, "results")
    return [r for r in results if r.verdict is Verdict.ERROR] + [r for r in results if r.verdict is not Verdict.ERROR]


def run_claims(
    claims: Iterable[Claim],
    *,
    thorough: bool = False,
    jobs: int = 1,
    timeout: float | None = None,
    progress: Progress | None = None,
    isolate: bool = False,
    supervised: bool = False,
) -> list[Result]:
    """Run claims and return their results in the given order.

    Parameters
    ----------
    claims : iterable of Claim
        A claim given twice runs once (its result fills both places); two different claims
        with one id are a ValueError.
    thorough : bool
        Passed to every check (long sweeps).
    jobs : int
        1 runs in this process (the declared time limit is checked after the fact)
        unless ``timeout``, ``isolate`` or ``supervised`` is given; more runs that many
        supervised worker processes (:func:`dpverify.claims.supervisor.supervise`).
    timeout : float, optional
        Per-claim limit in seconds (default: the claim's own ``timeout``).  Given, the
        run is supervised (also with ``jobs == 1``) and a claim is stopped at the limit.
    progress : callable, optional
        Called with each :class:`Result` as it completes.
    isolate : bool
        The same as ``supervised`` (kept for callers that name it).
    supervised : bool
        Run the checks in supervised worker processes watched by this one (one per group of
        claims, :mod:`dpverify.claims.supervisor`), so that every limit is enforced and no check
        can end, stall or fool the run (a worker that dies or overruns makes its claim an
        ``error``; a fresh worker goes on).  Stand-ins for claims whose files were loaded only in
        a child (:mod:`dpverify.claims.remote`) always run supervised.
    """
    claims = check_items(claims, Claim, "claims")
    thorough = check_bool(thorough, "thorough")
    jobs = check_positive_int(jobs, "jobs")
    if timeout is not None:
        timeout = check_timeout(timeout)
    isolate = check_bool(isolate, "isolate")
    supervised = check_bool(supervised, "supervised")
    if progress is not None and not callable(progress):
        raise TypeError(f"progress must be None or a function progress(result), got {type(progress).__name__}")
    results: dict[str, Result] = {}
    distinct = _distinct(claims)
    supervised = supervised or any(isinstance(c.check, RemoteCheck) for c in distinct)  # they run only in workers
    if jobs == 1 and not isolate and not supervised and timeout is None:
        for c in distinct:
            r = run_claim(c, thorough=thorough)
            results[c.id] = r
            if progress:
                progress(r)
        return [results[c.id] for c in claims]

    known = [r for r in map(failed_result, distinct) if r is not None]  # files that failed to load: no worker
    for r in known:
        results[r.claim.id] = r
        if progress:
            progress(r)
    rest = [c for c in distinct if c.id not in results]
    for r in supervise(rest, run_claim, thorough=thorough, jobs=jobs, timeout=timeout,
                       progress=progress) if rest else []:
        results[r.claim.id] = r
    return [results[c.id] for c in claims]


def _distinct(claims: list[Claim]) -> list[Claim]:
    """The claims without repeats (a claim given twice runs once: results are keyed by id).

    Two different claims with one id are a ValueError: one result could not stand for both.
    """
    seen: dict[str, Claim] = {}
    for i, c in enumerate(claims):
        old = seen.setdefault(c.id, c)
        if old is not c and old != c:
            raise ValueError(f"claims holds two different claims with the id {c.id!r} (the second at index {i})")
    return list(seen.values())


def result_to_json(r: Result) -> dict[str, Any]:
    """The machine-readable form of a result (the ``--json`` schema)."""
    c = check_instance(r, Result, "r").claim
    return {
        "id": c.id,
        "source": str(c.source),
        "source_parts": {"paper": c.source.paper, "section": c.source.section, "equation": c.source.equation},
        "statement": c.statement,
        "method": c.method.value,
        "expected": c.expected.value,
        "verdict": r.outcome.verdict.value,
        "as_expected": r.as_expected,
        "summary": r.outcome.summary,
        "evidence": to_jsonable(dict(r.outcome.evidence)),
        "proof": c.proof,
        "seconds": round(r.seconds, 4),
        "error": r.error,
    }
