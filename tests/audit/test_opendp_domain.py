"""A built OpenDP measurement is audited on the input domain OpenDP declares (bounds, size).

The relation of :func:`from_opendp` is read from ``measurement.input_domain``: a sum over 3
records in [0, 1] (sized, symmetric distance) is searched over one record replaced inside [0, 1],
never over entries in the default range [−10, 10] or over inputs of another size (which refuted
it at ε ≥ 3.9).  Statistical tests: each audit runs at confidence 0.99, so a correct
measurement is refuted with probability at most 0.01 per audit; OpenDP cannot be seeded, so the
seeds drive only the search and the split.  The default test runs two audits (false-alarm rate
at most 0.02); the slow one 200, allowing the binomial 1 − 10^-6 quantile of refutations.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

CLAIM_SLACK = 1.0000000000000022  # OpenDP's own map at d_in = 2 (float summation error included)


@pytest.fixture(scope="module")
def dp():
    dp = pytest.importorskip("opendp.prelude")
    dp.enable_features("contrib")
    return dp


def _bounded_sum(dp, size=3, scale=1.0):
    space = dp.vector_domain(dp.atom_domain(bounds=(0.0, 1.0)), size=size), dp.symmetric_distance()
    return space >> dp.t.then_sum() >> dp.m.then_laplace(scale=scale)


def _in_declared_domain(measurement, x, dtype=float) -> bool:
    """OpenDP's own membership test of its input domain (``x`` given as Python values of ``dtype``)."""
    return bool(measurement.input_domain.member(np.asarray(x).astype(dtype).tolist()))


def test_bounded_sized_sum_is_searched_on_its_declared_domain(dp):
    from dpverify.audit.adapters import from_opendp

    meas = _bounded_sum(dp)
    mech = from_opendp(meas, d_in=2)
    assert mech.epsilon == meas.map(2) == CLAIM_SLACK
    rel = mech.relation
    assert (rel.kind, rel.shape, rel.low, rel.high, rel.default_domain) == ("replace", (3,), 0.0, 1.0, False)
    for seed in range(5):
        pairs = rel.candidates(seed)
        assert pairs
        for a, b in pairs:
            assert np.shape(a) == np.shape(b) == (meas.input_domain.size,)
            assert _in_declared_domain(meas, a) and _in_declared_domain(meas, b)
            assert np.count_nonzero(np.asarray(a) != np.asarray(b)) == 1  # one record replaced: distance 2
    with pytest.raises(ValueError, match="d_in=1 under SymmetricDistance.*admits no pair"):
        from_opendp(meas)  # two inputs of size 3 are never at symmetric distance 1


def test_unsized_bounded_integer_domain_adds_or_removes_inside_the_bounds(dp):
    from dpverify.audit.adapters import from_opendp

    space = dp.vector_domain(dp.atom_domain(bounds=(0, 10))), dp.symmetric_distance()
    meas = space >> dp.t.then_sum() >> dp.m.then_laplace(scale=10.0)
    rel = from_opendp(meas).relation
    assert (rel.kind, rel.integer, rel.low, rel.high, rel.default_domain) == ("add_remove", True, 0.0, 10.0, False)
    for a, b in rel.candidates(0):
        assert abs(len(a) - len(b)) == 1
        assert np.array_equal(a, np.round(a)) and np.array_equal(b, np.round(b))
        assert _in_declared_domain(meas, a, int) and _in_declared_domain(meas, b, int)
    unbounded = dp.m.make_laplace(dp.vector_domain(dp.atom_domain(T=int)), dp.l1_distance(T=int), scale=1.0)
    assert from_opendp(unbounded).relation.default_domain  # no bounds declared: the default range, said so


def test_bounded_sum_not_refuted_at_its_own_epsilon_and_an_overclaim_is(dp):
    from dpverify.audit import audit
    from dpverify.audit.adapters import from_opendp

    mech = from_opendp(_bounded_sum(dp), d_in=2)
    for seed in (0, 1):
        report = audit(mech, epsilon=CLAIM_SLACK, samples=4_000, rng=seed, confidence=0.99)
        assert not report.refutes(CLAIM_SLACK), (seed, report.epsilon, report.pair)
    # mutation: the same measurement claimed at ε = 0.2 (true ε = 1) is refuted on its own domain
    assert audit(mech, epsilon=0.2, samples=4_000, rng=0, confidence=0.99).refutes(0.2)


@pytest.mark.slow
def test_bounded_sum_false_alarms_within_the_binomial_allowance_over_200_seeds(dp):
    from dpverify.audit import audit
    from dpverify.audit.adapters import from_opendp

    mech = from_opendp(_bounded_sum(dp), d_in=2)
    seeds, level = 200, 0.01
    allowed = int(stats.binom.ppf(1 - 1e-6, seeds, level))  # P(more refutations | correct) <= 1e-6
    refuted = sum(audit(mech, epsilon=CLAIM_SLACK, samples=4_000, rng=s, confidence=1 - level).refutes(CLAIM_SLACK)
                  for s in range(seeds))
    assert refuted <= allowed, (refuted, allowed)
