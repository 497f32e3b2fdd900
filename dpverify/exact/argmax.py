"""Report noisy max with exponential noise: its exact law in ε, for a finite set of score vectors.

The mechanism outputs argmax_i (q_i + E_i) with E_i i.i.d. exponential of rate λ = ε/b (scale b/ε).
Write u = e^{−λx}. Candidate i wins at x = q_i + E_i when every other q_j + E_j < x; P(q_j + E_j < x) =
(1 − e^{λ q_j} u) when x > q_j, else 0, and E_i has density λ e^{−λ(x − q_i)} on x ≥ q_i. With dx =
−du/(λu) the density term becomes e^{λ q_i} du, and every factor is positive exactly for
u < e^{−λ max_j q_j}, so (ties have probability 0)

    P(argmax = i) = e^{λ q_i} ∫_0^{e^{−λ q_max}} Π_{j≠i} (1 − e^{λ q_j} u) du,

a polynomial integral: a rational function of e^{λ·q} (of e^{ε/L} for rational scores). Report noisy
max with exponential noise of scale 2/ε is ε-DP on scores that move by at most 1 (it is
permute-and-flip; McKenna and Sheldon 2020, Ding et al. 2021).

Example
-------
>>> import sympy as sp
>>> e = sp.Symbol("epsilon", positive=True)
>>> law = ArgmaxExpLaw((((0, 0), (1, 0)),), 2)(e)
>>> sp.simplify(law.matrix[0, 0])
1/2
>>> sp.simplify(sum(law.matrix.row(1)))
1
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

__all__ = ["ArgmaxExpLaw"]


@dataclass(frozen=True)
class ArgmaxExpLaw:
    """``epsilon -> SymbolicLaw`` of report noisy max with exponential noise of scale ``scale``/ε.

    Parameters
    ----------
    pairs : tuple of (q, q′) pairs of score vectors (one length, at most 8 candidates, finite entries)
    scale : positive int or Fraction
        b: the noise is exponential of mean b/ε (rate ε/b).

    Example
    -------
    >>> import sympy as sp
    >>> law = ArgmaxExpLaw((((0, 0, 0), (1, 0, 0)),), 2)(sp.Symbol("epsilon", positive=True))
    >>> law.inputs, law.outputs
    (((0, 0, 0), (1, 0, 0)), (0, 1, 2))
    """

    pairs: tuple
    scale: object = 2

    def __post_init__(self):
        if isinstance(self.scale, bool) or not isinstance(self.scale, (numbers.Rational, Fraction)) or self.scale <= 0:
            raise ValueError(f"scale must be a positive int or Fraction, got {self.scale!r}")
        if isinstance(self.pairs, np.ndarray) and self.pairs.ndim == 3 and self.pairs.shape[1] == 2 and self.pairs.size <= 1600:
            object.__setattr__(self, "pairs", tuple(tuple(map(tuple, p)) for p in self.pairs.tolist()))
        if not isinstance(self.pairs, (tuple, list)) or not self.pairs or len(self.pairs) > 100:
            raise ValueError(f"pairs must be a non-empty tuple of (q, q_prime) score-vector pairs, got {self.pairs!r:.80}")
        clean = []
        for p in self.pairs:
            if not isinstance(p, (tuple, list)) or len(p) != 2:
                raise ValueError(f"pairs must hold (q, q_prime) pairs of score vectors, got {p!r:.80}")
            clean.append(tuple(_scores(v) for v in p))
        k = len(clean[0][0])
        if any(len(v) != k for p in clean for v in p) or not 1 <= k <= 8:
            raise ValueError(f"pairs must hold score vectors of one length between 1 and 8, got {self.pairs!r:.80}")
        if any(a == b for a, b in clean):
            raise ValueError(f"pairs must hold two different score vectors, got {self.pairs!r:.80}")
        object.__setattr__(self, "pairs", tuple(clean))

    def _row(self, q, lam, sp):
        u = sp.Symbol("u", positive=True)
        top = sp.exp(-lam * max(q))
        row = []
        for i, qi in enumerate(q):
            poly = sp.prod([1 - sp.exp(lam * qj) * u for j, qj in enumerate(q) if j != i])
            row.append(sp.expand(sp.exp(lam * qi) * sp.integrate(sp.expand(poly), (u, 0, top))))
        return row

    def __call__(self, epsilon):
        import sympy as sp

        from dpverify.mechanisms.protocol import SymbolicLaw

        inputs = tuple(dict.fromkeys(v for p in self.pairs for v in p))
        lam = epsilon / sp.Rational(Fraction(self.scale))
        rows = [self._row([sp.Rational(x) for x in q], lam, sp) for q in inputs]
        index = {v: i for i, v in enumerate(inputs)}
        pairs = tuple(dict.fromkeys(t for a, b in self.pairs for t in ((index[a], index[b]), (index[b], index[a]))))
        return SymbolicLaw(epsilon, sp.Matrix(rows), inputs=tuple(tuple(_plain(x) for x in v) for v in inputs),
                           pairs=pairs, outputs=tuple(range(len(inputs[0]))))


def _scores(v) -> tuple:
    """A score vector as a tuple of exact Fractions (floats read exactly)."""
    a = np.asarray(v, dtype=object).ravel() if isinstance(v, np.ndarray) else v
    if not isinstance(a, (tuple, list, np.ndarray)) or not len(a):
        raise ValueError(f"pairs must hold non-empty score vectors, got {v!r:.80}")
    out = []
    for x in a:
        if isinstance(x, bool) or not isinstance(x, (numbers.Real, np.floating, np.integer)) or not np.isfinite(float(x)):
            raise ValueError(f"pairs must hold finite real scores, got {x!r:.80}")
        out.append(Fraction(float(x)) if isinstance(x, (float, np.floating)) else Fraction(int(x)) if isinstance(
            x, (numbers.Integral, np.integer)) else Fraction(x))
    return tuple(out)


def _plain(x: Fraction):
    """An integer score as an int, other scores as floats (the row labels)."""
    return int(x) if x.denominator == 1 else float(x)
