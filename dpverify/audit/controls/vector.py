"""Controls on vectors: the noisy histogram, report noisy max, the sparse vector technique, and
the statistics that audit their vector outputs (the continual room's FDA release is audited as a
control by the selftest room, :class:`dpverify.selftest.controls.FDARelease`).

The correct and broken variants are described in :mod:`dpverify.audit.controls.standard`; every
control here is a :class:`dpverify.mechanisms.Mechanism` whose relation is over vectors of a
length its repr does not show (``records``, ``k``, ``steps``).

Example
-------
>>> NoisyMax(1.0).relation.domain.shape, HistogramLaplace(1.0, bins=3).relation.kind
((3,), 'replace')
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

from dpverify.audit.controls.base import Control
from dpverify.mechanisms.relations import Neighbours
from dpverify.validation import check_epsilon, check_nonneg_int, check_positive_int, check_real

__all__ = ["BinDifference", "HistogramLaplace", "NoisyMax", "SparseVector", "SuffixSum"]


@dataclass(frozen=True)
class HistogramLaplace(Control):
    """Noisy histogram of the records ``data`` (ints in 0..bins−1): counts + Lap(Δ/ε) per bin.

    Correct for substitution neighbours with ``sensitivity=2``; ``sensitivity=1`` is the
    add/remove value and is the wrong-neighbouring-relation bug under substitution.

    Example
    -------
    >>> HistogramLaplace(1.0, bins=3)(np.array([0, 2, 2]), np.random.default_rng(0), 5).shape
    (5, 3)
    """

    epsilon: float
    bins: int
    sensitivity: float = 2.0
    records: int = field(default=3, repr=False)

    def __post_init__(self):
        check_epsilon(self.epsilon)
        check_positive_int(self.bins, "bins")
        check_real(self.sensitivity, "sensitivity", positive=True)
        check_positive_int(self.records, "records")

    @property
    def relation(self) -> Neighbours:
        """Record lists (``records`` records in 0..bins−1) differing in one record."""
        return Neighbours(shape=(self.records,), kind="replace", low=0, high=self.bins - 1, integer=True,
                          description="replace one record")

    def __call__(self, data, rng, n):
        h = np.bincount(np.asarray(data, dtype=np.int64), minlength=self.bins).astype(float)
        return h + rng.laplace(0.0, self.sensitivity / self.epsilon, (n, self.bins))


@dataclass(frozen=True)
class BinDifference:
    """Statistic for vector outputs: out[:, i] − out[:, j] (a projection; i, j are column indices >= 0).

    Example
    -------
    >>> BinDifference(0, 2)(np.array([[1.0, 5.0, 3.0]])).tolist()
    [-2.0]
    """

    i: int
    j: int

    def __post_init__(self):
        check_nonneg_int(self.i, "i")
        check_nonneg_int(self.j, "j")

    def __call__(self, out):
        return out[:, self.i] - out[:, self.j]


@dataclass(frozen=True)
class NoisyMax(Control):
    """Report noisy max over query answers ``data`` (each of sensitivity 1).

    noise="laplace": Lap(2/ε) (correct for the index); noise="exponential": Exp(2/ε)
    (one-sided, correct for the index).  returns="index" is the correct mechanism;
    returns="value" publishes the noisy maximum (a known violation).

    Example
    -------
    >>> out = NoisyMax(1.0)(np.array([0.0, 1.0, 9.0]), np.random.default_rng(0), 5)
    >>> out.shape, bool(np.isin(out, [0, 1, 2]).all())
    ((5,), True)
    """

    epsilon: float
    noise: str = "laplace"
    returns: str = "index"
    k: int = field(default=3, repr=False)

    def __post_init__(self):
        check_epsilon(self.epsilon)
        if self.noise not in ("laplace", "exponential"):
            raise ValueError(f"noise must be 'laplace' or 'exponential', got {self.noise!r}")
        if self.returns not in ("index", "value"):
            raise ValueError(f"returns must be 'index' or 'value', got {self.returns!r}")
        check_positive_int(self.k, "k")

    @property
    def relation(self) -> Neighbours:
        """Query answers (``k`` queries of sensitivity 1), each moving by at most 1."""
        return Neighbours(shape=(self.k,), kind="linf", bound=1.0, description="|q - q'|_inf <= 1", default_domain=True)

    def __call__(self, data, rng, n):
        q = np.asarray(data, dtype=float)
        b = 2.0 / self.epsilon
        if Fraction(b) * Fraction(self.epsilon) < 2:  # rounded down: one step up, so the loss never exceeds ε
            b = math.nextafter(b, math.inf)
        if self.noise == "laplace":
            z = q + rng.laplace(0.0, b, (n, q.size))
        elif self.noise == "exponential":
            z = q + rng.exponential(b, (n, q.size))
        else:
            raise ValueError(f"noise must be 'laplace' or 'exponential', got {self.noise!r}")
        if self.returns == "index":
            return np.argmax(z, axis=1).astype(np.int64)
        if self.returns == "value":
            return z.max(axis=1)
        raise ValueError(f"returns must be 'index' or 'value', got {self.returns!r}")


@dataclass(frozen=True)
class SparseVector(Control):
    """Sparse vector technique on query answers ``data`` with threshold T (Lyu, Su, Li 2017).

    Output: one entry per query, 1 = ⊤ (above), 0 = ⊥, −1 = not answered (after c ⊤).
    variant="alg1": ρ = Lap(Δ/ε1), ν_i = Lap(2cΔ/ε2), ε1 = ε2 = ε/2, stop after c ⊤ (ε-DP);
    "no_query_noise": ν_i = 0, no cutoff (Alg. 5, not DP); "no_cutoff": ν_i = Lap(Δ/ε2),
    no cutoff (Alg. 6, not ε-DP); "lee_clifton": ε1 = ε/4, ε2 = 3ε/4, ν_i = Lap(Δ/ε2), stop
    after c ⊤ (Alg. 4, only ((1 + 6c)/4)ε-DP).

    Example
    -------
    >>> SparseVector(1.0, threshold=0.5)(np.array([0.0, 1.0, 0.2]), np.random.default_rng(0), 4).shape[0]
    4
    """

    epsilon: float
    threshold: float = 0.0
    c: int = 1
    variant: str = "alg1"
    k: int = field(default=3, repr=False)

    def __post_init__(self):
        check_epsilon(self.epsilon)
        check_real(self.threshold, "threshold")
        check_positive_int(self.c, "c")
        if self.variant not in ("alg1", "no_query_noise", "no_cutoff", "lee_clifton"):
            raise ValueError(
                f"variant must be 'alg1', 'no_query_noise', 'no_cutoff' or 'lee_clifton', got {self.variant!r}"
            )
        check_positive_int(self.k, "k")

    @property
    def relation(self) -> Neighbours:
        """Query answers (``k`` queries of sensitivity 1), each moving by at most 1."""
        return Neighbours(shape=(self.k,), kind="linf", bound=1.0, description="|q - q'|_inf <= 1", default_domain=True)

    def __call__(self, data, rng, n):
        q = np.asarray(data, dtype=float)
        e1 = e2 = self.epsilon / 2.0
        rho = rng.laplace(0.0, 1.0 / e1, (n, 1))
        if self.variant == "alg1":
            nu = rng.laplace(0.0, 2.0 * self.c / e2, (n, q.size))
            cutoff = True
        elif self.variant == "no_query_noise":
            nu = 0.0
            cutoff = False
        elif self.variant == "no_cutoff":
            nu = rng.laplace(0.0, 1.0 / e2, (n, q.size))
            cutoff = False
        elif self.variant == "lee_clifton":
            e1, e2 = self.epsilon / 4.0, 3.0 * self.epsilon / 4.0
            rho = rng.laplace(0.0, 1.0 / e1, (n, 1))
            nu = rng.laplace(0.0, 1.0 / e2, (n, q.size))  # does not scale with c
            cutoff = True
        else:
            raise ValueError(f"unknown variant {self.variant!r}")
        above = (q + nu >= self.threshold + rho).astype(np.int64)
        if not cutoff:
            return above
        before = np.cumsum(above, axis=1) - above  # ⊤ answers before query i
        return np.where(before < self.c, above, -1)


@dataclass(frozen=True)
class SuffixSum:
    """Statistic for stream releases: Σ_{t ≥ start} out[:, t] (the totals a change at ``start`` >= 0 moves).

    Example
    -------
    >>> SuffixSum(1)(np.array([[1.0, 2.0, 3.0]])).tolist()
    [5.0]
    """

    start: int

    def __post_init__(self):
        check_nonneg_int(self.start, "start")

    def __call__(self, out):
        return out[:, self.start :].sum(axis=1)
