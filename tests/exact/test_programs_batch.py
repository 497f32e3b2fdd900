"""The vectorised sampler of a program, the gcd-free sums of path_sum, and the auditor's confirmation.

Statistical checks are seeded; each states its false-alarm rate.
"""

from __future__ import annotations

import random
from fractions import Fraction

import numpy as np
import pytest
import sympy as sp

from dpverify.exact.programs import checkdp, program_law
from dpverify.exact.programs.batch import batch_columns
from dpverify.exact.programs.confirm import confirm, plan_confirmation
from dpverify.exact.programs.geometric import FIELD, T
from dpverify.exact.programs.lazyfrac import Frac
from dpverify.exact.programs.tails import fails_set


def _params(name):
    if "sparse" in name or name.startswith("svt"):
        return {"T": 1, "NN": 1}
    return {"T": 1, "M": 2} if "smartsum" in name else {}


@pytest.mark.parametrize("name", ["badadaptivesparsevector", "badnoisymax", "smartsum", "badsparsevector1",
                                  "gapsparsevector", "noisymax"])
def test_vectorised_sampler_matches_the_exact_law(name):
    """Each cell's count among 200 000 vectorised draws at ε = 0.7 lies within 5.5 binomial standard deviations
    of n·p (two-sided normal tail 3.8e-8 per cell; < 1e-5 over every cell of this test)."""
    q = (0, 1, 1, 0) if "adaptive" in name else (0, 1, 1)
    law = program_law(checkdp.ALL[name][0], [q, tuple(1 - x for x in q)], **_params(name))
    eps = sp.Symbol("epsilon", positive=True)
    probs = np.array([float(p.subs(eps, sp.Rational(7, 10))) for p in law.matrix.row(0)])
    n = 200_000
    draws = law.sampler(0.7)(np.array(q), np.random.default_rng(3), n)
    assert draws.shape == (n,) and (draws >= 0).all()
    counts = np.bincount(draws, minlength=len(probs))
    sd = np.sqrt(n * probs * (1 - probs)) + 1e-9
    assert np.all(np.abs(counts - n * probs) <= 5.5 * sd + 1), (counts, n * probs)


def test_vectorised_and_scalar_samplers_agree_in_law():
    """Both samplers' counts of each cell agree within 5.5 standard deviations of their difference."""
    law = program_law(checkdp.numsparsevector, [(0, 1, 1), (1, 0, 0)], T=1, NN=1)
    n = 20_000
    a = np.bincount(law.sampler(1.0)(np.array((0, 1, 1)), np.random.default_rng(1), n), minlength=len(law.columns))
    b = np.bincount(law.sampler(1.0, vectorised=False)(np.array((0, 1, 1)), np.random.default_rng(2), n).astype(int),
                    minlength=len(law.columns))
    p = (a + b) / (2 * n)
    assert np.all(np.abs(a - b) <= 5.5 * np.sqrt(2 * n * p * (1 - p)) + 2), (a, b)


def test_batch_columns_is_seeded_and_checks_its_input():
    law = program_law(checkdp.sparsevector, [(0, 1), (1, 0)], T=1, NN=1)
    a = batch_columns(law, (0, 1), 1.0, np.random.default_rng(9), 500)
    assert np.array_equal(a, batch_columns(law, (0, 1), 1.0, np.random.default_rng(9), 500))
    with pytest.raises(ValueError, match="n"):
        batch_columns(law, (0, 1), 1.0, np.random.default_rng(9), 10 ** 8)
    with pytest.raises(ValueError, match="epsilon"):
        batch_columns(law, (0, 1), -1.0, np.random.default_rng(9), 5)


def test_frac_sums_and_products_equal_the_field():
    """Random sums and products of the atoms, computed both ways, are the same element of Q(t)."""
    rnd = random.Random(4)
    for _ in range(30):
        lazy, exact = Frac.const(0), FIELD.zero
        for _ in range(rnd.randint(1, 6)):
            e, a, k, c = rnd.randint(-5, 5), rnd.randint(1, 4), rnd.randint(1, 4), Fraction(rnd.randint(-9, 9), 7)
            lazy = lazy + Frac.power(e) * Frac.one_over_1_plus(a) * Frac.one_over_1_minus(k) * c
            exact = exact + T ** e / (1 + T ** a) / (1 - T ** k) * FIELD(sp.Rational(c.numerator, c.denominator))
            if rnd.random() < 0.3:
                lazy, exact = lazy * Frac.one_over_1_minus(-k), exact * (1 / (1 - T ** (-k)))
        assert lazy.to_field() == exact
        assert (lazy - lazy) == 0 and (lazy != 0) == (exact != 0)


def test_fails_set_is_exact():
    assert fails_set(T - T ** 2, 1) == sp.Interval.open(0, sp.oo)  # t(1 − t) > 0 on t in (0, 1)
    assert fails_set(T ** 2 - T, 1) == sp.EmptySet
    s = fails_set(2 * T - 1, 1)  # 2e^{−ε} > 1 ⇔ ε < ln 2
    assert sp.simplify(s.sup - sp.log(2)) == 0 and s.inf == 0
    with pytest.raises(TypeError, match="cond"):
        fails_set(0.5, 1)


def test_badpartialsum_is_confirmed_and_partialsum_is_not():
    """The plan on badpartialsum's exact law is confirmed by the auditor on its sampler; the same plan run on
    the correct program's sampler (ε-DP: the bound exceeds ε with probability ≤ 1 %) is not."""
    law = program_law(checkdp.badpartialsum, [(0,), (1,)])
    plan = plan_confirmation(law, [(0, 1), (1, 0)])
    assert plan["pair"] is not None and plan["excess"] > 0 and "oo" in plan["exact_fail"]
    got = confirm(law, plan, samples=100_000, seed=1)
    assert got["confirmed"] and got["epsilon_lb"] > plan["epsilon"]
    good = program_law(checkdp.partialsum, [(0,), (1,)], window=4)
    assert plan_confirmation(good, [(0, 1), (1, 0)])["pair"] is None
    law.program = checkdp.partialsum  # the same columns, the correct program's noise
    assert not confirm(law, plan, samples=100_000, seed=1)["confirmed"]


def test_plan_and_confirm_check_their_input():
    law = program_law(checkdp.badpartialsum, [(0,), (1,)])
    with pytest.raises(ValueError, match="epsilons"):
        plan_confirmation(law, [(0, 1)], epsilons=[50.0])
    with pytest.raises(ValueError, match="power"):
        plan_confirmation(law, [(0, 1)], power=0.2)
    with pytest.raises(TypeError, match="law"):
        plan_confirmation("law", [(0, 1)])
    with pytest.raises(ValueError, match="plan"):
        confirm(law, {"pair": None}, samples=10)
