"""Issue 26: the claims that said `holds` for a broken mechanism now flip.

- ``pca.corrected_ppca_dp_is_dp``: the second-moment noise drawn at the right scale but never added, and
  the clipping to the public bounds removed (both said `holds` before: the check read scales only).
  Each mutation is caught by both value checks on their own: the replay (the release recomputed from
  the recorded noise) and the neighbour coupling (the release on D′ from the shifted noise).
- ``continual.release.privacy``: releases spending ε·(1 + 10⁻⁷) — node noise shrunk after the draw, heavier
  weights than the weight function, the draw's scale, the naive noise (the first three said `holds`
  before: the read-back tolerance was 1e-6 and the scale was not read).
- ``continual.release.mse``: a formula off by 30 % is refuted (the power the claim states).

All checks are seeded, so the verdicts are deterministic.
"""

from __future__ import annotations

import numpy as np
import pytest

from dpverify.claims import Verdict, get_claim, run_claim

H, R = Verdict.HOLDS, Verdict.REFUTED


def _outcome(cid: str):
    r = run_claim(get_claim(cid))
    assert r.error is None or r.verdict is not H, r.error
    return r.outcome


# ------------------------------------------------------------------ the corrected PPCA-DP


def _noise_drawn_not_added(monkeypatch):
    import dpverify.pca.corrected as Cm

    real = Cm.symmetric_laplace
    monkeypatch.setattr(Cm, "symmetric_laplace", lambda p, scale, reps, g: 0.0 * real(p, scale, reps, g))


def _no_clipping(monkeypatch):
    import dpverify.pca.corrected as Cm

    monkeypatch.setattr(Cm, "public_normalise", lambda X, lo, hi: (X - lo) / (hi - lo))


@pytest.mark.parametrize("mutate", [_noise_drawn_not_added, _no_clipping])
def test_corrected_ppca_dp_flips_under_a_value_mutation(monkeypatch, mutate):
    from dpverify.pca.claims.corrected import VALUE_TOL

    ok = _outcome("pca.corrected_ppca_dp_is_dp")
    assert ok.verdict is H and ok.evidence["replay_gap"] <= VALUE_TOL and ok.evidence["coupling_gap"] <= VALUE_TOL
    assert ok.evidence["entries_outside_public_bounds"] > 0  # clipping is exercised
    assert ok.evidence["observed_sensitivity_over_bound[mean, moments, scores]"][:2] == pytest.approx([1.0, 1.0])
    mutate(monkeypatch)
    out = _outcome("pca.corrected_ppca_dp_is_dp")
    assert out.verdict is R
    assert out.evidence["worst_spent_over_claimed"] <= 1 + 1e-12  # the scales alone still look right ...
    assert out.evidence["replay_gap"] > 1e3 * VALUE_TOL  # ... each value check flips on its own
    assert out.evidence["coupling_gap"] > 1e3 * VALUE_TOL


def test_corrected_ppca_dp_flips_when_raw_data_reach_the_sampler(monkeypatch):
    """Post-processing that reads the records (here: the raw mean of the normalised data as μ) breaks the
    coupling, though every noise scale is right."""
    import dataclasses

    import dpverify.pca.corrected as Cm

    real = Cm.sample_from_scores
    state = {}
    real_norm = Cm.public_normalise

    def remember(X, lo, hi):
        state["Xn"] = real_norm(X, lo, hi)
        return state["Xn"]

    monkeypatch.setattr(Cm, "public_normalise", remember)
    monkeypatch.setattr(Cm, "sample_from_scores",
                        lambda fit, K, g: real(dataclasses.replace(fit, mean=state["Xn"].mean(axis=0)[None]), K, g))
    out = _outcome("pca.corrected_ppca_dp_is_dp")
    assert out.verdict is R and out.evidence["coupling_gap"] > 1e-3


# ------------------------------------------------------------------ the release's privacy at 10⁻⁷


_F = 1 + 1e-7


def _forest_noise_shrunk(monkeypatch):
    import dpverify.continual.forest as F

    real = F.ForestStream._draw

    def draw(self, lo):
        real(self, lo)
        self._z = self._z / _F

    monkeypatch.setattr(F.ForestStream, "_draw", draw)


def _forest_weights_heavier(monkeypatch):
    import dpverify.continual.forest as F

    real = F.ForestStream.__init__

    def init(self, n, epsilon, blocks, weights_at, rng=None, noise="laplace"):
        real(self, n, epsilon, blocks, lambda t: np.asarray(weights_at(t), dtype=float) * _F, rng=rng, noise=noise)

    monkeypatch.setattr(F.ForestStream, "__init__", init)


def _forest_scale_smaller(monkeypatch):
    import dpverify.continual.forest as F

    real = F.ForestStream._draw

    def draw(self, lo):
        eps = self.epsilon
        self.epsilon = eps * _F
        try:
            real(self, lo)
        finally:
            self.epsilon = eps

    monkeypatch.setattr(F.ForestStream, "_draw", draw)


def _naive_noise_shrunk(monkeypatch):
    import dpverify.continual.naive as N

    real = N.NaiveStream._refill

    def refill(self):
        real(self)
        self._buf = [v / _F for v in self._buf]

    monkeypatch.setattr(N.NaiveStream, "_refill", refill)


@pytest.mark.parametrize("mutate", [_forest_noise_shrunk, _forest_weights_heavier,
                                    pytest.param(_forest_scale_smaller, marks=pytest.mark.slow),
                                    pytest.param(_naive_noise_shrunk, marks=pytest.mark.slow)])
def test_release_privacy_flips_at_an_overspend_of_1e_7(monkeypatch, mutate):
    ok = _outcome("continual.release.privacy")
    assert ok.verdict is H and ok.evidence["read_back_gap_over_its_rounding_bound_max"] <= 1
    assert ok.evidence["read_back_rounding_bound_median"] < 1e-9  # the bound sits far below 1e-7
    mutate(monkeypatch)
    out = _outcome("continual.release.privacy")
    assert out.verdict is R
    assert out.evidence["read_back_gap_over_its_rounding_bound_max"] > 1 or not out.evidence["noise_scale_is_1/eps"]


# ------------------------------------------------------------------ the MSE simulation's power


@pytest.mark.slow
def test_release_mse_catches_a_30_percent_error(monkeypatch):
    import dpverify.continual as C

    real = C.expected_mse
    monkeypatch.setattr(C, "expected_mse", lambda *a, **kw: real(*a, **kw) * 1.3)
    out = _outcome("continual.release.mse")
    assert out.verdict is R and min(out.evidence["power_at_30%_error"].values()) >= 0.99
