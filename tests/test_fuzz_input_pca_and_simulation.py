"""Regression tests for the inputs the fuzz (tests/test_fuzz_api.py) found accepted or misreported in
``dpverify.pca.noise``, ``dpverify.pca.corrected``, ``dpverify.continual.claims.errata.printed`` and
``dpverify.toolkit.simulation``: each hostile input is refused with an error naming the parameter, and the
valid calls the mechanisms make still give the same values."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpverify.continual.claims.errata import printed
from dpverify.pca import CorrectedPPCADP, PCABasedPPDP
from dpverify.pca.noise import check_bounds, check_release_size, noise_scale, public_normalise, sorted_eigh, symmetric_laplace
from dpverify.toolkit.simulation import simulate_against

_COIN = lambda rng, n: rng.random(n) < 0.25  # noqa: E731


@pytest.mark.parametrize("kw, name", [
    ({"numerator": math.nan}, "numerator"), ({"numerator": 1e308}, "numerator"), ({"numerator": -math.inf}, "numerator"),
    ({"numerator": True}, "numerator"), ({"numerator": None}, "numerator"), ({"numerator": 1 + 1j}, "numerator"),
    ({"eps_part": 5e-324}, "eps_part"), ({"eps_part": 0}, "eps_part"), ({"eps_part": -1}, "eps_part"),
    ({"eps_part": math.inf}, "eps_part"), ({"eps_part": "abc"}, "eps_part"),
    ({"epsilon": math.nan}, "epsilon"), ({"epsilon": -math.inf}, "epsilon"), ({"epsilon": None}, "epsilon"),
    ({"epsilon": True}, "epsilon"),
])
def test_noise_scale_refuses_naming_the_parameter(kw, name):
    args = {"numerator": 2.0, "eps_part": 0.5, "epsilon": 1.0, **kw}
    with pytest.raises((ValueError, TypeError), match=name):
        noise_scale(**args)


def test_noise_scale_valid_values_unchanged():
    assert noise_scale(2.0, 0.5, 1.0) == 4.0 and noise_scale(np.int64(3), np.float32(0.5), np.float64(1.0)) == 6.0
    with pytest.raises(ValueError, match="epsilon = 1e-320 is too small"):  # a share that underflows names ε too
        noise_scale(1.0, 1e-320 * 0.1 * 1e-10, 1e-320)


@pytest.mark.parametrize("name, bad", [("reps", -1), ("reps", True), ("reps", None), ("reps", 1 + 1j), ("reps", "abc"),
                                       ("n", True), ("p", -1), ("p", np.bool_(True)), ("reps", 2**63)])
def test_check_release_size_refuses_naming_the_parameter(name, bad):
    with pytest.raises((ValueError, TypeError), match=name):
        check_release_size(**{"reps": 2, "n": 12, "p": 3, name: bad})


@pytest.mark.parametrize("bounds", [(np.full(3, -1e308), np.full(3, 1e308)), (np.zeros(3), np.array([1.0, 1.0, 1e200]))])
def test_bounds_beyond_float64_range_are_refused(bounds):
    with pytest.raises(ValueError, match="bounds must lie within"):
        check_bounds(bounds, 3)
    for cls in (CorrectedPPCADP, PCABasedPPDP):
        with pytest.raises(ValueError, match="bounds"):
            cls(k=1, epsilon=1.0, bounds=bounds)


def test_wide_valid_bounds_give_finite_releases():
    X = np.random.default_rng(0).uniform(-1e149, 1e149, size=(20, 3))
    out = CorrectedPPCADP(k=1, epsilon=1.0, bounds=(np.full(3, -1e150), np.full(3, 1e150))).fit_publish(X, rng=0)
    assert np.isfinite(out).all()


@pytest.mark.parametrize("call, name", [
    (lambda: public_normalise(np.ones((2, 3)), np.zeros(3), np.full(3, np.inf)), "hi"),
    (lambda: public_normalise(np.ones((2, 3)), np.full(3, -1e308), np.ones(3)), "lo"),
    (lambda: public_normalise(np.ones((2, 3)), np.ones(3), np.zeros(3)), "lo < hi"),
    (lambda: public_normalise(np.zeros(0), np.zeros(3), np.ones(3)), "X"),
    (lambda: symmetric_laplace(3, 1e308, 2, np.random.default_rng(0)), "scale"),
    (lambda: symmetric_laplace(10**10, 1.0, 2, np.random.default_rng(0)), "p"),
    (lambda: symmetric_laplace(3, 1.0, 2, 0), "g"),
    (lambda: symmetric_laplace(3, math.nan, 2, np.random.default_rng(0)), "scale"),
    (lambda: sorted_eigh(np.full((3, 3), 1e308)), "C"),
    (lambda: sorted_eigh(np.zeros((2, 3))), "C"),
    (lambda: sorted_eigh([[math.nan]]), "C"),
])
def test_noise_helpers_refuse_naming_the_parameter(call, name):
    with pytest.raises((ValueError, TypeError), match=name):
        call()


def test_noise_helpers_valid_values_unchanged():
    g1, g2 = np.random.default_rng(5), np.random.default_rng(5)
    E = symmetric_laplace(3, 2.0, 2, g1)
    iu = np.triu_indices(3)
    assert np.array_equal(E[:, iu[0], iu[1]], g2.laplace(0.0, 2.0, size=(2, 6))) and np.array_equal(E, np.swapaxes(E, 1, 2))
    assert public_normalise(np.array([-1.0, 2.0]), np.zeros(2), np.full(2, 4.0)).tolist() == [0.0, 0.5]


@pytest.mark.parametrize("kw, name, exc", [
    ({"seed": 0}, "seed", TypeError), ({"seed": None}, "seed", TypeError), ({"seed": math.nan}, "seed", TypeError),
    ({"seed": "../000"}, "seed", ValueError), ({"seed": "00*"}, "seed", ValueError), ({"seed": ""}, "seed", ValueError),
    ({"excerpt": None}, "excerpt", TypeError), ({"excerpt": 0}, "excerpt", TypeError), ({"excerpt": ""}, "excerpt", ValueError),
])
def test_printed_refuses_naming_the_parameter(kw, name, exc):
    with pytest.raises(exc, match=name):
        printed(**{"seed": "000", "excerpt": "Wij=1,i<j", **kw})


@pytest.mark.parametrize("kw, name", [({"n": 10**10}, "n = 10000000000"), ({"n": np.int64(2**40)}, "n = 1099511627776"),
                                      ({"bounds": [0.0] * 10**6}, "bounds")])
def test_simulate_against_refuses_work_and_long_bounds(kw, name):
    with pytest.raises(ValueError, match=name) as info:
        simulate_against(_COIN, 0.25, **{"n": 1000, "rng": 1, **kw})
    assert len(str(info.value)) < 400  # the message stays short whatever the input's length


def test_simulate_against_results_stay_finite():
    out = simulate_against(_COIN, 0.25, n=10_000, rng=1)  # no deviation stated: no power to report
    assert out.evidence["power"] is None and out.verdict.value == "inconclusive"
    far = simulate_against(lambda rng, n: rng.random(n), 1e308, n=1000, rng=1)  # z beyond float64
    assert far.verdict.value == "refuted" and far.evidence["z"] is None and "z_note" in far.evidence
    assert simulate_against(_COIN, 0.25, n=10_000, rng=1, detect=0.05).evidence["power"] > 0.99
