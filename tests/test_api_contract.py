"""The input contract of the finished rooms' public functions (rr, the LDP checker, the continual core).

For every public function taking ε, δ, π, P, counts or n:

* bad values (ε ∈ {0, −1, nan, inf, "1"}, δ ∈ {−0.1, 1, nan}, π not summing to 1 /
  negative / NaN, P not row-stochastic / negative / NaN, counts negative /
  fractional / NaN, n ∈ {0, −1, 2.5, True}) raise ``ValueError`` or ``TypeError``
  whose message names the parameter;
* inputs are not mutated (they are passed as read-only numpy arrays, so an
  in-place write raises, and they are compared with copies afterwards);
* randomised functions give the same result from the same int seed and from a
  Generator seeded alike, and a different one from another seed.

The table ``CASES`` lists each function with good arguments; the bad values
are substituted one parameter at a time.
"""

from __future__ import annotations

import math
import re
from fractions import Fraction

import numpy as np
import pytest

import dpverify.continual as continual
from dpverify.audit import ldp
from dpverify.continual import fda, fenwick, naive
from dpverify.rr import lp, nary, simulate

NAN, INF = math.nan, math.inf


def ro(x, dtype=float):
    """A read-only numpy copy of x."""
    a = np.array(x, dtype=dtype)
    a.setflags(write=False)
    return a


# parameter name -> its kind (which bad values apply)
BAD = {
    "epsilon": [0, 0.0, -1, NAN, INF, "1", None],
    "delta": [-0.1, 1, 1.0, NAN, INF, "0.1"],
    "pi": [[0.5, 0.6], [-0.2, 1.2], [NAN, 1.0], [[0.5, 0.5]], "ab"],
    "P": [[[0.5, 0.6], [0.5, 0.5]], [[1.2, -0.2], [0.5, 0.5]], [[NAN, 1.0], [0.5, 0.5]], [0.5, 0.5]],
    "counts": [[1, -1, 2], [1, 2.5, 2], [1, NAN, 2], [[1, 2]], "12"],
    "n": [0, -1, 2.5, True, "4", None],
}
KIND = {
    "epsilon": "epsilon",
    "delta": "delta",
    "pi": "pi",
    "P": "P",
    "counts": "counts",
    "output_counts": "counts",
    "n": "n",
    "n_respondents": "n",
    "m": "n",
    "k": "n",
    "m_max": "n",
}

PI3 = [0.5, 0.3, 0.2]
P2 = [[0.75, 0.25], [0.25, 0.75]]

# (id, function, good keyword arguments)
CASES = [
    ("rr.optimal_support", nary.optimal_support, dict(pi=PI3, epsilon=1.0)),
    ("rr.optimal_utility", nary.optimal_utility, dict(pi=PI3, epsilon=1.0, delta=0.1)),
    ("rr.optimal_mechanism", nary.optimal_mechanism, dict(pi=PI3, epsilon=1.0, delta=0.1)),
    ("rr.extreme_points", nary.extreme_points, dict(n=2, epsilon=1.0, delta=0.1)),
    ("rr.ldp_lp", lp.ldp_lp, dict(pi=PI3, epsilon=1.0, delta=0.1)),
    ("rr.solve_lp", lp.solve_lp, dict(pi=PI3, epsilon=1.0, delta=0.1)),
    ("rr.composition", simulate.composition, dict(pi=PI3, n_respondents=100)),
    ("rr.simulate_survey", simulate.simulate_survey, dict(P=P2, pi=[0.3, 0.7], n_respondents=100, rng=0)),
    ("rr.estimate_distribution", simulate.estimate_distribution, dict(P=P2, output_counts=[40, 60])),
    ("ldp.check_ldp", ldp.check_ldp, dict(P=P2, epsilon=1.0, delta=0.1)),
    ("ldp.check_ldp_per_output", ldp.check_ldp, dict(P=P2, epsilon=1.0, delta=0.1, definition="per_output")),
    ("ldp.ldp_epsilon", ldp.ldp_epsilon, dict(P=P2, delta=0.1)),
    ("ldp.ldp_delta_curve", ldp.ldp_delta_curve, dict(P=P2, epsilons=[0.5, 1.0])),
    ("continual.expected_mse", continual.expected_mse, dict(n=7, epsilon=1.0, method="fda")),
    ("continual.strategy", continual.strategy, dict(n=7, method="fenwick")),
    ("continual.release", continual.release, dict(counts=[1, 0, 2, 3], epsilon=1.0, method="fda", rng=0)),
    ("continual.stream", continual.stream, dict(n=4, epsilon=1.0, method="fda", rng=0)),
    ("fenwick.levels", fenwick.levels, dict(n=5)),
    ("fenwick.fenwick_strategy", fenwick.fenwick_strategy, dict(n=5)),
    ("fenwick.fenwick_recombination", fenwick.fenwick_recombination, dict(n=5)),
    ("fenwick.fenwick_roots", fenwick.fenwick_roots, dict(n=5)),
    ("fenwick.column_sq_norms", fenwick.column_sq_norms, dict(n=5)),
    ("fenwick.node_sums", fenwick.node_sums, dict(counts=[1, 2, 3, 4])),
    ("fenwick.fenwick_sensitivity", fenwick.fenwick_sensitivity, dict(n=5)),
    ("fenwick.weighted_expected_mse", fenwick.weighted_expected_mse, dict(weights=[0.5, 0.5, 1.0], epsilon=1.0)),
    ("fenwick.fenwick_expected_mse", fenwick.fenwick_expected_mse, dict(n=5, epsilon=1.0)),
    ("fenwick.weighted_release", fenwick.weighted_release, dict(counts=[1, 2, 3], epsilon=1.0, weights=[0.5, 0.5, 1.0], rng=0)),
    ("fenwick.draw_node_noise", fenwick.draw_node_noise, dict(weights=[0.5, 0.5, 1.0], epsilon=1.0, rng=0, noise="discrete")),
    ("fenwick.FenwickStream", fenwick.FenwickStream, dict(n=3, epsilon=1.0, weights_at=lambda i: np.full(len(i), 0.5), rng=0)),
    ("naive.naive_expected_mse", naive.naive_expected_mse, dict(n=5, epsilon=1.0)),
    ("naive.naive_strategy", naive.naive_strategy, dict(n=5)),
    ("naive.naive_release", naive.naive_release, dict(counts=[1, 2, 3], epsilon=1.0, rng=0)),
    ("naive.NaiveStream", naive.NaiveStream, dict(n=3, epsilon=1.0, rng=0)),
    ("fda.fda_level_shares", fda.fda_level_shares, dict(n=5)),
    ("fda.fda_optimum", fda.fda_optimum, dict(n=5)),
    ("fda.fda_weights", fda.fda_weights, dict(n=5)),
    ("fda.fda_weights_at", fda.fda_weights_at, dict(nodes=[1, 3], n=5)),
    ("fda.fda_expected_mse", fda.fda_expected_mse, dict(n=5, epsilon=1.0)),
    ("fda.fda_strategy", fda.fda_strategy, dict(n=5)),
    ("fda.fda_release", fda.fda_release, dict(counts=[1, 2, 3], epsilon=1.0, rng=0)),
    ("fda.coef", fda.coef, dict(k=2, m=3)),
    ("fda.solve_diagonal_cvxpy", fda.solve_diagonal_cvxpy, dict(n=3)),
    ("fda.kkt_certificate", fda.kkt_certificate, dict(n=5)),
]


def _bad_cases():
    for cid, f, good in CASES:
        for param in good:
            kind = KIND.get(param)
            if kind is None:
                continue
            for bad in BAD[kind]:
                yield pytest.param(f, good, param, bad, id=f"{cid}-{param}={bad!r}")


def _names(msg: str, param: str) -> bool:
    return re.search(rf"(?<![A-Za-z_]){re.escape(param)}(?![A-Za-z_])", msg) is not None


@pytest.mark.parametrize("f, good, param, bad", list(_bad_cases()))
def test_bad_input_is_rejected_naming_the_parameter(f, good, param, bad):
    kw = dict(good)
    kw[param] = bad
    with pytest.raises((ValueError, TypeError)) as info:
        f(**kw)
    assert _names(str(info.value), param), f"message does not name {param!r}: {info.value}"


@pytest.mark.parametrize("cid, f, good", [pytest.param(*c, id=c[0]) for c in CASES])
def test_good_input_is_accepted_and_not_mutated(cid, f, good):
    kw = {}
    originals = {}
    for k, v in good.items():
        if isinstance(v, list):
            kw[k] = ro(v, dtype=np.int64 if k in ("counts", "output_counts", "nodes") else float)
            originals[k] = kw[k].copy()
        else:
            kw[k] = v
    f(**kw)  # a write into a read-only input raises here
    for k, orig in originals.items():
        assert np.array_equal(kw[k], orig)


# ------------------------------------------------------------------ exact (rational) entry points


@pytest.mark.parametrize(
    "kw, param",
    [
        (dict(pi=[NAN, 1.0]), "pi"),
        (dict(pi=["a", "b"]), "pi"),
        (dict(pi=[Fraction(1, 2), Fraction(1, 3)]), "pi"),
        (dict(pi=[Fraction(-1, 2), Fraction(3, 2)]), "pi"),
        (dict(pi=[Fraction(1)]), "pi"),
        (dict(E=1), "E"),
        (dict(E=Fraction(1, 2)), "E"),
        (dict(E=NAN), "E"),
        (dict(E=INF), "E"),
        (dict(E=True), "E"),
        (dict(delta=NAN), "delta"),
        (dict(delta=-0.1), "delta"),
        (dict(delta=1), "delta"),
    ],
)
def test_exact_optimum_rejects_bad_input(kw, param):
    args = dict(pi=[Fraction(1, 2), Fraction(1, 2)], E=Fraction(3), delta=Fraction(1, 10))
    args.update(kw)
    with pytest.raises((ValueError, TypeError)) as info:
        nary.exact_optimum(**args)
    assert _names(str(info.value), param), str(info.value)


def test_exact_ldp_check_rejects_strings_for_epsilon():
    """ε given as a string is not evaluated (sympify would run arbitrary code)."""
    with pytest.raises(TypeError, match="epsilon"):
        ldp.check_ldp([["3/4", "1/4"], ["1/4", "3/4"]], "log(3)", exact=True)
    with pytest.raises((ValueError, TypeError), match="epsilon"):
        ldp.check_ldp([["3/4", "1/4"], ["1/4", "3/4"]], -1, exact=True)
    with pytest.raises((ValueError, TypeError), match="delta"):
        ldp.check_ldp([["3/4", "1/4"], ["1/4", "3/4"]], 1, NAN, exact=True)
    with pytest.raises((ValueError, TypeError), match="P"):
        ldp.check_ldp([["3/4", "1/2"], ["1/4", "3/4"]], 1, exact=True)


@pytest.mark.parametrize("bad", [-0.1, 1, NAN, "x", 2])
def test_symbolic_optimum_rejects_bad_delta(bad):
    from dpverify.rr import symbolic_optimum

    with pytest.raises((ValueError, TypeError), match="delta"):
        symbolic_optimum(bad)


@pytest.mark.parametrize("bad", [0, -1, 2.5, True])
def test_symbolic_sequences_reject_bad_sizes(bad):
    from dpverify.continual.symbolic import lambda_expression, ratio_sequence

    with pytest.raises((ValueError, TypeError), match="m_max"):
        ratio_sequence(bad)
    with pytest.raises((ValueError, TypeError), match=r"\bm\b"):
        lambda_expression(1, bad)


@pytest.mark.parametrize("bad", [[0], [6], [1.5], [NAN]])
def test_fda_weights_at_rejects_bad_nodes(bad):
    with pytest.raises((ValueError, TypeError), match="nodes"):
        fda.fda_weights_at(bad, 5)


@pytest.mark.parametrize("bad", [[0.5, -0.5, 1.0], [0.5, NAN, 1.0], [0.5, 0.5]])
def test_kkt_certificate_rejects_bad_weights(bad):
    with pytest.raises((ValueError, TypeError), match="weights"):
        fda.kkt_certificate(3, bad)


@pytest.mark.parametrize("bad", [-1, 2.5, NAN, True, "1"])
def test_stream_push_rejects_bad_counts(bad):
    s = continual.stream(4, 1.0, "fda", rng=0)
    with pytest.raises((ValueError, TypeError), match="a_t"):
        s.push(bad)
    assert s.remaining == 4  # a rejected push is not counted


# ------------------------------------------------------------------ reproducibility


def _rand_calls():
    yield "simulate_survey", lambda rng: simulate.simulate_survey(P2, [0.3, 0.7], 500, rng=rng).counts
    for method in continual.method_names():
        if method not in ("naive", "fenwick", "fda"):
            continue
        for noise in ("laplace", "discrete"):
            yield f"release-{method}-{noise}", (
                lambda rng, m=method, z=noise: continual.release(ro([3, 0, 1, 4, 2, 2, 0], np.int64), 1.0, m, rng=rng, noise=z)
            )
            yield f"stream-{method}-{noise}", (
                lambda rng, m=method, z=noise: np.array(_push_all(continual.stream(7, 1.0, m, rng=rng, noise=z)))
            )
    yield "weighted_release", lambda rng: fenwick.weighted_release([1, 2, 3], 1.0, [0.5, 0.5, 1.0], rng=rng)
    yield "draw_node_noise", lambda rng: fenwick.draw_node_noise([0.5, 0.5, 1.0], 1.0, rng, "laplace")
    yield "naive_release", lambda rng: naive.naive_release([1, 2, 3], 1.0, rng)
    yield "fda_release", lambda rng: fda.fda_release([1, 2, 3], 1.0, rng)


def _push_all(s):
    return [s.push(a) for a in (3, 0, 1, 4, 2, 2, 0)]


@pytest.mark.parametrize("name, call", [pytest.param(n, c, id=n) for n, c in _rand_calls()])
def test_randomness_is_reproducible_from_the_rng_argument(name, call):
    a = np.asarray(call(7))
    b = np.asarray(call(np.random.default_rng(7)))
    c = np.asarray(call(8))
    assert np.array_equal(a, b)
    assert not np.array_equal(a, c)  # the seed is actually used


def test_bad_rng_is_rejected():
    for bad in (-1, 1.5, "0", True):
        with pytest.raises((ValueError, TypeError), match="rng"):
            continual.release([1, 2], 1.0, "fda", rng=bad)
        with pytest.raises((ValueError, TypeError), match="rng"):
            simulate.simulate_survey(P2, [0.3, 0.7], 10, rng=bad)


@pytest.mark.parametrize("call", [
    lambda a: continual.release(a, 1.0, "fda", rng=0, noise="discrete"),
    lambda a: continual.release(a, 1.0, "naive", rng=0),
    lambda a: fenwick.weighted_release(a, 1.0, [0.5, 0.5], rng=0),
    lambda a: naive.naive_release(a, 1.0, rng=0),
    lambda a: fda.fda_release(a, 1.0, rng=0),
])
def test_running_totals_that_overflow_int64_are_refused(call):
    """Regression: counts [2^62, 2^62] used to come back as a negative running total (int64 wrap-around)."""
    with pytest.raises(ValueError, match="counts"):
        call([2**62, 2**62])
    out = call([2**61, 2**61 - 10])  # just below the limit: accepted, no wrap-around
    assert out[-1] > 2**62 - 1e9


def test_naive_strategy_refuses_huge_dense_workloads():
    """Regression: strategy(10**6, "naive") tried to store n(n+1)/2 = 5e11 entries."""
    with pytest.raises(ValueError, match=r"\bn\b"):
        continual.strategy(10**6, "naive")


def test_exact_optimum_reads_floats_as_the_decimals_typed():
    """0.2 means 1/5 (as in the exact LDP checker), so [0.2, 0.8] is a probability vector exactly."""
    a = nary.exact_optimum([0.2, 0.8], 3, 0.15)
    b = nary.exact_optimum([Fraction(1, 5), Fraction(4, 5)], Fraction(3), Fraction(3, 20))
    assert a.u == b.u and a.P == b.P
    assert all(nary.verify_certificate_exact([0.2, 0.8], 3, 0.15, a).values())


@pytest.mark.parametrize("definition", ["per_output", "standard"])
def test_delta_curve_beyond_float_exp_range(definition):
    """Regression: the per-output curve was NaN for ε > 709.78 (e^ε = inf times a zero entry)."""
    import warnings

    P = ro([[1.0, 0.0], [0.5, 0.5]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no overflow / invalid-value warnings either
        curve = ldp.ldp_delta_curve(P, [0.0, 1.0, 800.0], definition)
    assert np.array_equal(curve, [0.5, 0.5, 0.5])  # column 1: 0.5 − e^ε · 0 for every ε
    assert ldp.check_ldp(P, 800.0, 0.0, definition).required_delta == 0.5
