"""The cell masses of one DP-SGD step's output law, shared by the bracket's composition and its variance bound.

One step's output law is the Gaussian mixture ``(1 − q)·N(0, σ²) + q·N(1, σ²)`` ("remove" order) or
``N(0, σ²)`` ("add" order). Each cell ``(x_k, x_{k+1}]`` of a grid of ``x`` gets, per component, its
probability from ``ndtr``, taken from the tail where that is small (no cancellation near 1): the
masses :mod:`dpverify.conform.pld` and :mod:`dpverify.conform.bracket_var` both start from
(proof ``conform/proofs/bracket.md``, step 1 and assumption 2).

Example
-------
>>> import numpy as np
>>> x = np.array([-np.inf, 0.0, np.inf])
>>> [(w, mu, float(mc.sum())) for w, mu, _, _, _, mc in component_cells(x, 1.0, 0.5, "remove")]
[(0.5, 0.0, 1.0), (0.5, 1.0, 1.0)]
"""

from __future__ import annotations

import numpy as np
from scipy.special import ndtr

__all__: list[str] = []  # helpers of dpverify.conform.pld and bracket_var, not API

U = float(np.finfo(float).eps) / 2  # the unit round-off of IEEE doubles
NDTR_REL = 2e-13  # assumed relative error of scipy.special.ndtr (Cephes documents <= 3.4e-14)


def component_cells(x: np.ndarray, sigma: float, q: float, order: str):
    """For each mixture component ``(w, mu)`` of weight > 0: ``(w, mu, z, lower, upper, mc)`` with
    ``z = (x − mu)/σ``, ``lower = Φ(z)``, ``upper = Φ(−z)`` and ``mc`` the component's mass of each cell
    (not clipped: a cell's rounding can make it slightly negative)."""
    comps = [(1.0 - q, 0.0), (q, 1.0)] if order == "remove" else [(1.0, 0.0)]
    for w, mu in comps:
        if w == 0.0:
            continue
        z = (x - mu) / sigma
        lower, upper = ndtr(z), ndtr(-z)
        yield w, mu, z, lower, upper, np.where(upper[1:] < 0.5, upper[:-1] - upper[1:], lower[1:] - lower[:-1])
