"""A library's measurements against their own claims: :func:`sweep` runs every case and returns the rows.

``samples`` is the budget of draws per constructor: each of its cases gets an equal share, split evenly over
the case's distinct inputs (at least :data:`MIN_DRAWS` per input).  The sweep's confidence is for the whole
sweep: each case is checked at level α = (1 − confidence)/(number of cases) (Bonferroni), so a sweep of
correct measurements refutes any of them with probability at most 1 − confidence.

Example
-------
>>> result = sweep("opendp", samples=4_000, only=["make_randomized_response_bool"], rng=0, stream=None)
>>> sorted({r.verdict for r in result.rows})
['consistent']
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from dpverify.conform.rows import Case, Row, check, error_row
from dpverify.validation import as_generator, check_confidence, check_positive_int

__all__ = ["LIBRARIES", "MIN_DRAWS", "SweepResult", "rows_json", "sweep"]

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


def sweep(library: str, *, samples: int, confidence: float = 0.99, rng=None, only=None,
          stream="stderr") -> SweepResult:
    """Check every case of ``library`` (``"opendp"`` or ``"diffprivlib"``, the installed release) against
    its own claim; ``only``: constructor names to keep; progress on ``stream`` (None: silent).

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
    conf = check_confidence(confidence)
    g = as_generator(rng)
    try:
        cases = module.cases(only)
        skipped = tuple(module.not_driven())
    except ImportError as exc:
        raise ValueError(f"{library} is not installed here ({exc}); install it to sweep it") from None
    per_constructor = Counter(c.constructor for c in cases)
    alpha = (1.0 - conf) / max(1, len(cases))
    rows = []
    with progress(f"conform {library}", len(cases), stream=stream, unit="cases") as tick:
        for case in cases:
            if not isinstance(case, Case):  # its claim could not be read
                rows.append(error_row(case.constructor, case.params, case.exc, library=case.library))
            else:
                share = samples // (per_constructor[case.constructor] * _inputs(case))
                rows.append(check(case, samples=max(MIN_DRAWS, share), alpha=alpha, rng=g))
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
