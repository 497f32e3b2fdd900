"""Simulation against a closed form, as a test with a stated false-alarm rate.

The claim "E[X] = μ" (μ the closed form) is tested on n independent draws of X:

- draws that are all 0 or 1 (an event's frequency): the exact two-sided binomial
  test, rejecting when its p-value is below α;
- draws known to lie in ``bounds = (a, b)``: Hoeffding's inequality, rejecting when
  |mean − μ| > (b − a)·√(ln(2/α) / (2n)) — exact, whatever the distribution;
- otherwise: the normal approximation (z-test with the sample variance) at level α,
  which is asymptotic; the evidence says so.

If the closed form is right, the test rejects (``refuted``) with probability at most α
(for the first two exactly, for the third in the limit); otherwise the verdict is
``holds`` ("consistent with the closed form at false-alarm rate α").
"""

from __future__ import annotations

import math
from typing import Any, Callable

import numpy as np

from dpverify.validation import as_generator, check_positive_int, check_probability, check_real
from dpverify.claims.model import Outcome, Verdict

__all__ = ["simulate_against"]


def simulate_against(draw: Callable[[np.random.Generator, int], Any], expected: float, *, n: int,
                     alpha: float = 1e-6, bounds: tuple[float, float] | None = None, rng: Any = None,
                     what: str = "the closed form") -> Outcome:
    """Test a simulated mean against the closed form ``expected`` at false-alarm rate ``alpha``.

    Parameters
    ----------
    draw : callable ``draw(rng, n)`` returning n independent draws of the statistic
    expected : the closed-form mean
    n : number of draws
    alpha : the false-alarm rate (probability of ``refuted`` when the closed form is right)
    bounds : optional (a, b) known to contain every draw (then the test is exact)
    rng : numpy Generator or int seed

    Example
    -------
    >>> import numpy as np
    >>> coin = lambda rng, n: rng.random(n) < 0.25
    >>> simulate_against(coin, 0.25, n=100_000, alpha=1e-6, rng=1).verdict.value
    'holds'
    >>> simulate_against(coin, 0.26, n=100_000, alpha=1e-6, rng=1).verdict.value
    'refuted'
    """
    if not callable(draw):
        raise TypeError(f"draw must be callable draw(rng, n), got {type(draw).__name__}")
    mu = check_real(expected, "expected")
    n = check_positive_int(n, "n")
    if n < 2:
        raise ValueError(f"n must be >= 2, got {n}")
    a = check_probability(alpha, "alpha")
    if not 0 < a < 1:
        raise ValueError(f"alpha must be in (0, 1), got {alpha!r}")
    g = as_generator(rng)
    x = np.asarray(draw(g, n), dtype=float).ravel()
    if x.size != n:
        raise ValueError(f"draw(rng, {n}) returned {x.size} values, expected {n}")
    if not np.all(np.isfinite(x)):
        raise ValueError("draw returned non-finite values")
    mean = float(x.mean())
    ev: dict[str, Any] = {"expected": mu, "simulated_mean": mean, "n": n, "false_alarm_rate": a,
                          "seed": rng if isinstance(rng, int) else None}
    if np.all((x == 0) | (x == 1)) and 0 <= mu <= 1:
        from scipy.stats import binomtest

        k = int(x.sum())
        p = float(binomtest(k, n, mu).pvalue)
        ev.update(test="exact two-sided binomial", successes=k, p_value=p)
        reject = p < a
        why = f"binomial p-value {p:.3g}"
    elif bounds is not None:
        lo, hi = (check_real(b, "bounds") for b in bounds)
        if not lo < hi:
            raise ValueError(f"bounds must be (a, b) with a < b, got {bounds!r}")
        if x.min() < lo or x.max() > hi:
            raise ValueError(f"a draw lies outside bounds {bounds!r}")
        radius = (hi - lo) * math.sqrt(math.log(2 / a) / (2 * n))
        ev.update(test="Hoeffding (exact)", radius=radius)
        reject = abs(mean - mu) > radius
        why = f"|mean − expected| = {abs(mean - mu):.3g} against the Hoeffding radius {radius:.3g}"
    else:
        from scipy.stats import norm

        se = float(x.std(ddof=1)) / math.sqrt(n)
        z = abs(mean - mu) / se if se > 0 else (math.inf if mean != mu else 0.0)
        crit = float(norm.isf(a / 2))
        ev.update(test="z-test (asymptotic, normal approximation)", standard_error=se, z=z, critical_z=crit)
        reject = z > crit
        why = f"z = {z:.3g} against the critical {crit:.3g}"
    if reject:
        return Outcome(Verdict.REFUTED, ev, summary=f"the simulation rejects {what} ({why}; false-alarm rate {a:g})")
    return Outcome(Verdict.HOLDS, ev, summary=f"the simulation is consistent with {what} ({why}; false-alarm rate {a:g})")
