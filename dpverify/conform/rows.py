"""One row of a library sweep: a measurement built with some parameters, checked against its own claim.

A :class:`Case` says how to draw the measurement's outputs as cell indices (its finite outputs, or bins of
integer/real outputs), at which neighbouring inputs, what it claims (a claim object of
:mod:`dpverify.mechanisms.privacy`, in the library's own measure), and which closed-form laws it may follow
(:mod:`dpverify.conform.laws`, the one the library documents first).  :func:`check` draws ``samples``
outputs at every input and returns a :class:`Row`:

- ``bound``: a lower confidence bound on the measurement's loss in the claim's measure, the largest over the
  pairs (:func:`dpverify.conform.finite.lower`, every pair and test at level α split by Bonferroni);
- ``verdict``: ``refuted`` when that bound exceeds the claim (so a correct measurement is refuted with
  probability at most α), else ``consistent``; ``error`` when the case cannot be built, its claim read, or
  its outputs drawn (the message is in ``detail``: the sweep goes on);
- ``law``: the closed forms the sample fits (χ² p ≥ 10⁻³ at every input) and ``exact``: the divergence of
  the documented law (else of the first law that fits) computed exactly on the cells.

Example
-------
>>> import numpy as np
>>> from dpverify.mechanisms.privacy import PureDP
>>> from dpverify.conform.laws import randomized_response
>>> def coin(x, n, rng):  # truth with probability 3/4
...     return np.where(rng.random(n) < 0.75, x, 1 - x)
>>> case = Case("rr", {"prob": 0.75}, PureDP(float(np.log(3))), "MaxDivergence", [(0, 1)], coin, 2,
...             {"rr": lambda x: randomized_response(x, k=2, prob=0.75)})
>>> row = check(case, samples=20_000, alpha=0.01, rng=np.random.default_rng(0))
>>> row.verdict, row.law, round(row.exact, 4)
('consistent', 'rr', 1.0986)
"""

from __future__ import annotations

import math
import time
from dataclasses import asdict, dataclass, field
from typing import Any, Callable

import numpy as np

from dpverify.conform.finite import exact, fits, lower
from dpverify.validation import as_generator, check_positive_int, check_real

__all__ = ["Case", "FailedCase", "Row", "check", "claim_text", "error_row"]

#: the ε grid where a claimed privacy profile δ(ε) is checked
CURVE_EPSILONS = (0.25, 0.5, 1.0, 2.0, 4.0)
FIT_LEVEL = 1e-3


@dataclass
class Case:
    """What :func:`check` needs (module docstring); ``sample(x, n, rng)`` returns n cell indices."""

    constructor: str
    params: dict
    claim: Any
    measure: str
    pairs: list
    sample: Callable
    cells: int
    laws: dict = field(default_factory=dict)
    library: str = ""
    #: CPU per draw relative to a cheap draw (a few µs): only orders the cases of a pooled sweep, never a result
    cost: float = 1.0


@dataclass(frozen=True)
class FailedCase:
    """A case whose measurement could not be built or its claim read: the sweep writes an ``error`` row."""

    constructor: str
    params: dict
    exc: BaseException
    library: str = ""


@dataclass(frozen=True)
class Row:
    """A checked (or failed) measurement: see the module docstring."""

    constructor: str
    params: dict
    measure: str
    claim: str
    bound: float | None
    verdict: str
    seconds: float
    law: str = ""
    exact: float | None = None
    detail: str = ""
    library: str = ""

    def to_json(self) -> dict:
        """The row as JSON-ready values (non-finite numbers as strings)."""
        out = asdict(self)
        for key in ("bound", "exact"):
            v = out[key]
            if isinstance(v, float) and not math.isfinite(v):
                out[key] = str(v)
        out["params"] = {k: (v if isinstance(v, (int, float, str, bool, type(None))) else str(v))
                         for k, v in self.params.items()}
        return out


def claim_text(claim) -> str:
    """The claim in words: ``ε = 1``, ``ρ = 0.5``, ``(ε, δ) = (1, 1e-06)``, ``δ(ε) curve``, ``RDP α = 2: 0.5``.

    Example
    -------
    >>> from dpverify.mechanisms.privacy import ZCDP
    >>> claim_text(ZCDP(0.5))
    'ρ = 0.5'
    """
    name = type(claim).__name__
    if name == "PureDP":
        return f"ε = {claim.epsilon:.6g}"
    if name == "ZCDP":
        return f"ρ = {claim.rho:.6g}"
    if name == "ApproxDP":
        return f"(ε, δ) = ({claim.epsilon:.6g}, {claim.delta:.3g})"
    if name == "RenyiDP":
        return f"RDP α = {claim.alpha:g}: {claim.renyi_epsilon:.6g}"
    if name == "DeltaCurve":
        return "δ(ε) curve" if claim.epsilon == math.inf else f"(ε, δ) = ({claim.epsilon:.6g}, {claim.delta:.3g})"
    raise TypeError(f"claim must be a claim object of dpverify.mechanisms.privacy, got {type(claim).__name__}")


def _tests(claim) -> list[tuple[str, Any, float]]:
    """``(kind, at, claimed value)`` for every comparison the claim asks for."""
    name = type(claim).__name__
    if name == "PureDP":
        return [("pure", None, claim.epsilon)]
    if name == "ZCDP":
        return [("zcdp", None, claim.rho)]
    if name == "ApproxDP":
        return [("delta", claim.epsilon, claim.delta)]
    if name == "RenyiDP":
        return [("renyi", claim.alpha, claim.renyi_epsilon)]
    if claim.epsilon != math.inf:
        return [("delta", claim.epsilon, claim.delta)]
    return [("delta", e, float(claim.delta_curve(e))) for e in CURVE_EPSILONS]


def error_row(constructor: str, params: dict, exc: BaseException, seconds: float = 0.0, *, measure: str = "",
              claim: str = "", library: str = "") -> Row:
    """The ``error`` row of a case that could not be built, read or drawn.

    Example
    -------
    >>> error_row("make_x", {}, ValueError("no map")).detail
    'ValueError: no map'
    """
    for key, value in (("constructor", constructor), ("measure", measure), ("claim", claim), ("library", library)):
        if not isinstance(value, str):
            raise TypeError(f"{key} must be a string, got {type(value).__name__}")
    if not isinstance(params, dict):
        raise TypeError(f"params must be a dict, got {type(params).__name__}")
    if not isinstance(exc, BaseException):
        raise TypeError(f"exc must be the exception raised, got {type(exc).__name__}")
    seconds = check_real(seconds, "seconds", nonneg=True)
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    return Row(constructor, dict(params), measure, claim, None, "error", float(seconds),
               detail=f"{type(exc).__name__}: {text}"[:300], library=library)


def _draw(case: Case, samples: int, rng) -> dict:
    counts = {}
    for pair in case.pairs:
        for x in pair:
            key = repr(x)
            if key not in counts:
                cells = np.asarray(case.sample(x, samples, rng)).astype(np.int64)
                if cells.shape != (samples,) or (cells < 0).any() or (cells >= case.cells).any():
                    raise ValueError(f"the sampler of {case.constructor} returned cells outside 0..{case.cells - 1}")
                counts[key] = np.bincount(cells, minlength=case.cells)
    return counts


def _identify(case: Case, counts: dict) -> tuple[list, dict]:
    """The laws that fit at every input, and each law's cell pmf per input."""
    fitted, pmfs = [], {}
    for name, law in case.laws.items():
        try:  # a closed form only explains a verdict: one that cannot be computed is left out, not fatal
            pmfs[name] = {repr(x): np.asarray(law(x), dtype=float) for pair in case.pairs for x in pair}
            if any(p.shape != (case.cells,) for p in pmfs[name].values()):
                raise ValueError(f"the law {name} is not on the case's {case.cells} cells")
        except (ValueError, TypeError, ArithmeticError):
            pmfs.pop(name, None)
            continue
        if all(fits(counts[k], p / p.sum(), alpha=FIT_LEVEL) >= FIT_LEVEL for k, p in pmfs[name].items()):
            fitted.append(name)
    return fitted, pmfs


def check(case: Case, *, samples: int, alpha: float, rng) -> Row:
    """Draw, bound, compare: the :class:`Row` of ``case`` (module docstring).  An exception while
    drawing or bounding becomes an ``error`` row.

    Example
    -------
    >>> from dpverify.conform.opendp_sweep import cases
    >>> case = next(c for c in cases() if c.constructor == "make_laplace")
    >>> check(case, samples=2000, alpha=0.01, rng=0).verdict
    'consistent'
    """
    if not isinstance(case, Case):
        raise TypeError(f"case must be a Case, got {type(case).__name__}")
    samples = check_positive_int(samples, "samples", maximum=10**9)
    a = check_real(alpha, "alpha", positive=True)
    if not a < 1:
        raise ValueError(f"alpha must lie in (0, 1), got {alpha!r}")
    rng = as_generator(rng)
    t0 = time.perf_counter()
    text = claim_text(case.claim)
    try:
        counts = _draw(case, samples, rng)
        tests = _tests(case.claim)
        level = a / (len(tests) * len(case.pairs))
        worst, refuted, where = -math.inf, False, ""
        for d, d2 in case.pairs:
            cp, cq = counts[repr(d)], counts[repr(d2)]
            for kind, at, claimed in tests:
                lb = lower(kind, cp, cq, alpha=level, at=at)
                if lb > claimed * (1 + 1e-9) + 1e-15:
                    refuted = True
                if (lb - claimed) > worst:
                    worst, bound = lb - claimed, lb
                    where = f"pair {d!r} vs {d2!r}" + (f", ε = {at:g}: claimed δ = {claimed:.3g}" if kind == "delta" else "")
        fitted, pmfs = _identify(case, counts)
        law = ([n for n in case.laws if n in fitted] or [None])[0]
        value = None
        if law is not None:
            kind, at, _ = tests[0]
            value = max(exact(kind, pmfs[law][repr(d)], pmfs[law][repr(d2)], at=at) for d, d2 in case.pairs)
        detail = where + ("" if fitted or not case.laws else "; the sample fits none of the closed forms "
                          f"({', '.join(case.laws)})")
    except Exception as exc:  # a sampler or map that fails is this row's error, never the sweep's end
        return error_row(case.constructor, case.params, exc, time.perf_counter() - t0, measure=case.measure,
                         claim=text, library=case.library)
    return Row(case.constructor, dict(case.params), case.measure, text, float(bound),
               "refuted" if refuted else "consistent", time.perf_counter() - t0, law=", ".join(fitted),
               exact=value, detail=detail, library=case.library)
