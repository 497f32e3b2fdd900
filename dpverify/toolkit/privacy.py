"""Privacy checks as outcomes: the exact privacy of a finite mechanism, and a statistical audit."""

from __future__ import annotations

import math
from typing import Any, Callable

from dpverify.claims.model import Outcome, Verdict

__all__ = ["audit_epsilon", "finite_mechanism_privacy"]


def finite_mechanism_privacy(P: Any, *, epsilon: Any, delta: Any = 0.0, definition: str = "standard",
                             exact: bool = False, atol: Any = None) -> Outcome:
    """Is the finite mechanism ``P`` (row-stochastic, ``P[i, j] = Pr(j | i)``) (ε, δ)-DP between its rows?

    ``holds`` or ``refuted``, from one exact decision (:func:`dpverify.audit.check_ldp`): float
    entries, ε and δ are taken at their exact binary values, so a float matrix that sits on the
    boundary and exceeds it by rounding is ``refuted`` (pass ``atol``, e.g. 1e-12, to accept the
    rounding of a tight mechanism: an explicit relaxation, recorded in the evidence).  The
    evidence carries the worst pair of rows, the worst output set, the required δ with its
    rounding bound and the decision's method, the largest row-sum deviation |Σ_j P[i, j] − 1| of the
    matrix as given (``row_sum_deviation``: rows within m·2⁻⁵¹ of 1 are decided as they are, and a
    ``holds`` on such rows says so in its summary), and the smallest ε that holds
    (:func:`dpverify.audit.ldp_epsilon`, in floats), placed on the side of the claimed ε that the
    exact decision found.  With ``exact=True`` entries are read as rationals (``"3/4"``) and ε may
    be a sympy expression.

    Example
    -------
    >>> finite_mechanism_privacy([["3/4", "1/4"], ["1/4", "3/4"]], epsilon="log(3)", exact=True).verdict.value
    'holds'
    >>> out = finite_mechanism_privacy([[0.8, 0.2], [0.2, 0.8]], epsilon=1.0)
    >>> out.verdict.value, round(out.evidence["smallest_epsilon"], 6)
    ('refuted', 1.386294)
    >>> import math                          # the float ln 4 is below ln 4: refuted by rounding alone
    >>> out = finite_mechanism_privacy([[0.8, 0.2], [0.2, 0.8]], epsilon=math.log(4))
    >>> out.verdict.value, out.evidence["smallest_epsilon"] > math.log(4), out.evidence["method"]
    ('refuted', True, 'exact fallback')
    >>> finite_mechanism_privacy([[0.8, 0.2], [0.2, 0.8]], epsilon=math.log(4), atol=1e-12).verdict.value
    'holds'
    """
    from dpverify.audit import check_ldp, ldp_epsilon

    if exact and isinstance(epsilon, str):
        import sympy as sp

        epsilon = sp.sympify(epsilon)
    r = check_ldp(P, epsilon, delta, definition, exact=exact, atol=atol)
    smallest = ldp_epsilon(P, delta, definition, exact=exact)
    ev = {**r.evidence(), "smallest_epsilon": smallest, "atol": atol}
    if not exact:  # the float smallest ε, moved to the side of the claim that the exact decision found
        ev["smallest_epsilon_float"] = smallest
        eps = float(r.epsilon)
        if r.holds and smallest > eps:
            smallest = eps
        elif not r.holds and atol is None and smallest <= eps:
            smallest = math.nextafter(eps, math.inf)
        ev["smallest_epsilon"] = smallest
    if r.holds:
        rows = "" if not r.row_sum_deviation else (
            f" (for the matrix as given, whose rows sum to 1 only within {r.row_sum_deviation:.3g})")
        return Outcome(Verdict.HOLDS, ev,
                       summary=f"every pair of rows satisfies the {definition} (ε, δ) inequality{rows}")
    close = "" if exact or r.method == "float" else (
        f" (decided in exact arithmetic: the float δ {r.required_delta:.6g} is within its rounding bound "
        f"{r.error_bound:.2g} of the claim)")
    return Outcome(Verdict.REFUTED, ev,
                   summary=f"rows {r.rows[0]} and {r.rows[1]} violate it on outputs {list(r.outputs)[:8]}: "
                           f"the mechanism needs ε = {smallest}{close}")


def audit_epsilon(mechanism: Callable, d: Any, d_prime: Any, *, epsilon: float, delta: float = 0.0,
                  samples: int, confidence: float = 0.99, rng: Any = None, **kw) -> Outcome:
    """Audit the claim "``mechanism`` is (ε, δ)-DP" on one neighbouring pair from samples.

    ``refuted`` when the lower bound of :func:`dpverify.audit.epsilon_lower_bound`
    exceeds ε (wrong with probability ≤ 1 − confidence), else ``inconclusive``:
    an audit that finds nothing proves nothing, so it never returns ``holds``.
    Extra keyword arguments go to ``epsilon_lower_bound`` (``statistic=``, ...).

    Example
    -------
    >>> from dpverify.audit.mechanisms import LaplaceMechanism
    >>> audit_epsilon(LaplaceMechanism(epsilon=1.0), 0.0, 1.0, epsilon=0.5, samples=200_000, rng=0).verdict.value
    'refuted'
    """
    from dpverify.audit import epsilon_lower_bound
    from dpverify.validation import check_positive_int, check_work

    check_work(2.0 * check_positive_int(samples, "samples"), "samples (per input, two inputs)")
    r = epsilon_lower_bound(mechanism, d, d_prime, samples=samples, confidence=confidence, delta=delta, rng=rng, **kw)
    v = r.verdict(epsilon)
    ev = {"claimed_epsilon": epsilon, "claimed_delta": delta, "confidence": confidence, **r.as_dict(),
          "seed": rng if isinstance(rng, int) else None}
    if v is Verdict.REFUTED:
        return Outcome(v, ev, summary=f"the audit's lower bound ε ≥ {r.epsilon:.4g} exceeds the claimed ε = {epsilon:g} "
                                      f"(confidence {confidence:g})")
    return Outcome(Verdict.INCONCLUSIVE, ev,
                   summary=f"the audit found ε ≥ {r.epsilon:.4g}, not above the claimed {epsilon:g}: no violation found, "
                           "which does not prove the claim")
