"""The pca room: PPCA and PPCA-DP data publishing (Gu, Zhang and Song's paper), the PCA-based PPDP baseline,
a corrected ε-DP variant, their evaluation on UCI Adult / MAGIC, and the audit of Theorem 3.

Example
-------
>>> import numpy as np
>>> from dpverify.pca import PPCA, PPCADP
>>> X = np.random.default_rng(0).uniform(size=(100, 5))
>>> PPCADP(k=2, epsilon=1.0).fit_publish(X, rng=0).shape
(100, 5)
"""

from dpverify.pca.corrected import CorrectedPPCADP
from dpverify.pca.pca_ppdp import PCABasedPPDP
from dpverify.pca.ppca import PPCA, PPCAFit, fit_ppca
from dpverify.pca.ppca_dp import PPCADP, paper_sensitivity

__all__ = ["PPCA", "PPCADP", "PCABasedPPDP", "CorrectedPPCADP", "PPCAFit", "fit_ppca", "paper_sensitivity"]
