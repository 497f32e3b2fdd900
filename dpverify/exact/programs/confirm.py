"""An exact counterexample confirmed by the statistical auditor on the program's own sampler.

A refutation of a program (:func:`~.tails.prove_program`) gives exact data: the law of each failing
pair of inputs as a function of ε.  The auditor's power at a choice (ε, ordered pair (i, j), output
set S) is known before any draw: with p = P_i(S), q = P_j(S) at ε, the log-ratio ln(p/q) exceeds ε
by x = ln(p/q) − ε, and the conditional (Poisson) test resolves x with about
n = (z_α + z_β)²·(1/p + 1/q)/x² draws per input (normal approximation of the log of the two counts).
:func:`plan_confirmation` picks, over a grid of ε, the failing ordered pairs and, for each, the
unions of the columns taken by decreasing ratio, the choice with the smallest n; the set S is
then checked exactly (the ε-set where P_i(S) > e^ε·P_j(S), by real-root isolation).

:func:`confirm` runs the auditor's estimation step (:func:`dpverify.audit.statistical.estimate`) on
fresh draws of the program's vectorised sampler (:mod:`.batch`) with S as a fixed event (chosen from
the exact law alone, before any draw, so every draw is an estimation draw): the Poisson conditional
test at level α (``dpverify/audit/proofs/auditor_validity.md``, step 7).  If the program were ε-DP at
that ε, the lower bound would exceed ε with probability at most α; "confirmed" is ε_lb > ε.

Example
-------
>>> from dpverify.exact.programs import program_law
>>> from dpverify.exact.programs.checkdp import badpartialsum
>>> law = program_law(badpartialsum, [(0,), (1,)])
>>> plan = plan_confirmation(law, [(0, 1), (1, 0)])
>>> plan["pair"] in [(0, 1), (1, 0)], plan["draws_needed"] < 10 ** 5
(True, True)
>>> confirm(law, plan, samples=50_000, seed=0)["confirmed"]
True
"""

from __future__ import annotations

import math

import mpmath
import numpy as np
import sympy as sp
from scipy import stats

from dpverify.validation import check_confidence, check_positive_int, check_real

__all__ = ["confirm", "plan_confirmation"]

EPSILONS = tuple(round(0.05 * 1.25 ** k, 4) for k in range(20))  # 0.05 … 3.5


def _value(c, t):
    """An element of Q(t) at the mpmath number t."""
    def poly(p):
        return mpmath.fsum(mpmath.mpf(int(a.numerator)) / int(a.denominator) * t ** m[0] for m, a in p.terms())
    return poly(c.numer) / poly(c.denom)


def _needed(p: float, q: float, eps: float, z: float) -> float:
    """Draws per input for the test to resolve ln(p/q) > ε (q = 0: a few draws in S from input i)."""
    if p <= 0:
        return math.inf
    if q <= 0:
        return max(z * z, 10.0) / p
    x = math.log(p / q) - eps
    return z * z * (1.0 / p + 1.0 / q) / (x * x) if x > 0 else math.inf


def _check_law(law):
    from dpverify.exact.programs.law import ProgramLaw

    if not isinstance(law, ProgramLaw):
        raise TypeError(f"law must be a ProgramLaw (from program_law), got {type(law).__name__}")
    return law


def _check_pairs(law, pairs) -> tuple:
    from dpverify.exact.validate import check_pairs

    if pairs is None or isinstance(pairs, (str, bytes)):
        raise TypeError(f"pairs must be a list of (i, j) row-index pairs, got {pairs!r:.80}")
    return tuple(dict.fromkeys(check_pairs(pairs, len(law.inputs))))[:64]


def _check_epsilons(epsilons) -> tuple:
    """1 to 64 values of ε in (0, 20], else TypeError/ValueError naming ``epsilons``."""
    if isinstance(epsilons, (str, bytes)) or not isinstance(epsilons, (list, tuple, np.ndarray)):
        raise TypeError(f"epsilons must be a list of positive numbers, got {type(epsilons).__name__}")
    arr = np.asarray(epsilons)
    if arr.ndim != 1 or not 1 <= arr.size <= 64 or arr.dtype.kind not in "iuf":
        raise ValueError(f"epsilons must be a flat list of 1 to 64 real numbers, got {epsilons!r:.80}")
    out = tuple(check_real(float(e), "epsilons", positive=True) for e in arr)
    if max(out) > 20:
        raise ValueError(f"epsilons must lie in (0, 20] (probabilities below e^-20 cannot be sampled), got {max(out)}")
    return out


def plan_confirmation(law, pairs, *, epsilons=EPSILONS, confidence: float = 0.99, power: float = 0.9) -> dict:
    """The (ε, ordered pair, output set) that needs the fewest draws for the auditor to confirm a violation.

    Parameters
    ----------
    law : :class:`~.law.ProgramLaw`
    pairs : ordered row pairs (i, j) to consider (those of the refutation)
    epsilons : the ε grid
    confidence, power : the test's level 1 − α and the power aimed at (they set z = z_α + z_β)

    Returns
    -------
    dict with ``epsilon``, ``pair``, ``outputs`` (column indices), ``p``, ``q`` (their probabilities at ε),
    ``excess`` (ln(p/q) − ε), ``draws_needed`` (per input, normal approximation) and ``exact_fail``
    (the exact ε-set where P_i(S) > e^ε·P_j(S), as text); ``pair`` is None when no choice violates.

    Example
    -------
    >>> from dpverify.exact.programs import program_law
    >>> from dpverify.exact.programs.checkdp import badpartialsum, partialsum
    >>> plan_confirmation(program_law(badpartialsum, [(0,), (1,)]), [(0, 1), (1, 0)])["pair"] is not None
    True
    >>> plan_confirmation(program_law(partialsum, [(0,), (1,)]), [(0, 1), (1, 0)])["pair"] is None
    True
    """
    from dpverify.exact.programs.geometric import FIELD, T
    from dpverify.exact.programs.tails import fails_set

    law, pairs, epsilons = _check_law(law), _check_pairs(law, pairs), _check_epsilons(epsilons)
    conf = check_confidence(confidence)
    power = check_real(power, "power")
    if not 0.5 <= power < 1:
        raise ValueError(f"power must be in [0.5, 1), got {power!r}")
    z = float(stats.norm.ppf(conf) + stats.norm.ppf(power))
    best = None
    with mpmath.workdps(40):
        for eps in epsilons:
            t = mpmath.exp(-mpmath.mpf(eps) / law.unit)
            rows = {k: [float(_value(c, t)) for c in law.t_matrix[k]] for pr in pairs for k in pr}
            for i, j in pairs:
                a, b = np.array(rows[i]), np.array(rows[j])
                order = np.argsort(-(a / np.maximum(b, 1e-300)), kind="stable")
                p = q = 0.0
                for m, k in enumerate(order):
                    p, q = p + a[k], q + b[k]
                    if p <= math.exp(eps) * q * (1 + 1e-9):  # ratios equal to e^ε up to rounding are not violations
                        break
                    n = _needed(p, q, eps, z)
                    if best is None or n < best[0]:
                        best = (n, eps, (i, j), tuple(int(c) for c in order[:m + 1]), p, q)
    if best is None:
        return {"pair": None, "draws_needed": math.inf}
    n, eps, (i, j), outs, p, q = best
    n, p, q = float(n), float(p), float(q)
    F = sum((law.t_matrix[i][k] for k in outs), FIELD.zero) - T ** (-law.unit) * sum(
        (law.t_matrix[j][k] for k in outs), FIELD.zero)
    fail = fails_set(F, law.unit)
    if fail == sp.EmptySet:  # the numbers suggested a violation that the exact law does not have
        return {"pair": None, "draws_needed": math.inf}
    return {"epsilon": eps, "pair": (i, j), "outputs": outs, "p": p, "q": q,
            "excess": math.log(p / q) - eps if q > 0 else math.inf,
            "draws_needed": n, "confidence": conf, "power": power, "exact_fail": str(fail)}


def confirm(law, plan: dict, *, samples: int, seed: int = 0, executor=None) -> dict:
    """The auditor's test of ``plan`` (from :func:`plan_confirmation`) on ``samples`` draws per input at most.

    Returns a dict: ``epsilon``, ``epsilon_lb`` (the lower bound, valid at ``plan["confidence"]``),
    ``confirmed`` (ε_lb > ε), ``count_p``/``count_q`` (draws of input i / j in S), ``draws`` (per input).

    Example
    -------
    >>> from dpverify.exact.programs import program_law
    >>> from dpverify.exact.programs.checkdp import badpartialsum
    >>> law = program_law(badpartialsum, [(0,), (1,)])
    >>> r = confirm(law, plan_confirmation(law, [(0, 1), (1, 0)]), samples=50_000, seed=0)
    >>> r["confirmed"], r["epsilon_lb"] > r["epsilon"]
    (True, True)
    """
    from dpverify.audit.events import Binner, make_event
    from dpverify.audit.selection import Selection
    from dpverify.audit.statistical import estimate

    from dpverify.budget import check_work

    law = _check_law(law)
    samples = check_positive_int(samples, "samples")
    check_work(2 * samples, "samples (draws at two inputs)")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise TypeError(f"seed must be a non-negative integer, got {seed!r}")
    keys = ("epsilon", "pair", "outputs", "confidence")
    if not isinstance(plan, dict) or any(k not in plan for k in keys) or plan.get("pair") is None:
        raise ValueError(f"plan must be a plan_confirmation result with a violating choice (keys {keys}), "
                         f"got {plan!r:.80}")
    eps = check_real(plan["epsilon"], "plan['epsilon']", positive=True)
    (i, j), = _check_pairs(law, [plan["pair"]])
    outs = np.asarray(plan["outputs"])
    if outs.ndim != 1 or not outs.size or outs.dtype.kind not in "iu" or outs.min() < 0 or outs.max() >= len(
            law.columns):
        raise ValueError(f"plan['outputs'] must be a list of column indices of law, got {plan['outputs']!r:.80}")
    outs = outs.astype(np.int64)
    conf = check_confidence(plan["confidence"], "plan['confidence']")
    event = make_event("gt", np.array([False, True, True]), Binner(np.array([0, 1]), categorical=True))

    def stat(cols):  # 1 when the output lies in S (the counterexample's output set), else 0
        return np.isin(np.asarray(cols, dtype=np.int64), outs).astype(np.int64)

    sel = Selection(events=(event,), choice="d>d_prime", score=math.nan, n_selection=0, test="poisson")
    data = (np.asarray(law.inputs[i]), np.asarray(law.inputs[j]))
    est = estimate(law.sampler(eps), data, sel, samples, int(seed), stat, alpha=1 - conf, delta=0.0,
                   executor=executor)
    return {"epsilon": eps, "epsilon_lb": float(est.eps_lb), "confirmed": bool(est.eps_lb > eps),
            "count_p": int(est.k_p), "count_q": int(est.k_q), "draws": int(est.trials), "test": est.test,
            "confidence": conf}
