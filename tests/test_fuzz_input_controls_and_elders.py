"""Regression tests for the whole-API fuzz (vector controls, selftest controls and
mechanisms, the elders tree): hostile values are refused by name, valid ones (numpy scalars) accepted.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpverify.audit.controls import BinDifference, HistogramLaplace, NoisyMax, SparseVector, SuffixSum
from dpverify.continual.elders import elders_digits, elders_expected_mse
from dpverify.selftest.controls import ExponentialMechanism, FDARelease
from dpverify.selftest.mechanisms import control, control_pairs

BAD_INTS = [(math.nan, ValueError, TypeError), (math.inf, TypeError), (True, TypeError), (1 + 1j, TypeError),
            ("abc", TypeError), (None, TypeError), (1.5, TypeError), (-1, ValueError)]

BUILDERS = {
    "BinDifference.i": (lambda v: BinDifference(v, 1), "i"),
    "BinDifference.j": (lambda v: BinDifference(0, v), "j"),
    "SuffixSum.start": (lambda v: SuffixSum(v), "start"),
    "HistogramLaplace.records": (lambda v: HistogramLaplace(1.0, 3, records=v), "records"),
    "NoisyMax.k": (lambda v: NoisyMax(1.0, k=v), "k"),
    "SparseVector.k": (lambda v: SparseVector(1.0, k=v), "k"),
    "ExponentialMechanism.k": (lambda v: ExponentialMechanism(1.0, k=v), "k"),
    "FDARelease.steps": (lambda v: FDARelease(1.0, steps=v), "steps"),
}


@pytest.mark.parametrize("where", sorted(BUILDERS))
@pytest.mark.parametrize("bad", BAD_INTS, ids=lambda b: repr(b[0]))
def test_integer_fields_refused_by_name(where, bad):
    make, name = BUILDERS[where]
    with pytest.raises(bad[1:]) as err:
        make(bad[0])
    assert name in str(err.value)


@pytest.mark.parametrize("where", sorted(BUILDERS))
def test_integer_fields_accept_numpy_ints(where):
    make, _ = BUILDERS[where]
    assert make(np.int64(2)) is not None and make(2) is not None


def test_reprs_unchanged_for_valid_input():  # reprs are evidence: the hidden lengths stay out of them
    assert repr(NoisyMax(1.0, k=5)) == "NoisyMax(epsilon=1.0, noise='laplace', returns='index')"
    assert repr(HistogramLaplace(1.0, 3, records=4)) == "HistogramLaplace(epsilon=1.0, bins=3, sensitivity=2.0)"
    assert repr(BinDifference(0, 1)) == "BinDifference(i=0, j=1)" and repr(SuffixSum(1)) == "SuffixSum(start=1)"


@pytest.mark.parametrize("noise, exc", [(math.nan, TypeError), (None, TypeError), (0, TypeError),
                                        ("gaussian", ValueError)])
def test_fda_release_noise_refused(noise, exc):
    with pytest.raises(exc, match="noise"):
        FDARelease(1.0, noise=noise)


def test_fda_release_repr_unchanged():
    assert repr(FDARelease(1.0, noise="discrete")) == "FDARelease(epsilon=1.0, noise='discrete')"


@pytest.mark.parametrize("fn", [control, control_pairs])
@pytest.mark.parametrize("cls, exc", [(math.nan, TypeError), (None, TypeError), (0, TypeError),
                                      ("Nope", ValueError), ("Control", ValueError)])
def test_control_cls_refused(fn, cls, exc):
    with pytest.raises(exc, match="cls"):
        fn(cls=cls, epsilon=1.0)


@pytest.mark.parametrize("eps, exc", [(math.nan, ValueError), (-math.inf, ValueError), (True, TypeError),
                                      ("abc", TypeError), (None, TypeError), (0.0, ValueError)])
def test_control_pairs_epsilon_refused(eps, exc):
    with pytest.raises(exc, match="epsilon"):
        control_pairs(cls="GeometricMechanism", epsilon=eps)


@pytest.mark.parametrize("n", [10**10, 2**40, np.int64(2**40)])
def test_elders_expected_mse_refuses_n_beyond_memory(n):
    with pytest.raises(ValueError, match=r"^n = \d+ is too large"):
        elders_expected_mse(n, 1.0)


@pytest.mark.parametrize("levels", [10**10, 2**40, 2**63, 2**70])
def test_elders_digits_refuses_levels_beyond_memory(levels):
    with pytest.raises(ValueError, match=r"^levels = \d+ .*too large"):
        elders_digits([7], 3, levels=levels)


def test_elders_digits_extra_levels_are_zero_and_fast():
    d = elders_digits([7, 1], 3, levels=100_000)
    assert d.shape == (100_000, 2)
    assert d[:3].T.tolist() == elders_digits([7, 1], 3).T.tolist() and not d[3:].any()


# ----------------------------------------------------------------------------- wave 2: the elders noise sums

def _nn():
    from dpverify.continual.node_noise import NodeNoise

    return NodeNoise(key=(1, 2), scale=2.0, noise="discrete")


@pytest.mark.parametrize("kw, match", [
    ({"n": 10**10}, "n"), ({"n": 2**63}, "n"), ({"k": 1}, "k"), ({"nn": None}, "nn"), ({"nn": "abc"}, "nn"),
    ({"t_first": 0}, "t_first"), ({"t_first": float("nan")}, "t_first"), ({"t_first": True}, "t_first"),
    ({"t_first": 10}, "t_first"), ({"t_last": 0}, "t_last"), ({"t_last": 10**10}, "t_last"),
    ({"t_last": 2.5}, "t_last"),
])
def test_elders_noise_sums_refuse_by_name(kw, match):
    from dpverify.continual.elders import elders_noise_sums

    args = {"n": 9, "k": 3, "nn": _nn(), **kw}
    with pytest.raises((TypeError, ValueError), match=match):
        elders_noise_sums(**args)


def test_elders_noise_sums_windows_unchanged():
    from dpverify.continual.elders import elders_noise_sums

    full = elders_noise_sums(9, 3, _nn())
    assert (elders_noise_sums(np.int64(9), np.int64(3), _nn(), None, np.int64(5), np.int64(7)) == full[4:7]).all()


@pytest.mark.parametrize("kw, match", [
    ({"levels": float("nan")}, "levels"), ({"levels": "abc"}, "levels"), ({"levels": None}, "levels"),
    ({"factors": float("nan")}, "factors"), ({"factors": "abc"}, "factors"), ({"factors": [np.array([np.nan])]}, "factors"),
    ({"factors": [np.ones(3)] * 10**6}, "factors"),
])
def test_elders_scale_check_refuses_by_name(kw, match):
    from dpverify.continual.elders import elders_scale_check

    args = {"epsilon": 1.0, "levels": 5, "factors": None, "noise": "discrete", **kw}
    with pytest.raises((TypeError, ValueError), match=match):
        elders_scale_check(**args)
    assert elders_scale_check(1.0, np.int64(5), [np.ones(3), np.ones(2)], "discrete") is None


def test_forest_blocks_error_names_the_pair_at_fault():
    from dpverify.continual.forest import check_blocks

    with pytest.raises(ValueError, match=r"got \(0, 3\) at index 1$"):
        check_blocks([(0, 3)] * 50)
