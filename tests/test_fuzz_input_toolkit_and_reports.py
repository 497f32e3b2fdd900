"""Regression cases of the no-baseline fuzz: hostile input refused by name, valid input unchanged."""

from __future__ import annotations

from fractions import Fraction as F

import numpy as np
import pytest

from dpverify.pca.evaluate import EvalRow, at_majority_rate, svm_accuracy
from dpverify.pca.grid import method_table
from dpverify.pca.ppca import fit_ppca, sample_from_scores
from dpverify.report.figures import figure_caption
from dpverify.report.papers import papers_from_spec
from dpverify.survey.derivations import random_channel_pair, random_neighbour_scores
from dpverify.toolkit.lp import exact_lp_certificate, lp_residuals, rationals

_LP = dict(c=[1, 2], A_ub=[[1, 1]], b_ub=[1], A_eq={}, b_eq=[], x=[0, 1], y_ub=[2], y_eq=[])
_FLP = {k: np.asarray(v, dtype=float) for k, v in _LP.items() if k != "A_eq"} | {"A_eq": np.zeros((0, 2))}


@pytest.mark.parametrize("change, word", [
    ({"A_eq": [[5, 5]]}, "b_eq"),                    # a row without a right-hand side is not dropped
    ({"A_ub": [[1, 1], [1, 0]]}, "b_ub"),
    ({"A_ub": {(0, 0): 1, (1, 1): 3}}, "A_ub"),      # a dict entry outside the rows of b_ub
    ({"A_ub": {(0, -1): 1}}, "A_ub"),                # a negative column index
    ({"A_ub": {(0, 2): 1}}, "A_ub"),                 # a column beyond c
    ({"A_ub": [[1, 1, 1]]}, "A_ub"),
    ({"b_ub": None}, "b_ub"), ({"A_eq": None}, "A_eq"), ({"A_eq": "x"}, "A_eq"),
    ({"y_eq": [1]}, "y_eq"), ({"y_eq": None}, "y_eq"), ({"y_ub": []}, "y_ub"),
])
def test_exact_lp_certificate_is_for_the_lp_given(change, word):
    with pytest.raises((ValueError, TypeError), match=word):
        exact_lp_certificate(**{**_LP, **change})


def test_exact_lp_certificate_valid_input_unchanged():
    assert all(exact_lp_certificate(**_LP).values())
    assert not exact_lp_certificate(**{**_LP, "y_ub": [F(3, 2)]})["dual_feasible"]
    assert all(exact_lp_certificate(**{**_LP, "A_eq": np.zeros((0, 2))}).values())


@pytest.mark.parametrize("name, bad", [
    ("c", None), ("c", "abc"), ("c", [np.nan, 1.0]), ("A_ub", 1.0), ("A_ub", np.zeros((2, 2, 2))),
    ("A_ub", [[np.nan, 1.0]]), ("b_ub", [1.0, 2.0]), ("x", [0.0]), ("y_eq", [1.0]), ("A_eq", None),
    ("A_ub", [[1e308, -1e308]]),
])
def test_lp_residuals_refuses_by_name(name, bad):
    with pytest.raises((ValueError, TypeError), match=name):
        lp_residuals(**{**_FLP, name: bad})


def test_lp_residuals_and_rationals_valid():
    assert lp_residuals(**_FLP) == (0.0, 0.0, 0.0, 0.0)
    assert rationals([1, "1/3", 0.5], "b") == [F(1), F(1, 3), F(1, 2)]
    with pytest.raises(TypeError, match="b"):
        rationals(None, "b")


def test_pca_helpers_refuse_by_name():
    fit = fit_ppca(np.random.default_rng(0).uniform(size=(20, 3)), 2)
    for bad in (None, 1.0, "x"):
        with pytest.raises(TypeError, match="row"):
            at_majority_rate(bad)
        with pytest.raises(TypeError, match="fit"):
            sample_from_scores(bad, np.zeros((4, 2)), 0)
        with pytest.raises(TypeError, match="rows"):
            method_table(bad, "ppca")
    for K, exc in ((np.zeros((4, 3)), ValueError), ([[np.nan, 0.0]], ValueError), (1.0, TypeError),
                   ([[1e308, -1e308]], ValueError)):
        with pytest.raises(exc, match="K"):
            sample_from_scores(fit, K, 0)
    with pytest.raises(TypeError, match="method"):
        method_table([], None)
    X = np.random.default_rng(0).normal(size=(40, 2)); y = (X[:, 0] > 0).astype(int)
    for bad in (np.where(y > 0, 0.5, 0.0), y + 1j, np.where(y > 0, 1e308, -1e308)):
        with pytest.raises(ValueError, match="y_train"):
            svm_accuracy(X[:20], bad[:20], X[20:], y[20:])
    assert at_majority_rate(EvalRow("x", "ppca-dp", 1.0, 1, 5, 0.1, 0.0, 0.75, 0.0, majority_rate=0.75, test_size=4))


@pytest.mark.parametrize("call, word", [
    (lambda: random_channel_pair(None, 3, epsilon=0.5), "rnd"),
    (lambda: random_channel_pair(0, 2**63, epsilon=0.5), "k"),
    (lambda: random_channel_pair(0, 3, epsilon=1e300), "epsilon"),
    (lambda: random_neighbour_scores(None, 3, 1.0), "rnd"),
    (lambda: random_neighbour_scores(0, 10**10, 1.0), "k"),
    (lambda: random_neighbour_scores(0, 3, 1e308), "delta_q"),
    (lambda: random_neighbour_scores(0, 3, 1.0, monotone="yes"), "monotone"),
    (lambda: figure_caption(float("nan")), "fig"),
    (lambda: papers_from_spec(""), "path"),
])
def test_refused_by_name(call, word):
    with pytest.raises((ValueError, TypeError), match=word):
        call()


def test_derivations_streams_unchanged():
    p, q = random_channel_pair(np.random.default_rng(1), 3, epsilon=0.5)
    r = np.log(p / q)
    assert round(float(r.max() - r.min()), 12) == 1.0
    a = random_neighbour_scores(np.random.default_rng(0), 4, 1.5, monotone=True)
    b = random_neighbour_scores(np.random.default_rng(0), 4, 1.5, monotone=np.bool_(True))
    assert all(np.array_equal(u, v) for u, v in zip(a, b))


def test_certificates_are_for_the_program_given():
    """Constraint rows without a right-hand side, and negative sparse indices, are refused by name
    (they used to be dropped or read as the last column, certifying another program)."""
    from dpverify.toolkit.lp import exact_lp_certificate
    from dpverify.toolkit.qp import qp_optimum

    with pytest.raises(ValueError, match="A_eq has shape"):
        exact_lp_certificate([1, 2], [[1, 1]], [1], [[5, 5]], [], [0, 1], [2], [])
    with pytest.raises((TypeError, ValueError), match="A_ub"):
        exact_lp_certificate([1, 2], {(0, 0): 1, (0, -1): 1}, [1], {}, [], [0, 1], [2], [])
    with pytest.raises(ValueError, match="A_eq has shape"):
        qp_optimum([[2, 0], [0, 2]], [0, 0], A_eq=[[1, 2]], b_eq=[])
    assert str(qp_optimum([[2, 0], [0, 2]], [0, 0], A_eq=[[1, 2]], b_eq=[1]).value) == "1/5"
    assert qp_optimum([[2, 0], [0, 2]], [0, 0], A_eq=[], b_eq=[]).value == 0


def test_lp_optimum_keeps_rows_without_a_right_hand_side():
    """issue 32: lp_optimum with b_ub=[] dropped the rows of A_ub (it passed {} to the certificate)."""
    from dpverify.toolkit.lp import lp_optimum

    with pytest.raises(ValueError, match=r"A_ub has shape \(1, 1\), expected \(0, 1\)"):
        lp_optimum([1], A_ub=[[1]], b_ub=[], maximize=False)
    with pytest.raises(ValueError, match=r"A_eq has shape \(0, 3\), expected \(0, 2\)"):
        exact_lp_certificate([1, 2], [[1, 1]], [1], np.zeros((0, 3)), [], [0, 1], [2], [])
    assert lp_optimum([1], A_ub=[], b_ub=[]).value == 0  # [] with [] is "no constraint"
    assert lp_optimum([1], A_ub=np.zeros((0, 1)), b_ub=[]).value == 0


@pytest.mark.parametrize("call, word", [
    (lambda: __import__("dpverify.toolkit.lp", fromlist=["x"]).lp_optimum([1] * 10**6, A_ub=[[1, 1]], b_ub=[1]),
     "A_ub has shape"),
    (lambda: __import__("dpverify.toolkit.qp", fromlist=["x"]).qp_optimum([[2, 0], [0, 2]], [0, 0], A_eq=[[1, 2]],
                                                                          b_eq=[1] * 10**6), "A_eq has shape"),
    (lambda: __import__("dpverify.toolkit.qp", fromlist=["x"]).qp_optimum([[2, 0]] * 10**6, [0, 0]), "Q has shape"),
])
def test_long_lp_qp_data_are_refused_by_shape_before_conversion(call, word):
    """The fuzz's 10^6-entry vectors timed out (> 10 s converting every entry to a Fraction before the
    shape check): the shapes are now checked first."""
    import time

    t0 = time.perf_counter()
    with pytest.raises(ValueError, match=word):
        call()
    assert time.perf_counter() - t0 < 5.0


def test_qp_optimum_falls_back_when_clarabel_fails():
    """A singular Q on which Clarabel fails (SolverError escaped qp_optimum): solved by OSQP and certified
    exactly.  min ½(x0 + 2x1)² + ½x2² + 4x0 − 9x1 + 2x3, x3 >= 1, x1 − x3 <= 1: −8 at (0, 2, 0, 1)."""
    from dpverify.toolkit.qp import qp_optimum

    opt = qp_optimum([[1, 2, 0, 0], [2, 4, 0, 0], [0, 0, 1, 0], [0, 0, 0, 0]], [4, -9, 0, 2],
                     A_ub=[[0, 0, 0, -1], [0, 1, 0, -1]], b_ub=[-1, 1])
    assert opt.exact and opt.value == -8 and opt.x == (0, 2, 0, 1)


def test_sparse_matrix_with_altered_indices_is_refused_by_name():
    """A COO matrix whose indices were altered after construction (-1, or past the shape) is refused,
    naming the argument, never read as another entry (review of issue 32)."""
    import scipy.sparse as sps

    from dpverify.toolkit.lp import exact_lp_certificate

    for field, value in (("col", [0, -1]), ("row", [0, 5])):
        A = sps.coo_matrix(([1, 1], ([0, 0], [0, 1])), shape=(1, 2))
        setattr(A, field, np.array(value))
        with pytest.raises(ValueError, match="A_ub"):
            exact_lp_certificate([1, 2], A, [1], [], [], [0, 1], [2], [])
