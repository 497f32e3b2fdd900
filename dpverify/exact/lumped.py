"""The two-sided geometric mechanism as a finite symbolic law: its unbounded tails lumped into two cells.

The mechanism releases d + Z on an integer d, with P(Z = z) = (1 − r)/(1 + r) · r^{|z|} and
r = e^{−ε/b} (b = Δ/ε's numerator: the scale in units of 1/ε, an exact positive rational). Its outputs
are all integers, but on the inputs ``lo ≤ d ≤ hi`` of a finite set of pairs the outputs below ``lo``
and above ``hi`` can be lumped without changing any privacy question: for y < lo,
P(y | d) = c·r^{d − y}, so the ratio P(y | d)/P(y | d′) = r^{d − d′} is the same for every y of the
cell, and likewise above ``hi``. On a cell where p_y = κ·q_y for all y, Σ_y max(0, p_y − e^ε q_y) =
max(0, P(cell) − e^ε Q(cell)): the lumped law has the same pure-ε decision and the same δ(ε) (the
hockey-stick divergence) as the mechanism (proof: ``exact/lumped.md``). The cells' masses are the geometric sums

    P(y ≤ lo − 1 | d) = r^{d − lo + 1}/(1 + r),    P(y ≥ hi + 1 | d) = r^{hi + 1 − d}/(1 + r),

and the single outputs lo..hi keep c·r^{|y − d|}. Each row sums to 1 identically (checked by
:func:`dpverify.exact.prove` before any proof).

Example
-------
>>> import sympy as sp
>>> e = sp.Symbol("epsilon", positive=True)
>>> law = GeometricLaw(((0, 1),), 1)(e)
>>> law.outputs, law.matrix.shape
(('< 0', 0, 1, '> 1'), (2, 4))
>>> sp.simplify(sum(law.matrix.row(0)))
1
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from dpverify.proofdocs import proven

__all__ = ["GeometricLaw"]


@dataclass(frozen=True)
class GeometricLaw:
    """``epsilon -> SymbolicLaw`` of the two-sided geometric mechanism on the inputs of ``pairs``.

    Parameters
    ----------
    pairs : tuple of (d, d′) integer pairs (the mechanism's neighbouring inputs)
    scale : positive int or Fraction
        b in r = e^{−ε/b} (the sensitivity Δ for the geometric mechanism calibrated to ε).

    Example
    -------
    >>> import sympy as sp
    >>> law = GeometricLaw(((0, 2),), 2)(sp.Symbol("epsilon", positive=True))
    >>> law.inputs, law.pairs
    ((0, 2), ((0, 1), (1, 0)))
    """

    pairs: tuple
    scale: object = 1

    def __post_init__(self):
        if isinstance(self.scale, bool) or not isinstance(self.scale, (numbers.Rational, Fraction)) or self.scale <= 0:
            raise ValueError(f"scale must be a positive int or Fraction, got {self.scale!r}")
        if isinstance(self.pairs, np.ndarray) and self.pairs.ndim == 2 and self.pairs.size <= 2000:
            object.__setattr__(self, "pairs", tuple(map(tuple, self.pairs.tolist())))  # an (n, 2) array of pairs
        if not isinstance(self.pairs, (tuple, list)) or not self.pairs or len(self.pairs) > 1000:
            raise ValueError(f"pairs must be a non-empty tuple of (d, d_prime) integer pairs, got {self.pairs!r:.80}")
        clean = []
        for p in self.pairs:
            if not isinstance(p, (tuple, list)) or len(p) != 2:
                raise ValueError(f"pairs must hold (d, d_prime) integer pairs, got {p!r:.80}")
            a, b = (_integer(v) for v in p)
            if a == b:
                raise ValueError(f"pairs must hold two different inputs, got {p!r:.80}")
            clean.append((a, b))
        vals = [v for p in clean for v in p]
        if max(vals) - min(vals) > 64:
            raise ValueError(f"pairs must span at most 64 integers (one output column each), got {min(vals)}..{max(vals)}")
        object.__setattr__(self, "pairs", tuple(clean))

    @proven("exact/lumped.md")
    def __call__(self, epsilon):
        import sympy as sp

        from dpverify.mechanisms.protocol import SymbolicLaw

        inputs = tuple(sorted({v for p in self.pairs for v in p}))
        lo, hi = inputs[0], inputs[-1]
        r = sp.exp(-epsilon / sp.Rational(Fraction(self.scale)))
        c = (1 - r) / (1 + r)
        rows = [[r ** (d - lo + 1) / (1 + r)] + [c * r ** abs(y - d) for y in range(lo, hi + 1)]
                + [r ** (hi + 1 - d) / (1 + r)] for d in inputs]
        index = {d: i for i, d in enumerate(inputs)}
        pairs = tuple(dict.fromkeys(q for a, b in self.pairs for q in ((index[a], index[b]), (index[b], index[a]))))
        return SymbolicLaw(epsilon, sp.Matrix(rows), inputs=inputs, pairs=pairs,
                           outputs=(f"< {lo}", *range(lo, hi + 1), f"> {hi}"))


def _integer(v) -> int:
    """An integer input (an int, an integer-valued float or a 0-d array of one)."""
    try:
        f = float(v)
    except (TypeError, ValueError):
        raise ValueError(f"pairs must hold integer inputs, got {v!r:.80}") from None
    if not np.isfinite(f) or abs(f) > 2 ** 53 or f != round(f):
        raise ValueError(f"pairs must hold integer inputs, got {v!r:.80}")
    return int(f)
