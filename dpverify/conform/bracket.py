"""A certified two-sided bracket on epsilon(delta) of DP-SGD (Poisson-subsampled Gaussian).

Neighbouring relation: add/remove one example (the dataset grows or shrinks by one record),
gradients clipped to norm 1 (the noise multiplier is the noise standard deviation over the
clipping norm), each example sampled independently with probability ``q`` at each of ``T``
steps (Poisson sampling).  The worst case over neighbouring datasets is the pair of
:mod:`dpverify.conform.pld` in one of its two orders, and it is attained (all other gradients
zero), so ``epsilon(delta) = max(eps_remove(delta), eps_add(delta))`` exactly, and the bracket
below brackets that number.

For each order, with ``S`` the composed loss, ``R_up`` / ``R_low`` the composed rounded-up /
rounded-down laws (:func:`dpverify.conform.pld.compose`):

1. ``R_low <= S <= R_up`` pointwise, so ``delta_low(eps) <= delta(eps) <= delta_up(eps)``.
2. ``S = R_up' - sum Z_i`` with ``Z_i = ceil(Y_i) - Y_i`` independent in ``[0, h)``; with a
   rigorous lower bound ``z`` on ``E Z_i`` (from :func:`~dpverify.conform.pld.mean_bounds`),
   Hoeffding gives ``sum Z_i >= T z - t`` except with probability ``eta``,
   ``t = h sqrt(T ln(1/eta) / 2)`` (or Bernstein, with the variance bound of
   :mod:`dpverify.conform.bracket_var`, about ``1/sqrt 3`` of that); hence
   ``delta(eps) <= delta_up(eps + T z - t) + eta``.
   The same with floors gives ``delta(eps) >= delta_low(eps - T z' + t) - eta``.  This removes
   the ``T h`` bias of rounding, leaving a width of about ``2 t`` (order ``h sqrt T``).

``high`` is the smaller of the two upper answers, ``low`` the larger of the two lower ones.

Floating point is accounted for, not assumed away (``proofs/bracket.md``): the cell masses carry
an error allowance (``ndtr`` relative error and the round-off of each cell boundary); the
composition is one circular FFT power computed by a radix-2 FFT whose round-off has a proven
bound (Higham 2002, Thm 24.2), carried through the power and the inverse transform, weighted by
an exponential tilt so that it is small where ``delta`` is read, and added to (upper) or taken
from (lower) every ``delta`` read, with the aliased mass (Chernoff bounds); each ``epsilon`` is
confirmed by that certified ``delta``.  Stated assumptions: ``ndtr`` within ``2e-13`` relative,
``cosl``/``sinl`` (or ``cos``/``sin``) within their documented ulps, IEEE double arithmetic.

Shuffled and fixed-size batches are refused, not given Poisson's number (see ``SAMPLINGS``).
Example
-------
>>> low, high = epsilon_bracket(noise_multiplier=1.0, sample_rate=0.01, steps=100, delta=1e-5)
>>> 0 < low <= high < 1.01 * low
True
"""

from __future__ import annotations

import math
import numbers
import re
import time
from dataclasses import dataclass

import numpy as np

from scipy.special import logsumexp

from dpverify.conform.bracket_read import epsilon_at as epsilon_of
from dpverify.conform.bracket_var import rounding_variance
from dpverify.conform.pld import compose, mean_bounds, step_law
from dpverify.progress import progress
from dpverify.proofdocs import proven

__all__ = ["epsilon_bracket", "bracket_details", "BracketDetails", "SAMPLINGS", "check_dpsgd"]

SAMPLINGS = ("poisson",)
_OTHER = {
    "shuffle": "shuffled batches: no tight privacy-loss bound for shuffled Gaussian steps is "
               "known to dpverify",
    "fixed": "fixed-size batches: their bound (sampling without replacement under the "
             "substitution relation, Zhu, Dong and Wang 2022) is a different pair, not implemented",
}
_OTHER.update({"shuffled": _OTHER["shuffle"], "fixed-size": _OTHER["fixed"]})


@dataclass(frozen=True)
class BracketDetails:
    """A bracket with how it was obtained."""

    low: float
    high: float
    h: float
    cells: int
    seconds: float
    cpu_seconds: float = 0.0


def _check(noise_multiplier, sample_rate, steps, delta, sampling, rel_width):
    for name, v in (("noise_multiplier", noise_multiplier), ("sample_rate", sample_rate),
                    ("delta", delta), ("rel_width", rel_width)):
        if isinstance(v, bool) or not isinstance(v, numbers.Real):
            raise TypeError(f"{name} must be a real number, got {v!r}")
        if not math.isfinite(float(v)):
            raise ValueError(f"{name} must be finite, got {v!r}")
    if isinstance(steps, bool) or not isinstance(steps, numbers.Integral):
        raise TypeError(f"steps must be an integer, got {steps!r}")
    if not 0.0 < noise_multiplier:
        raise ValueError(f"noise_multiplier must be > 0, got {noise_multiplier!r}")
    if not 1e-3 <= noise_multiplier <= 1e6:  # outside, exp(1/sigma^2) or the loss grid overflows
        raise ValueError(f"noise_multiplier must be in [1e-3, 1e6], got {noise_multiplier!r}")
    if not 1e-9 <= sample_rate <= 1.0:  # below, the loss grid would need over 2^60 cells
        raise ValueError(f"sample_rate must be in [1e-9, 1], got {sample_rate!r}")
    if not 1 <= steps <= 10 ** 7:
        raise ValueError(f"steps must be in [1, 10**7], got {steps!r}")
    if not 0.0 < delta < 1.0:
        raise ValueError(f"delta must be in (0, 1), got {delta!r}")
    if delta < 1e-200:  # the tails cut at 1e-4 delta / steps would underflow
        raise ValueError(f"delta must be >= 1e-200, got {delta!r}")
    if not 1e-3 <= rel_width <= 1.0:
        raise ValueError(f"rel_width must be in [1e-3, 1], got {rel_width!r}")
    if sampling not in SAMPLINGS:
        if sampling in _OTHER:
            raise ValueError(f"sampling={sampling!r}: no certified bracket is implemented for "
                             f"{_OTHER[sampling]}; Poisson's bracket does not apply to it")
        raise ValueError(f"sampling must be one of {SAMPLINGS}, got {sampling!r}")


def check_dpsgd(noise_multiplier, sample_rate, steps, delta, sampling="poisson") -> None:
    """Raise TypeError/ValueError naming the first bad DP-SGD parameter.

    >>> check_dpsgd(1.0, 0.01, 10, 1e-5)
    """
    _check(noise_multiplier, sample_rate, steps, delta, sampling, 0.01)


def _order_bracket(sigma, q, steps, delta, h, order, lam, max_n):
    """(low, high, cells) for one order on a grid of width ``h``, tilt ``lam``."""
    law = step_law(sigma, q, h, order, tail=1e-4 * delta / steps / 4.0)
    up, lo = (compose(law, steps, tail=1e-4 * delta, upper=u, lam=lam[0], lam_lower=lam[1],
                      max_n=max_n) for u in (True, False))
    high, low = epsilon_of(up, delta), epsilon_of(lo, delta)
    mean_lo, mean_hi = mean_bounds(law)
    grid = (law.k0 + np.arange(law.upper.size)) * h
    u = np.finfo(float).eps / 2
    slack_up = float(np.sum(np.abs(grid[1:]) * (law.mass_err + 8 * u * law.upper[1:])))
    slack_lo = float(np.sum(np.abs(grid[:-1]) * (law.mass_err + 8 * u * law.lower[:-1])))
    z_up = float(np.dot(grid[1:], law.upper[1:])) - slack_up - mean_hi      # E[ceil Y - Y] >= z_up
    z_lo = mean_lo - float(np.dot(grid[:-1], law.lower[:-1])) - slack_lo    # E[Y - floor Y] >=
    var = rounding_variance(law)                                           # >= Var Z_i
    for eta in (delta * 0.1, delta * 1e-2, delta * 1e-3):                  # each is a valid bound
        t = _deviation(h, var, steps, math.log(1.0 / eta))
        shift_up, shift_lo = steps * z_up - t, steps * z_lo - t
        if shift_up > 0:
            high = min(high, epsilon_of(up, delta - eta) - shift_up)
        if shift_lo > 0:
            low = max(low, epsilon_of(lo, delta + eta) + shift_lo)
    _ERRS[order] = max(up.err, lo.err)
    return low, high, int(up.p.size)


_ERRS: dict = {}   # the last FFT round-off bound E_2 per order: it sets the next pass's tilts


def _deviation(h, var, steps, log_eta):
    """``t`` with ``P(sum Z_i < T z - t) <= eta``: the smaller of Hoeffding's and Bernstein's.

    Hoeffding: ``h sqrt(T L / 2)``; Bernstein (``Z_i`` in ``[0, h)``, ``Var Z_i <= var``):
    ``L h / 3 + sqrt((L h / 3)^2 + 2 L T var)``, ``L = log(1 / eta)`` (proof, step 6).

    >>> _deviation(1.0, 1 / 12, 10 ** 4, 20.0) < _deviation(1.0, 1 / 4, 10 ** 4, 20.0)
    True
    """
    hoeffding = h * math.sqrt(steps * log_eta / 2.0)
    c = log_eta * h / 3.0
    return min(hoeffding, c + math.sqrt(c * c + 2.0 * log_eta * steps * var))


def _bracket(sigma, q, steps, delta, h, lams, max_n, known=None):
    """``(low, high, cells, per_order)``; ``known``: each order's certified ``(low, high)`` so far.

    An order whose known ``high`` is at most the other's known ``low`` cannot change
    ``max(eps_remove, eps_add)``'s bracket from its own side, so it is not recomputed (its
    known pair is kept); every order's pair is intersected with what was known (step 7).
    """
    per, cells = [], 0
    for i, (o, lam) in enumerate(zip(("remove", "add"), lams)):
        old = known[i] if known else (0.0, math.inf)
        if known and old[1] <= known[1 - i][0]:
            per.append(old)
            continue
        low_o, high_o, n = _order_bracket(sigma, q, steps, delta, h, o, lam, max_n)
        per.append((max(low_o, old[0]), min(high_o, old[1])))
        cells = max(cells, n)
    low = max(0.0, max(o[0] for o in per))
    high = max(0.0, max(o[1] for o in per))
    return low, high, cells, per


def _tilts(sigma, q, steps, delta, eps, errs=None, h_next=None):
    """Per order, tilts (upper, lower) for ``eps`` (``eps=None``: for the Chernoff ``eps``).

    The least tilt whose Chernoff exponent at ``eps`` makes the FFT term small (about
    ``1e-3 delta``): a larger one widens the window (the tilted mass above its top is weighed
    by the tilt).  ``errs``: the FFT bound ``E_2`` of the last pass per order, and ``h_next``
    the next grid: the term is then estimated as ``E_2 e^{exponent} / sqrt(1 - e^{-2 lam h})``;
    without them a fixed allowance ``T 1e-9`` stands for ``E_2``.  Any tilt is valid.
    """
    lams = []
    lo_l, hi_l = _loss_span(sigma, q, steps, delta)
    spread = q * math.sqrt(math.expm1(min(1.0 / sigma ** 2, 700.0)))
    h = max(min((hi_l - lo_l) / 4096.0, spread / 4.0), (hi_l - lo_l) / 2.0 ** 17)
    grid = np.concatenate(([0.0], np.geomspace(1e-3, 1e3, 61)))
    kappa = math.log(1e-3 * delta / (steps * 1e-9))
    for order in ("remove", "add"):
        law = step_law(sigma, q, h, order, tail=1e-4 * delta / steps / 4.0)
        s = (law.k0 + np.arange(law.upper.size) - 0.5) * h     # mid-cell: an estimate only
        with np.errstate(divide="ignore"):
            la = np.log(law.upper)
        logm = steps * np.array([logsumexp(la + g * s) for g in grid])
        if eps is None:
            with np.errstate(divide="ignore", invalid="ignore"):
                e = np.where(grid > 0, (logm - math.log(delta)) / grid, np.inf)
            eps_o = float(np.nanmin(e))
        else:
            eps_o = eps
        expo = logm - grid * eps_o
        i = int(np.nanargmin(expo))
        kap = np.full(grid.size, kappa)
        if errs and errs.get(order, 0) > 0 and h_next:
            with np.errstate(divide="ignore"):
                kap = math.log(1e-3 * delta / errs[order]) + 0.5 * np.log(-np.expm1(-2 * grid * h_next))
        j = int(np.nonzero(expo <= np.maximum(kap, expo[i]))[0][0])
        lams.append((float(grid[min(j, i)]), float(grid[min(j, i)])))
    return lams


@proven("conform/bracket.md")
def bracket_details(noise_multiplier, sample_rate, steps, delta, *, sampling="poisson",
                    rel_width=0.01, max_cells=1 << 21, max_seconds=None,
                    stream="stderr") -> BracketDetails:
    """:func:`epsilon_bracket` with the grid width, the FFT size and the time used.

    A Chernoff bound on a fine step grid gives a first ``eps`` and the tilts; a coarse certified
    pass gives a first bracket; then ``h`` is set so that the de-biasing term ``2 t`` (Bernstein
    or Hoeffding) is about ``0.7 rel_width eps``, and narrowed while the bracket is wider than
    ``rel_width * high``, the FFT window stays within ``max_cells`` and the next pass fits in what
    is left of ``max_seconds`` of CPU time (``None``: no limit); the intersection of the passes'
    brackets (each one certified) is returned, wider than asked when a cap is reached.
    ``cpu_seconds`` is ``time.process_time`` spent.  Progress goes to ``stream`` (see
    :func:`dpverify.progress.progress`).

    >>> d = bracket_details(1.0, 0.05, 20, 1e-5, stream=None)
    >>> d.low <= d.high and d.cells > 0
    True
    """
    _check(noise_multiplier, sample_rate, steps, delta, sampling, rel_width)
    if isinstance(max_cells, bool) or not isinstance(max_cells, numbers.Integral) \
            or not 1024 <= max_cells <= 1 << 24:
        raise ValueError(f"max_cells must be an integer in [1024, 2**24], got {max_cells!r}")
    if max_seconds is not None and (isinstance(max_seconds, bool) or not isinstance(
            max_seconds, numbers.Real) or not 0 < max_seconds <= 1e6):
        raise ValueError(f"max_seconds must be None or a number in (0, 1e6], got {max_seconds!r}")
    cpu = time.process_time()
    start = time.perf_counter()
    sigma, q, steps, delta = float(noise_multiplier), float(sample_rate), int(steps), float(delta)
    lo_l, hi_l = (x for x in _loss_span(sigma, q, steps, delta))
    h = max((hi_l - lo_l) / 4096.0, 1e-12)
    with progress("certified bracket", stream=stream, unit="grids") as tick:
        lams = _tilts(sigma, q, steps, delta, None)
        state = _first(sigma, q, steps, delta, h, lams, max_cells, tick)
        budget = None if max_seconds is None else max_seconds - (time.process_time() - cpu)
        h, low, high, cells = _refine(sigma, q, steps, delta, rel_width, max_cells, state, tick,
                                      budget)
    return BracketDetails(low=float(low), high=float(high), h=float(h), cells=int(cells),
                          seconds=time.perf_counter() - start,
                          cpu_seconds=time.process_time() - cpu)


def _loss_span(sigma, q, steps, delta):
    law = step_law(sigma, q, 1.0, "remove", tail=1e-4 * delta / steps / 4.0)
    return law.k0 * 1.0, (law.k0 + law.upper.size - 1) * 1.0


def _first(sigma, q, steps, delta, h, lams, max_n, tick):
    """The coarse pass: ``h`` doubled until the window fits in ``max_n // 8`` cells."""
    for _ in range(40):
        t0 = time.process_time()             # the successful pass's time sets the rate
        try:
            cap = min(max_n, max(max_n // 8, 1 << (2 * steps).bit_length()))  # window >= T h
            low, high, cells, per = _bracket(sigma, q, steps, delta, h, lams, cap)
        except ValueError as exc:
            if "max_n" not in str(exc):
                raise
            h *= 2.0
            continue
        tick(1, note=f"h={h:.3g} [{low:.6g}, {high:.6g}]")
        return h, low, high, cells, per, (time.process_time() - t0, cells)
    raise ValueError("no grid fits (internal error)")


_SECONDS_PER_NLOGN = 4.5e-8  # a pass's CPU time per n log2 n cells, at least (measured on 2 shared cores)


def _refine(sigma, q, steps, delta, rel_width, max_n, state, tick, budget):
    """Narrow the grid until the bracket is narrow enough, the window too large or the CPU-time
    ``budget`` (seconds, ``None``: none) would be exceeded by the next pass (its cost scaled by
    ``n log n`` from the last pass's)."""
    h, low, high, cells, per, last = state
    log_eta = math.log(10.0 / delta)
    cpu0 = time.process_time()
    for _ in range(4):
        if high - low <= rel_width * high or not math.isfinite(high) or high <= 0:
            break
        target = 0.5 * (low + high) if low > 0 else high
        # the de-biasing term is proportional to h: scale by the width seen, never finer than
        # Hoeffding needs; the window is the true one plus about T h of rounding bias
        # (aim lower when extrapolating from a bracket far too wide: a second fine pass seldom fits)
        aim = 0.7 if high - low <= 10 * rel_width * high else 0.5
        seen = h * aim * rel_width * high / (high - low)
        new_h = min(h / 2.0, max(seen, 0.4 * rel_width * target / math.sqrt(steps * log_eta / 2)))
        base = max(cells * h / 2.0 - steps * h, cells * h / 16.0)
        cap = max_n
        if budget is not None:                 # the largest FFT the remaining CPU time allows
            rate = _SECONDS_PER_NLOGN        # a small pass's time is mostly overhead
            if last[1] >= 1 << 16:
                rate = max(rate, last[0] / (last[1] * math.log2(last[1])))
            left = budget - (time.process_time() - cpu0)
            while cap > 1024 and cap * math.log2(cap) * rate > left:
                cap //= 2
        new_h = max(new_h, base / max(cap - steps, cap / 8.0))
        if new_h >= h / 1.5 or cap <= 1024:
            break
        res, t0 = None, time.process_time()
        lams = _tilts(sigma, q, steps, delta, target, dict(_ERRS), new_h)
        for _ in range(4):
            if new_h >= h / 1.5:               # only a grid about as coarse as the last fits
                break
            try:
                res = _bracket(sigma, q, steps, delta, new_h, lams, cap, per)
                break
            except ValueError as exc:
                if "max_n" not in str(exc):
                    raise
                need = re.search(r"needs (\d+) cells", str(exc))   # a power of two >= window / h
                new_h *= max(1.6, int(need.group(1)) / cap * 1.02) if need else 1.6
        if res is None:
            break
        h, cells, last, per = new_h, res[2], (time.process_time() - t0, res[2]), res[3]
        low, high = max(low, res[0]), min(high, res[1])    # every pass's bracket is certified
        tick(1, note=f"h={h:.3g} [{low:.6g}, {high:.6g}]")
    return h, low, high, cells


@proven("conform/bracket.md")
def epsilon_bracket(*, noise_multiplier, sample_rate, steps, delta, sampling="poisson",
                    rel_width=0.01) -> tuple[float, float]:
    """``(low, high)`` with ``low <= epsilon(delta) <= high`` for DP-SGD (add/remove, Poisson).

    Parameters
    ----------
    noise_multiplier : float
        Noise standard deviation over the clipping norm, ``> 0``.
    sample_rate : float
        Poisson sampling probability ``q`` in ``(0, 1]``.
    steps : int
        Number of steps ``T`` in ``[1, 10**7]``.
    delta : float
        Target ``delta`` in ``(0, 1)``.
    sampling : str
        ``"poisson"``; shuffled or fixed-size batches are refused (no certified bound here).
    rel_width : float
        Aim for ``high - low <= rel_width * high`` (the bracket is valid whatever its width).

    Returns
    -------
    (float, float)

    Examples
    --------
    >>> low, high = epsilon_bracket(noise_multiplier=2.0, sample_rate=1.0, steps=4, delta=1e-6)
    >>> low <= high
    True
    """
    d = bracket_details(noise_multiplier, sample_rate, steps, delta, sampling=sampling,
                        rel_width=rel_width)
    return d.low, d.high
