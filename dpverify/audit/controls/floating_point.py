"""The floating-point attack on textbook Laplace sampling (Mironov, CCS 2012).

The textbook mechanism computes f(D) + Y with Y = −b·sgn(r)·ln(1 − 2|r|), r uniform, in
double precision.  The outputs it can produce depend on f(D): with f(D) = 0 an output x with
|x| < 1/2 is Y itself, a double on a fine grid; with f(D′) = 1 it is 1 + Y with Y ∈ (−3/2, −1/2),
an exact sum (Sterbenz) that lands on the coarse grid 2⁻⁵³ℤ.  The event "x is off the grid
2⁻⁵³ℤ" has positive probability under D and probability 0 under D′: the privacy loss is
unbounded whatever ε is claimed.

The textbook release and the library's float and safe releases (``LibraryLaplace``,
``SafeLaplace``: the primitives room's code, so in :mod:`dpverify.selftest.controls`) are
:class:`~dpverify.mechanisms.Mechanism` instances over real scalars (``relation``: |d − d′| ≤ Δ)
sharing :class:`ScalarRelease`, each claiming ε-DP.  :class:`OffGrid` is that event as an auditor statistic.

The same holds for any f(D) + (floating Laplace noise), e.g. numpy's ``Generator.laplace``.
The safe alternative, :func:`dpverify.primitives.additive.safe_laplace_mechanism`, releases on a
power-of-two grid with integer noise, so every output is reachable from every input.

:class:`OffGrid` and :func:`fp_attack_statistic` are the attack for f(D) = 0 only.  For any pair of
answers the auditor uses :class:`~dpverify.audit.float_grid.FloatReach` (which doubles fl(c + z) can
reach from each answer c; ``statistic="offgrid"`` and, for float outputs, ``"auto"``).  The three
releases here declare ``ideal_arithmetic = False``: their floating-point artefacts are part of what
they claim, and ``"auto"`` looks for them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from dpverify.audit.controls.base import Control
from dpverify.mechanisms.relations import Neighbours
from dpverify.validation import check_epsilon, check_int_in, check_real

__all__ = ["OffGrid", "ScalarRelease", "TextbookLaplace", "fp_attack_statistic"]


@dataclass(frozen=True)
class ScalarRelease(Control):
    """What the three releases share: f(D) = ``data`` (a real), sensitivity Δ, claimed ε-DP, and the
    relation |d − d′| ≤ Δ over real scalars.

    Example
    -------
    >>> TextbookLaplace(0.5, sensitivity=2.0).relation.bound, TextbookLaplace(1.0).claim
    (2.0, PureDP(epsilon=1.0))
    """

    epsilon: float
    sensitivity: float = 1.0
    ideal_arithmetic = False  # released in doubles: the claim covers the float artefacts (screening's auto)

    def __post_init__(self):
        check_epsilon(self.epsilon)
        check_real(self.sensitivity, "sensitivity", positive=True)

    @property
    def relation(self) -> Neighbours:
        """Real answers differing by at most the sensitivity."""
        return Neighbours(shape=(), kind="l1", bound=self.sensitivity, default_domain=True,  # any real answer
                          description=f"|d - d'| <= {self.sensitivity:g}")


@dataclass(frozen=True)
class TextbookLaplace(ScalarRelease):
    """f(D) + Y, Y = −b·sgn(r)·ln(1 − 2|r|), r ~ U(−1/2, 1/2) in doubles; b = Δ/ε (``data`` = f(D)).

    Example
    -------
    >>> TextbookLaplace(1.0)(0.0, np.random.default_rng(0), 4).shape
    (4,)
    """

    def __call__(self, data, rng, n):
        b = self.sensitivity / self.epsilon
        r = rng.random(n) - 0.5
        r = np.where(r == -0.5, np.nextafter(-0.5, 0.0), r)  # keep ln finite
        return float(data) + (-b * np.sign(r) * np.log1p(-2.0 * np.abs(r)))


@dataclass(frozen=True)
class OffGrid:
    """Statistic: 1 when the output is not a multiple of 2^exponent, else 0 (int64).

    Example
    -------
    >>> OffGrid(-10)(np.array([0.5, 2.0**-11])).tolist()   # 1 marks values off the 2^-10 grid
    [0, 1]
    """

    exponent: int = -53

    def __post_init__(self):
        # a double's binades span 2^-1074..2^1023: grids beyond ±4096 say nothing more (and ldexp needs an int32)
        object.__setattr__(self, "exponent", check_int_in(self.exponent, "exponent", -4096, 4096))

    def __call__(self, out) -> np.ndarray:
        scaled = np.ldexp(np.asarray(out, dtype=float), -self.exponent)  # exact: a power-of-two scaling
        return (scaled != np.floor(scaled)).astype(np.int64)


def fp_attack_statistic(shift: float = 1.0) -> OffGrid:
    """The grid test for inputs whose answers differ by ``shift`` when f(D) = 0, f(D′) = shift (for
    any other pair: :class:`~dpverify.audit.float_grid.FloatReach`).

    Outputs of f(D′) + Y within |x| < shift/2 come from Y ∈ (−3/2·shift, −1/2·shift), where
    shift + Y is exact and a multiple of ulp(shift/2) = 2^(⌊log2 shift⌋ − 53).

    Example
    -------
    >>> fp_attack_statistic(1.0)
    OffGrid(exponent=-53)
    """
    s = check_real(shift, "shift", positive=True)
    return OffGrid(math.floor(math.log2(s)) - 53)
