"""The one validation module: every public function checks its input here.

Each checker returns the value in canonical form (a Python float, an int, a
fresh read-only-safe numpy copy) or raises ``ValueError`` / ``TypeError`` whose
message names the parameter and the offending value.  Inputs are never
mutated: array checkers return copies.
"""

from __future__ import annotations

import math
import numbers
from typing import Any

import numpy as np

__all__ = [
    "check_epsilon",
    "check_delta",
    "check_real",
    "check_positive_int",
    "check_nonneg_int",
    "check_probability",
    "check_confidence",
    "check_probability_vector",
    "check_counts",
    "check_row_stochastic",
    "check_finite_array",
    "as_generator",
    "MEMORY_BUDGET_BYTES",
    "check_budget",
]


def _show(x: Any) -> str:
    """repr of a value for an error message, numpy scalars shown as plain numbers."""
    if isinstance(x, np.generic):
        x = x.item()
    return repr(x)


def _is_real_scalar(x: Any) -> bool:
    return isinstance(x, numbers.Real) and not isinstance(x, bool)


def check_real(value: Any, name: str, *, positive: bool = False, nonneg: bool = False) -> float:
    """A finite real number (NaN and +-inf rejected), optionally > 0 or >= 0."""
    if isinstance(value, np.ndarray) and value.ndim == 0:
        value = value.item()
    if not _is_real_scalar(value):
        raise TypeError(f"{name} must be a real number, got {_show(value)} of type {type(value).__name__}")
    v = float(value)
    if math.isnan(v) or math.isinf(v):
        raise ValueError(f"{name} must be finite, got {_show(value)}")
    if positive and not v > 0:
        raise ValueError(f"{name} must be > 0, got {_show(value)}")
    if nonneg and not v >= 0:
        raise ValueError(f"{name} must be >= 0, got {_show(value)}")
    return v


def check_epsilon(epsilon: Any, name: str = "epsilon") -> float:
    """Privacy parameter: a finite real number > 0."""
    return check_real(epsilon, name, positive=True)


def check_delta(delta: Any, name: str = "delta") -> float:
    """Privacy parameter delta in [0, 1)."""
    v = check_real(delta, name, nonneg=True)
    if not v < 1:
        raise ValueError(f"{name} must be in [0, 1), got {_show(delta)}")
    return v


def check_probability(p: Any, name: str) -> float:
    """A probability in [0, 1]."""
    v = check_real(p, name, nonneg=True)
    if v > 1:
        raise ValueError(f"{name} must be in [0, 1], got {_show(p)}")
    return v


def check_confidence(c: Any, name: str = "confidence") -> float:
    """A confidence level in the open interval (0, 1)."""
    v = check_real(c, name)
    if not 0 < v < 1:
        raise ValueError(f"{name} must be in (0, 1), got {_show(c)}")
    return v


def check_positive_int(n: Any, name: str) -> int:
    """An integer >= 1 (bools and integral floats such as 3.0 are rejected)."""
    if isinstance(n, bool) or not isinstance(n, (numbers.Integral, np.integer)):
        raise TypeError(f"{name} must be an integer, got {_show(n)} of type {type(n).__name__}")
    if n < 1:
        raise ValueError(f"{name} must be >= 1, got {_show(n)}")
    return int(n)


def check_nonneg_int(n: Any, name: str) -> int:
    """An integer >= 0."""
    if isinstance(n, bool) or not isinstance(n, (numbers.Integral, np.integer)):
        raise TypeError(f"{name} must be an integer, got {_show(n)} of type {type(n).__name__}")
    if n < 0:
        raise ValueError(f"{name} must be >= 0, got {_show(n)}")
    return int(n)


def check_finite_array(x: Any, name: str, *, ndim: int | None = None, shape: tuple | None = None) -> np.ndarray:
    """A float array copy with no NaN or inf, optionally of a given ndim/shape."""
    try:
        arr = np.array(x, dtype=float, copy=True)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{name} must be numeric array-like, got {type(x).__name__}: {exc}") from None
    if ndim is not None and arr.ndim != ndim:
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


def check_probability_vector(pi: Any, name: str = "pi", *, atol: float = 1e-9) -> np.ndarray:
    """A 1-d vector of probabilities (>= 0) summing to 1 within ``atol``."""
    arr = check_finite_array(pi, name, ndim=1)
    if arr.size < 1:
        raise ValueError(f"{name} must be non-empty")
    if (arr < 0).any():
        i = int(np.argmax(arr < 0))
        raise ValueError(f"{name} must be non-negative, got {_show(arr[i])} at index {i}")
    s = float(arr.sum())
    if abs(s - 1.0) > atol:
        raise ValueError(f"{name} must sum to 1, sums to {_show(s)}")
    return arr


def check_row_stochastic(P: Any, name: str = "P", *, atol: float = 1e-9) -> np.ndarray:
    """A 2-d matrix with non-negative entries whose rows each sum to 1."""
    arr = check_finite_array(P, name, ndim=2)
    if arr.shape[0] < 1 or arr.shape[1] < 1:
        raise ValueError(f"{name} must be non-empty, got shape {arr.shape}")
    if (arr < 0).any():
        idx = tuple(int(i) for i in np.argwhere(arr < 0)[0])
        raise ValueError(f"{name} must be non-negative, got {_show(arr[idx])} at index {idx}")
    sums = arr.sum(axis=1)
    bad = np.abs(sums - 1.0) > atol
    if bad.any():
        i = int(np.argmax(bad))
        raise ValueError(f"{name} must be row-stochastic: row {i} sums to {_show(sums[i])}")
    return arr


def check_counts(counts: Any, name: str = "counts", *, length: int | None = None, nonempty: bool = False) -> np.ndarray:
    """A 1-d array of non-negative integers (integral floats accepted), returned as int64 copy."""
    if isinstance(counts, (str, bytes)):
        raise TypeError(f"{name} must be an array of counts, got {type(counts).__name__}")
    arr = np.array(counts, copy=True)
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
    return arr.astype(np.int64)


def as_generator(rng: Any, name: str = "rng") -> np.random.Generator:
    """``None`` -> a fresh OS-seeded Generator; an int seed -> ``default_rng(seed)``; a Generator as is."""
    if rng is None:
        return np.random.default_rng()
    if isinstance(rng, np.random.Generator):
        return rng
    if isinstance(rng, (numbers.Integral, np.integer)) and not isinstance(rng, bool):
        if rng < 0:
            raise ValueError(f"{name} seed must be >= 0, got {_show(rng)}")
        return np.random.default_rng(int(rng))
    raise TypeError(f"{name} must be a numpy.random.Generator, an int seed or None, got {type(rng).__name__}")


# ---------------------------------------------------------------- memory budget
# Minimal version (added with the continual room's hardening); the lead reconciles it with the
# fuller one at merge.  The budget is 4 GiB unless the environment variable DPVERIFY_MEMORY_BUDGET
# gives another number of bytes.
MEMORY_BUDGET_BYTES = 4 * 2**30


def _budget() -> int:
    import os

    raw = os.environ.get("DPVERIFY_MEMORY_BUDGET")
    if raw is None:
        return MEMORY_BUDGET_BYTES
    try:
        v = int(float(raw))
    except ValueError:
        raise ValueError(f"DPVERIFY_MEMORY_BUDGET must be a number of bytes, got {raw!r}") from None
    if v <= 0:
        raise ValueError(f"DPVERIFY_MEMORY_BUDGET must be > 0, got {raw!r}")
    return v


def check_budget(nbytes: int, what: str) -> int:
    """Refuse work needing more than the memory budget (ValueError naming ``what``); return nbytes.

    Example
    -------
    >>> check_budget(8 * 10**6, "counts")
    8000000
    """
    need = int(nbytes)
    budget = _budget()
    if need > budget:
        raise ValueError(f"{what} needs about {need / 2**30:.3g} GiB, over the memory budget of "
                         f"{budget / 2**30:.3g} GiB (set DPVERIFY_MEMORY_BUDGET to change it)")
    return need
