"""Regression cases of the fuzz's no-baseline sweep (issue 26, item 7): continual internals.

Each hostile value is refused with a ValueError/TypeError naming the parameter; each valid call is unchanged.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from dpverify.budget import check_elements
from dpverify.continual import alg5, hdmm, matrix_ops, matrix_table, methods, stream_cost, streams, symbolic, weights

_W = np.tril(np.ones((4, 4)))
_T = sp.csr_matrix(np.array([[2.0, 0.0], [1.0, 1.0]]))
_Y = np.array([[2.0], [3.0]])
_ROW = {"name": "x", "total_mse": 2.0, "max_mse": 1.0, "sensitivity": 1.0, "causal": True}


def _method(**kw):
    base = {"name": "x", "description": "d", "expected_mse": lambda n, eps: 1.0}
    return methods.ContinualMethod(**{**base, **kw})


CASES = [
    ("itemsize", lambda: check_elements(np.ones(3), "a", itemsize=True), TypeError),
    ("itemsize", lambda: check_elements(np.ones(3), "a", itemsize=0), ValueError),
    ("m", lambda: alg5.coef_counted(1, 2**63, alg5.alpha_table(3)), ValueError),
    ("alpha", lambda: alg5.coef_counted(1, 3, [np.nan] * 3), ValueError),
    ("alpha", lambda: alg5.coef_counted(1, 3, [2.0] * 3), ValueError),
    ("counter", lambda: alg5.coef_counted(1, 3, alg5.alpha_table(3), counter="abc"), TypeError),
    ("theta", lambda: hdmm.p_identity_objective(np.nan, _W), ValueError),
    ("theta", lambda: hdmm.p_identity_objective("abc", _W), TypeError),
    ("theta", lambda: hdmm.p_identity_objective(np.broadcast_to(0.0, (1, 1_500_000_000)), _W), ValueError),
    ("g", lambda: hdmm.p_identity_objective(np.zeros((1, 4)), _W, g=[1.0]), ValueError),
    ("Y", lambda: matrix_ops.tri_solve(_T, np.nan, lower=True), ValueError),
    ("Y", lambda: matrix_ops.tri_solve(_T, np.array([[np.nan], [1.0]]), lower=True), ValueError),
    ("Y", lambda: matrix_ops.tri_solve(_T, np.broadcast_to(1.0, (1_500_000_000, 1)), lower=True), ValueError),
    ("T", lambda: matrix_ops.tri_solve(3, _Y, lower=True), TypeError),
    ("lower", lambda: matrix_ops.tri_solve(_T, _Y, lower=0), TypeError),
    ("T must be upper", lambda: matrix_ops.tri_solve(_T, _Y, lower=False), ValueError),
    ("Y", lambda: matrix_ops.lu_solve(_T, "abc"), TypeError),
    ("Y", lambda: matrix_ops.lu_solve(_T, np.ones((3, 1))), ValueError),
    ("rows", lambda: matrix_table.format_table(None), TypeError),
    ("rows[0]", lambda: matrix_table.format_table([np.nan]), TypeError),
    ("rows[0]", lambda: matrix_table.format_table([{"name": "x"}]), ValueError),
    ("description", lambda: _method(description=None), TypeError),
    ("expected_mse", lambda: _method(expected_mse=np.nan), TypeError),
    ("online", lambda: _method(online=0), TypeError),
    ("reference", lambda: _method(reference=0), TypeError),
    ("items", lambda: stream_cost.CountingPath(3), TypeError),
    ("items", lambda: stream_cost.CountingPath([0, np.nan]), ValueError),
    ("lam", lambda: streams.draw_run(0.5, 1.0, np.random.default_rng(0), "laplace"), ValueError),
    ("lam", lambda: streams.draw_run(np.array([0.0]), 1.0, np.random.default_rng(0), "discrete"), ValueError),
    ("lam", lambda: streams.draw_run(np.array([]), 1.0, np.random.default_rng(0), "discrete"), ValueError),
    ("epsilon", lambda: streams.draw_run(np.array([1.0]), np.nan, np.random.default_rng(0), "discrete"), ValueError),
    ("rng", lambda: streams.draw_run(np.array([1.0]), 1.0, 3, "discrete"), TypeError),
    ("m", lambda: symbolic.err_recursion(1, 2**63), ValueError),
    ("m", lambda: symbolic.err_recursion(1, None), TypeError),
    ("e", lambda: symbolic.err_recursion(np.nan, 2), ValueError),
    ("B_prev", lambda: symbolic.block_recombination(None), TypeError),
    ("M_prev", lambda: symbolic.block_strategy(np.nan), TypeError),
    ("mu", lambda: weights.dual_bound(sp.identity(2, format="csr"), sp.identity(2, format="csr"), "abc"), TypeError),
    ("lam", lambda: weights.dual_bound(sp.identity(2, format="csr"), sp.identity(2, format="csr"), [2.0, 2.0],
                                       lam=[0.0, 0.0]), ValueError),
]


@pytest.mark.parametrize("name, call, exc", CASES, ids=[f"{i}-{c[0]}" for i, c in enumerate(CASES)])
def test_refused_naming_the_parameter(name, call, exc):
    with pytest.raises(exc, match=name.split()[0].replace("[", r"\[").replace("]", r"\]")):
        call()


def test_valid_calls_unchanged():
    c = [0]
    assert alg5.coef_counted(1, 3, alg5.alpha_table(3), c) == alg5.coef_counted(1, 3, alg5.alpha_table(3)) and c[0] == 2
    assert matrix_ops.tri_solve(_T, _Y, lower=True).tolist() == [[1.0], [2.0]]
    assert matrix_ops.lu_solve(sp.csr_matrix(np.array([[0.0, 1.0], [1.0, 0.0]])), _Y).tolist() == [[3.0], [2.0]]
    f, _ = hdmm.p_identity_objective(np.zeros((1, 4)), _W)
    assert f == np.trace(_W @ _W.T)
    assert "x" in matrix_table.format_table([_ROW])
    assert stream_cost.CountingPath(np.array([0, 1])) == [0, 1]
    a = streams.draw_run(np.array([0.5, 1.0]), 1.0, np.random.default_rng(0), "discrete")
    b = streams.draw_run(np.array([0.5, 1.0]), 1.0, np.random.default_rng(0), "discrete")
    assert a.tolist() == b.tolist()
    assert symbolic.err_recursion(0, 1) == 1
    assert round(weights.dual_bound(sp.identity(2, format="csr"), sp.identity(2, format="csr"), [2.0, 2.0]), 12) == 2.0
    assert {m: methods.get_method(m).name for m in methods.method_names()}  # every registered method still builds
