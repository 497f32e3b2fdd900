"""Simulated surveys through a design matrix and the unbiased inversion estimator.

A survey of N respondents with a fixed composition (N_i = π_i N respondents
hold value i, rounded by largest remainders) reports through P: the
respondents holding i answer with counts Multinomial(N_i, P[i]).  The
truthful fraction T = (1/N) Σ_i #(i answered i) has mean Σ_i (N_i/N) p_ii
(the utility u of Zhou, Lu and Wu's paper for the realised composition) and variance
Σ_i N_i p_ii (1 − p_ii) / N².

From the output frequencies f alone, E[f] = Pᵀ π, so π̂ = P⁻ᵀ f is unbiased
(when P is invertible) and, for respondents drawn i.i.d. from π,
Cov(π̂) = P⁻ᵀ (diag λ − λ λᵀ) P⁻¹ / N with λ = Pᵀ π (estimated by f).  Under a
fixed composition the true covariance is smaller, so this one is
conservative.  The truthful fraction is estimated by û = Σ_i π̂_i p_ii.

Reference: Zhou, Lu, Wu 2019, §2.3 and §3.3 (Figs. 4 and 8) and the worked example.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from dpverify.validation import (
    as_generator,
    check_counts,
    check_positive_int,
    check_probability_vector,
    check_row_stochastic,
)

__all__ = ["Estimate", "SurveyResult", "composition", "estimate_distribution", "simulate_survey"]


@dataclass(frozen=True)
class SurveyResult:
    """A simulated survey: ``counts[i, j]`` respondents holding i answered j."""

    counts: np.ndarray
    truthful_fraction: float
    expected_truthful: float
    std_truthful: float

    @property
    def output_counts(self) -> np.ndarray:
        """How many respondents answered each value (all an analyst sees)."""
        return self.counts.sum(axis=0)


@dataclass(frozen=True)
class Estimate:
    """π̂ = P⁻ᵀ f with its covariance, and û = Σ π̂_i p_ii with its variance."""

    pi: np.ndarray
    cov: np.ndarray
    truthful: float
    truthful_var: float


def composition(pi, n_respondents: int) -> np.ndarray:
    """Integer counts N_i summing to N closest to π_i N (largest remainders, ties by index).

    Example
    -------
    >>> from dpverify.rr.simulate import composition
    >>> composition([0.2, 0.8], 10_000).tolist()
    [2000, 8000]
    """
    p = check_probability_vector(pi, "pi")
    N = check_positive_int(n_respondents, "n_respondents", maximum=2**53)  # π_i N exact in float64, counts in int64
    raw = p * N
    base = np.floor(raw).astype(np.int64)
    rest = N - int(base.sum())
    order = np.argsort(-(raw - base), kind="stable")
    base[order[:rest]] += 1
    return base


def simulate_survey(P, pi, n_respondents: int, rng=None) -> SurveyResult:
    """Survey ``n_respondents`` with composition π through the design matrix ``P``.

    Example
    -------
    >>> from dpverify.rr import optimal_mechanism, simulate_survey
    >>> P, u = optimal_mechanism([0.2, 0.8], 0.1, 0.15)
    >>> res = simulate_survey(P, [0.2, 0.8], 10_000, rng=0)
    >>> round(res.expected_truthful, 12), abs(res.truthful_fraction - 0.83) < 4 * res.std_truthful
    (0.83, True)
    """
    Pm = check_row_stochastic(P, "P")
    p = check_probability_vector(pi, "pi")
    if Pm.shape != (p.size, p.size):
        raise ValueError(f"P must have shape ({p.size}, {p.size}) to match pi, got {Pm.shape}")
    gen = as_generator(rng)
    Ni = composition(p, n_respondents)
    N = int(Ni.sum())
    counts = gen.multinomial(Ni, Pm)  # row i ~ Multinomial(N_i, P[i])
    d = np.diag(Pm)
    return SurveyResult(
        counts=counts,
        truthful_fraction=float(np.trace(counts)) / N,
        expected_truthful=float(Ni @ d) / N,
        std_truthful=float(np.sqrt(Ni @ (d * (1 - d)))) / N,
    )


def estimate_distribution(P, output_counts) -> Estimate:
    """Unbiased inversion estimate of the input distribution from the answers.

    Raises ``ValueError`` if ``P`` is singular (then π is not identifiable:
    e.g. the utility-optimal matrices of Zhou, Lu and Wu's paper outside the middle regime,
    whose rows coincide).

    Example
    -------
    >>> from dpverify.rr.simulate import estimate_distribution
    >>> est = estimate_distribution([[0.75, 0.25], [0.25, 0.75]], [400, 600])
    >>> est.pi.round(12).tolist()
    [0.3, 0.7]
    """
    Pm = check_row_stochastic(P, "P")
    n = Pm.shape[0]
    if Pm.shape != (n, n):
        raise ValueError(f"P must be square, got shape {Pm.shape}")
    c = check_counts(output_counts, "output_counts", length=n)
    N = int(c.sum())
    if N == 0:
        raise ValueError("output_counts must not all be zero")
    rank = np.linalg.matrix_rank(Pm)
    if rank < n:
        raise ValueError(f"P is singular (rank {rank} < {n}): the input distribution is not identifiable")
    f = c / N
    pi_hat = np.linalg.solve(Pm.T, f)  # E[f] = Pᵀ π
    Pinv_T = np.linalg.inv(Pm.T)
    cov = Pinv_T @ (np.diag(f) - np.outer(f, f)) @ Pinv_T.T / N
    d = np.diag(Pm)
    return Estimate(pi=pi_hat, cov=cov, truthful=float(pi_hat @ d), truthful_var=float(d @ cov @ d))
