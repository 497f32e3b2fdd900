"""dpverify.mechanisms: one mechanism vocabulary — every mechanism of the library walked, the
protocol's conversions, the relations' domains, and the two bugs the split vocabulary caused.

The walk (``test_every_mechanism_is_one_shape``) takes the catalogue, the benchmark suite, the
OpenDP and diffprivlib adapters (scalar and vector) and the auditor's controls: each is an
instance of :class:`dpverify.mechanisms.Mechanism`, its relation yields pairs it admits, and
``audit(m, epsilon=..., pairs=m.relation, samples=...)`` runs on it (a modest budget by default;
the 10^5 sweep is marked ``slow``).
"""

from __future__ import annotations

import math
import pickle
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import dpverify.audit as audit_pkg
from dpverify.audit import audit, epsilon_lower_bound
from dpverify.mechanisms import (ApproxDP, DeltaCurve, Domain, Family, FunctionMechanism, Mechanism, Neighbours, Pair,
                                 Pairs, Param, PureDP, RenyiDP, ZCDP, as_mechanism, as_relation, catalogue,
                                 checked_sample, claim_of)

RNG = np.random.default_rng


# ----------------------------------------------------------------------------- every mechanism


def _suite():
    from dpverify.audit.suite import CASES

    return [(f"suite.{c.name}", c.make) for c in CASES]


def _controls():
    from dpverify.audit import controls as C
    from dpverify.selftest import controls as S
    from dpverify.selftest.controls import FDARelease

    return [(f"controls.{m.name}", (lambda m=m: m)) for m in (
        C.LaplaceMechanism(1.0), C.LaplaceMechanism(1.0, scale_factor=0.5), S.GeometricMechanism(1.0),
        S.ExponentialMechanism(1.0), S.KRR(3, 1.0), C.HistogramLaplace(1.0, bins=3), C.NoisyMax(1.0),
        C.NoisyMax(1.0, returns="value"), C.SparseVector(1.0), FDARelease(1.0),
        C.FiniteMechanism(((0.5, 0.5), (0.75, 0.25))), C.TextbookLaplace(1.0), S.LibraryLaplace(1.0),
        S.SafeLaplace(1.0))]


def _opendp():
    pytest.importorskip("opendp.prelude")
    from dpverify.audit.adapters import from_opendp

    def vector():
        import opendp.prelude as dp

        dp.enable_features("contrib")
        return from_opendp(dp.m.make_laplace(dp.vector_domain(dp.atom_domain(T=float, nan=False)),
                                             dp.l1_distance(T=float), scale=1.0))

    return [("opendp.laplace", lambda: from_opendp("laplace", scale=1.0)),
            ("opendp.laplace_int", lambda: from_opendp("laplace", scale=1.0, T="int")),
            ("opendp.geometric", lambda: from_opendp("geometric", scale=1.0)),
            ("opendp.gaussian", lambda: from_opendp("gaussian", scale=1.0, epsilon=1.0)),
            ("opendp.rr_bool", lambda: from_opendp("randomized_response_bool", prob=0.75)),
            ("opendp.rr", lambda: from_opendp("randomized_response", prob=0.75)),
            ("opendp.vector_laplace", vector)]


def _diffprivlib():
    pytest.importorskip("diffprivlib.mechanisms")
    from dpverify.audit.adapters import from_diffprivlib as f

    return [("diffprivlib.Laplace", lambda: f("Laplace", epsilon=1.0, sensitivity=1.0)),
            ("diffprivlib.Geometric", lambda: f("Geometric", epsilon=1.0, sensitivity=1)),
            ("diffprivlib.Gaussian", lambda: f("Gaussian", epsilon=0.5, delta=1e-3, sensitivity=1.0)),
            ("diffprivlib.LaplaceBoundedDomain",
             lambda: f("LaplaceBoundedDomain", epsilon=1.0, sensitivity=1.0, lower=0.0, upper=4.0)),
            ("diffprivlib.Binary", lambda: f("Binary", epsilon=1.0, value0="a", value1="b")),
            ("diffprivlib.Exponential", lambda: f("Exponential", epsilon=1.0, sensitivity=1.0)),
            ("diffprivlib.PermuteAndFlip", lambda: f("PermuteAndFlip", epsilon=1.0, sensitivity=1.0))]


def _catalogue():
    cat = catalogue()
    return [(f"catalogue.{n}", (lambda n=n: cat[n])) for n in cat.names()]


GROUPS = {"catalogue": _catalogue, "suite": _suite, "controls": _controls, "opendp": _opendp,
          "diffprivlib": _diffprivlib}


def _slow() -> set[str]:
    """The catalogue's looped samplers (a family budget under 20,000 draws: the continual streams)."""
    return {f"catalogue.{n}" for n, f in catalogue().families.items() if f.samples < 20_000}


def _walk(group: str, samples: int):
    """Every mechanism of ``group``: one shape, a relation yielding pairs it admits, an audit that runs."""
    slow = _slow() if group == "catalogue" else set()
    for name, make in GROUPS[group]():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # float-noise warnings of the continual releases
            m = make()
            assert isinstance(m, Mechanism), name
            assert isinstance(m.name, str) and m.name, name
            assert isinstance(m.claim, (PureDP, ApproxDP, DeltaCurve, ZCDP, RenyiDP)), name
            pairs = m.relation.candidates(RNG(0))
            assert pairs and all(m.relation.admits(a, b) for a, b in pairs), name
            if name in slow:  # a looped sampler: a few draws at every candidate input (the audit: -m slow)
                for a, b in pairs:
                    assert checked_sample(m, a, RNG(0), 2).shape == checked_sample(m, b, RNG(1), 2).shape, name
                continue
            eps = m.epsilon if math.isfinite(m.epsilon) else 1.0
            few = pairs[:3]  # the first candidates: the walk checks that every shape audits, not the verdicts
            r = audit(m, epsilon=eps, delta=min(m.delta, 0.5), pairs=few if len(pairs) > 3 else m.relation,
                      samples=samples, rng=0, confidence=0.9)
            assert r.epsilon >= 0.0, name


@pytest.mark.parametrize("group", sorted(GROUPS))
def test_every_mechanism_is_one_shape(group):
    _walk(group, samples=1000)


@pytest.mark.slow
@pytest.mark.parametrize("group", sorted(GROUPS))
def test_every_mechanism_audits_at_1e5(group):
    """The issue's number: ``audit(m, epsilon=..., pairs=m.relation, samples=10**5)`` runs on each."""
    for name, make in GROUPS[group]():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            m = make()
            eps = m.epsilon if math.isfinite(m.epsilon) else 1.0
            r = audit(m, epsilon=eps, delta=min(m.delta, 0.5), pairs=m.relation, samples=10**5, rng=0)
            assert r.epsilon >= 0.0, name


def test_controls_and_benchmarks_are_mechanisms():
    from dpverify.audit.controls import LaplaceMechanism
    from dpverify.audit.mechanisms import LaplaceMechanism as Old
    from dpverify.audit.suite import Laplace

    assert isinstance(LaplaceMechanism(1.0), Mechanism) and Old is LaplaceMechanism
    assert isinstance(Laplace(0.1), Mechanism) and Laplace(0.1).claim == PureDP(0.1)
    assert audit_pkg.Neighbours is Neighbours
    from dpverify.audit.search import Neighbours as FromSearch

    assert FromSearch is Neighbours


# ----------------------------------------------------------------------------- the two bugs


def test_free_text_relation_is_not_iterated_as_pairs():
    """Was: "pairs must hold (d, d_prime) pairs, got '|'"."""
    # two-sided geometric, (ln 2.5)-DP and integer-valued (a float Laplace is refuted by its float artefacts)
    f = lambda d, rng, n: float(d) + rng.geometric(0.6, n) - rng.geometric(0.6, n)  # noqa: E731
    m = as_mechanism(f, epsilon=1.0, relation="|d-d'|<=1")
    assert str(m.relation) == "|d-d'|<=1" and m.relation.domain == Domain(shape=())
    r = audit(m, epsilon=1.0, samples=2000, rng=0)
    assert r.verdict(1.0).value in ("inconclusive", "holds")


@pytest.mark.parametrize("shape", [(), (1,)])
def test_scalar_mechanisms_survive_a_searched_audit(shape):
    """Was: "only 0-dimensional arrays can be converted to Python scalars" (TextbookLaplace, the scalar adapters)."""
    from dpverify.audit.controls import TextbookLaplace

    r = audit(TextbookLaplace(1.0), epsilon=1.0, pairs=Neighbours(shape=shape, kind="l1", default_domain=True),
              samples=2000, rng=0)
    assert r.epsilon >= 0.0


def test_scalar_adapters_survive_a_searched_audit():
    pytest.importorskip("opendp.prelude")
    pytest.importorskip("diffprivlib.mechanisms")
    from dpverify.audit.adapters import from_diffprivlib, from_opendp

    for m in (from_opendp("laplace", scale=1.0), from_diffprivlib("Laplace", epsilon=1.0, sensitivity=1.0)):
        r = audit(m, epsilon=1.0, pairs=Neighbours(shape=(1,), kind="l1", low=-5, high=5), samples=2000, rng=0)
        assert r.epsilon >= 0.0


# ----------------------------------------------------------------------------- as_mechanism


def _lap(d, rng, n):
    return float(d) + rng.laplace(0.0, 1.0, n)


class _Coin:
    """An object with sample and a stated claim, not callable."""

    name, epsilon, delta, relation = "coin", math.log(3), 0.0, "local: 0 or 1"

    def sample(self, d, rng, n):
        keep = rng.random(n) < 0.75
        return np.where(keep, int(d), 1 - int(d))


def test_as_mechanism_on_callables_classes_objects_and_strings():
    m = as_mechanism(_lap, epsilon=1.0)
    assert isinstance(m, FunctionMechanism) and m.claim == PureDP(1.0) and m.relation.domain.scalar
    assert as_mechanism(m) is m
    assert np.array_equal(m.sample(0.0, RNG(1), 3), pickle.loads(pickle.dumps(m)).sample(0.0, RNG(1), 3))
    from dpverify.selftest.controls import KRR

    assert as_mechanism(KRR, k=3, epsilon=1.0) == KRR(3, 1.0)  # a Mechanism instance: as is
    coin = as_mechanism(_Coin())
    assert coin.name == "coin" and str(coin.relation) == "local: 0 or 1" and coin.epsilon == math.log(3)
    with pytest.raises(ValueError, match="epsilon must be given"):
        as_mechanism(_lap)
    with pytest.raises(TypeError, match="relation must be a relation object"):
        as_mechanism(_lap, epsilon=1.0, relation=3)
    with pytest.raises(ValueError, match="relation must not be empty"):
        as_mechanism(_lap, epsilon=1.0, relation="  ")
    pairs = as_mechanism(_lap, epsilon=1.0, relation=[(0.0, 1.0), (0.0, -1.0)])
    assert isinstance(pairs.relation, Pairs) and pairs.relation.candidates() == [(0.0, 1.0), (0.0, -1.0)]


def test_as_mechanism_on_adapter_objects():
    dp = pytest.importorskip("opendp.prelude")
    dpl = pytest.importorskip("diffprivlib.mechanisms")
    dp.enable_features("contrib")
    meas = dp.m.make_laplace(dp.atom_domain(T=float, nan=False), dp.absolute_distance(T=float), scale=2.0)
    m = as_mechanism(meas)
    assert isinstance(m, Mechanism) and m.epsilon == pytest.approx(0.5) and m.relation.domain.scalar
    d = as_mechanism(dpl.Laplace(epsilon=0.5, sensitivity=1.0))
    assert isinstance(d, Mechanism) and d.epsilon == 0.5
    assert checked_sample(d, np.array([1.0]), RNG(0), 4).shape == (4,)  # a one-entry vector to a scalar


def test_epsilon_lower_bound_takes_a_non_callable_mechanism():
    r = epsilon_lower_bound(_Coin(), 0, 1, samples=20_000, rng=0)
    assert 0.0 < r.epsilon <= math.log(3) + 0.1


def test_claims():
    assert claim_of(epsilon=1.0) == PureDP(1.0) and claim_of(epsilon=1.0, delta=0.1) == ApproxDP(1.0, 0.1)
    curve = claim_of(delta_curve=lambda e: math.exp(-e))
    assert curve.epsilon == math.inf and curve.delta_curve(0.0) == 1.0
    assert ZCDP(0.5).epsilon == math.inf and RenyiDP(2.0, 1.0).alpha == 2.0
    with pytest.raises(ValueError, match="alpha must be > 1"):
        RenyiDP(1.0, 1.0)
    with pytest.raises(ValueError, match="epsilon must be finite unless"):
        claim_of(epsilon=math.inf)
    m = FunctionMechanism(_lap, claim=ApproxDP(1.0, 1e-6))
    assert (m.epsilon, m.delta) == (1.0, 1e-6)


# ----------------------------------------------------------------------------- catalogue and families


def test_catalogue_is_a_sequence_of_mechanisms_with_lookup():
    cat = catalogue()
    assert len(cat) == len(cat.families) and all(isinstance(f, Family) for f in cat.families.values())
    m = cat["rr.optimal_mechanism"]
    assert isinstance(m, Mechanism) and m is cat["rr.optimal_mechanism"]
    assert {"primitives.laplace_mechanism", "pca.CorrectedPPCADP", "audit.mechanisms.KRR"} <= set(cat.names())
    with pytest.raises(KeyError, match="no mechanism family 'nope'"):
        cat["nope"]
    from dpverify.audit.produced import produced_mechanisms

    assert set(produced_mechanisms()) == set(cat.names())


def test_family_make_uses_defaults_and_its_pairs():
    fam = Family("t.coin", lambda *, epsilon, k: FunctionMechanism(lambda d, rng, n: rng.integers(0, k, n), epsilon),
                 {"epsilon": Param("float", 0.1, 3.0), "k": Param("int", 2, 5)},
                 lambda *, epsilon, k: [Pair(0, j) for j in range(1, k)], default={"k": 3})
    assert fam.defaults == {"epsilon": 1.0, "k": 3}
    assert fam.make().relation.candidates() == [(0, 1), (0, 2)]
    with pytest.raises(ValueError, match="not in its space"):
        Family("t.bad", fam.factory, fam.space, fam.pairs, default={"x": 1})


# ----------------------------------------------------------------------------- relations


@settings(max_examples=60)
@given(shape=st.sampled_from([(), (1,), (3,), (2, 2)]), kind=st.sampled_from(["linf", "l1", "replace", "add_remove"]),
       bounds=st.one_of(st.none(), st.tuples(st.integers(-5, 0), st.integers(1, 6))), integer=st.booleans(),
       bound=st.sampled_from([0.5, 1.0, 2.0]), seed=st.integers(0, 2**32 - 1))
def test_neighbours_candidates_stay_in_the_domain(shape, kind, bounds, integer, bound, seed):
    if kind == "add_remove" and shape == ():
        with pytest.raises(ValueError, match="add_remove"):
            Neighbours(shape=shape, kind=kind)
        return
    low, high = bounds if bounds else (None, None)
    if integer and bound < 1 and kind in ("linf", "l1"):  # integers differ by at least 1: no pair at all
        with pytest.raises(ValueError, match="admits no pair of integer entries"):
            Neighbours(shape=shape, kind=kind, bound=bound, integer=integer)
        return
    rel = Neighbours(shape=shape, kind=kind, bound=bound, low=low, high=high, integer=integer,
                     default_domain=bounds is None)  # issue 26: no bounds, no search unless accepted
    pairs = rel.candidates(RNG(seed))
    assert pairs
    for a, b in pairs:
        assert rel.admits(a, b) and rel.admits(b, a)
        if kind != "add_remove":
            assert rel.domain.contains(a) and rel.domain.contains(b)
            assert a.shape == shape == b.shape
        assert not (a.shape == b.shape and np.array_equal(a, b))


@settings(max_examples=30)
@given(values=st.lists(st.integers(-3, 3), min_size=2, max_size=5, unique=True), seed=st.integers(0, 1000))
def test_neighbours_over_a_finite_set(values, seed):
    rel = Neighbours(shape=(), kind="replace", values=tuple(values))
    for a, b in rel.candidates(RNG(seed)):
        assert float(a) in values and float(b) in values and rel.domain.contains(a)


def test_pairs_relation_and_as_relation():
    rel = Pairs(((np.zeros(2), np.ones(2)),), description="two vectors")
    assert rel.admits(np.ones(2), np.zeros(2)) and not rel.admits(np.ones(2), np.ones(2))
    assert rel.domain.shape == (2,) and str(rel) == "two vectors"
    assert as_relation(rel) is rel
    with pytest.raises(ValueError, match="pairs must hold"):
        Pairs(("ab",))
    with pytest.raises(ValueError, match="non-empty"):
        Pairs(())


# ----------------------------------------------------------------------------- review fixes (issue 25)


def test_catalogue_lookup_by_family_or_mechanism_name_and_mapping_methods():
    cat = catalogue()
    assert "rr.optimal_mechanism" in cat and "rr" not in cat and "nope" not in cat
    for name, m in cat.items():
        assert m.name.startswith(name + "("), (name, m.name)  # a mechanism is named for its family
        assert cat[m.name] is m is cat[name] and m.name in cat and m in cat
    assert cat.keys() == cat.names() and cat.get("nope") is None and cat.get("nope", 1) == 1
    assert cat.get("rr.optimal_mechanism_delta").delta == 0.05
    assert cat.family_of(cat["rr.optimal_mechanism_delta"].name) == "rr.optimal_mechanism_delta"
    other = cat.families["rr.optimal_mechanism"].make(epsilon=2.0)  # not a default member: not in the catalogue
    assert other.name not in cat
    with pytest.raises(KeyError, match="nor a family's default mechanism"):
        cat[other.name]


def test_catalogue_skips_a_room_whose_mechanisms_raise(tmp_path, monkeypatch):
    import sys

    from dpverify.rooms import rooms

    site = tmp_path / "site"
    for room, body in (("zzbadmech", "raise RuntimeError('broken mechanisms module')\n"),
                       ("zzbadfams", "def families():\n    raise ValueError('no families today')\n")):
        (site / room).mkdir(parents=True)
        (site / room / "__init__.py").write_text("")
        (site / room / "room.py").write_text(f"from dpverify.rooms import Room\nROOM = Room(name={room!r})\n")
        (site / room / "mechanisms.py").write_text(body)
    dist = site / "zzbadmech-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: zzbadmech\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text("[dpverify.rooms]\nzzbadmech = zzbadmech\nzzbadfams = zzbadfams\n")
    monkeypatch.syspath_prepend(str(site))
    try:
        assert {"zzbadmech", "zzbadfams"} <= {r.name for r in rooms(refresh=True)}
        with pytest.warns(UserWarning) as caught:
            cat = catalogue()
    finally:
        monkeypatch.undo()
        rooms(refresh=True)
        for mod in [m for m in sys.modules if m.startswith(("zzbadmech", "zzbadfams"))]:
            del sys.modules[mod]
    text = " | ".join(str(w.message) for w in caught)
    assert "room 'zzbadmech'" in text and "RuntimeError: broken mechanisms module" in text
    assert "room 'zzbadfams'" in text and "ValueError: no families today" in text
    assert "rr.optimal_mechanism" in cat and len(cat) == len(catalogue())  # the other rooms are all there


def test_as_mechanism_checks_the_callables_signature():
    from dpverify.primitives.additive import laplace_mechanism

    with pytest.raises(TypeError, match=r"mechanism 'laplace_mechanism' must take \(data, rng, n\) positionally, "
                                        r"but its signature is laplace_mechanism\(value, sensitivity"):
        as_mechanism(laplace_mechanism, epsilon=1.0)
    with pytest.raises(TypeError, match=r"signature is <lambda>\(d, n\) \(too many positional arguments\)"):
        as_mechanism(lambda d, n: d, epsilon=1.0)
    with pytest.raises(TypeError, match="'Swapped' must take"):
        class Swapped:
            name, epsilon = "Swapped", 1.0

            def sample(self, data, n, rng):
                return rng.random(n)
        as_mechanism(Swapped())
    assert as_mechanism(lambda d, rng, n, scale=1.0: rng.random(n), epsilon=1.0).epsilon == 1.0
    assert as_mechanism(lambda *args: args[1].random(args[2]), epsilon=1.0).epsilon == 1.0
    assert as_mechanism(print, epsilon=1.0).name == "print"  # a builtin without a signature passes


def test_as_mechanism_takes_a_family_and_a_suite_case():
    from dpverify.audit.suite import CASES

    fam = catalogue().families["primitives.randomized_response"]
    m = as_mechanism(fam)
    assert isinstance(m, Mechanism) and m.name == fam.make().name
    assert as_mechanism(fam, k=3, epsilon=0.5).name == "primitives.randomized_response(k=3, epsilon=0.5)"
    case = as_mechanism(CASES[0])
    assert isinstance(case, Mechanism) and case.name == CASES[0].make().name and case.epsilon == 0.1
    with pytest.raises(ValueError, match="contradicts"):
        as_mechanism(CASES[0], epsilon=2.0)


def test_relations_name_the_bad_parameter_and_value():
    with pytest.raises(TypeError, match=r"pairs must be a list of \(d, d_prime\) pairs, a relation .* got 42 \(int\)"):
        audit(as_mechanism(_lap, epsilon=1.0), epsilon=1.0, pairs=42, samples=1000)
    with pytest.raises(TypeError, match=r"pairs must be a non-empty sequence of \(d, d_prime\) pairs, got 42 \(int\)"):
        Pairs(42)
    for shape in (0, (0,), (2, -1), -3, (1.5,)):
        with pytest.raises(ValueError, match=r"shape must be \(\) \(a scalar\) or a tuple of positive integer sizes, got"):
            Domain(shape=shape)
    with pytest.raises(ValueError, match=r"values must hold at least one input .* got \(\)"):
        Domain(values=())
    with pytest.raises(TypeError, match="values must be a finite collection"):
        Domain(values=3)
    with pytest.raises(ValueError, match="low must be <= high, got low=2, high=1"):
        Domain(low=2, high=1)
    assert Domain(shape=3).shape == (3,) and Domain(values=[0, 1]).values == (0, 1)
    assert Pairs(((np.zeros(0), np.ones(1)),)).domain.shape == (1,)  # an empty record set gives no shape


def test_audited_replaces_only_an_infinite_epsilon_claim():
    """Was: every ValueError of the own claim was swallowed and the audited ε used instead."""
    from dpverify.mechanisms import audited

    class Own:
        name, epsilon, delta = "own", 1.0, 0.0

        def sample(self, data, rng, n):
            return rng.random(n)

    bad_delta, bad_eps, unbounded = Own(), Own(), Own()
    bad_delta.delta, bad_eps.epsilon, unbounded.epsilon = 2.0, -1.0, math.inf
    with pytest.raises(ValueError, match="delta"):
        audited(bad_delta, epsilon=1.0)
    with pytest.raises(ValueError, match="delta"):
        audit(bad_delta, epsilon=1.0, pairs=[(0, 1)], samples=1000)
    with pytest.raises(ValueError, match="epsilon"):
        audited(bad_eps, epsilon=1.0)
    assert audited(unbounded, epsilon=0.5).claim == PureDP(0.5)  # ε = ∞ with no curve: the audited claim
    assert audited(Own(), epsilon=0.5).claim == PureDP(1.0)  # an own claim is kept


def test_errors_describe_the_input_as_given():
    """Was: ``data=array([1.]) (shape ())`` (the coerced input's shape, the given input's values)."""
    from dpverify.mechanisms import MechanismError

    m = as_mechanism(lambda d, rng, n: np.full(n, np.nan), epsilon=1.0, relation="|d - d'| <= 1")
    with pytest.raises(MechanismError, match=r"sample\(data=array\(\[1\.\]\) \(shape \(1,\)\), rng, n=2\)"):
        checked_sample(m, np.array([1.0]), RNG(0), 2)
    with pytest.raises(MechanismError, match=r"sample\(data=array\(1\.\) \(shape \(\)\), rng, n=2\)"):
        checked_sample(m, np.array(1.0), RNG(0), 2)


# ----------------------------------------------------------------------------- proved for every ε (issue 27)


def test_catalogue_line_proved_for_all_epsilon_or_points_with_reason(capsys):
    """The catalogue's line: each family with a symbolic law is proved for all ε > 0; every other one
    falls back to points, with the reason (``dpverify prove --catalogue`` prints the same table)."""
    from dpverify.exact.catalogue import prove_catalogue

    s = prove_catalogue()
    cat = catalogue()
    assert [r.family for r in s.rows] == cat.names()
    for r in s.rows:
        symbolic = hasattr(cat[r.family], "symbolic_law")
        assert r.status == ("proved" if symbolic else "points"), (r.family, r.reason)
        assert r.reason and (not symbolic or "holds for every epsilon > 0" in r.reason), r.family
    assert s.with_status("proved") and not s.with_status("refuted") and not s.with_status("unknown")
    assert s.summary() == (f"catalogue: {len(cat)} families; {len(s.with_status('proved'))} proved for all ε > 0 on their listed pairs; "
                           f"{len(s.with_status('points'))} fall back to points")
    with capsys.disabled():
        print("\n" + s.summary())


def test_catalogue_line_reports_a_wrong_symbolic_law(monkeypatch):
    """The line can flip: k-RR whose symbolic keep probability uses e^{2ε} is refuted, and the summary says so."""
    from planted import doubled_krr_law

    from dpverify.exact.catalogue import prove_catalogue
    from dpverify.exact.closed import KRRLaw

    monkeypatch.setattr(KRRLaw, "__call__", lambda self, e: doubled_krr_law(self.k, e))
    s = prove_catalogue(names=["primitives.randomized_response", "primitives.laplace_mechanism"])
    assert [r.status for r in s.rows] == ["refuted", "points"]
    assert "1 refuted" in s.summary() and "0 proved" in s.summary()
    with pytest.raises(ValueError, match="names must be catalogue families"):
        prove_catalogue(names=["nope"])
