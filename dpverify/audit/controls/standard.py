"""Mechanisms in the auditor's calling convention ``mechanism(data, rng, n)``: controls and bugs.

Controls (correct, must never be refuted): :class:`LaplaceMechanism`,
:class:`NoisyMax` returning the index, :class:`SparseVector` (Lyu et al. 2017, Alg. 1),
:class:`HistogramLaplace` with the sensitivity of the neighbouring relation audited (the
geometric, exponential (factor 2) and k-RR controls and the continual room's FDA release sample
through the rooms' code and live in the selftest room, :mod:`dpverify.selftest.controls`).

Known bugs (must be refuted):
- ``LaplaceMechanism(scale_factor=0.5)`` — noise at half the needed scale (true ε doubled);
- ``HistogramLaplace(sensitivity=1)`` audited with replace-one neighbours — the sensitivity of
  the add/remove relation used under substitution (true ℓ1 sensitivity 2);
- ``ExponentialMechanism(factor=1)`` (selftest room) — exp(ε q/Δq) without the 2 on non-monotone scores;
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

__all__ = ["FiniteMechanism", "HockeyStick", "LaplaceMechanism"]


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
        return Neighbours(shape=(), kind="l1", bound=self.sensitivity, description=f"|d - d'| <= {self.sensitivity:g}",
                          default_domain=True)

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

    def __post_init__(self):
        _check_laws(self.laws)

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


def _check_laws(laws, name: str = "laws") -> None:
    """Rows of a finite mechanism's output laws: a (k, m) table of non-negative finite weights, each row
    with a positive sum (k·k·m bounded by the work budget: the hockey stick compares every two rows)."""
    from dpverify.validation import check_elements, check_finite_array, check_work

    if isinstance(laws, (str, bytes)) or not isinstance(laws, (tuple, list, np.ndarray)):
        raise TypeError(f"{name} must be a tuple of rows of probabilities, got {type(laws).__name__}")
    check_elements(laws, name)
    try:
        P = check_finite_array(laws, name, ndim=2)
    except ValueError as exc:
        raise ValueError(f"{name} must be a (k, m) table of finite weights: {exc}") from None
    if P.shape[0] < 1 or P.shape[1] < 1:
        raise ValueError(f"{name} must hold at least one row and one output, got shape {P.shape}")
    check_work(P.shape[0] ** 2 * P.shape[1], f"{name} of shape {P.shape}")
    if (P < 0).any() or not (P.sum(axis=1) > 0).all() or not np.isfinite(P.sum(axis=1)).all():
        raise ValueError(f"{name} must hold non-negative weights with a positive finite sum per row")


@dataclass(frozen=True)
class HockeyStick:
    """δ(ε) = max over ordered pairs of rows (p, q) of Σ max(0, p − e^ε q) (picklable).

    Example
    -------
    >>> HockeyStick(((1.0, 0.0), (0.0, 1.0)))(5.0)
    1.0
    """

    laws: tuple

    def __post_init__(self):
        _check_laws(self.laws)

    def __call__(self, eps: float) -> float:
        P = np.asarray(self.laws, dtype=float)
        P = P / P.sum(axis=1, keepdims=True)
        e = math.exp(float(eps))
        return float(max(np.maximum(P[i] - e * P[j], 0.0).sum() for i in range(len(P)) for j in range(len(P)) if i != j))


