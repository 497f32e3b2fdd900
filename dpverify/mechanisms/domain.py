"""The input domain of a mechanism: :class:`Domain` (a shape, bounds or a finite set of values,
integer or real), and :data:`DEFAULT_DOMAIN`, the range a relation draws random pairs from where it
states no bound — only when it says that any entries are accepted there
(``Neighbours(..., default_domain=True)``, :mod:`dpverify.mechanisms.relations`).

Example
-------
>>> Domain(shape=(5,), low=0, high=5, integer=True).describe()
'5 integer entries in [0, 5]'
>>> number_text(5.0), number_text(0.5)
('5', '0.5')
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass

import numpy as np

from dpverify.mechanisms.sampling import describe_input
from dpverify.validation import check_bool, check_elements, check_real

__all__ = ["DEFAULT_DOMAIN", "Domain", "check_finite_input", "check_pairs", "check_shape", "number_text"]

DEFAULT_DOMAIN = (-10.0, 10.0)  # where random pairs are drawn on a side with no bound (default_domain=True)


def number_text(x) -> str:
    """A bound in a domain's text: an integer without its point (``5``), a float in ``g`` format;
    ``x`` must be a finite real number (TypeError/ValueError naming ``x``).

    >>> number_text(5.0), number_text(0.25)
    ('5', '0.25')
    """
    check_real(x, "x")
    return _number_text(x)


def _number_text(x) -> str:
    return str(int(x)) if float(x).is_integer() else f"{float(x):g}"


def _is_nan(x) -> bool:
    """Whether an input holds NaN (a float, or a float array or list of floats): never a neighbour."""
    if isinstance(x, (float, np.floating)):
        return math.isnan(x)
    if isinstance(x, (list, tuple)):
        try:
            x = np.asarray(x)
        except (TypeError, ValueError):  # ragged or not numbers: no NaN to find
            return False
    return isinstance(x, np.ndarray) and x.dtype.kind in "fc" and bool(np.isnan(x).any())


def _zero_d(x) -> bool:
    return isinstance(x, np.ndarray) and x.ndim == 0


def check_pairs(pairs, name: str = "pairs") -> tuple:
    """The (d, d′) pairs of a sequence as a tuple of 2-tuples; TypeError/ValueError naming ``name``.

    ``pairs`` must be a sequence (not text), each item a pair of inputs, no input holding NaN (NaN
    is not equal to itself, so no relation can hold it); arrays are counted by their logical size
    against the memory budget (:func:`~dpverify.validation.check_elements`).

    >>> check_pairs([(0, 1), [0.5, 2.0]])
    ((0, 1), (0.5, 2.0))
    >>> check_pairs([(0.0, float("nan"))])
    Traceback (most recent call last):
    ...
    ValueError: pairs must not hold NaN inputs (NaN equals no input, itself included), got (0.0, nan)
    """
    if isinstance(pairs, np.ndarray):
        check_elements(pairs, name)
    if isinstance(pairs, (str, bytes)) or not hasattr(pairs, "__iter__") or _zero_d(pairs):
        raise TypeError(f"{name} must be a sequence of (d, d_prime) pairs, got {describe_input(pairs)} "
                        f"({type(pairs).__name__})")
    out = []
    for p in pairs:
        if isinstance(p, (str, bytes, dict)) or not hasattr(p, "__len__") or _zero_d(p) or len(p) != 2:
            raise ValueError(f"{name} must hold (d, d_prime) pairs, got {_short(p)}")
        for x in (p[0], p[1]):
            if isinstance(x, np.ndarray):
                check_elements(x, name)
            if _is_nan(x):
                raise ValueError(f"{name} must not hold NaN inputs (NaN equals no input, itself included), "
                                 f"got ({_short(p[0])}, {_short(p[1])})")
        out.append((p[0], p[1]))
    return tuple(out)


def _short(x) -> str:
    """A short text of ``x`` for a message (an array by its shape when large)."""
    if isinstance(x, np.ndarray) and x.size > 8:
        return f"an array of shape {x.shape}"
    return describe_input(x) if isinstance(x, (list, tuple, np.ndarray)) else repr(x)


def check_shape(shape, name: str = "shape") -> tuple:
    """``()`` or a tuple of positive integer sizes (an int is a one-entry shape); ValueError otherwise.

    >>> check_shape(3), check_shape([2, 5]), check_shape(())
    ((3,), (2, 5), ())
    """
    if isinstance(shape, np.ndarray) and shape.dtype.kind in "iu" and shape.size <= 64:  # e.g. np.array([2, 5])
        shape = shape.tolist()
    sizes = (shape,) if isinstance(shape, (int, np.integer)) and not isinstance(shape, bool) else shape
    ok = isinstance(sizes, (tuple, list)) and len(sizes) <= 64 and all(
        isinstance(s, (int, np.integer)) and not isinstance(s, bool) and s >= 1 for s in sizes)
    if not ok:
        raise ValueError(f"{name} must be () (a scalar) or a tuple of positive integer sizes, got {shape!r}")
    return tuple(int(s) for s in sizes)


@dataclass(frozen=True)
class Domain:
    """The inputs a mechanism takes: a ``shape`` (``()`` = a scalar), bounds or a finite set of values.

    The default is the real scalars (``shape=()``).  (:class:`Neighbours` defaults to
    ``shape=(1,)``, one-entry vectors, as the StatDP/DP-Sniper searches do; a scalar mechanism
    given those receives scalars, :meth:`coerce`.)  ``shape`` must be ``()`` or positive sizes,
    ``low <= high``, and ``values`` a non-empty finite set (ValueError naming the parameter).

    Example
    -------
    >>> d = Domain(shape=(), low=0, high=5, integer=True)
    >>> d.contains(3), d.contains(3.5), d.contains(6)
    (True, False, False)
    >>> d.coerce(np.array([2.0])).shape        # a one-entry vector given to a scalar mechanism
    ()
    >>> Domain(shape=0)
    Traceback (most recent call last):
    ...
    ValueError: shape must be () (a scalar) or a tuple of positive integer sizes, got 0
    """

    shape: tuple | int = ()
    low: float | None = None
    high: float | None = None
    integer: bool = False
    values: tuple | None = None

    def __post_init__(self):
        object.__setattr__(self, "shape", check_shape(self.shape))
        check_bool(self.integer, "integer")
        for bound in ("low", "high"):
            if getattr(self, bound) is not None:
                check_real(getattr(self, bound), bound)
        if self.low is not None and self.high is not None and not self.low <= self.high:
            raise ValueError(f"low must be <= high, got low={self.low!r}, high={self.high!r}")
        if self.values is not None:
            if isinstance(self.values, np.ndarray):
                check_elements(self.values, "values")
            if isinstance(self.values, (str, bytes)) or not hasattr(self.values, "__iter__") \
                    or _zero_d(self.values):
                raise TypeError(f"values must be a finite collection of inputs, got {describe_input(self.values)}")
            vals = tuple(self.values)
            if not vals:
                raise ValueError(f"values must hold at least one input (a non-empty finite set), got {self.values!r}")
            if any(isinstance(v, (float, np.floating)) and math.isnan(v) for v in vals):
                raise ValueError(f"values must not hold NaN (NaN equals no input, itself included), got "
                                 f"{describe_input(self.values)}")
            object.__setattr__(self, "values", vals)

    @property
    def scalar(self) -> bool:
        """Whether the inputs are scalars."""
        return self.shape == ()

    def describe(self) -> str:
        """The domain in words: how many entries, integer or real, and their bounds or values.

        >>> Domain((5,), low=0, high=5, integer=True).describe(), Domain(values=(0, 1)).describe()
        ('5 integer entries in [0, 5]', 'a scalar in {0, 1}')
        """
        n = int(np.prod(self.shape)) if self.shape else 1
        size = "×".join(str(s) for s in self.shape)
        kind = "integer" if self.integer else "real"
        if self.values is not None:
            within = "in {" + ", ".join(_number_text(v) if isinstance(v, (int, float, np.number)) else repr(v)
                                        for v in self.values) + "}"
            return ("a scalar " if self.scalar else f"{size} entries " if n > 1 else "1 entry ") + within
        lo = "" if self.low is None else _number_text(self.low)
        hi = "" if self.high is None else _number_text(self.high)
        within = (f"in [{lo}, {hi}]" if lo and hi else f"at least {lo}" if lo else f"at most {hi}" if hi
                  else "(unbounded)")
        head = f"an {kind} scalar" if self.scalar and kind == "integer" else f"a {kind} scalar" if self.scalar \
            else f"{size} {kind} entries" if n > 1 else f"1 {kind} entry"
        return f"{head} {within}"

    def contains(self, x) -> bool:
        """True when ``x`` is an input of this domain (shape, bounds, integrality, values)."""
        a = np.asarray(x)
        if self.values is not None:
            allowed = np.asarray(self.values)
            if a.dtype.kind not in "biuf" or allowed.dtype.kind not in "biuf":
                return bool(np.all(np.isin(np.asarray(x, dtype=object), np.asarray(self.values, dtype=object))))
            return bool(np.isin(a, allowed).all())
        if a.shape != self.shape or a.dtype.kind not in "biuf":
            return False
        a = a.astype(float)
        if (self.low is not None and (a < self.low).any()) or (self.high is not None and (a > self.high).any()):
            return False
        return not self.integer or bool(np.all(a == np.round(a)))

    def coerce(self, data):
        """``data`` in the domain's shape: a one-entry array becomes a scalar (0-d) for a scalar domain.

        The one place where scalar and vector inputs meet: a scalar mechanism handed a
        one-entry vector (e.g. the pairs of ``Neighbours(shape=(1,))``) receives a 0-d array,
        which ``float()`` and ``int()`` accept.
        """
        if self.scalar and isinstance(data, np.ndarray) and data.ndim > 0 and data.size == 1:
            return data.reshape(())
        return data


def check_finite_input(x, name: str) -> None:
    """A mechanism's numeric input (a number, or an array or list of numbers) must be finite and its copy fit
    the memory budget (ValueError naming ``name``); other inputs are the mechanism's to read.

    >>> check_finite_input([0.0, 1.0], "d"), check_finite_input("any text", "d")
    (None, None)
    """
    if isinstance(x, (numbers.Real, np.floating)) and not isinstance(x, (bool, np.bool_)):
        if not math.isfinite(float(x)):
            raise ValueError(f"{name} must be finite, got {x!r}")
    elif isinstance(x, (list, tuple, np.ndarray)):
        check_elements(x, name)
        try:
            a = np.asarray(x)
        except (TypeError, ValueError):
            return  # ragged: the mechanism's to read
        check_elements(a, name)
        if a.dtype.kind in "fc" and not np.isfinite(a).all():
            bad = tuple(int(k) for k in np.argwhere(~np.isfinite(a))[0])
            raise ValueError(f"{name} must be finite, got {a[bad].item()!r} at index {bad}")
