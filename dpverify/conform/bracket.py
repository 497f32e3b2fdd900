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
   ``t = h sqrt(T ln(1/eta) / 2)``; hence ``delta(eps) <= delta_up(eps + T z - t) + eta``.
   The same with floors gives ``delta(eps) >= delta_low(eps - T z' + t) - eta``.  This removes
   the ``T h`` bias of rounding, leaving a width of about ``2 t`` (order ``h sqrt T``).

``high`` is the smaller of the two upper answers, ``low`` the larger of the two lower ones.

Not certified: the round-off of the FFT convolutions (numpy/scipy pocketfft) is not bounded
here; it is checked against direct convolution in the tests.  Shuffled and fixed-size batches
have no tight bound implemented: they are refused, not given Poisson's number.

Example
-------
>>> low, high = epsilon_bracket(noise_multiplier=1.0, sample_rate=0.01, steps=100, delta=1e-5)
>>> 0 < low <= high < 1.01 * low
True
"""

from __future__ import annotations

import math
import numbers
import time
from dataclasses import dataclass

import numpy as np

from dpverify.conform.pld import compose, epsilon_of, mean_bounds, step_law
from dpverify.progress import progress

__all__ = ["epsilon_bracket", "bracket_details", "BracketDetails", "SAMPLINGS", "check_dpsgd"]

SAMPLINGS = ("poisson",)
_OTHER = {"shuffle": "shuffled batches", "shuffled": "shuffled batches",
          "fixed": "fixed-size batches", "fixed-size": "fixed-size batches"}


@dataclass(frozen=True)
class BracketDetails:
    """A bracket with how it was obtained."""

    low: float
    high: float
    h: float
    cells: int
    seconds: float


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
    if not 0.0 < sample_rate <= 1.0:
        raise ValueError(f"sample_rate must be in (0, 1], got {sample_rate!r}")
    if not 1 <= steps <= 10 ** 7:
        raise ValueError(f"steps must be in [1, 10**7], got {steps!r}")
    if not 0.0 < delta < 1.0:
        raise ValueError(f"delta must be in (0, 1), got {delta!r}")
    if delta < 1e-200:  # the tails cut at 1e-4 delta / steps would underflow
        raise ValueError(f"delta must be >= 1e-200, got {delta!r}")
    if not 0.0 < rel_width <= 1.0:
        raise ValueError(f"rel_width must be in (0, 1], got {rel_width!r}")
    if sampling not in SAMPLINGS:
        if sampling in _OTHER:
            raise ValueError(f"sampling={sampling!r}: no certified bracket is implemented for "
                             f"{_OTHER[sampling]} (no tight bound is known to dpverify); "
                             "Poisson's bracket does not apply to it")
        raise ValueError(f"sampling must be one of {SAMPLINGS}, got {sampling!r}")


def check_dpsgd(noise_multiplier, sample_rate, steps, delta, sampling="poisson") -> None:
    """Raise TypeError/ValueError naming the first bad DP-SGD parameter.

    >>> check_dpsgd(1.0, 0.01, 10, 1e-5)
    """
    _check(noise_multiplier, sample_rate, steps, delta, sampling, 0.01)


def _order_bracket(sigma, q, steps, delta, h, order):
    """(low, high, cells) for one order on a grid of width ``h``."""
    tail = 1e-4 * delta / max(steps, 1) / 4.0
    law = step_law(sigma, q, h, order, tail=tail)
    up = compose(law, steps, tail=1e-4 * delta, upper=True)
    lo = compose(law, steps, tail=1e-4 * delta, upper=False)
    high = epsilon_of(up, delta)
    low = epsilon_of(lo, delta)
    mean_lo, mean_hi = mean_bounds(law)
    grid = (law.k0 + np.arange(law.upper.size)) * h
    u = np.finfo(float).eps / 2
    slack_up = float(np.sum(np.abs(grid[1:]) * (law.mass_err + 8 * u * law.upper[1:])))
    slack_lo = float(np.sum(np.abs(grid[:-1]) * (law.mass_err + 8 * u * law.lower[:-1])))
    z_up = float(np.dot(grid[1:], law.upper[1:])) - slack_up - mean_hi      # E[ceil Y - Y] >= z_up
    z_lo = mean_lo - float(np.dot(grid[:-1], law.lower[:-1])) - slack_lo    # E[Y - floor Y] >=
    for eta in (delta * 0.1, delta * 1e-2, delta * 1e-3, delta * 1e-4):    # each is a valid bound
        t = h * math.sqrt(steps * math.log(1.0 / eta) / 2.0)
        shift_up, shift_lo = steps * z_up - t, steps * z_lo - t
        if shift_up > 0:
            high = min(high, epsilon_of(up, delta - eta) - shift_up)
        if shift_lo > 0:
            low = max(low, epsilon_of(lo, delta + eta) + shift_lo)
    return low, high, int(law.upper.size + up.p.size + lo.p.size)


def _bracket(sigma, q, steps, delta, h):
    orders = [_order_bracket(sigma, q, steps, delta, h, o) for o in ("remove", "add")]
    low = max(0.0, max(o[0] for o in orders))
    high = max(0.0, max(o[1] for o in orders))
    return low, high, max(o[2] for o in orders)


def bracket_details(noise_multiplier, sample_rate, steps, delta, *, sampling="poisson",
                    rel_width=0.01, max_cells=1 << 20, stream="stderr") -> BracketDetails:
    """:func:`epsilon_bracket` with the grid width, the number of cells and the time used.

    The grid is chosen adaptively: a coarse pass estimates ``epsilon``, then ``h`` is set so
    that the Hoeffding term ``2 t`` (or the rounding bias ``T h``) is under ``rel_width``, and
    narrowed while the bracket is wider than ``rel_width * high`` and the grid (all arrays of one
    order) stays under about ``max_cells`` cells; past that the bracket is returned as it is
    (still valid, wider than asked).  Progress goes to ``stream`` (see :func:`dpverify.progress.progress`).

    >>> d = bracket_details(1.0, 0.05, 20, 1e-5, stream=None)
    >>> d.low <= d.high and d.cells > 0
    True
    """
    _check(noise_multiplier, sample_rate, steps, delta, sampling, rel_width)
    if isinstance(max_cells, bool) or not isinstance(max_cells, numbers.Integral) or max_cells < 1024:
        raise ValueError(f"max_cells must be an integer >= 1024, got {max_cells!r}")
    start = time.perf_counter()
    sigma, q, steps, delta = float(noise_multiplier), float(sample_rate), int(steps), float(delta)
    spread = q * math.sqrt(math.expm1(min(1.0 / sigma ** 2, 700.0))) + 1e-12
    h = max(20.0 * spread * math.sqrt(steps) / 4096.0, 1e-12)
    with progress("certified bracket", stream=stream, unit="grids") as tick:
        low, high, cells = _bracket(sigma, q, steps, delta, h)
        tick(1, note=f"h={h:.3g} [{low:.6g}, {high:.6g}]")
        h, low, high, cells = _refine(sigma, q, steps, delta, rel_width, max_cells,
                                      (h, low, high, cells), tick)
    return BracketDetails(low=float(low), high=float(high), h=float(h), cells=int(cells),
                          seconds=time.perf_counter() - start)


def _refine(sigma, q, steps, delta, rel_width, max_cells, state, tick):
    """Halve the grid (at least) until the bracket is narrow enough or the grid too large."""
    h, low, high, cells = state
    while high - low > rel_width * high:
        scale = max(high, 1e-12)
        if cells == 0 or high - low <= 0:
            break
        new_h = min(h / 2.0, h * 0.8 * rel_width * scale / (high - low))
        new_h = max(new_h, h * cells / max_cells)       # the grid's cells grow like 1 / h
        if new_h >= h:
            break
        h = new_h
        low, high, cells = _bracket(sigma, q, steps, delta, h)
        tick(1, note=f"h={h:.3g} [{low:.6g}, {high:.6g}]")
    return h, low, high, cells


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
