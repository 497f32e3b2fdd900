"""Mechanisms in the auditor's calling convention ``mechanism(data, rng, n)``: controls and bugs.

Controls (correct, must never be refuted): :class:`LaplaceMechanism`,
:class:`GeometricMechanism`, :class:`ExponentialMechanism` (factor 2), :class:`KRR`,
:class:`NoisyMax` returning the index, :class:`SparseVector` (Lyu et al. 2017, Alg. 1),
:class:`HistogramLaplace` with the sensitivity of the neighbouring relation audited,
(the continual room's FDA release is audited by the selftest room's :class:`~dpverify.selftest.controls.FDARelease`).

Known bugs (must be refuted):
- ``LaplaceMechanism(scale_factor=0.5)`` — noise at half the needed scale (true ε doubled);
- ``HistogramLaplace(sensitivity=1)`` audited with replace-one neighbours — the sensitivity of
  the add/remove relation used under substitution (true ℓ1 sensitivity 2);
- ``ExponentialMechanism(factor=1)`` — exp(ε q/Δq) without the 2 on non-monotone scores;
- ``NoisyMax(returns="value")`` — report-noisy-max that publishes the noisy maximum itself
  (Ding et al., CCS 2018, "NoisyMax with value"; both Laplace and exponential noise);
- ``SparseVector(variant="no_query_noise")`` — Lyu et al. Alg. 5 (Stoddard et al.): no noise on
  the queries, not private for any ε; ``SparseVector(variant="no_cutoff")`` — Lyu et al.
  Alg. 6 (Chen et al.): answers every query without the cutoff c; ``variant="lee_clifton"`` —
  Lyu et al. Alg. 4 (Lee & Clifton): query noise that does not grow with c, ((1 + 6c)/4)ε-DP.

All are small frozen dataclasses (picklable: they run on Dask workers too) and instances of
:class:`dpverify.mechanisms.Mechanism`: each claims ε-DP at its ``epsilon`` (:class:`~dpverify.audit.controls.base.Control`)
under its ``relation``, over its input domain (the vector controls take the domain's length as a
keyword that their repr does not show: ``k`` queries or candidates, ``records``, ``steps``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from dpverify.audit.controls.base import Control
from dpverify.mechanisms.privacy import DeltaCurve
from dpverify.mechanisms.relations import Neighbours, Pairs
from dpverify.validation import check_epsilon, check_positive_int, check_real

__all__ = ["ExponentialMechanism", "FiniteMechanism", "GeometricMechanism", "HockeyStick", "KRR", "LaplaceMechanism"]


@dataclass(frozen=True)
class LaplaceMechanism(Control):
    """f(D) + Lap(scale_factor·Δ/ε) for a scalar query answer ``data`` (scale_factor=1 is correct).

    Example
    -------
    >>> LaplaceMechanism(1.0)(0.0, np.random.default_rng(0), 3).shape
    (3,)
    """

    epsilon: float
    sensitivity: float = 1.0
    scale_factor: float = 1.0

    def __post_init__(self):
        check_epsilon(self.epsilon)
        check_real(self.sensitivity, "sensitivity", positive=True)
        check_real(self.scale_factor, "scale_factor", positive=True)

    @property
    def relation(self) -> Neighbours:
        """Real answers differing by at most the sensitivity."""
        return Neighbours(shape=(), kind="l1", bound=self.sensitivity, description=f"|d - d'| <= {self.sensitivity:g}")

    def __call__(self, data, rng, n):
        b = self.scale_factor * self.sensitivity / self.epsilon
        return rng.laplace(float(data), b, n)


@dataclass(frozen=True)
class FiniteMechanism:
    """A mechanism on a finite output set {0..k−1}: ``data`` indexes a row of ``laws``.

    Its exact output laws make it ground truth for the auditor
    (:func:`dpverify.audit.exact.privacy_curve`).  As a :class:`~dpverify.mechanisms.Mechanism`
    it claims exactly its own privacy curve δ(ε) = max over ordered rows of Σ max(0, p − e^ε q)
    (``claim``, a :class:`~dpverify.mechanisms.DeltaCurve`), over any two rows (``relation``),
    with ``law(data)`` its exact pmf.

    Example
    -------
    >>> m = FiniteMechanism(((0.5, 0.5), (0.9, 0.1)))
    >>> m(1, np.random.default_rng(0), 4).shape, round(m.claim.delta_curve(0.0), 6), m.relation.candidates()
    ((4,), 0.4, [(0, 1)])
    """

    laws: tuple

    delta = 0.0
    epsilon = math.inf

    @property
    def name(self) -> str:
        """``FiniteMechanism(<k> rows)``."""
        return f"FiniteMechanism({len(self.laws)} rows)"

    @property
    def claim(self) -> DeltaCurve:
        """Its exact privacy curve (the hockey-stick divergence, worst ordered pair of rows)."""
        return DeltaCurve(HockeyStick(tuple(tuple(float(x) for x in row) for row in self.laws)))

    @property
    def relation(self) -> Pairs:
        """Any two rows."""
        k = len(self.laws)
        return Pairs(tuple((i, j) for i in range(k) for j in range(i + 1, k)), description="any two rows of laws")

    def law(self, data):
        """The exact pmf of row ``data``: (support, probs)."""
        p = np.asarray(self.laws[int(data)], dtype=float)
        return np.arange(p.size), p / p.sum()

    output_distribution = law

    def sample(self, data, rng, n):
        """n outputs of row ``data``."""
        return self(data, rng, n)

    def __call__(self, data, rng, n):
        p = np.asarray(self.laws[int(data)], dtype=float)
        cdf = np.cumsum(p)
        return np.minimum(np.searchsorted(cdf / cdf[-1], rng.random(n), side="right"), len(p) - 1).astype(np.int64)


@dataclass(frozen=True)
class HockeyStick:
    """δ(ε) = max over ordered pairs of rows (p, q) of Σ max(0, p − e^ε q) (picklable).

    Example
    -------
    >>> HockeyStick(((1.0, 0.0), (0.0, 1.0)))(5.0)
    1.0
    """

    laws: tuple

    def __call__(self, eps: float) -> float:
        P = np.asarray(self.laws, dtype=float)
        P = P / P.sum(axis=1, keepdims=True)
        e = math.exp(float(eps))
        return float(max(np.maximum(P[i] - e * P[j], 0.0).sum() for i in range(len(P)) for j in range(len(P)) if i != j))


@dataclass(frozen=True)
class GeometricMechanism(Control):
    """Integer f(D) + two-sided geometric noise, P(k) ∝ exp(−ε|k|/(scale_factor·Δ)).

    Example
    -------
    >>> GeometricMechanism(1.0)(3, np.random.default_rng(0), 4).dtype.kind   # integer outputs
    'i'
    """

    epsilon: float
    sensitivity: int = 1
    scale_factor: float = 1.0

    def __post_init__(self):
        check_epsilon(self.epsilon)
        check_positive_int(self.sensitivity, "sensitivity")
        check_real(self.scale_factor, "scale_factor", positive=True)

    @property
    def relation(self) -> Neighbours:
        """Integer answers differing by at most the sensitivity."""
        return Neighbours(shape=(), kind="l1", bound=self.sensitivity, integer=True,
                          description=f"|d - d'| <= {self.sensitivity}, integers")

    def __call__(self, data, rng, n):
        from dpverify.primitives.sampling import discrete_laplace

        return int(data) + discrete_laplace(self.scale_factor * self.sensitivity / self.epsilon, n, rng)


@dataclass(frozen=True)
class ExponentialMechanism(Control):
    """Output index φ with probability ∝ exp(ε q_φ / (factor·Δq)); ``data`` is the score vector.

    Example
    -------
    >>> out = ExponentialMechanism(1.0)(np.array([0.0, 1.0, 5.0]), np.random.default_rng(0), 6)
    >>> out.shape, bool(np.isin(out, [0, 1, 2]).all())
    ((6,), True)
    """

    epsilon: float
    sensitivity: float = 1.0
    factor: float = 2.0
    k: int = field(default=3, repr=False)

    def __post_init__(self):
        check_epsilon(self.epsilon)
        check_real(self.sensitivity, "sensitivity", positive=True)
        check_real(self.factor, "factor", positive=True)

    @property
    def relation(self) -> Neighbours:
        """Score vectors (``k`` candidates) whose scores differ by at most the sensitivity."""
        return Neighbours(shape=(self.k,), kind="linf", bound=self.sensitivity,
                          description=f"|q - q'|_inf <= {self.sensitivity:g}")

    def __call__(self, data, rng, n):
        from dpverify.primitives.exponential import exponential_probabilities

        p = exponential_probabilities(data, self.sensitivity, self.epsilon, factor=self.factor)
        return np.searchsorted(np.cumsum(p)[:-1], rng.random(n), side="right").astype(np.int64)


@dataclass(frozen=True)
class KRR(Control):
    """k-ary randomized response of the single value ``data`` ∈ {0..k−1}.

    Example
    -------
    >>> out = KRR(3, 1.0)(0, np.random.default_rng(0), 6)
    >>> out.shape, bool(np.isin(out, [0, 1, 2]).all())
    ((6,), True)
    """

    k: int
    epsilon: float

    def __post_init__(self):
        check_positive_int(self.k, "k")
        check_epsilon(self.epsilon)

    @property
    def relation(self) -> Neighbours:
        """Local: any two values in 0..k−1."""
        return Neighbours(shape=(), kind="replace", low=0, high=self.k - 1, integer=True,
                          description=f"local: any two inputs in 0..{self.k - 1}")

    def __call__(self, data, rng, n):
        from dpverify.primitives.randomized_response import randomized_response

        return randomized_response(np.full(n, int(data)), self.k, self.epsilon, rng)
