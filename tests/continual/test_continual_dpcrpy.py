"""Cross-check with dpcrpy (the FDA authors' package), skipped when it is not installed."""

import numpy as np
import pytest

from dpverify.continual import expected_mse

dpcrpy = pytest.importorskip("dpcrpy")


@pytest.mark.parametrize("k", [1, 2, 3, 6, 10])
def test_fda_per_release_mse_matches_dpcrpy(k):
    n = 2**k - 1
    m = dpcrpy.FDA(kOrder=k, noiMech=dpcrpy.noiMech.LapNoiMech(epsilon=0.7))
    theirs = np.array([m.dpRelease(1)[1] for _ in range(n)])
    ours = expected_mse(n, 0.7, "fda")
    assert np.max(np.abs(ours / theirs - 1)) < 1e-9
