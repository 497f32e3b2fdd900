"""Run claims: in-process, or in parallel worker processes with a time limit.

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
sound because claims run one at a time: in process in turn, and in the parallel path one claim per
forked worker process (and process group), so a stuck or dying check only ever costs its own slot.
Sampling in a process the check itself forks is not seen.
"""

from __future__ import annotations

import multiprocessing as mp
import multiprocessing.connection
import os
import time
import traceback
from typing import Any, Callable, Iterable

from dpverify.claims.checks import check_instance, check_items
from dpverify.claims.evidence import to_jsonable
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
        outcome = _as_error(outcome, why)
        err = f"LabelError: {why}"
    seconds = time.perf_counter() - t0
    if outcome.verdict is not Verdict.ERROR and seconds > c.timeout:  # in-process: the limit is checked after the fact
        why = f"the check of {c.id} ran {seconds:.1f} s, over its declared time limit of {c.timeout:g} s"
        outcome = _as_error(outcome, why)
        err = f"TimeoutError: {why}"
    return Result(c, _with_route(c, outcome, notes), seconds, err)


def _as_error(outcome: Outcome, why: str) -> Outcome:
    return Outcome(Verdict.ERROR, {**dict(outcome.evidence), "error": why, "returned_verdict": outcome.verdict.value},
                   outcome.figure_data, summary=why, route=outcome.route)


def _with_route(c: Claim, outcome: Outcome, sampled: Iterable[str] = ()) -> Outcome:
    """The outcome with the evidence keys ``route`` (and ``sampling_ran`` when the check sampled)."""
    route = outcome.route or c.method
    ev = dict(outcome.evidence)
    ev["route"] = route.value
    if sampled:
        ev["sampling_ran"] = ", ".join(sorted(sampled))
    return Outcome(outcome.verdict, ev, outcome.figure_data, outcome.summary, route)


def errors_first(results: Iterable[Result]) -> list[Result]:
    """The results with the ``error`` ones first (otherwise in the given order)."""
    results = check_items(results, Result, "results")
    return [r for r in results if r.verdict is Verdict.ERROR] + [r for r in results if r.verdict is not Verdict.ERROR]


def _run_payload(c: Claim, thorough: bool) -> tuple[str, dict, Any, float, str | None, str]:
    """Run a claim and return its result as plain (picklable, JSON-able) values."""
    r = run_claim(c, thorough=thorough)
    fig = to_jsonable(r.outcome.figure_data) if r.outcome.figure_data is not None else None
    return (r.outcome.verdict.value, to_jsonable(dict(r.outcome.evidence)), fig, r.seconds, r.error, r.outcome.summary)


def _worker(c: Claim, thorough: bool, conn: Any, stack_file: str | None = None) -> None:
    """Body of a worker process (forked: the claim object is inherited, not pickled).

    With ``stack_file``, SIGUSR1 makes the process write its Python stack
    there (faulthandler: works even inside C code), so a claim stopped for
    running too long reports where it was.
    """
    try:
        os.setpgid(0, 0)  # own process group: stopping the claim also stops processes it started
    except OSError:
        pass
    if stack_file is not None:
        import faulthandler
        import signal

        faulthandler.register(signal.SIGUSR1, file=open(stack_file, "w"), all_threads=True)  # noqa: SIM115
    try:
        payload: Any = ("ok", _run_payload(c, thorough))
    except BaseException:  # even a failure of the conversion is reported, not lost
        payload = ("failed", traceback.format_exc())
    try:
        conn.send(payload)
    finally:
        conn.close()


def _run_in_processes(
    claims: list[Claim], *, thorough: bool, jobs: int, timeout: float | None, progress: Progress | None
) -> list[Result]:
    """One forked process per claim, at most ``jobs`` at a time.

    A claim's clock starts when its own process starts, so a claim waiting
    for a free slot is never charged for the wait; a claim past its limit
    has its process killed, which frees the slot for the next claim (a pool
    of reusable workers cannot do that: a stuck worker would block it).
    """
    ctx = mp.get_context("fork")
    queue = list(claims)
    active: dict[Any, tuple[Claim, Any, float]] = {}  # reader -> (claim, process, start)
    stacks: dict[Any, str | None] = {}  # reader -> file for the stack of a claim stopped at its limit
    out: list[Result] = []

    def finish(r: Result) -> None:
        out.append(r)
        if progress:
            progress(r)

    try:
        while queue or active:
            while queue and len(active) < jobs:
                c = queue.pop(0)
                reader, writer = ctx.Pipe(duplex=False)
                stack_file = _stack_file()
                # not a daemon: a check may start processes of its own (daemons may not)
                proc = ctx.Process(target=_worker, args=(c, thorough, writer, stack_file), daemon=False)
                proc.start()
                writer.close()
                stacks[reader] = stack_file
                active[reader] = (c, proc, time.perf_counter())
            waitables = list(active) + [proc.sentinel for _, proc, _ in active.values()]
            mp.connection.wait(waitables, timeout=0.25)
            now = time.perf_counter()
            for reader in list(active):
                c, proc, t0 = active[reader]
                limit = timeout if timeout is not None else c.timeout
                r = None
                if reader.poll():
                    try:
                        kind, payload = reader.recv()
                    except (EOFError, OSError) as exc:  # the process died without reporting
                        proc.join(timeout=5)
                        kind = "failed"
                        payload = (f"worker process exited with code {proc.exitcode} before reporting"
                                   if proc.exitcode is not None else f"{type(exc).__name__}: {exc}")
                    if kind == "ok":
                        verdict, ev, fig, secs, err, summary = payload
                        r = Result(c, Outcome(Verdict(verdict), ev, fig, summary, ev.get("route")), secs, err)
                    else:
                        last = (payload.strip().splitlines() or ["no message"])[-1]
                        r = _failed(c, now - t0, last, payload)
                elif not proc.is_alive():
                    msg = f"worker process exited with code {proc.exitcode} before reporting"
                    r = _failed(c, now - t0, msg, msg)
                elif now - t0 > limit:
                    where = _stack_of(proc, stacks.get(reader))
                    _kill(proc)
                    r = Result(
                        c,
                        _with_route(c, Outcome(Verdict.ERROR, {"error": f"timed out after {limit:g} s"},
                                               summary=f"the check timed out after {limit:g} s")),
                        now - t0,
                        f"TimeoutError: claim {c.id} exceeded {limit:g} s"
                        + (f"; it was stopped here:\n{where}" if where else ""),
                    )
                if r is not None:
                    del active[reader]
                    _remove(stacks.pop(reader, None))
                    reader.close()
                    proc.join(timeout=5)
                    finish(r)
    finally:
        for reader, (_, proc, _) in active.items():
            _kill(proc)
            proc.join(timeout=5)
            reader.close()
            _remove(stacks.pop(reader, None))
    return out


def _kill(proc: Any) -> None:
    """Kill a worker and the processes it started (its process group)."""
    import signal

    try:
        if os.getpgid(proc.pid) == proc.pid:
            os.killpg(proc.pid, signal.SIGKILL)
            return
    except (OSError, AttributeError):
        pass
    if proc.is_alive():
        proc.kill()


def _stack_file() -> str | None:
    import signal
    import tempfile

    if not hasattr(signal, "SIGUSR1"):
        return None
    fd, path = tempfile.mkstemp(prefix="dpverify-stack-", suffix=".txt")
    os.close(fd)
    return path


def _stack_of(proc: Any, stack_file: str | None) -> str:
    """Ask a running worker for its Python stack (SIGUSR1 → faulthandler); "" if it does not answer."""
    import signal

    if stack_file is None or not proc.is_alive():
        return ""
    try:
        os.kill(proc.pid, signal.SIGUSR1)
        deadline = time.perf_counter() + 1.0
        text = ""
        while time.perf_counter() < deadline:
            time.sleep(0.05)
            with open(stack_file, encoding="utf-8", errors="replace") as f:
                new = f.read()
            if new and new == text:  # written and no longer growing
                break
            text = new
        return _claim_frames(text).strip()
    except OSError:
        return ""


def _claim_frames(stack: str) -> str:
    """Keep the frames of the check itself: a forked worker's stack continues, below
    ``run_claim``, with the runner's and the parent's frames, which tell nothing."""
    out, skipping = [], False
    for line in stack.splitlines():
        if not line.startswith(" "):  # "Current thread 0x... (most recent call first):"
            skipping = False
            out.append(line)
        elif not skipping:
            if __file__ in line and line.rstrip().endswith(" in run_claim"):
                skipping = True
            else:
                out.append(line)
    return "\n".join(out)


def _remove(path: str | None) -> None:
    if path:
        try:
            os.unlink(path)
        except OSError:
            pass


def _failed(c: Claim, seconds: float, message: str, tb: str) -> Result:
    out = Outcome(Verdict.ERROR, {"error": f"worker failed: {message}"}, summary=f"the check's worker failed: {message}")
    return Result(c, _with_route(c, out), seconds, tb)


def run_claims(
    claims: Iterable[Claim],
    *,
    thorough: bool = False,
    jobs: int = 1,
    timeout: float | None = None,
    progress: Progress | None = None,
    isolate: bool = False,
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
        1 runs in this process (no time limit enforced) unless ``timeout`` is
        given; more runs that many worker processes, each claim limited to
        ``timeout`` seconds (default: the claim's own ``timeout``).
    timeout : float, optional
        Per-claim limit in seconds.  Given, every claim runs in its own forked
        process (also with ``jobs == 1``) and is stopped at the limit.
    progress : callable, optional
        Called with each :class:`Result` as it completes.
    isolate : bool
        Run each claim in its own worker process even when ``jobs == 1``, so
        that the time limit applies and a crash of the interpreter (e.g. a
        segfault in a solver) cannot take the caller down.
    """
    claims = check_items(claims, Claim, "claims")
    thorough = check_bool(thorough, "thorough")
    jobs = check_positive_int(jobs, "jobs")
    if timeout is not None:
        timeout = check_timeout(timeout)
    isolate = check_bool(isolate, "isolate")
    if progress is not None and not callable(progress):
        raise TypeError(f"progress must be None or a function progress(result), got {type(progress).__name__}")
    results: dict[str, Result] = {}
    distinct = _distinct(claims)
    if jobs == 1 and not isolate and timeout is None:
        for c in distinct:
            r = run_claim(c, thorough=thorough)
            results[c.id] = r
            if progress:
                progress(r)
        return [results[c.id] for c in claims]

    for r in _run_in_processes(distinct, thorough=thorough, jobs=jobs, timeout=timeout, progress=progress):
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
        "source_parts": {"seed": c.source.seed, "section": c.source.section, "equation": c.source.equation},
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
