"""Every mechanism dpverify produces is ε-DP: one property test walks the registry.

For each family of :func:`dpverify.audit.produced.produced_mechanisms`, hypothesis draws the
factory's parameters from its ``space`` and the walk checks every neighbouring pair:

* a symbolic law (``symbolic_law``) -> PROVED for every ε > 0 (:func:`dpverify.exact.prove_mechanism`),
  then checked at the drawn ε as below;
* finite output distribution -> EXACT: the pair's two pmfs, on the union of their supports, must
  be (ε, δ)-indistinguishable (:func:`dpverify.audit.check_ldp`, hockey-stick in both orders), and
  the sampler must draw from that pmf (chi-square goodness of fit per input, false-alarm rate
  1e-6 per input);
* otherwise STATISTICAL: :func:`dpverify.audit.epsilon_lower_bound` at confidence 1 − 1e-6 per
  audit must not refute the claimed ε (a correct mechanism is refuted with probability at most
  1e-6 per audit; the walk runs fewer than 10³ audits, so a false alarm of the whole walk has
  probability below 1e-3).

Runs are deterministic (hypothesis ``derandomize=True``, the audit's seed is drawn by
hypothesis), so a failure reproduces.  The walk can fail: ``test_walk_catches_*`` register
broken variants (half the Laplace noise; a kRR claiming half its ε) and see it fail.
Default run: one example per family at the registry's default budget; ``-m slow`` runs twelve
examples per family at four times the samples.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from scipy import stats

from dpverify.audit import Mechanism, check_ldp, checked_sample, epsilon_lower_bound
from dpverify.audit.produced import Pair, Param, Produced, produced_mechanisms
from dpverify.audit.protocol import FunctionMechanism
from dpverify.exact import prove_mechanism

REGISTRY = produced_mechanisms()
CONFIDENCE = 1.0 - 1e-6
GOF_ALPHA = 1e-6


def _strategy(p: Param):
    if p.kind == "float":
        return st.floats(p.low, p.high, allow_nan=False, allow_infinity=False)
    if p.kind == "int":
        return st.integers(int(p.low), int(p.high))
    if p.kind == "choice":
        return st.sampled_from(p.choices)
    # a prior: positive weights normalised (entries >= 0.02 so rr's optimum is non-degenerate to sample)
    return st.lists(st.floats(0.02, 1.0), min_size=int(p.low), max_size=int(p.high)).map(
        lambda w: list(np.asarray(w) / np.sum(w))
    )


def _exact(mech, pair: Pair, rng: np.random.Generator, n_gof: int) -> None:
    (s1, p1), (s2, p2) = mech.output_distribution(pair.d), mech.output_distribution(pair.d_prime)
    support = np.union1d(s1, s2)
    P = np.zeros((2, support.size))
    P[0, np.searchsorted(support, s1)] = p1
    P[1, np.searchsorted(support, s2)] = p2
    res = check_ldp(P, mech.epsilon, mech.delta, atol=1e-12)  # float pmfs on their boundary: rounding allowed
    assert res.holds, f"{mech.name} is not ({mech.epsilon}, {mech.delta})-DP on {pair}: δ needed {res.required_delta}"
    for data, s, p in ((pair.d, s1, p1), (pair.d_prime, s2, p2)):
        _goodness_of_fit(mech, data, np.asarray(s), np.asarray(p, dtype=float), rng, n_gof)


def _goodness_of_fit(mech, data, support, probs, rng, n) -> None:
    """The sampler draws from the stated pmf: chi-square test at false-alarm rate GOF_ALPHA."""
    out = checked_sample(mech, data, rng, n)
    assert np.isin(out, support[probs > 0]).all(), f"{mech.name} sampled outside its pmf's support on {data!r}"
    counts = np.array([np.count_nonzero(out == s) for s in support])
    expected = n * probs
    big = expected >= 5
    obs = np.r_[counts[big], counts[~big].sum()]
    exp = np.r_[expected[big], expected[~big].sum()]
    keep = exp > 0
    if keep.sum() < 2:
        return
    p_value = stats.chisquare(obs[keep], exp[keep] * obs[keep].sum() / exp[keep].sum()).pvalue
    assert p_value > GOF_ALPHA, f"{mech.name}'s sampler does not follow its pmf on {data!r} (p = {p_value:.2e})"


def check_produced(entry: Produced, params: dict, seed: int, scale: int = 1) -> None:
    """Check one drawn instance of a registered family (the walk's body)."""
    mech = entry.factory(**params)
    assert isinstance(mech, Mechanism)
    assert mech.name and mech.relation and mech.epsilon > 0 and 0 <= mech.delta < 1
    if hasattr(mech, "symbolic_law"):  # a symbolic law: proved for every ε > 0, not only at the drawn ε
        proof = prove_mechanism(mech)
        assert proof.verdict == "proved", f"{mech.name} ({params}) is not proved for all ε > 0: {proof.reason}"
    rng = np.random.default_rng(seed)
    for i, pair in enumerate(entry.pairs(**params)):
        if hasattr(mech, "output_distribution"):
            _exact(mech, pair, rng, 4_000 * scale)
        else:
            r = epsilon_lower_bound(mech, pair.d, pair.d_prime, samples=entry.samples * scale, confidence=CONFIDENCE,
                                    delta=mech.delta, rng=seed + i, statistic=pair.statistic)
            assert not r.refutes(mech.epsilon), (
                f"{mech.name} claims ε = {mech.epsilon} but the audit of {pair} gives ε_lb = {r.epsilon:.4f} "
                f"at confidence {CONFIDENCE}"
            )


def walk(entry: Produced, examples: int, scale: int = 1) -> None:
    """Run ``check_produced`` over ``examples`` hypothesis-drawn parameter sets (deterministic)."""

    @settings(max_examples=examples, deadline=None, derandomize=True, database=None, report_multiple_bugs=False,
              phases=[Phase.explicit, Phase.generate], suppress_health_check=list(HealthCheck))
    @given(params=st.fixed_dictionaries({k: _strategy(p) for k, p in entry.space.items()}),
           seed=st.integers(0, 2**32 - 1))
    def run(params, seed):
        check_produced(entry, params, seed, scale)

    run()


@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_every_produced_mechanism_is_dp(name):
    walk(REGISTRY[name], examples=1)


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_every_produced_mechanism_is_dp_thorough(name):
    walk(REGISTRY[name], examples=12, scale=4)


def test_registry_covers_every_family():
    """Each continual method (batch and, when online, stream) and each room's family is registered."""
    import dpverify.continual as continual
    from dpverify.continual.methods import get_method

    names = set(REGISTRY)
    for method in continual.method_names():
        assert f"continual.release[{method}, laplace]" in names
        if get_method(method).stream is not None:
            assert f"continual.stream[{method}, laplace]" in names
    assert {"continual.release[fda, discrete]", "continual.stream[fenwick, discrete]"} <= names
    for family in ("primitives.laplace_mechanism", "primitives.geometric_mechanism", "primitives.safe_laplace_mechanism",
                   "primitives.exponential_mechanism", "primitives.randomized_response", "rr.optimal_mechanism",
                   "pca.CorrectedPPCADP", "audit.mechanisms.SparseVector", "audit.mechanisms.NoisyMax"):
        assert family in names
    finite = [n for n, e in REGISTRY.items() if hasattr(e.factory(**_low(e.space)), "output_distribution")]
    assert {"primitives.randomized_response", "rr.optimal_mechanism", "primitives.exponential_mechanism"} <= set(finite)


def _low(space):
    out = {}
    for k, p in space.items():
        out[k] = p.choices[0] if p.kind == "choice" else [0.5, 0.5] if p.kind == "prior" else type(p.low)(p.low)
    return out


# --------------------------------------------------------------------------- the walk can fail


def _half_noise(d, rng, n):
    return float(d) + rng.laplace(0.0, 0.5, n)  # Lap(Δ/(2ε)) at ε = 1: really 2-DP


def test_walk_catches_half_noise_laplace():
    broken = Produced("broken.half_noise_laplace",
                      lambda *, epsilon: FunctionMechanism(_half_noise, epsilon=1.0, name="half-noise Laplace",
                                                           relation="|d - d'| <= 1"),
                      {"epsilon": Param("float", 1.0, 1.0)}, lambda *, epsilon: [Pair(0.0, 1.0)])
    registry = {**produced_mechanisms(), broken.name: broken}
    with pytest.raises(AssertionError, match="half-noise Laplace claims ε = 1.0 but the audit"):
        walk(registry[broken.name], examples=1)


def test_walk_catches_overclaimed_finite_mechanism():
    """kRR's exact pmf at ε, claimed at ε/2: the exact branch fails for every drawn k and ε."""
    from dpverify.primitives.mechanisms import krr

    def overclaim(*, k, epsilon):
        m = krr(k=k, epsilon=epsilon)
        return FunctionMechanism(m.function, epsilon / 2, 0.0, "overclaimed kRR", m.relation, law=m.law)

    entry = Produced("broken.krr", overclaim, REGISTRY["primitives.randomized_response"].space,
                     REGISTRY["primitives.randomized_response"].pairs)
    with pytest.raises(AssertionError, match="overclaimed kRR is not"):
        walk(entry, examples=3)


def test_walk_catches_a_symbolic_law_that_is_not_dp_for_every_epsilon(monkeypatch):
    """k-RR whose symbolic law keeps with e^{2ε} (exactly 2ε-DP): the walk's proof step fails."""
    from planted import doubled_krr_law

    from dpverify.exact.closed import KRRLaw

    monkeypatch.setattr(KRRLaw, "__call__", lambda self, e: doubled_krr_law(self.k, e))
    with pytest.raises(AssertionError, match="is not proved for all ε > 0"):
        walk(REGISTRY["primitives.randomized_response"], examples=1)


def test_walk_catches_sampler_off_its_pmf():
    """A sampler that ignores its stated pmf (kRR at 2ε with the pmf at ε) fails the goodness of fit."""
    from dpverify.primitives.mechanisms import krr

    def drifted(*, k, epsilon):
        m, fast = krr(k=k, epsilon=epsilon), krr(k=k, epsilon=2 * epsilon)
        return FunctionMechanism(fast.function, epsilon, 0.0, "drifted kRR", m.relation, law=m.law)

    entry = Produced("broken.drift", drifted, {"k": Param("int", 2, 4), "epsilon": Param("float", 1.0, 2.0)},
                     REGISTRY["primitives.randomized_response"].pairs)
    with pytest.raises(AssertionError, match="drifted kRR's sampler does not follow its pmf"):
        walk(entry, examples=2)


def test_mechanism_error_names_the_input():
    m = REGISTRY["primitives.randomized_response"].factory(k=3, epsilon=1.0)
    with pytest.raises(Exception, match=r"in sample\(data=7, rng, n=5\)"):
        checked_sample(m, 7, np.random.default_rng(0), 5)
    assert math.isfinite(m.epsilon)


def test_registry_is_the_catalogue():
    """``produced_mechanisms()`` is a view of :func:`dpverify.mechanisms.catalogue`'s families, which the
    rooms declare in their own ``mechanisms.py``."""
    from dpverify.mechanisms import Family, catalogue

    assert Produced is Family and set(REGISTRY) == set(catalogue().names())
    for name, fam in REGISTRY.items():
        assert fam.make().relation.candidates(), name
