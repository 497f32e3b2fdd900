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
Koskela et al. 2020).  ``mean_bounds`` bounds the mean loss, which :mod:`dpverify.conform.bracket`
uses to recover the ``T h / 2`` bias of rounding (Hoeffding).  Proof: ``proofs/bracket.md``.

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
import scipy.signal
from scipy.special import logsumexp, ndtr, ndtri

from dpverify.conform.cells import NDTR_REL, U, component_cells
from dpverify.conform.certfft import cpow, fft, logm, power_error, window
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
    edge_err: tuple = (0.0, 0.0)


@dataclass(frozen=True)
class Composed:
    """A composed law on ``(k0 + j) h``, ``inf`` mass at +infinity, and its error terms.

    ``upper``: its side; ``err``: l2 round-off bound of the result tilted by ``lam`` about
    ``center``; wrapped mass: ``alias + exp(alias_log - lam (eps - center))``."""

    h: float
    k0: int
    p: np.ndarray
    inf: float
    upper: bool = True
    err: float = 0.0
    lam: float = 0.0
    center: float = 0.0
    alias: float = 0.0
    alias_log: float = -math.inf


def _loss(x: np.ndarray, sigma: float, q: float, order: str) -> np.ndarray:
    a = (2.0 * x - 1.0) / (2.0 * sigma ** 2)
    value = a if q == 1.0 else np.logaddexp(np.log1p(-q), np.log(q) + a)  # log(1 - q + q e^a)
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
    mass = np.clip(np.where(s[1:] < 0.5, s[:-1] - s[1:], f[1:] - f[:-1]), 0.0, None)
    upper = np.concatenate(([f[0]], mass))          # lifted bottom, rounded up
    lower = np.concatenate((mass, [s[-1]]))         # rounded down, lowered top, bottom dropped
    small = np.minimum(f, s)
    x = _x_of_loss(ell, sigma, q, order)
    e_b = _NDTR_REL * small + _boundary_mass(ell, x, sigma, q, order)  # error of f_j, s_j
    return StepLaw(h=h, k0=k0, upper=upper, upper_inf=float(s[-1]), lower=lower, order=order,
                   sigma=sigma, q=q, mass_err=e_b[:-1] + e_b[1:],
                   edge_err=(float(e_b[0]), float(e_b[-1])))


_U, _NDTR_REL = U, NDTR_REL  # unit round-off; assumed relative error of scipy.special.ndtr (cells.py)


def _x_roundoff(ell, xs, sigma, q, order):
    """A bound on |computed x(ell_j) - exact x(ell_j)| (proof, step 1, "Boundary round-off")."""
    s2, a_ell = sigma ** 2, np.abs(ell)
    rest = 16 * _U * (s2 * (1 - math.log(q)) + np.abs(xs) + 1)
    if q == 1.0:
        return 4 * _U * s2 * a_ell + rest
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        e = np.expm1(ell if order == "remove" else -ell)
        y, e = e + q, np.abs(e)
        ok = (y > 0) & (8 * _U * (1 + a_ell) * (e + 1) <= 0.05 * y)   # else: assumption 3
        d = np.abs(np.diff(xs) / np.diff(ell))
        slope = np.nan_to_num(np.fmax(np.r_[np.nan, d], np.r_[d, np.nan]), posinf=0.0)
        return np.where(ok, 8 * _U * s2 * (e + a_ell * (e + 1)) / y + rest, 128 * _U * (
            slope * (1 + a_ell) + 1 + np.abs(xs) + s2 * (1 + a_ell - math.log(q))))


def _boundary_mass(ell, x, sigma, q, order):
    """Mass within the round-off of each computed boundary ``x(ell_j)`` (proof, step 1)."""
    xs = np.where(np.isfinite(x), x, np.nan)
    dx = _x_roundoff(ell, xs, sigma, q, order)
    comps = [(1.0 - q, 0.0), (q, 1.0)] if order == "remove" else [(1.0, 0.0)]
    pdf = sum(w * np.exp(-0.5 * (np.maximum(np.abs(xs - mu) - dx, 0) / sigma) ** 2)
              for w, mu in comps) / (sigma * math.sqrt(2 * math.pi))
    return np.where(np.isfinite(xs), 2 * dx * pdf, 0.0)


_MAX_CELLS = 1 << 26  # a step law's grid: 64 Mi cells (0.5 GiB a float array)


def _check_law(law, name: str = "law") -> None:
    if not isinstance(law, StepLaw):
        raise TypeError(f"{name} must be a StepLaw (from step_law), got {type(law).__name__}")


def _check_composed(c, name: str = "c") -> None:
    if not isinstance(c, Composed):
        raise TypeError(f"{name} must be a Composed law (from compose), got {type(c).__name__}")


def _partial(x: np.ndarray, sigma: float, q: float, order: str) -> tuple[np.ndarray, np.ndarray]:
    """Per cell ``(x_j, x_{j+1}]``: its probability ``m`` and ``E[X - x_j; cell]``."""
    m, d = np.zeros(x.size - 1), np.zeros(x.size - 1)
    for w, mu, z, _, _, mc in component_cells(x, sigma, q, order):
        mc = np.clip(mc, 0.0, None)
        phi = np.exp(-0.5 * z * z) / np.sqrt(2.0 * np.pi)
        m += w * mc
        d += w * ((mu - x[:-1]) * mc + sigma * (phi[:-1] - phi[1:]))
    return m, np.clip(d, 0.0, m * np.diff(x))


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
    ends = np.array([law.k0, law.k0 + law.upper.size - 1]) * law.h
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
    lo_sum, hi_sum = (float(np.sum(f(chord, jensen))) for f in (np.minimum, np.maximum))
    big = np.maximum(np.abs(values[:-1]), np.abs(values[1:])) + np.abs(slope) * np.diff(x)
    small = np.minimum(*_x_survival(x, law.sigma, law.q, law.order))
    err_m = _NDTR_REL * (small[:-1] + small[1:]) * (1.0 + np.abs(x[:-1]) + law.sigma)
    slack = float(np.sum(err_m * (big + np.abs(slope)))) + 2 * np.log2(points) * _U * float(
        np.sum(np.abs(chord) + np.abs(jensen)))
    return lo_sum - slack, hi_sum + slack


_LAST: list = [None]  # (law, steps, tail, lams, max_n, (upper, lower)): compose's one-entry cache


def compose(law: StepLaw, steps: int, *, tail: float, upper: bool, lam: float = 0.0,
            lam_lower: float | None = None, max_n: int = 1 << 22) -> Composed:
    """The ``steps``-fold composition of the upper (or lower) law, certified (proof, steps 2-5).

    One circular FFT power of the law tilted by ``e^{lam s}`` (``e^{lam_lower s}`` for the lower
    law) on ``N <= max_n`` cells (mass outside bounded by ``tail``, Chernoff); the round-off bound
    (:mod:`dpverify.conform.certfft`) is carried in the result and added by :func:`delta_curve`.

    >>> law = step_law(1.0, 1.0, 0.01, "remove", tail=1e-12)
    >>> up, lo = (compose(law, 4, tail=1e-12, upper=u) for u in (True, False))
    >>> delta_curve(up, 1.0) >= delta_curve(lo, 1.0)
    True
    """
    _check_law(law)
    steps = check_positive_int(steps, "steps", maximum=10 ** 7)
    tail, upper = check_real(tail, "tail", positive=True), check_bool(upper, "upper")
    lams = {"lam": lam, "lam_lower": lam if lam_lower is None else lam_lower}
    for name, v in lams.items():  # 0: no tilt
        if check_real(v, name, nonneg=True) and not 1e-6 <= v <= 1e4:
            raise ValueError(f"{name} must be 0 or in [1e-6, 1e4], got {v!r}")
    max_n = check_positive_int(max_n, "max_n", maximum=1 << 26)
    if not 1e-250 <= tail < 1:
        raise ValueError(f"tail must be in [1e-250, 1), got {tail!r}")
    key = (law, steps, tail, tuple(float(v) for v in lams.values()), max_n)  # both sides, one FFT
    if _LAST[0] is None or _LAST[0][0] is not law or _LAST[0][1:5] != key[1:]:
        _LAST[0] = key + (_compose_both(law, steps, tail, key[3], max_n),)
    return _LAST[0][5][0 if upper else 1]


def _compose_both(law, steps, tail, lams, max_n):
    n1, h = law.upper.size, law.h
    s = (law.k0 + np.arange(n1)) * h
    a_up = law.upper + np.concatenate(([law.edge_err[0]], law.mass_err))
    a_lo = np.clip(law.lower - np.concatenate((law.mass_err, [law.edge_err[1]])), 0.0, None)
    c1 = [logm(a, s, lam) / lam if lam > 0 else 0.0 for a, lam in zip((a_up, a_lo), lams)]
    bottom, top, above, tilt, below = window(a_up, a_lo, s, steps, lams, [steps * c for c in c1],
                                             tail / 4)
    jb = int(math.floor(bottom / h))
    n = 1 << max(int(math.ceil(top / h)) - jb, 1).bit_length()
    if n > max_n:
        raise ValueError(f"the window needs {n} cells, more than max_n={max_n}: choose a larger h")
    with np.errstate(divide="ignore"):
        x = [np.bincount(np.arange(n1) % n, np.exp(np.log(a) + lam * (s - c)), minlength=n)
             for a, lam, c in zip((a_up, a_lo), lams, c1)]
    x = [x[0] * (1 + 1e-11), x[1] * (1 - 1e-11)]
    znorm = math.sqrt(float(np.dot(x[0], x[0]) + np.dot(x[1], x[1]))) * (1 + n * _U * 2.02)
    zr, zi = fft(x[0], x[1])
    rr, ri = np.roll(zr[::-1], 1), np.roll(zi[::-1], 1)           # Z at -k
    halves = ((0.5 * (zr + rr), 0.5 * (zi - ri)), (0.5 * (zi + ri), 0.5 * (rr - zr)))
    pu, pl = (cpow(a, b, steps) for a, b in halves)
    gr, gi = fft(pu[0] - pl[1], -(pu[1] + pl[0]))
    e2 = power_error(n, steps, znorm, [np.hypot(a, b) for a, b in halves])
    pos = (jb - steps * law.k0 + np.arange(n)) % n
    win = (jb + np.arange(n)) * h
    cap = math.exp(min(steps * math.log1p(float(a_up.sum()) - 1 + 1e-10), 700.0))  # >= total mass
    out = []
    for c, is_up, lam, center in ((gr[pos] / n, True, lams[0], steps * c1[0]),
                                  (-gi[pos] / n, False, lams[1], steps * c1[1])):
        with np.errstate(divide="ignore", over="ignore"):
            p = np.minimum(np.exp(np.log(np.clip(c, 0.0, None)) - lam * (win - center)), cap)
        inf = min(1.0, steps * (law.upper_inf + law.edge_err[1])) + above if is_up else 0.0
        out.append(Composed(h=h, k0=jb, p=p, inf=inf, upper=is_up, err=e2, lam=lam,
                            center=center, alias=0.0 if is_up else below, alias_log=tilt))
    return tuple(out)


def delta_curve(c: Composed, eps: float) -> float:
    """A bound on ``delta(eps)`` of the exact composed law, on the side of ``c`` (proof, step 5).

    ``inf + sum_{s > eps} p_s (1 - e^{eps - s})`` +- summation round-off, FFT error, aliased mass.

    >>> delta_curve(Composed(h=1.0, k0=0, p=np.array([0.5, 0.5]), inf=0.0), 0.0) > 0
    True
    """
    _check_composed(c)
    eps = check_real(eps, "eps")
    j0 = int(min(max(float(np.floor((eps - 1e-9 * (1.0 + abs(eps))) / c.h)) - c.k0, 0), c.p.size))
    s = (c.k0 + np.arange(j0, c.p.size)) * c.h
    keep = s > eps - 1e-9 * (1.0 + abs(eps))
    p, s = c.p[j0:][keep], s[keep]
    value = float(np.sum(p * -np.expm1(np.minimum(eps - s, 0.0))))
    big = float(np.max(np.abs(s), initial=0.0)) + abs(eps) + 1.0
    slack = 1e-9 * value + 8 * _U * big * float(np.sum(p))
    fft = 0.0
    if c.err and p.size:                 # err * || e^{-lam (s - center)} w(s) ||_2 over s > eps
        with np.errstate(divide="ignore"):
            lw = np.log(-np.expm1(np.minimum(eps - s, 0.0)) + 4 * _U) - c.lam * (s - c.center)
        fft = c.err * math.exp(min(0.5 * float(logsumexp(2 * lw)), 700.0)) * (1 + 1e-6)
    if c.upper:
        return float(c.inf + value + slack + fft)
    return float(value - slack - fft - c.alias - math.exp(min(c.alias_log - c.lam * (eps - c.center), 700.0)))


def epsilon_of(c: Composed, target: float) -> float:
    """A certified ``eps`` for ``target`` on the side of ``c`` (``inf`` / ``-inf`` if none).

    Upper law: ``delta_curve(c, eps) <= target``; lower law: ``delta_curve(c, eps) >= target``.
    A closed-form estimate between grid points is moved outwards until :func:`delta_curve` confirms.

    >>> c = Composed(h=1.0, k0=0, p=np.array([0.5, 0.5]), inf=0.0)
    >>> 0.099 < delta_curve(c, epsilon_of(c, 0.1)) <= 0.1
    True
    """
    _check_composed(c)
    target = check_real(target, "target")
    if not 1e-250 <= target < 1.0:  # below, delta is lost in round-off (the bracket asks >= 1e-200)
        raise ValueError(f"target must be in [1e-250, 1), got {target!r}")
    e = _estimate(c, target)
    step, sign = 1e-3 * c.h + (1e-6 * (1.0 + abs(e)) if math.isfinite(e) else 0.0), (1 if c.upper else -1)
    for _ in range(60):
        if not math.isfinite(e):
            break
        d = delta_curve(c, e)
        if (d <= target) if c.upper else (d >= target):
            return float(e)
        e, step = e + sign * step, step * 2
    return math.inf if c.upper else -math.inf


def _estimate(c: Composed, target: float) -> float:
    """The least ``eps`` with computed ``delta <= target`` (no allowances), in closed form."""
    if c.inf >= target:
        return math.inf
    p, s = c.p, (c.k0 + np.arange(c.p.size)) * c.h
    tail = np.cumsum(p[::-1])[::-1]                     # B_k = sum_{j >= k} p_j
    acc = scipy.signal.lfilter([1.0], [1.0, -math.exp(-c.h)], p[::-1])[::-1]  # sum p_j e^{-(j-k)h}
    ok = np.nonzero(c.inf + tail - acc <= target)[0]
    if not ok.size:
        return float(s[-1])
    k = int(ok[0])
    a, b = acc[k], tail[k]
    if a <= 0.0 or c.inf + b <= target:
        return float(s[k - 1] if k > 0 else s[k])
    value = s[k] + np.log((c.inf + b - target) / a)
    return float(min(max(value, s[k - 1] if k > 0 else -np.inf), s[k]))
