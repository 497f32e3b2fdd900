"""Exact output laws of the benchmark mechanisms whose output space is finite.

``exact_law(mechanism, data)`` returns ``(outcomes, probabilities)``: every output the
mechanism's ``sample`` can return on ``data`` (coded exactly as ``sample`` codes it; rows for the
sparse-vector mechanisms, indices for report-noisy-max, counts for the truncated geometric), in a
canonical order that depends only on the mechanism and ``len(data)``, so the laws of two inputs
align entry by entry.  Derivations: ``dpverify/audit/proofs/suite_exact.md``.

- TruncatedGeometric: exact integer arithmetic (``cdf`` differences), rounded once to float.
- SVT1, SVT4, SVT6 (one threshold noise ρ): given ρ = r the answers are independent, so
  P(o) = ∫ f_ρ(r) Π_i P(answer_i = o_i | r) dr over the answered queries (any cutoff c).
- SVT2 (ρ redrawn after every ⊤): the answers between two ⊤ share one ρ, so P(o) is a product of
  one-dimensional integrals, one per segment (any c).
- SVT5 (no query noise): the answers are a function of ρ; closed form by Laplace-CDF differences.
- ReportNoisyMax1/2: P(i) = ∫ f_i(z) Π_{j≠i} F_j(z) dz (Laplace, exponential noise).

The integrals are computed in log space by adaptive Gauss–Kronrod quadrature (scipy ``quad_vec``)
over the pieces between the integrand's kinks, then repeated with every outcome's integrand divided
by its previous estimate until the error estimate of each ratio is below ``REL_TOL``: each
probability above ``1e-290`` carries a relative error ≤ 1e-10 (quadrature's own estimate);
``RuntimeError`` if that is not reached.  ReportNoisyMax3/4, SVT3, NumericalSVT and SVT34Parallel
release continuous values and are refused (TypeError), as are subclasses (their ``sample`` may
differ).

Example
-------
>>> from dpverify.audit.suite import SVT1
>>> out, p = exact_law(SVT1(0.1, threshold=0.5), np.ones(3))
>>> out.tolist()
[[0, 0, 0], [1, -1, -1], [0, 1, -1], [0, 0, 1]]
>>> round(float(p.sum()), 12)
1.0
"""

from __future__ import annotations

import itertools
import math

import numpy as np
from scipy.integrate import quad_vec

from dpverify.validation import check_finite_array
from dpverify.audit.suite.geometric import TruncatedGeometric
from dpverify.audit.suite.noisy_max import ReportNoisyMax1, ReportNoisyMax2
from dpverify.audit.suite.svt import SVT1, SVT2, SVT4, SVT5, SVT6
from dpverify.proofdocs import proven

__all__ = ["COVERED", "MAX_OUTCOMES", "MAX_QUERIES", "REL_TOL", "exact_law"]

MAX_OUTCOMES = 4096
MAX_QUERIES = 64
REL_TOL = 1e-10
_MAX_ABS_DATA = 1e6
_LOG_HALF = math.log(0.5)


# ----------------------------------------------------------------------------- Laplace in log space

def _log_laplace_sf(z, b):
    """ln P(Lap(b) ≥ z), accurate in both tails."""
    z = np.asarray(z, float)
    return np.where(z >= 0, _LOG_HALF - np.abs(z) / b, np.log1p(-0.5 * np.exp(-np.abs(z) / b)))


def _log_laplace_cdf(z, b):
    return _log_laplace_sf(-np.asarray(z, float), b)


def _log_laplace_pdf(z, b):
    return -math.log(2.0 * b) - np.abs(np.asarray(z, float)) / b


def _log_exp_cdf(u, b):
    """ln P(Exp(b) ≤ u) (−inf for u ≤ 0)."""
    u = np.asarray(u, float)
    with np.errstate(divide="ignore"):
        return np.where(u > 0, np.log(-np.expm1(-np.maximum(u, 0.0) / b)), -np.inf)


# ----------------------------------------------------------------------------- quadrature

def _integrate(log_integrand, kinks, lower=-np.inf) -> np.ndarray:
    """∫_lower^∞ exp(log_integrand(r)) dr, a vector, each entry to relative error ≤ REL_TOL."""
    pts = sorted({float(k) for k in kinks if k > lower})
    edges = [lower, *pts, np.inf]
    piece_tol = REL_TOL / (4 * (len(edges) - 1))
    scale = np.zeros(np.shape(log_integrand(pts[0] if pts else lower + 1.0)))  # ln of the current estimate
    for _ in range(6):
        total, err = 0.0, 0.0
        for a, b in zip(edges[:-1], edges[1:]):
            res, e = quad_vec(lambda r: np.exp(log_integrand(r) - scale), a, b, epsabs=piece_tol,
                              epsrel=0.0, norm="max", limit=4000)
            total, err = total + res, err + e
        with np.errstate(divide="ignore"):
            scale = scale + np.log(np.maximum(total, 0.0))  # proof: rescale
        # each ratio total = I / previous estimate within (1/2, 3/2) and its error ≤ err: the
        # relative error of I is ≤ 2·err ≤ REL_TOL
        ok = (np.abs(total - 1.0) < 0.5) | (scale < math.log(1e-290))
        if err <= REL_TOL / 2 and ok.all():  # proof: rel-tol
            return np.exp(scale)
        scale = np.where(np.isfinite(scale), np.maximum(scale, math.log(1e-300)), math.log(1e-300))
    raise RuntimeError(f"quadrature did not reach relative accuracy {REL_TOL:g} (last error estimate {err:.3g})")


# ----------------------------------------------------------------------------- outcome codes

def _svt_outcomes(k: int, c: int) -> np.ndarray:
    """All answer rows of a k-query SVT with cutoff c: 1 = ⊤, 0 = ⊥, −1 = not answered."""
    rows = []
    for m in range(min(c, k) + 1):
        for above in itertools.combinations(range(k), m):
            row = [0] * k
            for i in above:
                row[i] = 1
            if m == c:  # stopped after the c-th ⊤
                row[above[-1] + 1:] = [-1] * (k - 1 - above[-1])
            rows.append(row)
    return np.array(rows, dtype=np.int64).reshape(len(rows), k)


def _n_outcomes(k: int, c: int) -> int:
    return sum(math.comb(k, m) for m in range(min(c, k) + 1))


# ----------------------------------------------------------------------------- the laws

def _svt_shared(x, threshold, b_rho, b_nu, c):
    """SVT with one ρ ~ Lap(b_rho), ν_i ~ Lap(b_nu), answer ⊤ iff x_i + ν_i ≥ T + ρ, cutoff c."""
    out = _svt_outcomes(x.size, c)
    is_above, is_below = (out == 1).astype(float), (out == 0).astype(float)

    def log_integrand(r):
        log_above = _log_laplace_sf(threshold + r - x, b_nu)  # P(ν_i ≥ T + r − x_i)
        log_below = _log_laplace_cdf(threshold + r - x, b_nu)
        return _log_laplace_pdf(r, b_rho) + is_above @ log_above + is_below @ log_below  # proof: svt-shared

    return out, _integrate(log_integrand, [0.0, *(x - threshold)])


def _svt_redrawn(x, threshold, b_rho, b_nu, c):
    """SVT2: a fresh ρ after every ⊤, so the answers of each segment (after a ⊤ up to the next)
    share one ρ, independent across segments: P(o) = Π_segments ∫ f_ρ Π_{⊥} F_j · S_end."""
    k = x.size
    out = _svt_outcomes(k, c)
    a_idx, b_idx = np.triu_indices(k)  # segment a..b ending with ⊤ at b; then the tails a..k−1

    def log_integrand(r):
        log_above = _log_laplace_sf(threshold + r - x, b_nu)
        cum = np.concatenate([[0.0], np.cumsum(_log_laplace_cdf(threshold + r - x, b_nu))])
        # segment a..b: ⊥ on a..b−1, ⊤ at b
        seg = cum[b_idx] - cum[a_idx] + log_above[b_idx]  # proof: svt-segment
        tail = cum[k] - cum[:k]  # ⊥ on a..k−1
        return _log_laplace_pdf(r, b_rho) + np.concatenate([seg, tail])

    vals = _integrate(log_integrand, [0.0, *(x - threshold)])
    seg = np.zeros((k, k))
    seg[a_idx, b_idx] = vals[: a_idx.size]
    tail = np.append(vals[a_idx.size:], 1.0)  # tail[k] = 1: nothing left to answer
    probs = np.empty(len(out))
    for j, row in enumerate(out):
        start, p = 0, 1.0
        for i in np.flatnonzero(row == 1):
            p, start = p * seg[start, i], i + 1
        probs[j] = p * (tail[start] if (row == 1).sum() < c else 1.0)  # proof: svt-product
    return out, probs


def _svt_noiseless(x, threshold, b_rho):
    """SVT5: answer i is ⊤ iff ρ ≤ x_i − T; the row is constant on the intervals between the
    sorted t_i = x_i − T, so P(row) is the Laplace mass of its interval."""
    k = x.size
    out = _svt_outcomes(k, k)
    t = np.unique(x - threshold)
    lo, hi = np.r_[-np.inf, t], np.r_[t, np.inf]  # ρ in (lo, hi]: ⊤ exactly for t_i ≥ hi
    mass = _laplace_mass(lo, hi, b_rho)
    probs = np.zeros(len(out))
    codes = out @ (1 << np.arange(k, dtype=np.int64))
    for h, m in zip(hi, mass):
        row = (x - threshold >= h).astype(np.int64)  # proof: svt5-row
        probs[np.flatnonzero(codes == row @ (1 << np.arange(k, dtype=np.int64)))[0]] += m
    return out, probs


def _laplace_mass(lo, hi, b):
    """P(lo < Lap(b) ≤ hi) without cancellation in the tails."""
    with np.errstate(invalid="ignore", over="ignore"):
        width = -np.expm1(-(hi - lo) / b)
        right = 0.5 * np.exp(-np.maximum(lo, 0) / b) * width  # lo ≥ 0
        left = 0.5 * np.exp(np.minimum(hi, 0) / b) * width  # hi ≤ 0
        mid = 1.0 - 0.5 * np.exp(np.minimum(lo, 0) / b) - 0.5 * np.exp(-np.maximum(hi, 0) / b)
    return np.where(lo >= 0, np.where(np.isinf(hi), 0.5 * np.exp(-lo / b), right),
                    np.where(hi <= 0, np.where(np.isinf(lo), 0.5 * np.exp(hi / b), left), mid))


def _noisy_max(x, b, exponential: bool):
    """P(argmax = i) = ∫ f_i(z) Π_{j≠i} F_j(z) dz with x_i + Lap(b) or x_i + Exp(b)."""
    out = np.arange(x.size, dtype=np.int64)
    if exponential:  # support of x_i + Exp(b) is [x_i, ∞); every F_j > 0 needs z > max x
        def log_integrand(z):
            log_f = np.where(z >= x, -math.log(b) - (z - x) / b, -np.inf)
            return log_f + _sum_others(_log_exp_cdf(z - x, b))  # proof: rnm-exp
        return out, _integrate(log_integrand, [], lower=float(x.max()))

    def log_integrand(z):
        return _log_laplace_pdf(z - x, b) + _sum_others(_log_laplace_cdf(z - x, b))  # proof: rnm-laplace
    return out, _integrate(log_integrand, x)


def _sum_others(v):
    """Σ_{j≠i} v_j for every i, where entries may be −inf (no −inf − (−inf))."""
    dead = np.isneginf(v)
    finite = np.where(dead, 0.0, v)
    others_dead = dead.sum() - dead > 0
    return np.where(others_dead, -np.inf, finite.sum() - finite)


def _geometric(m: TruncatedGeometric, x):
    if x.size != 1 or x[0] != round(x[0]) or not 0 <= x[0] <= m.n:
        raise ValueError(f"data must be one integer count in 0..{m.n} for TruncatedGeometric, got {x.tolist()!r}")
    cdf = m.cdf(int(x[0]))
    counts = np.diff([0, *cdf])  # exact integers, P(z) = counts[z] / d
    return np.arange(m.n + 1, dtype=np.int64), np.array([c / m.d for c in counts.tolist()])


def _svt_c(m) -> int:
    return int(m.c)


_LAWS = {
    TruncatedGeometric: _geometric,
    SVT1: lambda m, x: _svt_shared(x, m.threshold, 2.0 / m.epsilon, 4.0 * m.c / m.epsilon, _svt_c(m)),
    SVT2: lambda m, x: _svt_redrawn(x, m.threshold, 2.0 * m.c / m.epsilon, 4.0 * m.c / m.epsilon, _svt_c(m)),
    SVT4: lambda m, x: _svt_shared(x, m.threshold, 4.0 / m.epsilon, 1.0 / (0.75 * m.epsilon), _svt_c(m)),
    SVT5: lambda m, x: _svt_noiseless(x, m.threshold, 2.0 / m.epsilon),
    SVT6: lambda m, x: _svt_shared(x, m.threshold, 2.0 / m.epsilon, 2.0 / m.epsilon, x.size),
    ReportNoisyMax1: lambda m, x: _noisy_max(x, 2.0 / m.epsilon, exponential=False),
    ReportNoisyMax2: lambda m, x: _noisy_max(x, 2.0 / m.epsilon, exponential=True),
}
COVERED = tuple(cls.__name__ for cls in _LAWS)


@proven("audit/suite_exact.md")
def exact_law(mechanism, data) -> tuple[np.ndarray, np.ndarray]:
    """Every output of ``mechanism.sample(data, ·, ·)`` and its exact probability.

    Parameters
    ----------
    mechanism : an instance of TruncatedGeometric, SVT1, SVT2, SVT4, SVT5, SVT6, ReportNoisyMax1
        or ReportNoisyMax2 (exactly these classes)
    data : the input, a finite vector of at most ``MAX_QUERIES`` = 64 entries of magnitude ≤ 1e6, with
        at most ``MAX_OUTCOMES`` = 4096 possible outputs (SVT5/SVT6: at most 12 queries)

    Returns
    -------
    (outcomes, probabilities): outcomes as ``sample`` codes them (rows for the SVTs, integers
    otherwise), probabilities summing to 1 (each to relative error ≤ ``REL_TOL``).

    Example
    -------
    >>> from dpverify.audit.suite import ReportNoisyMax1
    >>> out, p = exact_law(ReportNoisyMax1(0.1), [1.0, 1.0])
    >>> out.tolist(), p.round(12).tolist()
    ([0, 1], [0.5, 0.5])
    """
    law = _LAWS.get(type(mechanism))
    if law is None:
        raise TypeError(f"mechanism must be one of {', '.join(COVERED)} (exact class), "
                        f"got {type(mechanism).__name__}")
    x = check_finite_array(data, "data").reshape(-1)
    if x.size == 0:
        raise ValueError("data must be non-empty")
    if x.size > MAX_QUERIES:
        raise ValueError(f"data must have at most {MAX_QUERIES} entries, got {x.size}")
    if np.abs(x).max() > _MAX_ABS_DATA:
        raise ValueError(f"data entries must have magnitude <= {_MAX_ABS_DATA:g}, got {np.abs(x).max():g}")
    if type(mechanism) in (SVT1, SVT2, SVT4, SVT5, SVT6):
        c = x.size if type(mechanism) in (SVT5, SVT6) else _svt_c(mechanism)
        if _n_outcomes(x.size, c) > MAX_OUTCOMES:
            raise ValueError(f"data has {x.size} queries: {_n_outcomes(x.size, c)} outcomes exceed {MAX_OUTCOMES}")
    outcomes, probs = law(mechanism, x)
    return outcomes, probs
