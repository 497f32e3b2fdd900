"""Floating-point statistics: which doubles an additive release fl(c + Z) can produce around a centre c.

A float release of an answer c = f(D) computes x = fl(c + Z), Z a double drawn by the noise sampler
(numpy's and diffprivlib's Laplace and Gaussian, the textbook inverse-CDF Laplace: all of this form).
Which doubles x can come out depends on c, not only on the law of Z (Mironov, CCS 2012): for a double
x there is a double z with fl(c + z) = x only when the doubles near the real x − c are spaced finely
enough for one to round onto x.  When |x − c| lies in a higher binade than |x| (the noise carried the
output across zero, or down one binade or more), the doubles near x − c are coarser than those near
x, and only the outputs on a coarser grid — in the right residue class — are reachable
(``dpverify/audit/proofs/auditor_fp.md``, "Any pair of answers").

- :func:`reachable` decides exactly, for each output, whether some double z gives fl(c + z) = x;
- :class:`FloatReach` — the statistic when the two centres are known (the audited input is the
  answer itself: a scalar release or a vector released entry by entry): the code
  reach(c) + 2·reach(c′) per output, 0..3.  An output reachable from c only has probability 0 under
  D′ whatever the noise's law: the event {code = 1} has an unbounded likelihood ratio;
- :class:`FloatPrecision` — the centre-free statistic (the answer is computed from the input inside
  the mechanism, e.g. a mean): the output's sign, binade and lowest set bit, in a window around the
  centres' grid.  It sees the binade-level constraints, not those that need the centre's exact bits.

Any statistic fixed before the estimation draws gives valid bounds (``auditor_validity.md``), so a
mechanism that does not compute fl(c + Z) (OpenDP's exact samplers, a grid release) is never
refuted by these codes beyond its true ε; they only lose their power there.

Example
-------
>>> x = 5.0 + np.array([-3.5, -3.5 + 2.0**-51])  # outputs 1.5 and 1.5 + 2^-51 in the binade [1, 2)
>>> reachable(x, 5.0).tolist(), reachable(x, 6.0).tolist()
([True, True], [True, False])
>>> FloatReach((5.0,), (6.0,))(x).tolist()          # 1.5 + 2^-51 can only come from the centre 5
[3, 1]
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from dpverify.validation import check_bool, check_elements

__all__ = ["FloatPrecision", "FloatReach", "centres_of", "check_pair", "float_statistics", "is_float_output", "reachable"]

_WINDOW_BINADES = 24  # binades below the larger centre that keep a code of their own
_LSB_BELOW, _LSB_ABOVE = 3, 2  # lowest-set-bit positions kept around the centre's ulp exponent


def reachable(x, c) -> np.ndarray:
    """Whether each output ``x`` is fl(c + z) for some double z (round to nearest, ties to even): exact.

    The reals r with fl(c + r) = x form an interval containing x − c (rounding is monotone and
    c + (x − c) = x).  If it holds a double, it holds the nearest double to x − c on that side, which
    is s = fl(x − c) or one of its two neighbours; so the three candidates decide it exactly.
    ``c`` broadcasts against ``x`` (a scalar, or one centre per column).

    >>> reachable(np.array([0.25 + 2.0**-54, 0.25 + 2.0**-53]), 1.0).tolist()   # 1 + z lands on 2^-53 ℤ
    [False, True]
    >>> reachable(np.array([0.1, -7.3]), 0.0).tolist()                          # c = 0 reaches every double
    [True, True]
    >>> reachable(["a"], 0.0)
    Traceback (most recent call last):
    ...
    TypeError: x must hold real numbers, got dtype <U1
    """
    x, c = _finite_reals(x, "x"), _finite_reals(c, "c")
    try:
        np.broadcast_shapes(x.shape, c.shape)
    except ValueError:
        raise ValueError(f"c must broadcast against x, got shapes {c.shape} and {x.shape}") from None
    return _reach(x, c)


def _reach(x: np.ndarray, c: np.ndarray) -> np.ndarray:
    """:func:`reachable` on float arrays, unchecked (a mechanism's ±inf/NaN outputs: inf reachable, NaN not)."""
    with np.errstate(all="ignore"):
        s = x - c
        ok = (c + s) == x  # proof: reach-three
        ok |= (c + np.nextafter(s, -np.inf)) == x  # proof: reach-three
        ok |= (c + np.nextafter(s, np.inf)) == x  # proof: reach-three
    return ok


def _finite_reals(v, name: str) -> np.ndarray:
    """A float array of finite reals (bools refused: a flag is no released number nor a centre)."""
    if isinstance(v, (bool, np.bool_)) or np.asarray(v).dtype.kind == "b":
        raise TypeError(f"{name} must hold real numbers, got a bool {v!r}"[:200])
    a = _reals(v, name)
    if not np.isfinite(a).all():
        raise ValueError(f"{name} must hold finite reals, got {float(a[~np.isfinite(a)].ravel()[0])!r} in it")
    return a


def _reals(v, name: str) -> np.ndarray:
    a = np.asarray(v)
    if a.dtype.kind not in "biuf":
        raise TypeError(f"{name} must hold real numbers, got dtype {a.dtype}")
    check_elements(a, name)
    return a.astype(float, copy=False)


def _centre(c, name: str) -> tuple:
    if isinstance(c, np.ndarray) and c.ndim == 1 and c.dtype.kind in "iuf":
        check_elements(c, name, itemsize=32)
        c = tuple(c.tolist())  # a 1-d array of the centres: the tuple of its entries
    ok = isinstance(c, tuple) and c and all(isinstance(v, (int, float, np.integer, np.floating))
                                            and not isinstance(v, bool) and math.isfinite(v) for v in c)
    if not ok:
        raise ValueError(f"{name} must be a non-empty tuple of finite reals, got {c!r}")
    return tuple(float(v) for v in c)


@dataclass(frozen=True)
class FloatReach:
    """T(x) = reach(c) + 2·reach(c′): which of the two centres can produce the released value(s) ``x``
    as fl(c + z), a vector output counting as reachable when every entry is (codes 0..3, int64).

    ``c0``, ``c1``: the answers at the audited inputs D, D′ (one per output entry; tuples of floats).

    >>> t = FloatReach((0.0,), (1.0,))
    >>> t(np.array([0.25 + 2.0**-54, 0.75, 3.0])).tolist()    # off the 2^-53 grid: reachable from 0 only
    [1, 3, 3]
    >>> FloatReach((0.0, 0.0), (1.0, 1.0))(np.array([[0.3, 0.25 + 2.0**-54]])).tolist()
    [1]
    """

    c0: tuple
    c1: tuple
    categorical = True
    structural_zeros = True  # its informative events have probability 0 under one input: rare ones count

    def __post_init__(self):
        object.__setattr__(self, "c0", _centre(self.c0, "c0"))
        object.__setattr__(self, "c1", _centre(self.c1, "c1"))
        if len(self.c0) != len(self.c1):
            raise ValueError(f"c0 and c1 must have one entry per output entry each, got {len(self.c0)} and "
                             f"{len(self.c1)}")

    def __call__(self, out) -> np.ndarray:
        x = np.asarray(out, dtype=float)
        x = x.reshape(len(x), -1)
        if x.shape[1] != len(self.c0):
            raise ValueError(f"outputs have {x.shape[1]} entries per draw, the centres {len(self.c0)}")
        r0 = _reach(x, np.asarray(self.c0, dtype=float)).all(axis=1)
        r1 = _reach(x, np.asarray(self.c1, dtype=float)).all(axis=1)
        return r0.astype(np.int64) + 2 * r1.astype(np.int64)


@dataclass(frozen=True)
class FloatPrecision:
    """T(x) = a code of the released double's sign, binade and lowest set bit (centre-free).

    ``top``: the binade exponent (``numpy.frexp``) of the larger centre; binades from ``top`` − 24 to
    ``top`` + 1 keep codes of their own (those below and above are pooled), and the lowest set bit's
    exponent is clipped to [``top`` − 56, ``top`` − 51] (around the centre's ulp, 2^(top − 53)):
    outputs reachable from one centre only differ from the others by a lowest set bit finer than
    that centre's grid allows in a binade.  Zero is code −1, ±∞ and NaN −2.

    >>> t = FloatPrecision(3)                                  # centres in [4, 8): ulp 2^-50
    >>> t(np.array([1.5, 1.5 + 2.0**-51, 1.5 + 2.0**-52, 0.0])).tolist()   # lowest set bit ≥ 2^-48, 2^-51, 2^-52
    [137, 134, 133, -1]
    """

    top: int
    categorical = True
    structural_zeros = True

    def __post_init__(self):
        if isinstance(self.top, bool) or not isinstance(self.top, (int, np.integer)) or not -1100 <= self.top <= 1100:
            raise ValueError(f"top must be a binade exponent (an integer in -1100..1100), got {self.top!r}")

    def __call__(self, out) -> np.ndarray:
        x = _reals(out, "out")
        if x.ndim != 1:
            raise ValueError(f"out must be one released number per draw (1-d), got shape {x.shape}")
        finite = np.isfinite(x) & (x != 0)
        xf = np.where(finite, x, 1.0)
        m, e = np.frexp(np.abs(xf))  # |x| = m·2^e, m in [1/2, 1)
        mant = np.ldexp(m, 53).astype(np.int64)  # exact: the 53-bit integer significand (subnormals: fewer bits)
        low = mant & -mant  # its lowest set bit, a power of two
        lsb = e - 53 + (np.frexp(low.astype(float))[1] - 1)
        lo_b, hi_b = self.top - _WINDOW_BINADES, self.top + 1
        lo_l, hi_l = self.top - 53 - _LSB_BELOW, self.top - 53 + _LSB_ABOVE
        width = hi_l - lo_l + 1
        b = np.clip(e, lo_b, hi_b) - lo_b
        code = ((x < 0) * (hi_b - lo_b + 1) + b) * width + (np.clip(lsb, lo_l, hi_l) - lo_l)
        return np.where(finite, code, np.where(x == 0, -1, -2)).astype(np.int64)

    @classmethod
    def fit(cls, out_d, out_dp) -> "FloatPrecision":
        """The window from two samples: ``top`` is the binade of the larger of their medians (of the
        larger median |output| when both medians are 0).

        >>> g = np.random.default_rng(0)
        >>> FloatPrecision.fit(g.laplace(5, 1, 1000), g.laplace(6, 1, 1000)).top
        3
        """
        samples = [_reals(o, name) for o, name in ((out_d, "out_d"), (out_dp, "out_dp"))]
        if any(o.size == 0 for o in samples):
            raise ValueError("out_d and out_dp must hold at least one output each")
        out_d, out_dp = samples
        meds = [float(np.median(o)) for o in samples]
        big = max(abs(v) for v in meds)
        if not big > 0 or not math.isfinite(big):
            both = np.abs(np.concatenate([np.ravel(out_d), np.ravel(out_dp)]).astype(float))
            big = float(np.median(both[np.isfinite(both)])) if np.isfinite(both).any() else 1.0
        return cls(int(np.frexp(big if big > 0 else 1.0)[1]))


def is_float_output(out) -> bool:
    """Whether outputs are floats not all integer-valued (where the floating-point statistics apply).

    >>> is_float_output(np.array([1.0, 2.5])), is_float_output(np.array([1.0, 2.0])), is_float_output(np.arange(3))
    (True, False, False)
    """
    o = _check_out(out, "out")
    if o.dtype.kind != "f" or o.size == 0:
        return False
    fin = o[np.isfinite(o)]
    return bool(fin.size) and not np.array_equal(fin, np.round(fin))


def centres_of(pair, out) -> tuple | None:
    """The two answers, when the audited inputs are the answers released: real inputs with as many
    entries as one output (a scalar release of a scalar input, a vector released entry by entry).
    None when they are not (the answer is computed inside the mechanism), or equal.

    >>> centres_of((5, 6.0), np.zeros(4)), centres_of((np.zeros(3), np.ones(3)), np.zeros(4))
    (((5.0,), (6.0,)), None)
    """
    check_pair(pair)
    o = _check_out(out, "out")
    width = int(np.prod(o.shape[1:], dtype=np.int64)) if o.ndim > 1 else 1
    cs = []
    for d in pair:
        try:
            a = np.asarray(d, dtype=float).reshape(-1)
        except (TypeError, ValueError):
            return None
        if a.size != width or not np.isfinite(a).all():
            return None
        cs.append(tuple(float(v) for v in a))
    return None if cs[0] == cs[1] else (cs[0], cs[1])


def float_statistics(pair, outs, *, floats_only: bool = True) -> list[tuple[str, object]]:
    """The floating-point statistics for a pair and its pilot outputs: ``"float grid"``
    (:class:`FloatReach`) when the inputs are the answers, ``"float precision"``
    (:class:`FloatPrecision`) for scalar outputs; with ``floats_only``, none when the outputs are not
    floats with a fractional part (``statistic="auto"``; ``"offgrid"`` asks for them regardless).

    >>> g = np.random.default_rng(0)
    >>> outs = (5.0 + g.laplace(size=100), 6.0 + g.laplace(size=100))
    >>> [name for name, _ in float_statistics((5.0, 6.0), outs)]
    ['float grid', 'float precision']
    >>> float_statistics((0, 1), (np.arange(3), np.arange(3)))
    []
    """
    check_pair(pair)
    if not (isinstance(outs, (tuple, list)) or isinstance(outs, np.ndarray) and outs.ndim >= 2) or len(outs) != 2:
        raise ValueError(f"outs must be the outputs at the two inputs, got {type(outs).__name__}")
    for i in (0, 1):
        _check_out(outs[i], f"outs[{i}]")
    floats_only = check_bool(floats_only, "floats_only")
    if floats_only and not any(is_float_output(o) for o in outs):
        return []
    stats: list[tuple[str, object]] = []
    centres = centres_of(pair, outs[0])
    if centres is not None:
        stats.append(("float grid", FloatReach(*centres)))
    if np.asarray(outs[0]).ndim == 1:
        stats.append(("float precision", FloatPrecision.fit(outs[0], outs[1])))
    return stats


def check_pair(pair) -> None:
    """A pair (d, d_prime) of inputs whose float entries are finite and fit the memory budget (ValueError naming ``pair``).

    >>> check_pair((0.0, 1.0))
    >>> check_pair((0.0, float("nan")))
    Traceback (most recent call last):
    ...
    ValueError: pair must hold finite inputs, got (0.0, nan)
    """
    if not (isinstance(pair, (tuple, list)) or isinstance(pair, np.ndarray) and pair.ndim >= 1) or len(pair) != 2:
        raise ValueError(f"pair must be (d, d_prime), got {pair!r}"[:300])
    for d in pair:
        if isinstance(d, (float, np.floating, np.ndarray)):
            check_elements(d, "pair")
            a = np.asarray(d)
            if a.dtype.kind == "f" and not np.isfinite(a).all():
                raise ValueError(f"pair must hold finite inputs, got {pair!r}"[:300])


def _check_out(out, name: str) -> np.ndarray:
    """Outputs of a mechanism: a numeric array (possibly empty), finite."""
    if not isinstance(out, (np.ndarray, list, tuple)):
        raise TypeError(f"{name} must be an array of outputs, got {type(out).__name__}")
    check_elements(out, name)
    o = np.asarray(out)
    if o.dtype.kind not in "biuf":
        raise TypeError(f"{name} must be a numeric array of outputs, got dtype {o.dtype}")
    if o.dtype.kind == "f" and not np.isfinite(o).all():
        raise ValueError(f"{name} must be finite, got a NaN or infinite output")
    return o
