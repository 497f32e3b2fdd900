"""The sparse logistic score: coefficients with |Wald z| < 3 dropped, on a basis of linearly
independent features, and offered beside the full model wherever a logistic model is trained."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpverify.audit import screening
from dpverify.audit.classifiers import _independent, fit_score, sparse_logistic


def _bits(g, n, probs):
    return (g.random((n, len(probs))) < np.asarray(probs)).astype(np.int64)


@settings(max_examples=25, deadline=None)
@given(st.integers(2, 8), st.integers(1, 4), st.integers(0, 2**32 - 1))
def test_independent_columns_match_the_rank_and_span_the_rest(width, extra, seed):
    """Planted dependencies (sums of earlier columns, zero columns) are dropped; the kept columns have
    full rank equal to the matrix's, so every column lies in their span."""
    g = np.random.default_rng(seed)
    base = g.normal(size=(50, width))
    mix = g.normal(size=(width, extra))
    z = np.hstack([base, base @ mix, np.zeros((50, 1))])
    kept = _independent(z)
    assert kept.tolist() == list(range(width))  # the raw block first, derived columns dropped
    assert np.linalg.matrix_rank(z[:, kept]) == np.linalg.matrix_rank(z) == width


def test_the_noise_bits_are_dropped_and_the_signal_bits_kept():
    """RAPPOR-like outputs: 6 of 24 independent bits depend on the input.  The full model gives every
    noise bit a nonzero weight; the sparse one keeps the six signal bits (and at most one noise bit:
    each passes |z| ≥ 3 with probability 0.0027)."""
    g = np.random.default_rng(3)
    probs_d = np.r_[np.full(6, 0.55), np.full(18, 0.5)]
    probs_dp = np.r_[np.full(6, 0.45), np.full(18, 0.5)]
    a, b = _bits(g, 30_000, probs_d), _bits(g, 30_000, probs_dp)
    full = fit_score(a, b, "logistic", rng=g)
    sp = sparse_logistic(full, a, b)
    w = sp.model[-1].coef_[0]
    assert np.all(w[:6] > 0)
    assert np.count_nonzero(w[6:24]) <= 1
    assert np.count_nonzero(full.model[-1].coef_[0][6:24]) >= 17
    # the extreme event of the sparse score is "every signal bit set" (up to the one noise bit)
    x = _bits(g, 50_000, probs_d)
    top = sp(x) >= np.max(sp(x)) - 1e-9
    assert np.all(x[top][:, :6] == 1)


def test_nothing_to_drop_or_everything_to_drop_gives_none():
    g = np.random.default_rng(0)
    a, b = g.normal(0.2, 1.0, (20_000, 4)), g.normal(0.0, 1.0, (20_000, 4))
    full = fit_score(a, b, "logistic", rng=g)  # features: 4 values and 4 all-zero NaN indicators
    assert sparse_logistic(full, a, b) is None  # every value carries signal
    a[:, 3] = g.normal(0.0, 1.0, 20_000)  # one that does not: now it is dropped
    sp = sparse_logistic(fit_score(a, b, "logistic", rng=g), a, b)
    assert np.flatnonzero(sp.model[-1].coef_[0]).tolist() == [0, 1, 2]
    same = np.full(4, 0.5)
    a, b = _bits(g, 2_000, same), _bits(g, 2_000, same)
    assert sparse_logistic(fit_score(a, b, "logistic", rng=g), a, b) is None  # none does (seeded)


def test_the_sparse_score_folds_into_one_pass_and_does_not_touch_the_full_model():
    g = np.random.default_rng(1)
    a = g.normal(size=(5_000, 5)) + np.r_[0.3, 0, 0, 0, 0]
    b = g.normal(size=(5_000, 5))
    full = fit_score(a, b, "logistic", rng=g)
    before = full.model[-1].coef_.copy()
    sp = sparse_logistic(full, a, b)
    np.testing.assert_array_equal(full.model[-1].coef_, before)
    x = g.normal(size=(100, 5))
    ref = sp.model.decision_function(sp.features.linear(x))
    np.testing.assert_allclose(sp(x), ref, rtol=1e-10, atol=1e-10)


def test_only_a_logistic_score_can_be_made_sparse():
    g = np.random.default_rng(0)
    a, b = g.normal(1, 1, (500, 2)), g.normal(0, 1, (500, 2))
    with pytest.raises(ValueError, match="logistic"):
        sparse_logistic(fit_score(a, b, "boosting", rng=g), a, b)


def test_training_a_logistic_model_offers_both_variants():
    g = np.random.default_rng(2)
    probs_d = np.r_[np.full(3, 0.6), np.full(10, 0.5)]
    a, b = _bits(g, 20_000, probs_d), _bits(g, 20_000, np.full(13, 0.5))
    names = [nm for nm, _ in screening.fitted_statistics("logistic", a, b, g)]
    assert names == ["logistic", "sparse logistic"]
    assert [nm for nm, _ in screening.fitted_statistics("boosting", a, b, g)] == ["boosting"]


def test_a_feature_constant_on_the_wald_rows_is_not_a_singular_matrix():
    """A feature that is constant on the rows the standard errors are computed on (the first 25,000 of
    each input) but not on all the training rows is collinear with the intercept there: it is dropped
    from the basis.  Before the intercept came first the information matrix was singular: the review
    reproduced a LinAlgError, and on seeds 1, 2 and 4 of these six the noise feature was kept."""
    for seed in range(6):
        g = np.random.default_rng(seed)

        def draw(shift, n=40_000):
            x = g.normal(size=(n, 4)) + np.r_[shift, shift, 0.0, 0.0]
            x[:30_000, 3] = 0.0  # a rare feature without signal: zero on the first 30,000 rows
            return x

        a, b = draw(0.1), draw(0.0)
        sp = sparse_logistic(fit_score(a, b, "logistic", rng=g), a, b)
        w = sp.model[-1].coef_[0]
        assert w[0] > 0 and w[1] > 0 and w[2] == 0.0 and w[3] == 0.0, (seed, w)


def test_bad_inputs_are_refused_naming_the_parameter():
    g = np.random.default_rng(0)
    a, b = g.normal(1, 1, (500, 2)), g.normal(0, 1, (500, 2))
    with pytest.raises(ValueError, match="score"):
        sparse_logistic(object(), a, b)
    s = fit_score(a, b, "logistic", rng=g)
    with pytest.raises(ValueError, match="out_dp"):
        sparse_logistic(s, a, b[:0])
