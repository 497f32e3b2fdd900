"""Zhou, Lu and Wu's paper, solving models I and II: the simplex proofs (reduced costs (7)–(9), (16)–(18)) and the
numeric solvers (Figs. 3 and 7) against the closed forms.

The erratum in model II's standard form (its vector b) is in :mod:`dpverify.rr.claims.errata`.
"""

from __future__ import annotations

import math

import numpy as np
import sympy as sp

from dpverify.claims import Outcome, Source, Verdict, claim
from dpverify.rr import symbolic as sym
from dpverify.rr.compare import proven_equal
from dpverify.rr.symbolic import E, delta, pi0

SEED = "003"
pi1 = 1 - pi0


# ----------------------------------------------------------------------------- simplex proofs


def _check_bases(with_delta: bool, printed: list) -> Outcome:
    """printed: [(basis, {j: σ_j}, (x1, x2), (lo, hi))]."""
    ok, rows = True, []
    for basis, sig_p, x_p, (lo_p, hi_p) in printed:
        sigma, x = sym.reduced_costs(basis, with_delta)
        same_sigma = set(sigma) == set(sig_p) and all(proven_equal(sigma[j], sig_p[j]) for j in sig_p)
        same_x = proven_equal(x[0], x_p[0]) and proven_equal(x[1], x_p[1])
        feasible = all(sym.sign_everywhere(xi, with_delta) in (0, 1) for xi in x)
        interval = sym.optimality_interval(sigma, with_delta)
        same_int = interval is not None and proven_equal(interval[0], lo_p) and proven_equal(interval[1], hi_p)
        good = same_sigma and same_x and feasible and same_int
        ok &= good
        rows.append(
            {
                "basis": list(basis),
                "reduced_costs": {j: str(v) for j, v in sigma.items()},
                "x1_x2": [str(x[0]), str(x[1])],
                "basic_feasible_for_all_params": feasible,
                "optimal_for_pi0_in": [str(v) for v in interval] if interval else None,
                "as_printed": good,
            }
        )
    return Outcome(Verdict.HOLDS if ok else Verdict.REFUTED, {"bases": rows})


@claim(
    "rr.model1.simplex",
    source=Source(SEED, "§2.2.2", "eqs. (7)–(9)"),
    statement="For bases {1,2,3,4,7,8}, {1,2,4,6,7,8}, {1,2,3,5,7,8} the reduced costs are (7), (8), (9); "
    "they are all ≤ 0 exactly when 1/e^ε ≤ π0/π1 ≤ e^ε, π0/π1 ≤ 1/e^ε, π0/π1 ≥ e^ε, with basic solutions "
    "p00 = p11 = e^ε/(e^ε+1), (0, 1), (1, 0).",
    method="symbolic",
    expected="holds",
    proof="rr/binary_optimum.md",
)
def _model1_simplex(thorough: bool = False) -> Outcome:
    D = E**2 - 1
    lo, hi = 1 / (E + 1), E / (E + 1)
    printed = [
        ((1, 2, 3, 4, 7, 8), {5: (pi0 - pi1 * E) / D, 6: (pi1 - pi0 * E) / D}, (hi, hi), (lo, hi)),
        ((1, 2, 4, 6, 7, 8), {3: -(pi1 - pi0 * E) / D, 5: (pi0 - pi1 * E) / D}, (0, 1), (0, lo)),
        ((1, 2, 3, 5, 7, 8), {4: -(pi0 - pi1 * E) / D, 6: (pi1 - pi0 * E) / D}, (1, 0), (hi, 1)),
    ]
    return _check_bases(False, printed)


@claim(
    "rr.model2.simplex",
    source=Source(SEED, "§3.2.2", "eqs. (16)–(18)"),
    statement="For bases {1,2,3,4,7,8}, {1,2,3,4,5,8}, {1,2,3,4,6,7} of model II the reduced costs are (16), "
    "(17) = (−π1, π1e^ε − π0), (18) = (−π0, π0e^ε − π1), optimal in the middle / π0/π1 > e^ε / π0/π1 ≤ 1/e^ε "
    "regimes with basic solutions p00 = p11 = (e^ε+δ)/(e^ε+1), (1, δ), (δ, 1).",
    method="symbolic",
    expected="holds",
    proof="rr/binary_optimum.md",
)
def _model2_simplex(thorough: bool = False) -> Outcome:
    D = E**2 - 1
    lo, hi = 1 / (E + 1), E / (E + 1)
    mid = (E + delta) / (E + 1)
    printed = [
        ((1, 2, 3, 4, 7, 8), {5: (pi0 - pi1 * E) / D, 6: (pi1 - pi0 * E) / D}, (mid, mid), (lo, hi)),
        ((1, 2, 3, 4, 5, 8), {6: -pi1, 7: pi1 * E - pi0}, (1, delta), (hi, 1)),
        ((1, 2, 3, 4, 6, 7), {5: -pi0, 8: pi0 * E - pi1}, (delta, 1), (0, lo)),
    ]
    return _check_bases(True, printed)


# ----------------------------------------------------------------------------- solvers


def _binary_grid(thorough: bool):
    eps_list = np.linspace(0.05, 3.0, 12) if thorough else (0.1, 1.0, 2.5)
    delta_list = (0.0, 0.05, 0.15, 0.4, 0.8) if thorough else (0.0, 0.6)
    for e in eps_list:
        Ev = math.exp(e)
        pis = set(np.round(np.linspace(0, 1, 21 if thorough else 5), 12)) | {1 / (Ev + 1), Ev / (Ev + 1)}
        for d in delta_list:
            for p in sorted(pis):
                yield float(e), float(d), float(p)
    rng = np.random.default_rng(2019)  # plus random instances
    for _ in range(300 if thorough else 10):
        yield float(rng.uniform(0.01, 4)), float(rng.choice([0.0, rng.uniform(0, 0.95)])), float(rng.random())


@claim(
    "rr.binary.solvers",
    source=Source(SEED, "§2.2.3, §3.2.3", "Figs. 3 and 7"),
    statement="Solving models I and II numerically (the paper uses Matlab linprog) agrees with the closed forms "
    "(4) and (15), including the regime boundaries (tie segments).",
    method="solver cross-check",
    expected="holds",
    proof="rr/binary_optimum.md",
)
def _binary_solvers(thorough: bool = False) -> Outcome:
    from dpverify.rr.lp import solve_lp

    f0 = sp.lambdify((sym.eps, pi0), sym.symbolic_optimum(0), "math")
    f1 = sp.lambdify((sym.eps, delta, pi0), sym.symbolic_optimum(), "math")
    worst, worst_cert, count, bad = 0.0, 0.0, 0, None
    for e, d, p in _binary_grid(thorough):
        u_sym = f0(e, p) if d == 0 else f1(e, d, p)
        for solver in ("highs", "cvxpy"):
            sol = solve_lp([p, 1 - p], e, d, solver=solver)
            c = sol.certificate
            r = max(c.primal_infeasibility, c.dual_infeasibility, c.complementary_slackness, c.duality_gap)
            diff = abs(sol.u - u_sym)
            worst, worst_cert, count = max(worst, diff), max(worst_cert, r), count + 1
            if (diff > 1e-9 or r > 1e-9) and bad is None:
                bad = {"epsilon": e, "delta": d, "pi0": p, "solver": solver, "u_solver": sol.u, "u_sympy": u_sym}
    ok = bad is None
    return Outcome(
        Verdict.HOLDS if ok else Verdict.REFUTED,
        {"instances_x_solvers": count, "max_abs_diff": worst, "max_certificate_residual": worst_cert,
         "tolerance": 1e-9, "first_failure": bad},
    )
