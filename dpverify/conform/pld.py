"""Privacy-loss distributions of one DP-SGD step, discretised both ways, and their composition.

One step of DP-SGD with sampling rate ``q`` and noise multiplier ``sigma`` under add/remove
adjacency is dominated, and the domination is tight, by the pair of Zhu, Dong and Wang (2022):
``P = (1-q) N(0, sigma^2) + q N(1, sigma^2)`` and ``Q = N(0, sigma^2)``, in both orders
("remove": loss ``log P/Q`` under ``P``; "add": loss ``log Q/P`` under ``Q``).  Both losses are
monotone functions ``L(x)`` of the one-dimensional output ``x``, so their distribution functions
are exact Gaussian expressions.

On a grid of width ``h`` the *upper* law rounds every loss up (mass above the top of the grid
goes to an atom at +infinity, mass below the bottom is lifted to it); the *lower* law rounds
every loss down (mass above the top is lowered to it, mass below the bottom is dropped).  The
upper law dominates the true loss pointwise and the lower law is dominated by it, so their
composed ``delta(eps)`` curves are on either side of the truth (Meiser and Mohammadi 2018;
Koskela et al. 2020; Doroshenko et al. 2022).  ``mean_bounds`` gives rigorous bounds on the mean
loss over the grid, which :mod:`dpverify.conform.bracket` uses to recover the ``T h / 2`` bias of
rounding by Hoeffding's inequality.

Example
-------
>>> law = step_law(1.0, 0.01, 1e-3, "remove", tail=1e-12)
>>> round(float(law.upper.sum() + law.upper_inf), 12)
1.0
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import scipy.fft
import scipy.signal
from scipy.special import ndtr, ndtri

from dpverify.validation import check_bool, check_positive_int, check_real

__all__ = ["StepLaw", "Composed", "step_law", "mean_bounds", "compose", "delta_curve",
           "epsilon_of"]


@dataclass(frozen=True)
class StepLaw:
    """One step's loss on the grid ``(k0 + j) h``: ``upper`` (rounded up), ``lower`` (down)."""

    h: float
    k0: int
    upper: np.ndarray
    upper_inf: float
    lower: np.ndarray
    order: str
    sigma: float
    q: float
    mass_err: np.ndarray


@dataclass(frozen=True)
class Composed:
    """A composed law on ``(k0 + j) h`` with ``inf`` mass at +infinity."""

    h: float
    k0: int
    p: np.ndarray
    inf: float


def _loss(x: np.ndarray, sigma: float, q: float, order: str) -> np.ndarray:
    a = (2.0 * x - 1.0) / (2.0 * sigma ** 2)
    if q == 1.0:
        value = a
    else:  # log(1 - q + q e^a), computed without overflow
        value = np.logaddexp(np.log1p(-q), np.log(q) + a)
    return value if order == "remove" else -value


def _x_of_loss(ell: np.ndarray, sigma: float, q: float, order: str) -> np.ndarray:
    """The output ``x`` where ``L(x) = ell`` (``nan`` outside the range of ``L``)."""
    v = np.asarray(ell, dtype=float) if order == "remove" else -np.asarray(ell, dtype=float)
    if q == 1.0:
        a = v
    else:
        with np.errstate(invalid="ignore", divide="ignore"):
            a = np.log(np.expm1(v) + q) - np.log(q)
    return sigma ** 2 * a + 0.5


def _x_survival(x: np.ndarray, sigma: float, q: float, order: str) -> tuple[np.ndarray, np.ndarray]:
    """(P(X <= x), P(X > x)) for the output law of this order, each accurate in its own tail."""
    if order == "remove":
        cdf = (1.0 - q) * ndtr(x / sigma) + q * ndtr((x - 1.0) / sigma)
        sf = (1.0 - q) * ndtr(-x / sigma) + q * ndtr((1.0 - x) / sigma)
    else:
        cdf, sf = ndtr(x / sigma), ndtr(-x / sigma)
    return cdf, sf


def _loss_cdf_sf(ell: np.ndarray, sigma: float, q: float, order: str) -> tuple[np.ndarray, np.ndarray]:
    """(P(L <= ell), P(L > ell)) on a grid, each computed directly (accurate in its own tail)."""
    x = _x_of_loss(ell, sigma, q, order)
    ok = np.isfinite(x)
    cdf, sf = _x_survival(np.where(ok, x, 0.0), sigma, q, order)
    if order == "remove":                      # L increasing in x; outside its range: ell too small
        f, s, f_out = cdf, sf, 0.0
    else:                                      # L decreasing in x; outside its range: ell too large
        f, s, f_out = sf, cdf, 1.0
    f = np.clip(np.where(ok, f, f_out), 0.0, 1.0)
    s = np.clip(np.where(ok, s, 1.0 - f_out), 0.0, 1.0)
    return f, s


def _loss_range(sigma: float, q: float, order: str, tail: float) -> tuple[float, float]:
    """Losses ``lo < hi`` with P(L < lo) <= tail and P(L > hi) <= tail."""
    z = -float(ndtri(tail / 2.0))
    if order == "remove":
        xs = np.array([-z * sigma, 1.0 + z * sigma])
    else:
        xs = np.array([z * sigma, -z * sigma])
    lo, hi = _loss(xs, sigma, q, order)
    return float(lo), float(hi)


def step_law(sigma: float, q: float, h: float, order: str, *, tail: float) -> StepLaw:
    """Discretise one step's loss of ``order`` on a grid of width ``h`` (tails below ``tail``).

    >>> law = step_law(2.0, 1.0, 0.01, "add", tail=1e-12)
    >>> bool(law.lower.sum() <= 1.0 <= law.upper.sum() + law.upper_inf + 1e-12)
    True
    """
    if order not in ("remove", "add"):
        raise ValueError(f"order must be 'remove' or 'add', got {order!r}")
    for name, v in (("sigma", sigma), ("q", q), ("h", h), ("tail", tail)):
        check_real(v, name, positive=True)
    sigma, q, h, tail = (float(v) for v in (sigma, q, h, tail))
    if q > 1 or tail >= 1:
        raise ValueError(f"need q <= 1 and tail < 1, got q={q!r}, tail={tail!r}")
    if not 1e-300 <= sigma <= 1e6:
        raise ValueError(f"sigma must be in [1e-300, 1e6], got {sigma!r}")
    lo, hi = _loss_range(sigma, q, order, tail)
    if not (math.isfinite(lo) and math.isfinite(hi)):
        raise ValueError(f"tail={tail!r} is too small for sigma={sigma!r}: the loss range [{lo:.3g}, {hi:.3g}] "
                         "is not finite")
    if (hi - lo) / h > _MAX_CELLS:
        raise ValueError(f"h={h!r} gives more than {_MAX_CELLS} grid cells for this loss range "
                         f"[{lo:.3g}, {hi:.3g}]: choose a larger h")
    k0, k1 = int(np.floor(lo / h)), int(np.ceil(hi / h))
    ell = (k0 + np.arange(k1 - k0 + 1)) * h
    f, s = _loss_cdf_sf(ell, sigma, q, order)
    # cell masses P(ell_{j-1} < L <= ell_j), from whichever side is small
    mass = np.where(s[1:] < 0.5, s[:-1] - s[1:], f[1:] - f[:-1])
    mass = np.clip(mass, 0.0, None)
    upper = np.concatenate(([f[0]], mass))          # lifted bottom, rounded up
    lower = np.concatenate((mass, [s[-1]]))         # rounded down, lowered top, bottom dropped
    small = np.minimum(f, s)
    err = 16 * (np.finfo(float).eps / 2) * (small[:-1] + small[1:])   # ndtr relative error
    return StepLaw(h=h, k0=k0, upper=upper, upper_inf=float(s[-1]), lower=lower,
                   order=order, sigma=sigma, q=q, mass_err=err)


_MAX_CELLS = 1 << 26  # a step law's grid: 64 Mi cells (0.5 GiB a float array)


def _check_law(law, name: str = "law") -> None:
    if not isinstance(law, StepLaw):
        raise TypeError(f"{name} must be a StepLaw (from step_law), got {type(law).__name__}")


def _check_composed(c, name: str = "c") -> None:
    if not isinstance(c, Composed):
        raise TypeError(f"{name} must be a Composed law (from compose), got {type(c).__name__}")


def _partial(x: np.ndarray, sigma: float, q: float, order: str) -> tuple[np.ndarray, np.ndarray]:
    """Per cell ``(x_j, x_{j+1}]``: its probability ``m`` and ``E[X - x_j; cell]``."""
    comps = [(1.0 - q, 0.0), (q, 1.0)] if order == "remove" else [(1.0, 0.0)]
    m = np.zeros(x.size - 1)
    d = np.zeros(x.size - 1)
    for w, mu in comps:
        if w == 0.0:
            continue
        z = (x - mu) / sigma
        lower, upper = ndtr(z), ndtr(-z)
        mc = np.where(upper[1:] < 0.5, upper[:-1] - upper[1:], lower[1:] - lower[:-1])
        mc = np.clip(mc, 0.0, None)
        phi = np.exp(-0.5 * z * z) / np.sqrt(2.0 * np.pi)
        m += w * mc
        d += w * ((mu - x[:-1]) * mc + sigma * (phi[:-1] - phi[1:]))
    width = np.diff(x)
    return m, np.clip(d, 0.0, m * width)


def mean_bounds(law: StepLaw, points: int = 1 << 18) -> tuple[float, float]:
    """Rigorous (lower, upper) bounds on E[L; ell_0 < L < ell_last].

    ``L(x) = +-log(1 - q + q e^{(2x-1)/(2 sigma^2)})`` is convex (remove) or concave (add) and
    monotone, so on each cell of a fine ``x`` grid ``E[L | cell]`` lies between ``L`` at the
    cell's conditional mean (Jensen) and the chord at that mean; both are exact Gaussian partial
    moments.  A round-off allowance (relative error 16 u of ``ndtr``) is added on both sides.

    >>> lo, hi = mean_bounds(step_law(1.0, 1.0, 0.01, "remove", tail=1e-12), points=1 << 12)
    >>> bool(lo <= 0.5 <= hi and hi - lo < 1e-5)      # E L = 1 / (2 sigma^2) at q = 1
    True
    """
    _check_law(law)
    points = check_positive_int(points, "points", maximum=1 << 24)
    if points < 2:
        raise ValueError(f"points must be >= 2, got {points!r}")
    n = law.upper.size
    ends = np.array([law.k0 * law.h, (law.k0 + n - 1) * law.h])
    xs = _x_of_loss(ends, law.sigma, law.q, law.order)
    xa, xb = np.sort(np.where(np.isfinite(xs), xs, -40.0 * law.sigma - 1.0))
    x = np.linspace(xa, xb, points + 1)
    m, d = _partial(x, law.sigma, law.q, law.order)
    values = _loss(x, law.sigma, law.q, law.order)
    slope = np.diff(values) / np.diff(x)
    chord = m * values[:-1] + slope * d
    with np.errstate(invalid="ignore", divide="ignore"):
        xbar = np.where(m > 0, x[:-1] + d / np.where(m > 0, m, 1.0), x[:-1])
    jensen = m * _loss(xbar, law.sigma, law.q, law.order)
    lo_sum = float(np.sum(np.minimum(chord, jensen)))
    hi_sum = float(np.sum(np.maximum(chord, jensen)))
    u = np.finfo(float).eps / 2
    big = np.maximum(np.abs(values[:-1]), np.abs(values[1:])) + np.abs(slope) * np.diff(x)
    cdf, sf = _x_survival(x, law.sigma, law.q, law.order)
    small = np.minimum(cdf, sf)
    err_m = 16 * u * (small[:-1] + small[1:]) * (1.0 + np.abs(x[:-1]) + law.sigma)
    slack = float(np.sum(err_m * (big + np.abs(slope)))) + 2 * np.log2(points) * u * float(
        np.sum(np.abs(chord) + np.abs(jensen)))
    return lo_sum - slack, hi_sum + slack


def _fftconv(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    n = a.size + b.size - 1
    size = scipy.fft.next_fast_len(n, real=True)
    out = scipy.fft.irfft(scipy.fft.rfft(a, size) * scipy.fft.rfft(b, size), size)[:n]
    return np.clip(out, 0.0, None)


def _truncate(c: Composed, tail: float, upper: bool) -> Composed:
    p = c.p
    top = np.cumsum(p[::-1])[::-1]              # top[j] = mass at j and above
    bottom = np.cumsum(p)
    hi = int(np.searchsorted(-top, -tail, side="left")) if top[0] > tail else p.size
    hi = min(max(hi, 1), p.size)                # keep p[:hi]; mass at >= hi is <= tail
    lo = int(np.searchsorted(bottom, tail, side="right"))
    lo = min(lo, hi - 1)                         # drop p[:lo]; its mass <= tail
    cut_top = float(top[hi]) if hi < p.size else 0.0
    cut_bottom = float(bottom[lo - 1]) if lo > 0 else 0.0
    kept = p[lo:hi].copy()
    inf = c.inf
    if upper:
        inf += cut_top                           # above the grid: to +infinity
        kept[0] += cut_bottom                    # below the grid: lifted
    else:
        kept[-1] += cut_top                      # above the grid: lowered; below: dropped
    return Composed(h=c.h, k0=c.k0 + lo, p=kept, inf=inf)


def _combine(a: Composed, b: Composed, tail: float, upper: bool) -> Composed:
    p = _fftconv(a.p, b.p)
    inf = a.inf + b.inf if upper else 0.0
    return _truncate(Composed(h=a.h, k0=a.k0 + b.k0, p=p, inf=inf), tail, upper)


def compose(law: StepLaw, steps: int, *, tail: float, upper: bool) -> Composed:
    """The ``steps``-fold composition of the upper (or lower) law, by repeated squaring.

    Every truncation moves mass up (to +infinity or the bottom of the grid) for the upper law
    and down (or away) for the lower law, so both stay on their side.  A partial sum of ``m``
    steps is truncated at ``tail * m / (steps * ops)`` (``ops`` truncations in all), so the mass
    moved, counted with its multiplicity in the final sum, is at most ``tail``.

    >>> law = step_law(1.0, 1.0, 0.01, "remove", tail=1e-12)
    >>> up, lo = (compose(law, 4, tail=1e-12, upper=u) for u in (True, False))
    >>> delta_curve(up, 1.0) >= delta_curve(lo, 1.0)
    True
    """
    _check_law(law)
    steps = check_positive_int(steps, "steps", maximum=10 ** 7)
    tail = check_real(tail, "tail", nonneg=True)  # 0: no truncation
    if not tail < 1:
        raise ValueError(f"tail must be in [0, 1), got {tail!r}")
    upper = check_bool(upper, "upper")
    ops = 2 * max(steps.bit_length(), 1) + 1
    unit = tail / (steps * ops)
    base = Composed(h=law.h, k0=law.k0, p=law.upper if upper else law.lower,
                    inf=law.upper_inf if upper else 0.0)
    base = _truncate(base, unit, upper)
    size, done = 1, 0
    result: Composed | None = None
    k = steps
    while k:
        if k & 1:
            done += size
            result = base if result is None else _combine(result, base, unit * done, upper)
        k >>= 1
        if k:
            size *= 2
            base = _combine(base, base, unit * size, upper)
    assert result is not None
    return result


def delta_curve(c: Composed, eps: float) -> float:
    """``delta(eps) = inf + sum_{s > eps} p_s (1 - e^{eps - s})`` of a composed law.

    >>> delta_curve(Composed(h=1.0, k0=0, p=np.array([0.5, 0.5]), inf=0.0), 0.0) > 0
    True
    """
    _check_composed(c)
    eps = check_real(eps, "eps")
    s = (c.k0 + np.arange(c.p.size)) * c.h
    w = -np.expm1(np.minimum(eps - s, 0.0))
    return float(c.inf + np.dot(c.p, w))


def epsilon_of(c: Composed, target: float) -> float:
    """The least ``eps`` (any real) with ``delta_curve(c, eps) <= target``; ``inf`` if none.

    Between grid points ``delta`` is ``inf + B - e^{eps - s_k} A`` in closed form, so the answer
    is exact up to round-off: sums from the top, and the geometric filter for ``A``.

    >>> c = Composed(h=1.0, k0=0, p=np.array([0.5, 0.5]), inf=0.0)
    >>> abs(delta_curve(c, epsilon_of(c, 0.1)) - 0.1) < 1e-12
    True
    """
    _check_composed(c)
    target = check_real(target, "target")
    if not 1e-250 <= target < 1.0:  # below, delta is lost in round-off (the bracket asks >= 1e-200)
        raise ValueError(f"target must be in [1e-250, 1), got {target!r}")
    if c.inf >= target:
        return float("inf")
    p = c.p
    s = (c.k0 + np.arange(p.size)) * c.h
    tail = np.cumsum(p[::-1])[::-1]                     # B_k = sum_{j >= k} p_j
    decay = np.exp(-c.h)
    acc = scipy.signal.lfilter([1.0], [1.0, -decay], p[::-1])[::-1]   # A_k = sum p_j e^{-(j-k)h}
    d_at = c.inf + tail - acc                            # delta(s_k) uses j > k: B_k - A_k
    ok = np.nonzero(d_at <= target)[0]
    k = int(ok[0]) if ok.size else p.size - 1
    if not ok.size:
        return float(s[-1])
    a, b = acc[k], tail[k]
    if a <= 0.0:
        return float(s[k])
    value = s[k] + np.log(max(c.inf + b - target, 0.0) / a) if c.inf + b > target else -np.inf
    return float(min(max(value, s[k - 1] if k > 0 else -np.inf), s[k]))
