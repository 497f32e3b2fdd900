"""A library's measurements against their own claims: :func:`sweep` runs every case and returns the rows.

``samples`` is the budget of draws per constructor: each of its cases gets an equal share, split evenly over
the case's distinct inputs (at least :data:`MIN_DRAWS` per input).  The sweep's confidence is for the whole
sweep: each case is checked at level α = (1 − confidence)/(number of cases) (Bonferroni), so a sweep of
correct measurements refutes any of them with probability at most 1 − confidence.

Cases are independent: ``jobs`` > 1 runs them in that many worker processes (forked, so they share the
built cases; where processes cannot fork, the cases run in this process), the largest expected CPU first
(draws × ``Case.cost``); the rows come back in the cases' order.  Each case draws from its own generator,
spawned from ``rng`` in the cases' order, so a seeded sweep gives the same rows (seconds aside) for every
``jobs`` (OpenDP cannot be seeded: its draws differ from run to run anyway).

Example
-------
>>> result = sweep("opendp", samples=4_000, only=["make_randomized_response_bool"], rng=0, stream=None)
>>> sorted({r.verdict for r in result.rows})
['consistent']
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import numpy as np

from dpverify.conform.rows import Case, Row, check, error_row
from dpverify.validation import as_generator, check_confidence, check_positive_int

__all__ = ["LIBRARIES", "MAX_JOBS", "MIN_DRAWS", "SweepResult", "rows_json", "sweep"]

#: the libraries swept
LIBRARIES = ("opendp", "diffprivlib")
#: the fewest draws at one input
MIN_DRAWS = 1000


@dataclass(frozen=True)
class SweepResult:
    """``rows`` (one per case), ``not_driven`` ((constructor, reason) pairs), ``library`` (its release)."""

    rows: tuple
    not_driven: tuple
    library: str

    @property
    def refuted(self) -> list:
        """The refuted rows."""
        return [r for r in self.rows if r.verdict == "refuted"]


def _module(library: str):
    if not isinstance(library, str):
        raise TypeError(f"library must be one of {LIBRARIES}, got {library!r}")
    if library not in LIBRARIES:
        raise ValueError(f"library must be one of {LIBRARIES}, got {library!r}")
    import importlib

    return importlib.import_module(f"dpverify.conform.{library}_sweep")


def _inputs(case: Case) -> int:
    return len({repr(x) for pair in case.pairs for x in pair})


#: the most worker processes
MAX_JOBS = 64
_WORK: list = []  # [(cases, draws per input, alpha, generators)] of the running sweep: read by forked workers


def _one(case, draws: int, alpha: float, g) -> Row:
    if not isinstance(case, Case):  # its claim could not be read
        return error_row(case.constructor, case.params, case.exc, library=case.library)
    return check(case, samples=draws, alpha=alpha, rng=g)


def _run(i: int) -> Row:
    """Case ``i`` of the running sweep, in a worker process."""
    cases, draws, alpha, gens = _WORK[0]
    return _one(cases[i], draws[i], alpha, gens[i])


def _can_fork() -> bool:
    import multiprocessing

    return "fork" in multiprocessing.get_all_start_methods()


def _pooled(cases, draws, alpha, gens, jobs: int, tick) -> list:
    """Every case in ``jobs`` forked workers, the largest expected CPU first; rows in the cases' order.  A worker
    that dies makes its cases ``error`` rows (the sweep goes on)."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor, as_completed

    def weight(i):  # the expected CPU of case i, in cheap draws: the largest start first
        c = cases[i]
        return draws[i] * _inputs(c) * c.cost if isinstance(c, Case) else 0.0

    order = sorted(range(len(cases)), key=lambda i: -weight(i))
    rows: list = [None] * len(cases)
    _WORK[:] = [(cases, draws, alpha, gens)]
    try:
        with ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context("fork")) as pool:
            futures = {pool.submit(_run, i): i for i in order}
            for fut in as_completed(futures):
                i = futures[fut]
                try:
                    rows[i] = fut.result()
                except Exception as exc:  # the worker died (BrokenProcessPool) or the row did not pickle
                    rows[i] = error_row(cases[i].constructor, cases[i].params, exc, library=cases[i].library)
                tick(1, note=cases[i].constructor)
    finally:
        _WORK.clear()
    return rows


def sweep(library: str, *, samples: int, confidence: float = 0.99, rng=None, only=None,
          stream="stderr", jobs: int = 1) -> SweepResult:
    """Check every case of ``library`` (``"opendp"`` or ``"diffprivlib"``, the installed release) against
    its own claim; ``only``: constructor names to keep; progress on ``stream`` (None: silent); ``jobs``:
    worker processes (module docstring).

    A case whose claim cannot be read, or whose measurement fails to draw, is an ``error`` row; the sweep
    never stops on one.

    Example
    -------
    >>> res = sweep("diffprivlib", samples=2000, only=["Laplace"], rng=0, stream=None)
    >>> sorted({r.verdict for r in res.rows})
    ['consistent']
    """
    from dpverify.progress import progress
    from dpverify.mechanisms.adapters.stated import library_version

    module = _module(library)
    if only is not None and (isinstance(only, str) or not isinstance(only, (list, tuple))
                             or not all(isinstance(n, str) for n in only)):
        raise TypeError(f"only must be a list of constructor names, got {only!r:.80}")
    samples = check_positive_int(samples, "samples", maximum=10**9)
    jobs = check_positive_int(jobs, "jobs", maximum=MAX_JOBS)
    conf = check_confidence(confidence)
    g = as_generator(rng)
    try:
        cases = module.cases(only)
        skipped = tuple(module.not_driven())
    except ImportError as exc:
        raise ValueError(f"{library} is not installed here ({exc}); install it to sweep it") from None
    per_constructor = Counter(c.constructor for c in cases)
    alpha = (1.0 - conf) / max(1, len(cases))
    draws = [max(MIN_DRAWS, samples // (per_constructor[c.constructor] * _inputs(c))) if isinstance(c, Case) else 0
             for c in cases]
    seeds = np.random.SeedSequence(g.integers(0, 2**63, size=4).tolist()).spawn(len(cases))
    gens = [np.random.default_rng(s) for s in seeds]
    with progress(f"conform {library}", len(cases), stream=stream, unit="cases") as tick:
        if jobs > 1 and len(cases) > 1 and _can_fork():
            rows = _pooled(cases, draws, alpha, gens, min(jobs, len(cases)), tick)
        else:
            rows = []
            for case, n, gi in zip(cases, draws, gens):
                rows.append(_one(case, n, alpha, gi))
                tick(1, note=case.constructor)
    return SweepResult(tuple(rows), skipped, library_version(library))


def rows_json(result: SweepResult) -> list[dict]:
    """The rows as JSON-ready dicts (``constructor``, ``params``, ``claim``, ``bound``, ``verdict``, ``seconds``, ...).

    Example
    -------
    >>> rows_json(SweepResult((), (), "opendp 0.16.0"))
    []
    """
    if not isinstance(result, SweepResult):
        raise TypeError(f"result must be a SweepResult, got {type(result).__name__}")
    return [r.to_json() for r in result.rows if isinstance(r, Row)]
