"""Fixed statistics of vector outputs that need no training: the auditor screens them beside the
learned ones.

Any function of the output fixed before the estimation sample is drawn gives valid events
(``dpverify/audit/proofs/auditor_validity.md``); these three are fixed from the pilot's outputs only:

- :class:`Projection` — one coordinate of the output (the optimal statistic when one coordinate
  carries the difference, as in a noisy histogram whose changed bin is the only informative one);
- :class:`CoordinateSum` — the sum of the non-flag coordinates (the likelihood ratio of Gaussian
  noise on a shifted vector);
- :class:`SignCount` — how many coordinates lie above their pooled median.  For k independent
  Laplace(b) releases of one value shifted by Δ ≪ b, the per-coordinate log-likelihood ratio is
  ±Δ/b except on a window of width Δ, so the likelihood ratio is (almost exactly) a function of
  this count: the count is what an ideal test thresholds, where a sum or a linear classifier is
  blurred by the heavy tails (measured on ``LaplaceParallel``: ``benchmarks/bench_audit_suite.py``).

*Flag values* — outputs repeated exactly, such as the ⊥ and "stopped" markers of sparse-vector
answers — are found by :class:`~dpverify.audit.classifiers.FeatureMap` and left out of the sum and
the count (a coordinate holding a flag is counted in neither direction).

Example
-------
>>> import numpy as np
>>> x = np.array([[1.0, 5.0, -1000.0], [3.0, 0.0, 2.0]])
>>> SignCount(np.array([2.0, 2.0, 2.0]), np.array([-1000.0]))(x).tolist()
[1, 1]
>>> CoordinateSum(np.array([-1000.0]))(x).tolist(), Projection(1)(x).tolist()
([6.0, 5.0], [5.0, 0.0])
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np

from dpverify.validation import check_elements, check_nonneg_int
from dpverify.audit.classifiers import FeatureMap
from dpverify.audit.events import PatternCode

__all__ = ["CoordinateSum", "Projection", "SignCount", "StateCounts", "fixed_statistics"]

MAX_PROJECTIONS = 32  # wider outputs get the sum and the count only
_CODE_RANGE = 8  # a code column holds integers in −8..8
_KIND_ROWS = 5000


def _flat(outputs) -> np.ndarray:
    x = np.asarray(outputs)
    return x.reshape(len(x), -1)


def _check_medians(medians) -> None:
    check_elements(medians, "medians")
    m = np.asarray(medians)
    if m.ndim != 1 or m.dtype.kind not in "iuf" or np.isnan(m).any():
        raise ValueError(f"medians must be a 1-D array of numbers (inf allowed), got {medians!r}")


def _check_flags(flags, *, finite: bool = False) -> None:
    """Flag values: a 1-D numeric array (the values FeatureMap found; ±inf and NaN may be among them)."""
    check_elements(flags, "flags")
    f = np.asarray(flags)
    if f.ndim != 1 or f.dtype.kind not in "iuf" or (finite and not np.isfinite(f).all()):
        raise ValueError(f"flags must be a 1-D array of {'finite ' if finite else ''}numbers, got {flags!r}")


def _is_flag(x: np.ndarray, flags: np.ndarray) -> np.ndarray:
    out = np.zeros(x.shape, bool)
    for v in flags:
        out |= x == v
    return out


_FLAG_BASE = 2.0**50  # flag k of a flags-last projection maps to _FLAG_BASE + k (exact in float64)


@dataclass(frozen=True)
class Projection:
    """T(o) = o_j, coordinate ``j`` of the flattened output; with ``flags_last``, a flag value of that
    coordinate is ordered above every released value below 2^50 (flag k ↦ 2^50 + k; larger released
    values would rank among the flags: a statistic only, the bound stays valid, the events weaker).

    With the flags last, the thresholds ``T ≤ t`` are the events "coordinate j was released, with a
    value ≤ t": the low answers of a sparse-vector query, which tell that the noisy threshold was low
    (measured on SVT3 in ``benchmarks/bench_audit_suite.py``).  With the flags first (the raw values,
    the markers being −1000 and −2000) those events are interior intervals, not thresholds.

    Example
    -------
    >>> Projection(0)(np.array([[4, 5], [6, 7]])).tolist()
    [4, 6]
    >>> Projection(0, flags_last=(-1000.0,))(np.array([[3.0], [-1000.0]])).tolist()
    [3.0, 1125899906842624.0]
    """

    j: int
    flags_last: tuple = ()

    def __post_init__(self):
        check_nonneg_int(self.j, "j")
        if not isinstance(self.flags_last, tuple) or not all(
                isinstance(v, (int, float)) and math.isfinite(v) for v in self.flags_last):
            raise ValueError(f"flags_last must be a tuple of finite numbers, got {self.flags_last!r}")

    def __call__(self, outputs) -> np.ndarray:
        x = _flat(outputs)
        if self.j >= x.shape[1]:
            raise ValueError(f"j={self.j} is out of range for outputs of width {x.shape[1]}")
        t = x[:, self.j]
        if not self.flags_last:
            return t
        t = t.astype(float)
        out = t.copy()
        for k, v in enumerate(self.flags_last):
            out[t == v] = _FLAG_BASE + k
        return out


@dataclass(frozen=True, eq=False)
class CoordinateSum:
    """T(o) = Σ_i o_i over the coordinates that hold no flag value.

    Example
    -------
    >>> CoordinateSum()(np.array([[1.0, 2.0], [3.0, 4.0]])).tolist()
    [3.0, 7.0]
    """

    flags: np.ndarray = field(default_factory=lambda: np.zeros(0))

    def __post_init__(self):
        _check_flags(self.flags)

    def __call__(self, outputs) -> np.ndarray:
        x = _flat(outputs).astype(float)
        return np.where(_is_flag(x, self.flags), 0.0, x).sum(axis=1)


@dataclass(frozen=True, eq=False)
class SignCount:
    """T(o) = #{i : o_i > m_i and o_i is no flag}, m the pooled per-coordinate medians of the pilot.

    Example
    -------
    >>> SignCount(np.array([0.0, 0.0]))(np.array([[1.0, -1.0], [2.0, 3.0]])).tolist()
    [1, 2]
    """

    medians: np.ndarray
    flags: np.ndarray = field(default_factory=lambda: np.zeros(0))

    def __post_init__(self):
        _check_medians(self.medians)
        _check_flags(self.flags)

    def __call__(self, outputs) -> np.ndarray:
        x = _flat(outputs).astype(float)
        if x.shape[1] != len(self.medians):
            raise ValueError(f"outputs have width {x.shape[1]}, the medians {len(self.medians)}")
        return ((x > self.medians) & ~_is_flag(x, self.flags)).sum(axis=1).astype(np.int64)


@dataclass(frozen=True, eq=False)
class StateCounts:
    """T(o) = how many columns are in each state, coded as one category: a column's state is 0 (a
    value ≤ its median m_i), 1 (a value > m_i) or 2 + k (flag k).

    For outputs that mix released values with flags (⊥, "stopped"), it keeps how many flags of each
    kind there are — how early a sparse vector stopped — beside how many released values lean high,
    so that the likelihood-ordered unions of its categories combine both (NumericalSVT: "stopped
    early and both answers high").  Counting instead of listing the states keeps the categories few
    (at most (w + 1)^(2 + #flags) for width w, in practice tens), so each holds enough draws to be
    ranked.

    Example
    -------
    >>> t = StateCounts(np.array([0.0, 0.0]), np.array([-1000.0]))
    >>> t(np.array([[1.0, -1.0], [2.0, -1000.0], [-3.0, 5.0]])).tolist()  # (#low, #high, #flag) base 3
    [12, 4, 12]
    """

    medians: np.ndarray
    flags: np.ndarray = field(default_factory=lambda: np.zeros(0))
    categorical: ClassVar[bool] = True

    def __post_init__(self):
        _check_medians(self.medians)
        _check_flags(self.flags, finite=True)

    def __call__(self, outputs) -> np.ndarray:
        x = _flat(outputs).astype(float)
        if x.shape[1] != len(self.medians):
            raise ValueError(f"outputs have width {x.shape[1]}, the medians {len(self.medians)}")
        flag = _is_flag(x, self.flags)
        high = (x > self.medians) & ~flag
        counts = [(~high & ~flag).sum(axis=1), high.sum(axis=1)]
        counts += [(x == v).sum(axis=1) for v in np.asarray(self.flags, float)]
        return PatternCode(0, x.shape[1])(np.stack(counts, axis=1))


def fixed_statistics(pilot) -> list[tuple[str, object]]:
    """The fixed statistics worth screening for vector outputs like ``pilot`` (rows = outputs of both
    inputs pooled): (name, statistic) pairs.

    Example
    -------
    >>> g = np.random.default_rng(0)
    >>> [name for name, _ in fixed_statistics(g.laplace(size=(100, 3)))]
    ['sign count', 'sum', 'coordinate 0', 'coordinate 1', 'coordinate 2']
    """
    from dpverify.audit.classifiers import check_outputs

    check_outputs(pilot, "pilot", finite=False)  # NaN entries may be flags
    try:
        return _fixed_statistics(pilot)
    except ValueError as exc:  # e.g. a NaN median: the pilot cannot be summarised
        raise ValueError(f"pilot must be outputs the fixed statistics can summarise: {exc}") from None


def _fixed_statistics(pilot) -> list[tuple[str, object]]:
    x = _flat(pilot).astype(float)
    # the flags (values holding ≥ 1 % of the entries) are read off ~50,000 strided rows: np.unique
    # over every screening draw of a wide output cost seconds per round (SVT34Parallel at 10^7)
    fm = FeatureMap.fit(x[:: max(1, len(x) // (10 * _KIND_ROWS))])
    if fm.discrete or x.shape[1] < 2:  # patterns and scalars have their own statistics
        return []
    is_flag = _is_flag(x, fm.flags)
    # the median of each column's non-flag values (∞ for an all-flag column: counted in no direction)
    med = np.array([np.median(x[~is_flag[:, j], j]) if not is_flag[:, j].all() else np.inf for j in range(x.shape[1])])
    out: list[tuple[str, object]] = [("sign count", SignCount(med, fm.flags)), ("sum", CoordinateSum(fm.flags))]
    head = x[:: max(1, len(x) // _KIND_ROWS)]  # the kind of a column is read off ~5000 rows of both inputs
    if x.shape[1] <= MAX_PROJECTIONS:
        out += [(f"coordinate {j}", Projection(j)) for j in range(x.shape[1])]
        flagged = _is_flag(head, fm.flags)
        # a coordinate holding flags and a spread of released values (≥ 3 distinct): its low values become
        # thresholds; a coordinate of a few codes gains nothing from the reordering
        mixed = [j for j in range(x.shape[1]) if flagged[:, j].any() and len(np.unique(head[~flagged[:, j], j])) >= 3]
        flags = tuple(float(v) for v in fm.flags)
        out += [(f"coordinate {j}, flags last", Projection(j, flags_last=flags)) for j in mixed]
        if mixed:  # where the flags fall and which way the released values lean, as one pattern
            out.append(("state counts", StateCounts(med, fm.flags)))
    # the code block of an output that also releases values: the columns holding a few small integers
    # (≤ 16 values in −8..8) coded as one pattern, whose events are the likelihood-ordered unions of
    # patterns (measured on SVT34Parallel, whose ⊤/⊥ half is SVT4's: benchmarks/bench_audit_suite.py)
    small = (head == np.round(head)).all(axis=0) & (np.abs(head).max(axis=0) <= _CODE_RANGE)
    codes = [j for j in np.flatnonzero(small).tolist() if len(np.unique(head[:, j])) <= 16]
    if 2 <= len(codes) < x.shape[1]:
        block = head[:, codes]  # values are floored; those outside these rows' low..high go to the end codes
        out.append(("pattern of the code columns",
                    PatternCode(int(block.min()) - 1, int(block.max()) + 1, columns=tuple(codes), clip=True)))
    return out
