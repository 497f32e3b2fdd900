"""The binary optimum derived from the LP's vertices (sympy) against independent numeric evaluation."""

from __future__ import annotations

import itertools
import math

import numpy as np
import sympy as sp

from dpverify.rr import symbolic_optimum
from dpverify.rr import symbolic as sym


def _brute_max(e, d, p, grid=401):
    """max of π0 p00 + π1 p11 over a fine grid of the feasible square, plus the exact vertices of (14)."""
    Ev = math.exp(e)
    xs = np.linspace(0, 1, grid)
    X, Y = np.meshgrid(xs, xs, indexing="ij")
    feas = (
        (1 - Y <= Ev * X + d + 1e-12)
        & (1 - X <= Ev * Y + d + 1e-12)
        & (X <= Ev * (1 - Y) + d + 1e-12)
        & (Y <= Ev * (1 - X) + d + 1e-12)
    )
    return float(np.max(np.where(feas, p * X + (1 - p) * Y, -1)))


def test_piecewise_against_grid_search():
    """The grid search is a lower bound within one grid step of u* (the objective is 1-Lipschitz)."""
    u0 = sp.lambdify((sym.eps, sym.pi0), symbolic_optimum(0), "math")
    u1 = sp.lambdify((sym.eps, sym.delta, sym.pi0), symbolic_optimum(), "math")
    for e, d, p in itertools.product((0.1, 0.7, 2.0), (0.0, 0.2, 0.7), (0.0, 0.15, 0.5, 0.8, 1.0)):
        u = u0(e, p) if d == 0 else u1(e, d, p)
        b = _brute_max(e, d, p)
        assert b <= u + 1e-12 and u - b <= 2.5e-3


def test_model1_is_model2_at_delta_zero():
    """Model II's Piecewise at δ = 0 agrees with model I's own derivation (not a limit)."""
    f0 = sp.lambdify((sym.eps, sym.pi0), symbolic_optimum(0), "math")
    f1 = sp.lambdify((sym.eps, sym.pi0), symbolic_optimum(sp.Integer(0)), "math")
    g = sp.lambdify((sym.eps, sym.delta, sym.pi0), symbolic_optimum(), "math")
    for e in (0.05, 0.5, 3.0):
        for p in np.linspace(0, 1, 23):
            assert abs(f0(e, p) - g(e, 0.0, p)) < 1e-14
            assert abs(f0(e, p) - f1(e, p)) == 0


def test_sign_everywhere():
    E, d = sym.E, sym.delta
    assert sym.sign_everywhere(E - 1, False) == 1
    assert sym.sign_everywhere(1 - E**2, False) == -1
    assert sym.sign_everywhere((E + d) / (E + 1) - (1 - d) / (E + 1), True) == 1
    assert sym.sign_everywhere(E - 2, False) is None  # changes sign at E = 2
    assert sym.sign_everywhere(d - sp.Rational(1, 2), True) is None
    assert sym.sign_everywhere(E - E, False) == 0


def test_regime_design_matrices_are_feasible_and_attain_u():
    for with_delta in (False, True):
        for r in sym.binary_regimes(with_delta):
            P = r.design_matrix
            for Ev, dv in ((1.3, 0.1), (5.0, 0.7)):
                subs = {sym.E: Ev, sym.delta: dv if with_delta else 0}
                Pn = np.array(P.subs(subs), dtype=float)
                assert np.allclose(Pn.sum(axis=1), 1) and (Pn >= -1e-15).all()
                for j in range(2):
                    assert Pn[:, j].max() <= Ev * Pn[:, j].min() + subs[sym.delta] + 1e-12


def test_reduced_costs_detect_a_wrong_basis():
    """A basis that is optimal nowhere has reduced costs that are never all ≤ 0 (the check can fail)."""
    sigma, x = sym.reduced_costs((1, 2, 3, 4, 7, 8), False)
    assert sym.optimality_interval(sigma, False) is not None
    # the anti-diagonal vertex D = (1/(E+1), 1/(E+1)): rows 1, 2 tight, i.e. x3 = x4 = 0 non-basic
    sigma_d, x_d = sym.reduced_costs((1, 2, 5, 6, 7, 8), False)
    assert sp.cancel(x_d[0] - 1 / (sym.E + 1)) == 0
    assert sym.optimality_interval(sigma_d, False) is None
