"""One-sided binomial confidence bounds used by every audit (Clopper–Pearson), the conditional
bound on the ratio of two Poisson means (for Poissonized draw counts), and the Wilson score bound
used only to *rank* candidate events.

Proof of validity: ``dpverify/audit/proofs/auditor_validity.md`` (steps 2 and 7).

Example
-------
>>> round(float(clopper_pearson_upper(0, 100, 0.05)), 4)
0.0295
"""

from __future__ import annotations

import functools

import numpy as np
from scipy import special, stats

from dpverify.validation import check_bool, check_confidence, check_real
from dpverify.proofdocs import proven

__all__ = ["clopper_pearson_lower", "clopper_pearson_upper", "poisson_draws", "poisson_log_ratio_lower"]


def _check_binomial(k, n, alpha):
    """Validated (k, n, alpha) of a Clopper–Pearson bound: integer 0 <= k <= n, n >= 1, alpha in (0, 1)."""
    if type(k) is int and type(n) is int and 0 <= k <= n and 1 <= n < 2**63:  # two plain counts (an audit's)
        return np.asarray(k).astype(float), np.asarray(n).astype(float), check_confidence(alpha, "alpha")
    out = []
    for name, v in (("k", k), ("n", n)):
        if isinstance(v, (str, bytes)):
            raise TypeError(f"{name} must be an integer count, got {v!r}")
        if isinstance(v, int) and not isinstance(v, bool) and abs(v) >= 2**63:
            raise ValueError(f"{name} must be < 2^63 (int64 count), got {v!r}")
        a = np.asarray(v)
        if a.dtype == bool or a.dtype.kind not in "iuf":
            raise TypeError(f"{name} must be an integer count, got {v!r}")
        a = a.astype(float)
        if not np.isfinite(a).all() or (a != np.round(a)).any():
            raise ValueError(f"{name} must be a finite integer count, got {v!r}")
        if (np.abs(a) >= 2.0**63).any():  # 1e308 trials: the Beta quantiles are NaN there
            raise ValueError(f"{name} must be < 2^63 (int64 count), got {v!r}")
        out.append(a)
    k, n = out
    if (n < 1).any():
        raise ValueError(f"n must be >= 1, got {n[n < 1].ravel()[0]!r}")
    if (k < 0).any() or (k > n).any():
        raise ValueError(f"k must satisfy 0 <= k <= n, got k={k.ravel().tolist()[:4]}, n={n.ravel().tolist()[:4]}")
    return k, n, check_confidence(alpha, "alpha")


def _beta_quantile(q, a, b, upper: bool = False):
    """``stats.beta.ppf(q, a, b)`` (``upper``: ``stats.beta.isf``), the same numbers: where every argument
    is in the distribution's domain (0 < q < 1, a, b > 0 finite), the distribution's quantile function
    itself, without the generic argument handling of ``rv_continuous`` (≈ 150 µs a call, most of an
    audit's bound); anywhere else the generic method."""
    q, a, b = np.asarray(q, dtype=float), np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if ((q > 0) & (q < 1)).all() and ((a > 0) & (b > 0) & np.isfinite(a) & np.isfinite(b)).all():
        out = (stats.beta._isf(q, a, b) if upper else stats.beta._ppf(q, a, b)) * 1.0 + 0.0  # as rv_continuous
        return out[()] if np.ndim(out) == 0 else out
    return stats.beta.isf(q, a, b) if upper else stats.beta.ppf(q, a, b)


@proven("audit/auditor_validity.md")
def clopper_pearson_lower(k, n, alpha: float):
    """One-sided Clopper–Pearson lower bound: Pr[p < lower] ≤ alpha for k ~ Bin(n, p).

    ``lower = Beta⁻¹(alpha; k, n − k + 1)``, and 0 when k = 0.  Vectorised over k, n.

    Example
    -------
    >>> round(float(clopper_pearson_lower(50, 100, 0.025)), 4)
    0.3983
    """
    k, n, alpha = _check_binomial(k, n, alpha)
    with np.errstate(invalid="ignore"):
        lo = _beta_quantile(alpha, np.maximum(k, 1e-300), n - k + 1)  # proof: cp-lower
    return np.where(k <= 0, 0.0, lo)


@proven("audit/auditor_validity.md")
def clopper_pearson_upper(k, n, alpha: float):
    """One-sided Clopper–Pearson upper bound: Pr[p > upper] ≤ alpha; 1 when k = n.

    Example
    -------
    >>> round(float(clopper_pearson_upper(0, 100, 0.05)), 4)
    0.0295
    """
    k, n, alpha = _check_binomial(k, n, alpha)
    with np.errstate(invalid="ignore"):
        hi = _beta_quantile(1.0 - alpha, k + 1, np.maximum(n - k, 1e-300))  # proof: cp-upper
    return np.where(k >= n, 1.0, hi)


@proven("audit/auditor_validity.md")
def poisson_log_ratio_lower(k_p, k_q, alpha: float):
    """Lower confidence bound on ln(μ_P/μ_Q) from independent K_P ~ Poisson(μ_P), K_Q ~ Poisson(μ_Q).

    Given m = K_P + K_Q, K_P ~ Bin(m, π) with π = μ_P/(μ_P + μ_Q), a monotone function of the ratio;
    the Clopper–Pearson lower bound π_lo on π at level ``alpha`` gives ln(π_lo/(1 − π_lo)), valid
    conditionally on every m and hence unconditionally (Przyborowski and Wileński 1940).  −inf when
    K_P = 0.  Vectorised over the counts.

    Example
    -------
    >>> round(float(poisson_log_ratio_lower(1200, 1000, 0.05)), 4)
    0.111
    """
    for name, v in (("k_p", k_p), ("k_q", k_q)):
        a = np.asarray(v) if not isinstance(v, (str, bytes)) else np.asarray(None)
        if a.dtype == bool or a.dtype.kind not in "iuf":
            raise TypeError(f"{name} must be an integer count, got {v!r}")
        if not np.isfinite(a).all() or (a != np.round(a)).any() or (a < 0).any():
            raise ValueError(f"{name} must be a non-negative integer count, got {v!r}")
        if (a >= 2.0**62).any():  # so that k_p + k_q stays an int64 count (np.add would overflow)
            raise ValueError(f"{name} must be a count below 2^62 (k_p + k_q an int64 count), got {v!r}")
    if (np.add(k_p, k_q) < 1).any():
        raise ValueError(f"k_p + k_q must be >= 1 (no draw in the event: no bound), got k_p={k_p!r}, k_q={k_q!r}")
    k_p, m, alpha = _check_binomial(k_p, np.add(k_p, k_q), alpha)
    pi_lo = clopper_pearson_lower(k_p, m, alpha)  # proof: poisson-conditional
    with np.errstate(divide="ignore", invalid="ignore"):
        # 1 − π_lo is read from the mirrored Beta (1 − Beta(a, b) ~ Beta(b, a)) where π_lo > 1/2: subtracting
        # a rounded π_lo near 1 would round the logit up (to +inf when π_lo rounds to 1)
        q_hi = _beta_quantile(alpha, m - k_p + 1, np.maximum(k_p, 1), upper=True)  # proof: poisson-complement
        log_q = np.where(pi_lo > 0.5, np.log(q_hi), np.log1p(-pi_lo))
        return np.where(k_p > 0, np.log(pi_lo) - log_q, -np.inf)  # proof: poisson-logit


@proven("audit/auditor_validity.md")
def poisson_draws(n: int, eta: float) -> tuple[float, float]:
    """The Poisson mean λ of a draw count capped at ``n``: the largest λ with Pr[Poisson(λ) > n] ≤ ``eta``.

    Returns (λ, Pr[Poisson(λ) > n]).  Pr[Poisson(λ) > n] = Pr[Gamma(n + 1, 1) ≤ λ], so
    λ = Gamma⁻¹(0.999·eta; n + 1) (the margin absorbs rounding); for large n it is n − z_eta·√n,
    a fraction 1/√n below the cap.

    Example
    -------
    >>> lam, over = poisson_draws(10**6, 1e-4)
    >>> round(lam), over <= 1e-4
    (996286, True)
    """
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise ValueError(f"n must be a positive integer, got {n!r}")
    return _poisson_draws(int(n), float(check_confidence(eta, "eta")))


@functools.lru_cache(maxsize=256)
def _poisson_draws(n: int, eta: float) -> tuple[float, float]:
    """:func:`poisson_draws` on checked arguments (a pure function: an audit's stages and repeated
    audits ask for the same few (n, eta))."""
    lam = float(stats.gamma.ppf(0.999 * eta, n + 1))  # proof: poisson-rate
    return lam, float(stats.poisson.sf(n, lam))


def wilson_log_ratio(rate_p, rate_q, m, alpha):
    """The conditional test's bound, Wilson-approximated (ranking only): logit of the Wilson lower bound
    on π = rate_p/(rate_p + rate_q) from m draws in the event, one-sided at ``alpha``; −inf when
    rate_p = 0.  Vectorised.

    Parameters
    ----------
    rate_p, rate_q : float or array
        The event's rates under the two inputs (>= 0).
    m : float or array
        Draws expected in the event.
    alpha : float
        One-sided level, in (0, 1).

    Returns
    -------
    numpy.ndarray
        A lower bound on log(rate_p / rate_q), for ranking candidate events.

    Example
    -------
    >>> wilson_log_ratio([0.3, 0.0], [0.1, 0.1], 400, 0.05).round(3).tolist()
    [0.909, -inf]
    >>> wilson_log_ratio(0.3, 0.1, 400, 1.5)
    Traceback (most recent call last):
    ...
    ValueError: alpha must be in (0, 1), got 1.5
    """
    alpha = check_confidence(alpha, "alpha")
    rate_p, rate_q = np.asarray(rate_p, float), np.asarray(rate_q, float)
    with np.errstate(divide="ignore", invalid="ignore"):
        pi = wilson(rate_p / np.maximum(rate_p + rate_q, 1e-300), np.maximum(m, 1e-300),
                     special.ndtri(1.0 - alpha), upper=False)
        return np.where((rate_p > 0) & (pi > 0),
                        np.log(np.maximum(pi, 1e-300)) - np.log1p(-np.minimum(pi, 1 - 1e-16)), -np.inf)


def wilson(phat, n, z, upper: bool):
    """Wilson score bound on a binomial proportion (used only to *rank* candidate events on the
    selection half).  Vectorised.

    Parameters
    ----------
    phat : float or array
        Observed proportions.
    n : float or array
        Sample sizes (> 0).
    z : float
        The normal quantile (e.g. 1.645 for one-sided 95 %).
    upper : bool
        The upper bound if True, else the lower one.

    Example
    -------
    >>> round(float(wilson(0.5, 100, 1.96, upper=False)), 4), round(float(wilson(0.5, 100, 1.96, upper=True)), 4)
    (0.4038, 0.5962)
    >>> wilson(0.5, 100, 1.96, upper="yes")
    Traceback (most recent call last):
    ...
    TypeError: upper must be True or False, got 'yes' of type str
    """
    upper = check_bool(upper, "upper")
    if np.ndim(z) == 0:
        check_real(z, "z")
    z2 = z * z
    centre = (phat + z2 / (2 * n)) / (1 + z2 / n)
    half = z * np.sqrt(np.maximum(phat * (1 - phat), 0.0) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    return centre + half if upper else centre - half
