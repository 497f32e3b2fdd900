"""The primitives a program is written with, and the two contexts that run it.

A program is a plain Python function ``program(ctx, q, **params)`` returning a tuple of outputs; it
draws its noise only through ``ctx``.  A scale ``b`` means the noise Lap(b/ε) of CheckDP's programs,
here geometric (discrete Laplace) with r = e^{−ε/b}; ``None`` means no noise.

- ``ctx.threshold(T, b)`` — T + ρ with ρ ~ geometric(b), the one noise a path conditions on;
- ``ctx.noisy_ge(x, b, thr)`` — is x + Z ≥ thr (Z fresh);
- ``ctx.noisy_gap(x, b, thr, at_least=0)`` — the gap x + Z − thr if it is ≥ ``at_least``, else None;
- ``ctx.noisy_above(x, b, thr, at_least=0)`` — the noisy value x + Z if x + Z − thr ≥ ``at_least``, else None;
- ``ctx.release(x, b, after=None)`` — x + Z (plus the earlier output ``after``), Z fresh and independent;
- ``ctx.argmax(values, b)`` / ``ctx.max_value(values, b)`` — report noisy max (first index wins ties).

:class:`SampleContext` draws the noise from a ``numpy.random.Generator``; :class:`ExactContext` follows
one path of branch decisions (replayed from a prefix) and records the path's weight as factors of the
conditioned ρ and the output slots whose values are random (:class:`OutVar`); :mod:`.law` enumerates
the paths and sums them exactly.

Example
-------
>>> import numpy as np
>>> def prog(ctx, q):
...     thr = ctx.threshold(1, 2)
...     return tuple(int(ctx.noisy_ge(x, 4, thr)) for x in q)
>>> len(prog(SampleContext(np.random.default_rng(0), 1.0), (0, 2)))
2
"""

from __future__ import annotations

import math
import numbers
from fractions import Fraction

from dpverify.validation import check_generator, check_real

__all__ = ["ExactContext", "OutVar", "SampleContext", "Sampled", "Threshold", "noise_scale"]


class Threshold:
    """T + ρ in an exact run (ρ the conditioned noise).

    Example
    -------
    >>> Threshold(3).T
    3
    """

    __slots__ = ("T",)

    def __init__(self, T: int):
        if isinstance(T, bool) or not isinstance(T, numbers.Integral):
            raise TypeError(f"T must be an integer, got {T!r} of type {type(T).__name__}")
        self.T = int(T)


class OutVar:
    """A random output slot of an exact path: ``kind`` with its parameters (x, scale, T, at_least, parent).

    Example
    -------
    >>> OutVar(0, "gap", 2, b=1).shape
    ('$', 'gap', None)
    """

    __slots__ = ("id", "kind", "x", "b", "T", "at_least", "parent")

    def __init__(self, id_, kind, x, b=None, T=0, at_least=0, parent=None):
        self.id, self.kind, self.x, self.b = id_, kind, int(x), b
        self.T, self.at_least, self.parent = T, at_least, parent

    @property
    def shape(self):
        return ("$", self.kind, self.parent)


class Sampled(int):
    """A sampled output value with its slot's kind; ``inc`` is the value minus the ``after`` output.

    Example
    -------
    >>> v = Sampled(5, 0, "release", inc=2)
    >>> int(v), v.inc, v.shape
    (5, 2, ('$', 'release', None))
    """

    def __new__(cls, value, id_, kind, inc=None, parent=None):
        obj = super().__new__(cls, int(value))
        obj.id, obj.kind, obj.inc, obj.parent = id_, kind, int(value if inc is None else inc), parent
        return obj

    @property
    def shape(self):
        return ("$", self.kind, self.parent)


def noise_scale(b: numbers.Real | Fraction | None) -> Fraction | None:
    """A noise scale as an exact ``Fraction`` (a finite number > 0, read at its exact binary value for
    a float), or None (no noise).

    >>> noise_scale(0.5), noise_scale(None)
    (Fraction(1, 2), None)
    """
    if b is None:
        return None
    if isinstance(b, Fraction):
        if b <= 0:
            raise ValueError(f"b (a noise scale) must be a positive number or None, got {b}")
        return b
    if isinstance(b, numbers.Integral) and not isinstance(b, bool):
        b = int(b)
    else:
        b = check_real(b, "b", positive=True)
    if b <= 0:
        raise ValueError(f"b (a noise scale) must be a positive number or None, got {b}")
    return Fraction(b)


class SampleContext:
    """Runs a program on sampled geometric noise (r = e^{−ε/b}) drawn from ``rng``.

    Example
    -------
    >>> import numpy as np
    >>> SampleContext(np.random.default_rng(0), 1.0).release(3, None)   # b=None: no noise
    3
    """

    def __init__(self, rng, epsilon: float):
        check_generator(rng, "rng")
        check_real(epsilon, "epsilon", positive=True)
        self.rng, self.epsilon, self._ids = rng, float(epsilon), 0

    def _z(self, b) -> int:
        if b is None:
            return 0
        p = -math.expm1(-self.epsilon / float(b))  # 1 − r
        return int(self.rng.geometric(p)) - int(self.rng.geometric(p))

    def _new(self, value, kind, inc=None, parent=None):
        self._ids += 1
        return Sampled(value, self._ids - 1, kind, inc, parent)

    def threshold(self, T, b):
        return int(T) + self._z(noise_scale(b))

    def noisy_ge(self, x, b, thr) -> bool:
        return int(x) + self._z(noise_scale(b)) >= int(thr)

    def noisy_gap(self, x, b, thr, at_least=0):
        g = int(x) + self._z(noise_scale(b)) - int(thr)
        return self._new(g, "gap") if g >= at_least else None

    def noisy_above(self, x, b, thr, at_least=0):
        v = int(x) + self._z(noise_scale(b))
        return self._new(v, "value") if v - int(thr) >= at_least else None

    def release(self, x, b, after=None):
        inc = int(x) + self._z(noise_scale(b))
        base = 0 if after is None else int(after)
        return self._new(base + inc, "release" if b is not None else "point", inc,
                         None if after is None else after.id)

    def _winner(self, values, b):
        noisy = [int(v) + self._z(noise_scale(b)) for v in values]
        j = 0
        for i in range(1, len(noisy)):
            if noisy[i] > noisy[j]:
                j = i
        return j, noisy[j]

    def argmax(self, values, b) -> int:
        return self._winner(values, b)[0]

    def max_value(self, values, b):
        return self._new(self._winner(values, b)[1], "maxval")


class ExactContext:
    """Follows the branch decisions ``prefix`` (then the first option) and records the path.

    After a run: ``trace`` (option taken, number of options) per decision; ``rho`` the scale of the
    conditioned noise (None if none); ``factors`` (kind, b, s) of ρ; ``consts`` (b, k, take) for the
    constant factor P(Z ≥ k) (take=True) or its complement; ``lo``/``hi`` the range of ρ; ``outvars``.

    Example
    -------
    >>> ctx = ExactContext()
    >>> ctx.noisy_ge(0, 1, 0), ctx.trace
    (True, [(0, 2)])
    """

    def __init__(self, prefix=()):
        if not isinstance(prefix, (tuple, list)) or not all(
                isinstance(c, numbers.Integral) and not isinstance(c, bool) and c >= 0 for c in prefix):
            raise TypeError(f"prefix must be a tuple of branch choices (integers >= 0), got {prefix!r}"[:300])
        self.prefix, self.trace = tuple(prefix), []
        self.rho, self.factors, self.consts, self.lo, self.hi, self.outvars = None, [], [], None, None, []

    def _choose(self, n: int) -> int:
        i = len(self.trace)
        c = self.prefix[i] if i < len(self.prefix) else 0
        self.trace.append((c, n))
        return c

    def _condition(self, b):
        if self.rho is not None:
            raise ValueError("a path may condition on one noise only (one threshold or one noisy max)")
        self.rho = noise_scale(b)
        self.factors.append(("eq", self.rho, 0))

    def _var(self, kind, x, b=None, T=0, at_least=0, parent=None):
        v = OutVar(len(self.outvars), kind, x, b, T, at_least, parent)
        self.outvars.append(v)
        return v

    def _restrict(self, lo=None, hi=None):
        if lo is not None:
            self.lo = lo if self.lo is None else max(self.lo, lo)
        if hi is not None:
            self.hi = hi if self.hi is None else min(self.hi, hi)

    def threshold(self, T, b):
        self._condition(b)
        return Threshold(T)

    def _compare(self, x, b, thr, at_least=0) -> bool:
        """Branch on x + Z ≥ thr + at_least, recording the factor of the branch taken."""
        b, above = noise_scale(b), self._choose(2) == 0
        if not isinstance(thr, Threshold):
            k = int(thr) + at_least - int(x)
            self.consts.append((b, k, above))
            return above
        s = thr.T + at_least - int(x)  # x + Z ≥ T + ρ + al  ⇔  Z ≥ ρ + s
        if b is None:  # x ≥ T + ρ + al ⇔ ρ ≤ −s
            self._restrict(hi=-s) if above else self._restrict(lo=1 - s)
        else:
            self.factors.append(("ge" if above else "lt", b, s))
        return above

    def noisy_ge(self, x, b, thr) -> bool:
        return self._compare(x, b, thr)

    def _slot(self, kind, x, b, thr, at_least):
        if not isinstance(thr, Threshold) or b is None:
            raise ValueError(f"{kind} needs a noisy threshold from ctx.threshold and a noise scale")
        if self._choose(2) == 1:
            self.factors.append(("lt", noise_scale(b), thr.T + at_least - int(x)))
            return None
        return self._var(kind, x, noise_scale(b), thr.T, at_least)

    def noisy_gap(self, x, b, thr, at_least=0):
        return self._slot("gap", x, b, thr, at_least)

    def noisy_above(self, x, b, thr, at_least=0):
        return self._slot("value", x, b, thr, at_least)

    def release(self, x, b, after=None):
        parent = None if after is None else after.id
        return self._var("release" if b is not None else "point", x, noise_scale(b), parent=parent)

    def _winner(self, values, b) -> int:
        vals = [int(v) for v in values]
        j = self._choose(len(vals))
        self._condition(b)  # ρ = Z_j; j wins iff earlier values < q_j + ρ and later ones ≤ q_j + ρ
        for i, v in enumerate(vals):
            if i != j:
                self.factors.append(("lt", self.rho, vals[j] - v + (i > j)))
        return j

    def argmax(self, values, b) -> int:
        return self._winner(values, b)

    def max_value(self, values, b):
        j = self._winner(values, b)
        return self._var("maxval", int(values[j]))
