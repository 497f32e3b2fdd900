"""Regression tests for the whole-API fuzz (issue 26, item 7): the mechanisms'
adapters, catalogue, converters, families and claims refuse hostile input by name (callables that had
no fuzz baseline before), and the valid calls still behave as before."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpverify.mechanisms.adapters.common import coerce_all, missing_package
from dpverify.mechanisms.catalogue import Catalogue, families
from dpverify.mechanisms.convert import audited, check_signature, sampler
from dpverify.mechanisms.families import Call, Family, MatrixLaw, finite_sampler
from dpverify.mechanisms.privacy import DeltaCurve


def mech(d, rng, n):
    return rng.normal(float(np.sum(d)), 1.0, n)


def _family(**over):
    f = families()["primitives.laplace_mechanism"]
    kw = {"name": f.name, "factory": f.factory, "space": f.space, "pairs": f.pairs, **over}
    return Family(**kw)


@pytest.mark.parametrize("call, kind, words", [
    (lambda: coerce_all(None), TypeError, "params"),                            # was AttributeError
    (lambda: coerce_all("scale=1"), TypeError, "params"),
    (lambda: missing_package(None, "opendp", ImportError("x")), TypeError, "package"),
    (lambda: missing_package("opendp", 3, ImportError("x")), TypeError, "extra"),
    (lambda: missing_package("opendp", "opendp", "boom"), TypeError, "exc"),
    (lambda: Catalogue(None), TypeError, "fams"),                               # was 'NoneType' is not iterable
    (lambda: Catalogue("ab"), TypeError, "fams"),
    (lambda: check_signature(None), TypeError, "function"),                     # was accepted
    (lambda: check_signature("f"), TypeError, "function"),
    (lambda: sampler(math.nan), TypeError, "mechanism"),                        # was returned as is
    (lambda: sampler(None), TypeError, "mechanism"),
    (lambda: audited(mech, epsilon=1.0, delta=None), TypeError, "delta"),       # was delta 0
    (lambda: Call(math.nan), TypeError, "fn"),                                  # was accepted
    (lambda: Call(mech, "ab"), TypeError, "kw"),
    (lambda: Call(mech, ((1, 2),)), TypeError, "kw"),
    (lambda: _family(space=None), TypeError, "space"),                          # was 'NoneType' is not iterable
    (lambda: _family(default=3), TypeError, "default"),
    (lambda: _family(samples=math.nan), TypeError, "samples"),                  # was accepted
    (lambda: _family(samples=True), TypeError, "samples"),
    (lambda: _family(samples=0), ValueError, "samples"),
    (lambda: _family(note=None), TypeError, "note"),
    (lambda: finite_sampler(None), TypeError, "law"),                           # was accepted
    (lambda: DeltaCurve(math.exp, point_delta=math.nan), ValueError, "point_delta"),  # was named 'delta'
    (lambda: DeltaCurve(math.exp, point_delta=1.0), ValueError, "point_delta"),
])
def test_refused_by_name(call, kind, words):
    with pytest.raises(kind, match=words):
        call()


def test_valid_calls_unchanged():
    assert coerce_all({"scale": "2", "T": "float"}) == {"scale": 2, "T": "float"}
    assert "pip install 'dpverify[opendp]'" in str(missing_package("opendp", "opendp", ImportError("x")))
    cat = Catalogue({"primitives.laplace_mechanism": families()["primitives.laplace_mechanism"]})
    assert len(cat) == 1 and cat.names() == ["primitives.laplace_mechanism"]
    check_signature(mech)
    assert sampler(mech) is mech
    assert audited(mech, epsilon=1.0).epsilon == 1.0
    assert Call(lambda d, rng, n, k: [d * k] * n, (("k", 2),))(3, None, 2) == [6, 6]
    assert _family(samples=np.int64(2000)).samples == 2000
    f = finite_sampler(MatrixLaw(((0.0, 1.0), (1.0, 0.0))))
    assert f(0, np.random.default_rng(0), 3).tolist() == [1, 1, 1]
    assert DeltaCurve(math.exp, epsilon=1.0, point_delta=np.float32(0.25)).delta == 0.25
    assert DeltaCurve(math.exp).epsilon == math.inf


@pytest.mark.parametrize("params, kind, words", [
    ({"sensitivity": math.nan}, ValueError, "sensitivity"),                     # was 'bound must be finite'
    ({"sensitivity": 0}, ValueError, "sensitivity"),
    ({"sensitivity": True}, TypeError, "sensitivity"),                          # was accepted as 1
])
def test_diffprivlib_sensitivity(params, kind, words):
    pytest.importorskip("diffprivlib")
    from dpverify.mechanisms.adapters import from_diffprivlib

    with pytest.raises(kind, match=words):
        from_diffprivlib("Laplace", epsilon=1.0, **params)


@pytest.mark.parametrize("bad", [math.nan, None, 3])
def test_diffprivlib_mechanism_named(bad):
    pytest.importorskip("diffprivlib")
    from dpverify.mechanisms.adapters import from_diffprivlib

    with pytest.raises(TypeError, match="mechanism"):                           # was 'an instance takes no parameters'
        from_diffprivlib(bad, epsilon=1.0, sensitivity=1.0)
    assert from_diffprivlib("Laplace", epsilon=1.0, sensitivity=0, relation="any").epsilon == 1.0  # 0 with a relation


@pytest.mark.parametrize("kw, kind, words", [
    ({"d_in": math.nan}, ValueError, "d_in"),                                   # was OpenDPException
    ({"d_in": -1}, ValueError, "d_in"),
    ({"d_in": True}, TypeError, "d_in"),                                        # was accepted as 1
    ({"d_in": 1 + 1j}, TypeError, "d_in"),
    ({"scale": 1e-320}, ValueError, "scale"),                                   # was 'epsilon must be finite'
])
def test_opendp_refusals(kw, kind, words):
    pytest.importorskip("opendp")
    from dpverify.mechanisms.adapters import from_opendp

    with pytest.raises(kind, match=words):
        from_opendp("laplace", **{"scale": 1.0, **kw})


# ----------------------------------------------------------------------------- wave 2: the exact sampler's core

def _words(ids):
    return np.random.default_rng(len(ids)).integers(0, 2**64, size=len(ids), dtype=np.uint64)


@pytest.mark.parametrize("kw, match", [
    ({"s": np.array([True])}, "s must"), ({"s": np.array([1 + 1j])}, "s must"),
    ({"s": np.broadcast_to(1.0, (1_500_000_000,))}, "s "), ({"n": 10**10}, "n"), ({"n": 2**70}, "n"),
    ({"n": -1}, "n"), ({"n": 2.5}, "n"), ({"draw": None}, "draw"),
])
def test_two_sided_geometric_refuses_by_name(kw, match):
    from dpverify.primitives.exact_noise import two_sided_geometric

    args = {"s": np.array([3.0]), "n": 4, "draw": _words, **kw}
    with pytest.raises((TypeError, ValueError), match=match):
        two_sided_geometric(**args)


def test_two_sided_geometric_valid_calls_unchanged():
    from dpverify.primitives.exact_noise import two_sided_geometric

    a = two_sided_geometric(np.array([3.0]), 4, _words)
    assert (two_sided_geometric(np.array([3]), np.int64(4), _words) == a).all()
    assert two_sided_geometric(3.0, 0, _words).shape == (0,)


def test_exact_rr_refuses_a_huge_pi_before_parsing_it():
    """10^6 rational entries took > 30 s to parse before the n×n budget refused them."""
    from dpverify.rr.nary import exact_optimum

    with pytest.raises(ValueError, match="pi with 1000000 entries"):
        exact_optimum(["3/10"] * 10**6, "3", 0)
