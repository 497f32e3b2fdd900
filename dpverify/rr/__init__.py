"""The ``rr`` room: utility-optimal randomized response (Zhou, Lu and Wu's paper), derived, certified and checked.

Public API
----------
optimal_mechanism(pi, epsilon, delta=0.0) -> (P, u)
    The utility-optimal (ε, δ)-LDP design matrix for any n ≥ 2 (closed form,
    proven by a dual certificate; ``rr/nary_optimum.md``).
optimal_utility(pi, epsilon, delta=0.0) -> float
    The optimal utility u* alone.
symbolic_optimum(delta_value=None) -> sympy.Piecewise
    u*(ε, δ, π0) of the binary models I/II derived from the LP's vertices.
solve_lp(pi, epsilon, delta=0.0, definition="per_output", solver="highs")
    The LP (19)–(20) solved by HiGHS or cvxpy/Clarabel with a dual certificate.
exact_optimum / verify_certificate_exact
    The closed form with its dual certificate in rational arithmetic, and an independent checker.
extreme_points(n, epsilon, delta=0.0)
    Vertex enumeration of the LDP polytope for n ≤ 3 (the paper's extreme-point method).
simulate_survey / estimate_distribution
    Sampling respondents and the unbiased inversion estimator.

Which definition: ``optimal_mechanism`` returns matrices that are (ε, δ)-LDP
under both the paper's per-output definition and the standard one; ``solve_lp``
solves whichever ``definition`` is asked (the paper's model (20) is
``"per_output"``).

Example
-------
>>> from dpverify.rr import optimal_mechanism
>>> P, u = optimal_mechanism([0.2, 0.8], 0.1)
>>> P.tolist(), u
([[0.0, 1.0], [0.0, 1.0]], 0.8)
"""

from dpverify.rr.lp import Certificate, LPSolution, solve_lp
from dpverify.rr.nary import (
    exact_optimum,
    extreme_points,
    optimal_mechanism,
    optimal_support,
    optimal_utility,
    verify_certificate_exact,
)
from dpverify.rr.simulate import SurveyResult, estimate_distribution, simulate_survey
from dpverify.rr.symbolic import symbolic_optimum

__all__ = [
    "Certificate",
    "LPSolution",
    "SurveyResult",
    "estimate_distribution",
    "exact_optimum",
    "extreme_points",
    "optimal_mechanism",
    "optimal_support",
    "optimal_utility",
    "simulate_survey",
    "solve_lp",
    "symbolic_optimum",
    "verify_certificate_exact",
]
