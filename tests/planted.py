"""Planted wrong laws that several tests use to show a check can flip (one copy of each)."""

from __future__ import annotations

import sympy as sp


def doubled_krr_law(k: int, e):
    """k-RR's symbolic law with keep probability e^{2ε}/(e^{2ε} + k − 1): exactly 2ε-DP, not ε-DP."""
    from dpverify.mechanisms.protocol import SymbolicLaw

    E = sp.exp(2 * e)
    M = sp.Matrix(k, k, lambda i, o: (E if i == o else 1) / (E + k - 1))
    return SymbolicLaw(e, M, inputs=tuple(range(k)), pairs=tuple((i, j) for i in range(k) for j in range(k) if i != j))
