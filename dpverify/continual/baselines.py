"""The baselines of Cai, Wu and Wang's paper, §5: binary mechanism (Chan–Shi–Song), Boost (Hay et al.), Privelet
(Xiao et al.) and Honaker's estimator — each with its exact per-release MSE.

Every method is a factorization W = R·A with max column l1 norm of A at most 1
(``strategy``), released as ``R (A a + Lap(1/ε))``; the exact MSE is
``(2/ε²) diag(R Rᵀ)``, computed here in closed form in O(n log n).

- ``binary`` — Chan, Shi, Song (2011), Alg. 2 "Binary Mechanism B" for T = n
  releases: p-sums α_i over ``(t − 2^i, t]`` with i the lowest set bit of t,
  each noisy with Lap(L/ε); s_t is the sum of the noisy p-sums of the set bits
  of t.  L counts the p-sums one count can fall in, ``floor(log2 n) + 1``
  (the paper writes ε' = ε/log T; with ``floor + 1`` the release is exactly
  ε-DP).  MSE(t) = 2 L² popcount(t) / ε².  Online.
- ``boost`` — Hay, Rastogi, Miklau, Suciu (2010): complete binary tree over
  n = 2^m leaves, ℓ = m + 1 levels, Lap(ℓ/ε) on every node, then the least
  squares (consistency) estimate by the two-pass algorithm; prefix t is the sum
  of the first t consistent leaves.  Static.
- ``privelet`` — Xiao, Wang, Gehrke (2011): Haar wavelet coefficients of the
  n = 2^m counts, coefficient c with weight W(c) (n for the base, 2^h for a
  node over 2^h leaves) gets Lap(ρ/(ε W(c))), ρ = 1 + log2 n; inverse
  transform.  Static.
- ``honaker`` — Honaker (2015) on the complete k-ary tree (default k = 2) in
  the online setting: at time t, the minimum-variance linear unbiased
  estimate of s_t from every node measured so far (the aligned blocks inside
  [1, t]); per-level budget shares λ_j, Σ λ_j <= 1 (default uniform 1/L, the
  classical tree; ``weights="optimized"`` tunes them).  Online.  (Honaker's
  *offline* estimator from the whole tree is the least squares estimate of
  Boost; ``tests/continual/test_baselines_exact.py`` checks they coincide.)

The exact variances (``continual/baselines_variance.md``): the Haar
vectors ψ_u diagonalise HᵀH of the complete binary tree (eigenvalue 2^h − 1
for a node over 2^h leaves, 2n − 1 for the constant vector), and the prefix
indicator meets only the ψ_u of the blocks that straddle t, with
``wᵀψ_u = min(x, 2^h − x)``, x = t mod 2^h.

Example
-------
>>> import numpy as np
>>> from dpverify.continual import expected_mse
>>> expected_mse(4, 1.0, "binary").tolist()   # 2 · 3² · popcount(t)
[18.0, 18.0, 36.0, 18.0]
"""

from __future__ import annotations

from dpverify.continual.trees import (  # noqa: F401
    DENSE_LIMIT,
    haar_basis,
    log2_exact,
    bit_counts,
    prefix_matrix,
    straddle_sum,
    tree_levels,
    static_total_mse,
    tree_matrix,
)
from dpverify.continual.binary import *  # noqa: F401,F403
from dpverify.continual.binary import __all__ as _b
from dpverify.continual.boost import *  # noqa: F401,F403
from dpverify.continual.boost import __all__ as _bo
from dpverify.continual.honaker import *  # noqa: F401,F403
from dpverify.continual.honaker import __all__ as _h
from dpverify.continual.privelet import *  # noqa: F401,F403
from dpverify.continual.privelet import __all__ as _p

__all__ = [*_b, *_bo, *_p, *_h, "tree_matrix", "static_total_mse"]
