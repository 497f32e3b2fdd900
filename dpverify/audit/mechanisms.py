"""Mechanisms in the auditor's calling convention ``mechanism(data, rng, n)``: controls and bugs.

Controls (correct, must never be refuted): :class:`LaplaceMechanism`,
:class:`GeometricMechanism`, :class:`ExponentialMechanism` (factor 2), :class:`KRR`,
:class:`NoisyMax` returning the index, :class:`SparseVector` (Lyu et al. 2017, Alg. 1),
:class:`HistogramLaplace` with the sensitivity of the neighbouring relation audited,
:class:`FDARelease` (the continual room's FDA release).

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

All are small frozen dataclasses (picklable: they run on Dask workers too).
"""

from __future__ import annotations

from dataclasses import dataclass

import warnings

import numpy as np

from dpverify.validation import check_epsilon, check_positive_int, check_real

__all__ = [
    "BinDifference",
    "ExponentialMechanism",
    "FiniteMechanism",
    "FDARelease",
    "GeometricMechanism",
    "HistogramLaplace",
    "KRR",
    "LaplaceMechanism",
    "NoisyMax",
    "SparseVector",
    "SuffixSum",
]


@dataclass(frozen=True)
class LaplaceMechanism:
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

    def __call__(self, data, rng, n):
        b = self.scale_factor * self.sensitivity / self.epsilon
        return rng.laplace(float(data), b, n)


@dataclass(frozen=True)
class FiniteMechanism:
    """A mechanism on a finite output set {0..k−1}: ``data`` indexes a row of ``laws``.

    Its exact output laws make it ground truth for the auditor
    (:func:`dpverify.audit.exact.privacy_curve`).

    Example
    -------
    >>> FiniteMechanism(((0.5, 0.5), (0.9, 0.1)))(1, np.random.default_rng(0), 4).shape
    (4,)
    """

    laws: tuple

    def __call__(self, data, rng, n):
        p = np.asarray(self.laws[int(data)], dtype=float)
        cdf = np.cumsum(p)
        return np.minimum(np.searchsorted(cdf / cdf[-1], rng.random(n), side="right"), len(p) - 1).astype(np.int64)


@dataclass(frozen=True)
class GeometricMechanism:
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

    def __call__(self, data, rng, n):
        from dpverify.primitives.sampling import discrete_laplace

        return int(data) + discrete_laplace(self.scale_factor * self.sensitivity / self.epsilon, n, rng)


@dataclass(frozen=True)
class ExponentialMechanism:
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

    def __post_init__(self):
        check_epsilon(self.epsilon)
        check_real(self.sensitivity, "sensitivity", positive=True)
        check_real(self.factor, "factor", positive=True)

    def __call__(self, data, rng, n):
        from dpverify.primitives.exponential import exponential_probabilities

        p = exponential_probabilities(data, self.sensitivity, self.epsilon, factor=self.factor)
        return np.searchsorted(np.cumsum(p)[:-1], rng.random(n), side="right").astype(np.int64)


@dataclass(frozen=True)
class KRR:
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

    def __call__(self, data, rng, n):
        from dpverify.primitives.randomized_response import randomized_response

        return randomized_response(np.full(n, int(data)), self.k, self.epsilon, rng)


@dataclass(frozen=True)
class HistogramLaplace:
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

    def __post_init__(self):
        check_epsilon(self.epsilon)
        check_positive_int(self.bins, "bins")
        check_real(self.sensitivity, "sensitivity", positive=True)

    def __call__(self, data, rng, n):
        h = np.bincount(np.asarray(data, dtype=np.int64), minlength=self.bins).astype(float)
        return h + rng.laplace(0.0, self.sensitivity / self.epsilon, (n, self.bins))


@dataclass(frozen=True)
class BinDifference:
    """Statistic for vector outputs: out[:, i] − out[:, j] (a projection).

    Example
    -------
    >>> BinDifference(0, 2)(np.array([[1.0, 5.0, 3.0]])).tolist()
    [-2.0]
    """

    i: int
    j: int

    def __call__(self, out):
        return out[:, self.i] - out[:, self.j]


@dataclass(frozen=True)
class NoisyMax:
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

    def __post_init__(self):
        check_epsilon(self.epsilon)
        if self.noise not in ("laplace", "exponential"):
            raise ValueError(f"noise must be 'laplace' or 'exponential', got {self.noise!r}")
        if self.returns not in ("index", "value"):
            raise ValueError(f"returns must be 'index' or 'value', got {self.returns!r}")

    def __call__(self, data, rng, n):
        q = np.asarray(data, dtype=float)
        b = 2.0 / self.epsilon
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
class SparseVector:
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

    def __post_init__(self):
        check_epsilon(self.epsilon)
        check_real(self.threshold, "threshold")
        check_positive_int(self.c, "c")
        if self.variant not in ("alg1", "no_query_noise", "no_cutoff", "lee_clifton"):
            raise ValueError(
                f"variant must be 'alg1', 'no_query_noise', 'no_cutoff' or 'lee_clifton', got {self.variant!r}"
            )

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
class FDARelease:
    """The continual room's FDA release of a count stream ``data`` (n noisy running totals).

    Black-box: one call of ``dpverify.continual.release(..., method="fda")`` per sample.

    Example
    -------
    >>> FDARelease(1.0)(np.array([1, 0, 2]), np.random.default_rng(0), 5).shape
    (5, 3)
    """

    epsilon: float
    noise: str = "laplace"

    def __post_init__(self):
        check_epsilon(self.epsilon)

    def __call__(self, data, rng, n):
        from dpverify.continual import release

        with warnings.catch_warnings():  # the float-Laplace control is audited on purpose
            warnings.simplefilter("ignore", UserWarning)
            return np.stack([release(data, self.epsilon, "fda", rng, noise=self.noise) for _ in range(n)])


@dataclass(frozen=True)
class SuffixSum:
    """Statistic for stream releases: Σ_{t ≥ start} out[:, t] (the totals a change at ``start`` moves).

    Example
    -------
    >>> SuffixSum(1)(np.array([[1.0, 2.0, 3.0]])).tolist()
    [5.0]
    """

    start: int

    def __call__(self, out):
        return out[:, self.start :].sum(axis=1)
