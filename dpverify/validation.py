"""The one validation module: every public function checks its input here.

Each checker returns the value in canonical form (a Python float, an int, a
fresh read-only-safe numpy copy) or raises ``ValueError`` / ``TypeError`` whose
message names the parameter and the offending value.  Inputs are never
mutated: array checkers return copies.

Numpy scalars (``np.int64(1)``, ``np.float32(0.5)``) and 0-d arrays are accepted
wherever Python numbers are; bool, complex and string values are refused
(``TypeError``) instead of being coerced; integers that would wrap around int64
(2^63, 1e308 as a count) are refused (``ValueError``).

The memory and work budgets (:func:`check_budget`, :func:`check_work`, :func:`check_size`,
:func:`check_elements`, which counts the logical size of zero-stride views) are defined in
:mod:`dpverify.budget` and re-exported here: work beyond them is refused up front, never attempted.
"""

from __future__ import annotations

import math
import numbers
import os
from typing import Any

import numpy as np

__all__ = [
    "check_epsilon", "check_delta", "check_real", "check_positive_int", "check_nonneg_int", "check_probability",
    "check_confidence", "check_probability_vector", "check_counts", "check_row_stochastic", "check_finite_array",
    "as_generator", "MEMORY_BUDGET_BYTES", "memory_budget", "check_budget", "check_size", "check_bool",
    "WORK_BUDGET_DRAWS", "check_work", "check_elements", "check_path", "check_int_in", "check_generator",
]

# the memory and work budgets live in dpverify.budget, the numpy-free path check in dpverify.plain_checks;
# they are checked through this module
from dpverify.plain_checks import check_path  # noqa: E402
from dpverify.budget import (MEMORY_BUDGET_BYTES, WORK_BUDGET_DRAWS, check_budget, check_elements,  # noqa: E402
                             check_size, check_work, memory_budget)

#: Counts and other integers are held in int64: anything at or above this wraps around.
INT64_LIMIT = 2**63


def check_bool(value: Any, name: str) -> bool:
    """A flag: ``True``/``False`` (numpy bools too); anything else is a TypeError, never read as truthy.

    Example
    -------
    >>> check_bool(np.bool_(True), "exact")
    True
    """
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    raise TypeError(f"{name} must be True or False, got {_show(value)} of type {type(value).__name__}")


def _show(x: Any) -> str:
    """repr of a value for an error message, numpy scalars shown as plain numbers."""
    if isinstance(x, np.generic):
        x = x.item()
    return repr(x)


def _is_real_scalar(x: Any) -> bool:
    return isinstance(x, numbers.Real) and not isinstance(x, bool)


def check_real(value: Any, name: str, *, positive: bool = False, nonneg: bool = False) -> float:
    """A finite real number (NaN and +-inf rejected), optionally > 0 or >= 0.

    >>> check_real(np.float32(0.5), "scale"), check_real(2, "t", positive=True)
    (0.5, 2.0)
    """
    if positive is not False or nonneg is not False:
        check_bool(positive, "positive"), check_bool(nonneg, "nonneg")
    if isinstance(value, np.ndarray) and value.ndim == 0:
        value = value.item()
    if not _is_real_scalar(value):
        raise TypeError(f"{name} must be a real number, got {_show(value)} of type {type(value).__name__}")
    try:
        v = float(value)
    except OverflowError:
        raise ValueError(f"{name} must be finite, got {_show(value)}") from None
    if math.isnan(v) or math.isinf(v):
        raise ValueError(f"{name} must be finite, got {_show(value)}")
    if positive and not v > 0:
        raise ValueError(f"{name} must be > 0, got {_show(value)}")
    if nonneg and not v >= 0:
        raise ValueError(f"{name} must be >= 0, got {_show(value)}")
    return v


def check_epsilon(epsilon: Any, name: str = "epsilon") -> float:
    """Privacy parameter: a finite real number > 0.

    >>> check_epsilon(np.int64(2))
    2.0
    """
    return check_real(epsilon, name, positive=True)


def check_delta(delta: Any, name: str = "delta") -> float:
    """Privacy parameter delta in [0, 1).

    >>> check_delta(1e-6)
    1e-06
    """
    v = check_real(delta, name, nonneg=True)
    if not v < 1:
        raise ValueError(f"{name} must be in [0, 1), got {_show(delta)}")
    return v


def check_probability(p: Any, name: str) -> float:
    """A probability in [0, 1].

    >>> check_probability(0.25, "p")
    0.25
    """
    v = check_real(p, name, nonneg=True)
    if v > 1:
        raise ValueError(f"{name} must be in [0, 1], got {_show(p)}")
    return v


def check_confidence(c: Any, name: str = "confidence") -> float:
    """A confidence level in the open interval (0, 1).

    >>> check_confidence(0.95)
    0.95
    """
    v = check_real(c, name)
    if not 0 < v < 1:
        raise ValueError(f"{name} must be in (0, 1), got {_show(c)}")
    if not 1.0 - v < 1.0:  # α = 1 − confidence must be below 1 in floats too
        raise ValueError(f"{name} must be in (0, 1) with 1 - {name} < 1 in floating point, got {_show(c)}")
    return v


def _as_int(n: Any, name: str) -> int:
    if isinstance(n, np.ndarray) and n.ndim == 0:
        n = n[()]
    if isinstance(n, (bool, np.bool_)) or not isinstance(n, (numbers.Integral, np.integer)):
        raise TypeError(f"{name} must be an integer, got {_show(n)} of type {type(n).__name__}")
    return int(n)


def check_positive_int(n: Any, name: str, *, maximum: int | None = None) -> int:
    """An integer >= 1 (bools and integral floats such as 3.0 are rejected), optionally <= ``maximum``.

    >>> check_positive_int(np.int64(3), "n")
    3
    """
    v = _as_int(n, name)
    if v < 1:
        raise ValueError(f"{name} must be >= 1, got {_show(n)}")
    if maximum is not None and v > _as_int(maximum, "maximum"):
        raise ValueError(f"{name} must be <= {maximum}, got {_show(n)}")
    return v


def check_nonneg_int(n: Any, name: str, *, maximum: int | None = None) -> int:
    """An integer >= 0, optionally <= ``maximum``.

    >>> check_nonneg_int(0, "t"), check_nonneg_int(5, "t", maximum=5)
    (0, 5)
    """
    v = _as_int(n, name)
    if v < 0:
        raise ValueError(f"{name} must be >= 0, got {_show(n)}")
    if maximum is not None and v > _as_int(maximum, "maximum"):
        raise ValueError(f"{name} must be <= {maximum}, got {_show(n)}")
    return v


def _real_array(x: Any, name: str) -> np.ndarray:
    """A float64 copy of array-like numeric ``x``; bool, complex, string and ragged input refused."""
    if isinstance(x, (str, bytes)):
        raise TypeError(f"{name} must be a numeric array, got {type(x).__name__}")
    try:
        raw = np.asarray(x)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{name} must be a numeric array, got {type(x).__name__}: {exc}") from None
    check_elements(raw, name)
    kind = raw.dtype.kind
    if kind == "b":
        raise TypeError(f"{name} must be numeric, got a bool array")
    if kind == "c":
        raise TypeError(f"{name} must be real, got a complex array")
    if kind in "USVMm":
        raise TypeError(f"{name} must be numeric, got dtype {raw.dtype}")
    if kind == "O":
        for v in raw.ravel().tolist():
            if isinstance(v, (bool, np.bool_, complex, np.complexfloating, str, bytes)) or v is None:
                raise TypeError(f"{name} must contain real numbers, got {_show(v)}")
    try:
        return np.array(raw, dtype=float, copy=True)
    except OverflowError:
        raise ValueError(f"{name} must be finite, got an entry too large for float64") from None
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{name} must be a numeric array, got {type(x).__name__}: {exc}") from None


def check_finite_array(x: Any, name: str, *, ndim: int | None = None, shape: tuple | None = None) -> np.ndarray:
    """A float array copy with no NaN or inf, optionally of a given ndim/shape.

    Bool, complex and string arrays are refused (TypeError), not coerced.

    >>> check_finite_array([1, 2.5], "x", ndim=1)
    array([1. , 2.5])
    """
    arr = _real_array(x, name)
    if ndim is not None and arr.ndim != _as_int(ndim, "ndim"):
        raise ValueError(f"{name} must be {ndim}-dimensional, got shape {arr.shape}")
    if shape is not None:
        for want, got in zip(shape, arr.shape):
            if want is not None and want != got:
                raise ValueError(f"{name} must have shape {shape}, got {arr.shape}")
        if len(shape) != arr.ndim:
            raise ValueError(f"{name} must have shape {shape}, got {arr.shape}")
    bad = ~np.isfinite(arr)
    if bad.any():
        idx = tuple(int(i) for i in np.argwhere(bad)[0])
        raise ValueError(f"{name} must be finite, got {_show(arr[idx])} at index {idx}")
    return arr


def _input_tolerance(x: Any, n: int, atol: float) -> float:
    """``atol``, widened to the rounding of a lower-precision float input (a float32 π sums to 1 ± n·2^-24)."""
    dt = getattr(x, "dtype", None)
    if dt is not None and np.dtype(dt).kind == "f" and np.dtype(dt).itemsize < 8:
        return max(atol, 2.0 * max(n, 1) * float(np.finfo(dt).eps))
    return atol


def check_probability_vector(pi: Any, name: str = "pi", *, atol: float = 1e-9) -> np.ndarray:
    """A 1-d vector of probabilities (>= 0) summing to 1 within ``atol``.

    >>> check_probability_vector([0.5, 0.25, 0.25])
    array([0.5 , 0.25, 0.25])
    """
    atol = check_real(atol, "atol", nonneg=True)
    arr = check_finite_array(pi, name, ndim=1)
    if arr.size < 1:
        raise ValueError(f"{name} must be non-empty")
    if (arr < 0).any():
        i = int(np.argmax(arr < 0))
        raise ValueError(f"{name} must be non-negative, got {_show(arr[i])} at index {i}")
    s = float(arr.sum())
    tol = _input_tolerance(pi, arr.size, atol)
    if abs(s - 1.0) > tol:
        raise ValueError(f"{name} must sum to 1, sums to {_show(s)}")
    if tol > atol:
        arr = arr / s  # a float32 input: renormalise in float64
    return arr


def check_row_stochastic(P: Any, name: str = "P", *, atol: Any = None) -> np.ndarray:
    """A 2-d non-negative matrix whose rows' float sums are within m·2⁻⁵¹ of 1 (m entries), returned as given.

    The exact LDP decision takes the entries as the exact rationals they are, so a deviation is decided on, not
    hidden.  With ``atol``, rows within max(atol, m·2⁻⁵¹) are accepted and those off by more than m·2⁻⁵¹ divided
    by their sum (float32 rows likewise): the matrix returned and decided is then the renormalised one.

    >>> check_row_stochastic([[0.75, 0.25], [1, 0]]).tolist()
    [[0.75, 0.25], [1.0, 0.0]]
    """
    arr = check_finite_array(P, name, ndim=2)
    if arr.shape[0] < 1 or arr.shape[1] < 1:
        raise ValueError(f"{name} must be non-empty, got shape {arr.shape}")
    if (arr < 0).any():
        idx = tuple(int(i) for i in np.argwhere(arr < 0)[0])
        raise ValueError(f"{name} must be non-negative, got {_show(arr[idx])} at index {idx}")
    rounding = arr.shape[1] * 2.0**-51
    tol = _input_tolerance(P, arr.shape[1], max(rounding, 0.0 if atol is None else check_real(atol, "atol", nonneg=True)))
    sums = arr.sum(axis=1)
    dev = np.abs(sums - 1.0)
    if (dev > tol).any():
        i = int(np.argmax(dev > tol))
        how = " (m·2^-51; pass atol to accept and renormalise)" if tol == rounding else ""
        raise ValueError(f"{name} must be row-stochastic: row {i} sums to {_show(sums[i])}, not within {tol:.4g} of 1{how}")
    arr[dev > rounding] /= sums[dev > rounding, None]
    return arr


def check_counts(counts: Any, name: str = "counts", *, length: int | None = None, nonempty: bool = False) -> np.ndarray:
    """A 1-d array of non-negative integers (integral floats accepted), returned as int64 copy.

    Values (and their total, which releases accumulate) must stay below 2^63: 2^63 or 1e308 would
    wrap around int64 to −9.2e18, so they are refused with a ValueError naming ``name``.

    >>> check_counts([3, 0, 2.0])
    array([3, 0, 2])
    """
    if isinstance(counts, (str, bytes)):
        raise TypeError(f"{name} must be an array of counts, got {type(counts).__name__}")
    if nonempty is not False:
        check_bool(nonempty, "nonempty")
    if length is not None:
        length = check_nonneg_int(length, "length")
    try:
        arr = np.asarray(counts)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{name} must be an array of counts: {exc}") from None
    check_elements(arr, name)
    arr = np.array(arr, copy=True)
    if arr.dtype == object and arr.ndim == 1:
        vals = arr.tolist()
        if all(isinstance(v, (numbers.Integral, np.integer)) and not isinstance(v, (bool, np.bool_)) for v in vals):
            big = [i for i, v in enumerate(vals) if abs(int(v)) >= INT64_LIMIT]
            if big:
                raise ValueError(f"{name} must be < 2^63 (int64), got {_show(vals[big[0]])} at index {big[0]}")
            arr = np.array([int(v) for v in vals], dtype=np.int64)
    if arr.dtype == bool or not (np.issubdtype(arr.dtype, np.integer) or np.issubdtype(arr.dtype, np.floating)):
        raise TypeError(f"{name} must contain integers, got dtype {arr.dtype}")
    if arr.ndim != 1:
        raise ValueError(f"{name} must be 1-dimensional, got shape {arr.shape}")
    if length is not None and arr.shape[0] != length:
        raise ValueError(f"{name} must have length {length}, got {arr.shape[0]}")
    if nonempty and arr.shape[0] == 0:
        raise ValueError(f"{name} must be non-empty")
    if np.issubdtype(arr.dtype, np.floating):
        bad = ~np.isfinite(arr)
        if bad.any():
            i = int(np.argmax(bad))
            raise ValueError(f"{name} must be finite, got {_show(arr[i])} at index {i}")
        frac = arr != np.round(arr)
        if frac.any():
            i = int(np.argmax(frac))
            raise ValueError(f"{name} must be integers, got {_show(arr[i])} at index {i}")
    if (arr < 0).any():
        i = int(np.argmax(arr < 0))
        raise ValueError(f"{name} must be non-negative, got {_show(arr[i])} at index {i}")
    if arr.size:
        big = arr >= float(INT64_LIMIT) if arr.dtype.kind == "f" else arr >= np.uint64(INT64_LIMIT) if arr.dtype.kind == "u" else np.zeros(arr.shape, bool)
        if big.any():
            i = int(np.argmax(big))
            raise ValueError(f"{name} must be < 2^63 (int64), got {_show(arr[i])} at index {i}")
        total = float(arr.astype(float).sum())
        if total > 2.0**62:  # float rounding keeps this well below 2^63
            raise ValueError(f"{name} must total <= 2^62 so that running sums stay exact in int64, totals {total:.4g}")
    return arr.astype(np.int64)


def as_generator(rng: Any, name: str = "rng") -> np.random.Generator:
    """``None`` -> a fresh OS-seeded Generator; an int seed -> ``default_rng(seed)``; a Generator as is.

    >>> int(as_generator(7).integers(10)) == int(as_generator(7).integers(10))
    True
    """
    if rng is None:
        return np.random.default_rng()
    if isinstance(rng, np.random.Generator):
        return rng
    if isinstance(rng, (numbers.Integral, np.integer)) and not isinstance(rng, bool):
        if rng < 0:
            raise ValueError(f"{name} seed must be >= 0, got {_show(rng)}")
        return np.random.default_rng(int(rng))
    raise TypeError(f"{name} must be a numpy.random.Generator, an int seed or None, got {type(rng).__name__}")


def check_int_in(n: Any, name: str, low: int, high: int) -> int:
    """An integer in [``low``, ``high``] (numpy integers accepted; bools, floats and text refused).

    >>> check_int_in(np.int64(-53), "exponent", -4096, 4096)
    -53
    """
    lo, hi = _as_int(low, "low"), _as_int(high, "high")
    if lo > hi:
        raise ValueError(f"low must be <= high, got low={lo}, high={hi}")
    v = _as_int(n, name)
    if not lo <= v <= hi:
        raise ValueError(f"{name} must be an integer in [{lo}, {hi}], got {_show(n)}")
    return v


def check_generator(rng: Any, name: str = "rng") -> np.random.Generator:
    """A ``numpy.random.Generator`` itself (TypeError naming ``name`` otherwise; no seed is turned into one).

    >>> type(check_generator(np.random.default_rng(0))).__name__
    'Generator'
    """
    if not isinstance(rng, np.random.Generator):
        raise TypeError(f"{name} must be a numpy.random.Generator, got {type(rng).__name__}")
    return rng
