"""``dpverify.mechanisms.adapters.opendp_batch``: OpenDP's releases read fast, checked against OpenDP's own reading.

Statistical checks are seeded by nothing (OpenDP cannot be seeded); each uses a band of 6 standard
deviations, so a correct reader fails one with probability below 10^-8.
"""

from __future__ import annotations

import math

import pytest

dp = pytest.importorskip("opendp.prelude")
dp.enable_features("contrib")

import dpverify.mechanisms.adapters.opendp_batch as ob  # noqa: E402


def _dom():
    try:
        return dp.vector_domain(dp.atom_domain(T=float, nan=False), size=3)
    except TypeError:
        return dp.vector_domain(dp.atom_domain(T=float), size=3)


def _near(count, n, p):
    return abs(count - n * p) <= 6 * math.sqrt(n * p * (1 - p))


def test_every_item_type_of_the_sweep_agrees_with_opendps_own_conversion(monkeypatch):
    monkeypatch.setattr(ob, "_AGREES", {})
    n = 4096
    rr = ob.releases(ob.compose(dp.m.make_randomized_response_bool(prob=0.75), n), True)
    cat = ob.releases(ob.compose(dp.m.make_randomized_response([0, 1, 2], prob=0.6), n), 2)
    top = ob.releases(ob.compose(dp.m.make_noisy_top_k(_dom(), dp.linf_distance(T=float), dp.max_divergence(),
                                                       k=2, scale=1.0), n), [0.0, 0.0, 5.0])
    again = ob.releases(ob.compose(dp.m.make_randomized_response_bool(prob=0.75), n), False)
    bits = ob.releases(ob.compose(dp.m.make_randomized_response_bitvec(
        dp.bitvector_domain(max_weight=1), dp.discrete_distance(), f=0.5), n), bytes([128]))
    # the first output of each type was compared with OpenDP's c_to_py item by item, and agreed
    assert ob.reader_state() == {"bool": True, "i32": True, "Vec<usize>": True, "BitVector": True}
    assert {type(y) for y in bits} == {bytes} and _near(sum(y[0] >> 7 for y in bits), n, 0.75)  # kept w.p. 1 − f/2
    assert {type(y) for y in rr + again} == {bool} and _near(sum(rr), n, 0.75) and _near(n - sum(again), n, 0.75)
    assert set(cat) <= {0, 1, 2} and _near(cat.count(2), n, 0.6)
    assert all(isinstance(y, tuple) and len(y) == 2 and len(set(y)) == 2 for y in top)
    assert _near(sum(y[0] == 2 for y in top), n, math.exp(5) / (math.exp(5) + 2))  # 5 ahead of two 0s


def test_a_reader_that_disagrees_is_switched_off_and_opendps_values_are_returned(monkeypatch):
    monkeypatch.setattr(ob, "_AGREES", {})
    real = ob._read
    monkeypatch.setattr(ob, "_read", lambda f, out: (real(f, out)[0], [7] * 256))  # a wrong reading
    batch = ob.compose(dp.m.make_randomized_response([0, 1, 2], prob=0.6), 256)
    first, second = ob.releases(batch, 0), ob.releases(batch, 0)
    assert ob.reader_state() == {"i32": False}
    assert set(first) <= {0, 1, 2} and set(second) <= {0, 1, 2}  # never the reader's 7s


def test_without_opendps_helpers_the_public_conversion_is_used(monkeypatch):
    monkeypatch.setattr(ob, "_FFI", [None])
    out = ob.releases(ob.compose(dp.m.make_noisy_top_k(_dom(), dp.linf_distance(T=float), dp.max_divergence(),
                                                       k=2, scale=1.0), 64), [0.0, 1.0, 2.0])
    assert len(out) == 64 and all(isinstance(y, tuple) for y in out)


def test_bad_input_names_the_parameter():
    batch = ob.compose(dp.m.make_randomized_response_bool(prob=0.75), 4)
    with pytest.raises(TypeError, match="arg"):
        ob.releases(batch, "yes")
    with pytest.raises(TypeError, match="composition"):
        ob.releases("batch", True)
    with pytest.raises(ValueError, match="copies"):
        ob.compose(dp.m.make_randomized_response_bool(prob=0.75), 0)


def test_a_helper_that_fails_switches_the_reader_off_for_good(monkeypatch):
    ob._helpers()
    monkeypatch.setattr(ob, "_FFI", list(ob._FFI))  # this test's copy: restored afterwards

    def broken(f, out):
        raise RuntimeError("a helper of another release")

    monkeypatch.setattr(ob, "_read", broken)
    out = ob.releases(ob.compose(dp.m.make_randomized_response_bool(prob=0.75), 64), True)
    assert ob._FFI == [None] and len(out) == 64 and {type(y) for y in out} == {bool}
