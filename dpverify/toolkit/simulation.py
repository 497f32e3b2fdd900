"""Simulation against a closed form, as a test with a stated false-alarm rate and a stated power.

The claim "E[X] = μ" (μ the closed form) is tested on n independent draws of X:

- draws that are all 0 or 1 (an event's frequency): the exact two-sided binomial
  test, rejecting when its p-value is below α;
- draws known to lie in ``bounds = (a, b)``: Hoeffding's inequality, rejecting when
  |mean − μ| > r = (b − a)·√(ln(2/α) / (2n)) — exact, whatever the distribution;
- otherwise: the normal approximation (z-test with the sample variance) at level α,
  which is asymptotic; the evidence says so.

If the closed form is right, the test rejects (``refuted``) with probability at most α
(for the first two exactly, for the third in the limit).

Not rejecting proves nothing by itself: a small simulation passes a wrong formula.  So
``holds`` also needs a **power requirement**: the caller states the smallest deviation
``detect`` = |E[X] − μ| that must be caught and the miss rate β it accepts, and the
verdict is ``holds`` only when the test rejects a mean of μ ± detect with probability
at least 1 − β.  The power is computed, not assumed:

- binomial: exactly, from the test's acceptance interval [k_lo, k_hi] (p-values of the
  two-sided test fall away from the mode, so the interval is found by bisection):
  P_{μ±d}(K < k_lo) + P_{μ±d}(K > k_hi);
- Hoeffding: a guaranteed lower bound for any law on [a, b], 1 − exp(−2n(d − r)²/(b − a)²)
  when d > r (else 0);
- z-test: the normal approximation Φ(d/se − z_α) + Φ(−d/se − z_α) with the sample's
  standard error (asymptotic, like the test; plan n with a margin when the deviation
  also changes the spread).

Without ``detect``, or with less power than 1 − β, a simulation that does not reject is
``inconclusive`` ("consistent with the closed form, but too small to have caught the
stated error"), never ``holds``.
"""

from __future__ import annotations

import functools
import math
from typing import Any, Callable

import numpy as np

from dpverify.validation import as_generator, check_budget, check_positive_int, check_probability, check_real, check_work
from dpverify.claims.model import Outcome, Verdict, note_sampling

__all__ = ["simulate_against"]


def simulate_against(draw: Callable[[np.random.Generator, int], Any], expected: float, *, n: int,
                     alpha: float = 1e-6, bounds: tuple[float, float] | None = None, rng: Any = None,
                     what: str = "the closed form", detect: float | None = None, beta: float = 0.01) -> Outcome:
    """Test a simulated mean against the closed form ``expected`` at false-alarm rate ``alpha``, with power.

    Parameters
    ----------
    draw : callable ``draw(rng, n)`` returning n independent draws of the statistic
    expected : the closed-form mean
    n : number of draws
    alpha : the false-alarm rate (probability of ``refuted`` when the closed form is right)
    bounds : optional (a, b) known to contain every draw (then the test is exact)
    rng : numpy Generator or int seed
    what : what the closed form is, for the summary
    detect : the smallest deviation |E[X] − expected| > 0 the simulation must catch; without it the
        verdict is never ``holds``
    beta : the miss rate accepted at that deviation (``holds`` needs power ≥ 1 − beta)

    Returns
    -------
    Outcome
        ``refuted`` when the test rejects; ``holds`` when it does not and its power at ``detect``
        is at least 1 − beta; ``inconclusive`` otherwise.  The evidence holds the test, its
        statistic, ``detect``, ``power`` (None without ``detect``) and ``miss_rate_allowed``.

    Example
    -------
    >>> import numpy as np
    >>> coin = lambda rng, n: rng.random(n) < 0.25
    >>> simulate_against(coin, 0.25, n=100_000, alpha=1e-6, rng=1, detect=0.01).verdict.value
    'holds'
    >>> simulate_against(coin, 0.26, n=100_000, alpha=1e-6, rng=1, detect=0.01).verdict.value
    'refuted'
    >>> simulate_against(coin, 0.25, n=1_000, alpha=1e-6, rng=1, detect=0.01).verdict.value  # too small
    'inconclusive'
    """
    if not callable(draw):
        raise TypeError(f"draw must be callable draw(rng, n), got {type(draw).__name__}")
    mu = check_real(expected, "expected")
    n = check_positive_int(n, "n")
    if n < 2:
        raise ValueError(f"n must be >= 2, got {n}")
    check_work(n, f"n = {n} draws")
    check_budget(16.0 * n, f"n = {n} draws")  # the draws and their float64 copy
    a = _open_unit(alpha, "alpha")
    b = _open_unit(beta, "beta")
    d = None if detect is None else check_real(detect, "detect")
    if d is not None and not d > 0:
        raise ValueError(f"detect must be a deviation > 0, got {detect!r}")
    lohi = _check_bounds(bounds)
    if not isinstance(what, str):
        raise TypeError(f"what must be a string, got {type(what).__name__}")
    g = as_generator(rng)
    note_sampling("simulation")
    x = np.asarray(draw(g, n), dtype=float).ravel()
    if x.size != n:
        raise ValueError(f"draw(rng, {n}) returned {x.size} values, expected {n}")
    if not np.all(np.isfinite(x)):
        raise ValueError("draw returned non-finite values")
    mean = float(x.mean())
    if not math.isfinite(mean):
        raise ValueError(f"draw returned values whose mean overflows float64 (largest |value| {float(np.abs(x).max()):.3g})")
    ev: dict[str, Any] = {"expected": mu, "simulated_mean": mean, "n": n, "false_alarm_rate": a,
                          "seed": rng if isinstance(rng, int) else None}
    if np.all((x == 0) | (x == 1)) and 0 <= mu <= 1:
        reject, why, power = _binomial(x, mu, a, d, ev)
    elif lohi is not None:
        reject, why, power = _hoeffding(x, mu, a, d, lohi, ev)
    else:
        reject, why, power = _ztest(x, mu, a, d, ev)
    ev.update(detect=d, power=None if d is None else power, miss_rate_allowed=b)  # no deviation, no power
    if reject:
        return Outcome(Verdict.REFUTED, ev, summary=f"the simulation rejects {what} ({why}; false-alarm rate {a:g})")
    if d is None:
        return Outcome(Verdict.INCONCLUSIVE, ev, summary=(
            f"the simulation is consistent with {what} ({why}; false-alarm rate {a:g}), but no deviation to detect "
            "was stated, so not rejecting proves nothing"))
    if power < 1 - b:
        return Outcome(Verdict.INCONCLUSIVE, ev, summary=(
            f"the simulation is consistent with {what} ({why}), but it catches a deviation of {d:.3g} only with "
            f"probability {power:.3g} < 1 − β = {1 - b:g}: too small to conclude"))
    return Outcome(Verdict.HOLDS, ev, summary=(
        f"the simulation is consistent with {what} ({why}; false-alarm rate {a:g}) and catches a deviation of "
        f"{d:.3g} with probability {power:.3g} ≥ {1 - b:g}"))


def _open_unit(value: Any, name: str) -> float:
    v = check_probability(value, name)
    if not 0 < v < 1:
        raise ValueError(f"{name} must be in (0, 1), got {value!r}")
    return v


def _check_bounds(bounds: Any) -> tuple[float, float] | None:
    if bounds is None:
        return None
    if not isinstance(bounds, (tuple, list)) or len(bounds) != 2:
        shown = repr(bounds) if not isinstance(bounds, (tuple, list)) or len(bounds) <= 4 else \
            f"a {type(bounds).__name__} of {len(bounds)} items"
        raise ValueError(f"bounds must be a pair (a, b), got {shown}")
    lo, hi = (check_real(v, "bounds") for v in bounds)
    if not lo < hi:
        raise ValueError(f"bounds must be (a, b) with a < b, got {bounds!r}")
    return lo, hi


def _binomial(x: np.ndarray, mu: float, a: float, d: float | None, ev: dict) -> tuple[bool, str, float]:
    """The exact two-sided binomial test and its exact power at μ ± d (sides inside [0, 1])."""
    from scipy.stats import binom, binomtest

    n, k = x.size, int(x.sum())
    p = float(binomtest(k, n, mu).pvalue)
    ev.update(test="exact two-sided binomial", successes=k, p_value=p)
    power = math.nan
    if d is not None:
        k_lo, k_hi = _acceptance(n, mu, a)
        sides = [q for q in (mu - d, mu + d) if 0 <= q <= 1]
        power = min((float(binom.cdf(k_lo - 1, n, q) + binom.sf(k_hi, n, q)) for q in sides), default=1.0)
        ev.update(acceptance_interval=[k_lo, k_hi])
    return p < a, f"binomial p-value {p:.3g}", power


@functools.lru_cache(maxsize=64)  # it depends on (n, μ, α) only, not on the draws
def _acceptance(n: int, mu: float, a: float) -> tuple[int, int]:
    """[k_lo, k_hi]: the counts the two-sided binomial test at level a does not reject (an interval
    around the mode, as the p-value falls away from it on each side)."""
    from scipy.stats import binomtest

    def accepted(k: int) -> bool:
        return float(binomtest(k, n, mu).pvalue) >= a

    mode = min(n, max(0, int(math.floor((n + 1) * mu))))
    if not accepted(mode):
        mode = min(n, max(0, int(round(n * mu))))

    def edge(lo: int, hi: int, inside_is_hi: bool) -> int:  # bisection for the last accepted count
        while hi - lo > 1:
            mid = (lo + hi) // 2
            if accepted(mid) == inside_is_hi:
                hi = mid
            else:
                lo = mid
        return hi if inside_is_hi else lo

    k_lo = 0 if accepted(0) else edge(0, mode, True)
    k_hi = n if accepted(n) else edge(mode, n, False)
    return k_lo, k_hi


def _hoeffding(x: np.ndarray, mu: float, a: float, d: float | None, lohi: tuple[float, float],
               ev: dict) -> tuple[bool, str, float]:
    """Hoeffding's test and its guaranteed power 1 − exp(−2n(d − r)²/(b − a)²) at μ ± d."""
    lo, hi = lohi
    if x.min() < lo or x.max() > hi:
        raise ValueError(f"a draw lies outside bounds {lohi!r}")
    n, mean = x.size, float(x.mean())
    radius = (hi - lo) * math.sqrt(math.log(2 / a) / (2 * n))
    ev.update(test="Hoeffding (exact)", radius=radius)
    power = math.nan if d is None else (
        1 - math.exp(-2 * n * (d - radius) ** 2 / (hi - lo) ** 2) if d > radius else 0.0)
    why = f"|mean − expected| = {abs(mean - mu):.3g} against the Hoeffding radius {radius:.3g}"
    return abs(mean - mu) > radius, why, power


def _ztest(x: np.ndarray, mu: float, a: float, d: float | None, ev: dict) -> tuple[bool, str, float]:
    """The z-test with the sample variance and its normal-approximation power at μ ± d."""
    from scipy.stats import norm

    n, mean = x.size, float(x.mean())
    se = float(x.std(ddof=1)) / math.sqrt(n)
    if not math.isfinite(se):
        raise ValueError("draw returned values whose spread overflows float64")
    with np.errstate(over="ignore"):
        z = float(np.float64(abs(mean - mu)) / se) if se > 0 else (math.inf if mean != mu else 0.0)
    crit = float(norm.isf(a / 2))
    ev.update(test="z-test (asymptotic, normal approximation)", standard_error=se,
              z=z if math.isfinite(z) else None, critical_z=crit)  # None: infinite (no spread, or beyond float64)
    if not math.isfinite(z):
        ev["z_note"] = "z is infinite: the draws' spread is 0 or |mean − expected|/se exceeds float64"
    power = math.nan
    if d is not None:
        power = 1.0 if se == 0 else float(norm.cdf(d / se - crit) + norm.cdf(-d / se - crit))
    return z > crit, f"z = {z:.3g} against the critical {crit:.3g}", power
