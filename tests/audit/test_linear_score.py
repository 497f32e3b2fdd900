"""The logistic classifier's score, folded into one pass over the outputs, equals the fitted
scikit-learn pipeline's decision function on the feature map."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpverify.audit.classifiers import FeatureMap, _linear_features, fit_score


@settings(max_examples=30, deadline=None)
@given(st.integers(1, 6), st.integers(0, 2**32 - 1), st.booleans())
def test_folded_score_equals_the_pipeline(width, seed, discrete):
    g = np.random.default_rng(seed)
    def draw(shift, n):
        if discrete:
            return g.integers(-1, 2, (n, width)) + (g.random((n, width)) < 0.1 * shift)
        x = g.normal(shift, 1.0, (n, width))
        x[g.random(x.shape) < 0.3] = -1000.0  # a flag
        return x
    a, b = draw(1, 400), draw(0, 400)
    s = fit_score(a, b, "logistic", rng=g)
    x = draw(1, 50)
    before = x.copy()
    ref = s.model.decision_function(_linear_features(s.features(x), s.features.width))
    np.testing.assert_allclose(s(x), ref, rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(x, before)
    np.testing.assert_array_equal(s.features.linear(x), _linear_features(s.features(x), s.features.width))


def test_linear_score_refuses_weights_of_the_wrong_length():
    fm = FeatureMap.fit(np.zeros((10, 3)))
    with pytest.raises(ValueError, match="weights"):
        fm.linear_score(np.zeros((2, 3)), np.zeros(5), 0.0)


def test_nan_entries_become_zero_with_an_indicator_as_before():
    g = np.random.default_rng(0)
    x = g.normal(size=(2000, 3))
    x[::5, 0] = np.nan
    s = fit_score(x, g.normal(size=(2000, 3)), "logistic", rng=g)
    ref = s.model.decision_function(_linear_features(s.features(x), 3))
    np.testing.assert_allclose(s(x), ref, rtol=1e-12, atol=1e-12)
