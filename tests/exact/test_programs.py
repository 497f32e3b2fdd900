"""dpverify.exact.programs: closed forms against brute force, laws that are laws, samplers that match them.

Brute-force sums are truncated at N terms with the proven tail bound: a tail of the discrete Laplace law
beyond |z| > N has mass 2·r^{N+1}/(1 + r), and every factor of a path is a probability (≤ 1), so a
truncated sum over ρ misses at most the tail mass of ρ's own law.
"""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np
import pytest
import sympy as sp

from dpverify.exact.programs import SampleContext, neighbour_pairs, program_law
from dpverify.exact.programs import checkdp
from dpverify.exact.programs.geometric import FIELD, Factor, path_sum, point, tail_ge

TV = Fraction(2, 5)  # t = e^{−ε/L} at a rational point


def ev(x) -> Fraction:
    n, d = x.numer, x.denom
    return Fraction(str(n.as_expr().subs("t", TV))) / Fraction(str(d.as_expr().subs("t", TV)))


def pmf(a, z):
    r = TV ** a
    return (1 - r) / (1 + r) * r ** abs(z)


def tail_bound(a, N):
    r = TV ** a
    return 2 * r ** (N + 1) / (1 + r)


@pytest.mark.parametrize("a", [1, 2, 3])
def test_tails_and_points_against_truncated_sums(a):
    N = 60
    for k in range(-4, 5):
        brute = sum(pmf(a, z) for z in range(k, N + 1))
        assert abs(ev(tail_ge(a, k)) - brute) <= tail_bound(a, N)
        assert ev(point(a, k)) == pmf(a, k)
    assert tail_ge(a, 0) + tail_ge(a, 1) == 1  # P(Z ≥ 0) + P(Z ≤ −1) = 1 by symmetry


def _factor_value(f: Factor, rho: int) -> Fraction:
    k = rho + f.s
    if f.kind == "eq":
        return pmf(f.a, k)
    ge = ev(tail_ge(f.a, k))
    return ge if f.kind == "ge" else 1 - ge


FACTOR_SETS = [
    [Factor("eq", 2, 0), Factor("ge", 1, -1), Factor("lt", 1, 2), Factor("ge", 3, 1)],
    [Factor("eq", 1, 0), Factor("lt", 2, 0), Factor("lt", 2, 1), Factor("eq", 1, 3)],
    [Factor("eq", 3, 0), Factor("ge", 1, 5), Factor("ge", 1, -5)],
]


@pytest.mark.parametrize("factors", FACTOR_SETS)
@pytest.mark.parametrize("lo,hi", [(None, None), (-2, 5), (None, 0), (3, None), (1, 1)])
def test_path_sum_against_brute_force(factors, lo, hi):
    N = 40
    a0 = factors[0].a
    rng = range(-N if lo is None else lo, (N if hi is None else hi) + 1)
    brute = Fraction(0)
    for rho in rng:
        term = Fraction(1)
        for f in factors:
            term *= _factor_value(f, rho)
        brute += term
    assert abs(ev(path_sum(factors, lo, hi)) - brute) <= tail_bound(a0, N)


def test_a_diverging_series_is_refused():
    with pytest.raises(ValueError, match="diverges"):
        path_sum([Factor("ge", 1, 0)])  # Σ_ρ P(Z ≥ ρ) = ∞: no density of ρ


INPUTS = list(itertools.product(range(2), repeat=3))


def _params(name):
    if "sparse" in name or name.startswith("svt"):
        return {"T": 1, "NN": 1}
    return {"T": 1, "M": 2} if "smartsum" in name else {}


FAST = ["sparsevector", "badsparsevector1", "badsparsevector2", "numsparsevector", "noisymax", "badnoisymax",
        "partialsum", "badpartialsum", "smartsum", "badsmartsum", "gapsparsevector"]


@pytest.mark.parametrize("name", FAST)
def test_rows_sum_to_one_exactly(name):
    prog = checkdp.ALL[name][0]
    law = program_law(prog, INPUTS[:3], **_params(name))
    for row in law.t_matrix:
        assert sum(row, FIELD.zero) == 1
        assert all(ev(c) >= 0 for c in row)


@pytest.mark.parametrize("name", ["sparsevector", "numsparsevector", pytest.param("badnoisymax", marks=pytest.mark.slow),
                                  pytest.param("smartsum", marks=pytest.mark.slow),
                                  pytest.param("gapsparsevector", marks=pytest.mark.slow)])
def test_sampler_matches_the_exact_law(name):
    """Each cell's count among n draws at ε = 1 lies within 5.5 binomial standard deviations of n·p
    (two-sided normal tail 3.8e-8 per cell, < 1e-5 over every cell and parameter of this test)."""
    prog = checkdp.ALL[name][0]
    q = (0, 1, 1)
    law = program_law(prog, [q], **_params(name))
    eps = sp.Symbol("epsilon", positive=True)
    probs = np.array([float(p.subs(eps, 1)) for p in law.matrix.row(0)])
    n = 20_000
    draws = law.sampler(1.0)(np.array(q), np.random.default_rng(12), n)
    assert (draws >= 0).all()
    counts = np.bincount(draws.astype(int), minlength=len(probs))
    sd = np.sqrt(n * probs * (1 - probs)) + 1e-9
    assert np.all(np.abs(counts - n * probs) <= 5.5 * sd + 1), (counts, n * probs)


def test_a_wrong_program_is_refuted_and_the_right_one_proved():
    from dpverify.exact import prove

    eps = sp.Symbol("epsilon", positive=True)
    pairs = neighbour_pairs(INPUTS, "one_differ")
    good = prove(program_law(checkdp.partialsum, INPUTS).matrix, epsilon=eps, pairs=pairs)
    bad = prove(program_law(checkdp.badpartialsum, INPUTS).matrix, epsilon=eps, pairs=pairs)
    assert good.verdict == "proved"
    assert bad.verdict == "refuted" and sp.simplify(bad.counterexample.epsilon_needed - 2 * eps) == 0


def test_noise_free_comparison_gives_infinite_loss():
    from dpverify.exact import prove

    eps = sp.Symbol("epsilon", positive=True)
    law = program_law(checkdp.badsparsevector1, INPUTS, T=1, NN=1)
    res = prove(law.matrix, epsilon=eps, pairs=neighbour_pairs(INPUTS, "all_differ"))
    assert res.verdict == "refuted" and res.counterexample.epsilon_needed == sp.oo


def test_neighbour_pairs_and_bad_input():
    assert neighbour_pairs([(0, 0), (1, 1)], "all_differ") == [(0, 1), (1, 0)]
    assert neighbour_pairs([(0, 0), (1, 1)], "one_differ") == []
    assert neighbour_pairs([(0, 1), (1, 0)], "increasing") == []
    with pytest.raises(ValueError, match="relation"):
        neighbour_pairs([(0,)], "swap")
    with pytest.raises(ValueError, match="inputs"):
        program_law(checkdp.noisymax, [])
    with pytest.raises(ValueError, match="window"):
        program_law(checkdp.noisymax, [(0, 1)], window=0)
    with pytest.raises(ValueError, match="scale"):
        program_law(lambda c, q: (c.release(q[0], -1),), [(0,)])


def test_sample_context_is_seeded():
    a = [checkdp.sparsevector(SampleContext(np.random.default_rng(5), 0.5), (0, 1, 2), T=1, NN=1) for _ in range(1)]
    b = [checkdp.sparsevector(SampleContext(np.random.default_rng(5), 0.5), (0, 1, 2), T=1, NN=1) for _ in range(1)]
    assert a == b
