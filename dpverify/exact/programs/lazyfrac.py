"""Sums of products in Q(t) without a gcd at every step: the fast inner loop of :func:`.geometric.path_sum`.

An element of Q(t) (``FIELD``) is reduced after every operation (a polynomial gcd), and a path's sum
adds hundreds of terms whose denominators are products of a few known polynomials: 1 + t^a (from a
noise's normalising constant), 1 − t^e (from a geometric series) and t (a negative power).  A
:class:`Frac` keeps its denominator as such a product, ``{atom: power}``: a product adds powers, a sum
brings both numerators to the larger power of each atom (a common multiple, never a gcd).  The value is
the same element of Q(t); :meth:`Frac.to_field` reduces it once at the end.

Example
-------
>>> from dpverify.exact.programs.geometric import FIELD, T
>>> x = Frac.power(-2) * Frac.one_over_1_plus(1) + Frac.const(3)
>>> x.to_field() == T ** -2 / (1 + T) + 3
True
"""

from __future__ import annotations

from fractions import Fraction
from numbers import Rational

from sympy import QQ
from sympy.polys.fields import field

__all__: list[str] = []  # internal to dpverify.exact.programs (geometric.path_sum)

FIELD, _T = field("t", QQ)  # the same field as geometric.FIELD (sympy caches fields by symbols and domain)
_RING = FIELD.ring
_t = _RING.gens[0]
_ATOMS: dict = {}


def _atom(kind: str, k: int):
    """The polynomial 1 + t^k (kind "+"), 1 − t^k ("-") or t ("t"), one object per atom."""
    key = (kind, k)
    if key not in _ATOMS:
        _ATOMS[key] = _t if kind == "t" else (_RING.one + _t ** k if kind == "+" else _RING.one - _t ** k)
    return _ATOMS[key]


class Frac:
    """num / Π atom^power, with ``num`` a polynomial in QQ[t] and ``den`` a dict {atom polynomial: power}.

    Example
    -------
    >>> (Frac.power(1) + Frac.power(-1)).to_field()
    (t**2 + 1)/t
    """

    __slots__ = ("num", "den")

    def __init__(self, num, den=None):
        self.num, self.den = num, den or {}

    @staticmethod
    def const(c) -> "Frac":
        return Frac(_RING.one * QQ(c.numerator, c.denominator) if isinstance(c, Fraction) else _RING(c))

    @staticmethod
    def power(e: int) -> "Frac":
        """t^e for an integer e (a negative e: the atom t in the denominator)."""
        return Frac(_t ** e) if e >= 0 else Frac(_RING.one, {_atom("t", 1): -e})

    @staticmethod
    def one_over_1_plus(a: int) -> "Frac":
        return Frac(_RING.one, {_atom("+", a): 1})

    @staticmethod
    def one_over_1_minus(e: int) -> "Frac":
        """1 / (1 − t^e) for an integer e ≠ 0 (e < 0: −t^k/(1 − t^k), k = −e)."""
        if e > 0:
            return Frac(_RING.one, {_atom("-", e): 1})
        return Frac(-_t ** (-e), {_atom("-", -e): 1})

    def _lift(self, other):
        if isinstance(other, Frac):
            return other
        if isinstance(other, (int, Rational)):
            return Frac.const(Fraction(other))
        return NotImplemented

    def __mul__(self, other):
        other = self._lift(other)
        if other is NotImplemented:
            return other
        den = dict(self.den)
        for a, k in other.den.items():
            den[a] = den.get(a, 0) + k
        return Frac(self.num * other.num, den)

    __rmul__ = __mul__

    def __add__(self, other):
        other = self._lift(other)
        if other is NotImplemented:
            return other
        if not other.num:
            return self
        if not self.num:
            return other
        den = dict(self.den)
        for a, k in other.den.items():
            if k > den.get(a, 0):
                den[a] = k
        return Frac(self._scaled(den) + other._scaled(den), den)

    __radd__ = __add__

    def _scaled(self, den):
        num = self.num
        for a, k in den.items():
            extra = k - self.den.get(a, 0)
            if extra:
                num = num * a ** extra
        return num

    def __neg__(self):
        return Frac(-self.num, self.den)

    def __sub__(self, other):
        other = self._lift(other)
        return NotImplemented if other is NotImplemented else self + (-other)

    def __rsub__(self, other):
        return (-self) + other

    def __eq__(self, other):
        if isinstance(other, (int, Rational)) and other == 0:
            return not self.num
        return NotImplemented

    def __ne__(self, other):
        eq = self.__eq__(other)
        return eq if eq is NotImplemented else not eq

    __hash__ = None

    def to_field(self):
        """The element of ``FIELD`` (reduced once)."""
        den = _RING.one
        for a, k in self.den.items():
            den = den * a ** k
        return FIELD.new(self.num, den)
