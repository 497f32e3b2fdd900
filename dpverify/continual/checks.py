"""The continual room's input checks: the one place that says what a horizon, an ε, a count,
a stream of times and a noise kind may be (ValueError/TypeError naming the parameter).

Every method, stream and release of the room validates through these; the generic checks they
build on live in :mod:`dpverify.validation`.

Example
-------
>>> check_n(7), check_eps(0.5), check_count(3), check_noise("discrete")
(7, 0.5, 3, 'discrete')
"""

from __future__ import annotations

import numbers

import numpy as np

from dpverify.validation import check_budget, check_epsilon, check_finite_array, check_nonneg_int, check_positive_int, check_real

__all__ = [
    "MAX_N", "MAX_TOTAL", "MAX_DISCRETE_SCALE", "EPSILON_RANGE", "NOISES",
    "check_n", "check_eps", "check_result", "check_times", "check_total", "check_count",
    "check_noise", "laplace_only", "check_noise_scale",
]

MAX_N = 2**62  # positions and running totals are int64
MAX_TOTAL = 2**62  # running totals (plus noise) stay inside int64
MAX_DISCRETE_SCALE = 2.0**40  # integer noise beyond this scale could leave int64 (P(|Z| > 2^61) < e^-2^21)
EPSILON_RANGE = (1e-150, 1e150)  # beyond it 1/ε² or ε² leaves float64 in some method's exact arithmetic
NOISES = ("laplace", "discrete")


def check_n(n, name: str = "n", *, per_node=0, what: str = "") -> int:
    """``n`` as an int in [1, 2^62), and (``per_node`` > 0) within the memory budget at that many bytes a node.

    ``per_node`` is a number of bytes, or a function of the validated int ``n`` giving it (e.g.
    ``lambda n: 24 * n.bit_length() + 64`` for a strategy with O(log n) entries a node); numpy
    integers are checked exactly as Python ints.

    Example
    -------
    >>> check_n(7), check_n(10**6, per_node=8), check_n(np.int64(8), per_node=lambda n: n.bit_length())
    (7, 1000000, 8)
    """
    n = check_positive_int(n, name)
    if n >= MAX_N:
        raise ValueError(f"{name} must be < 2^62 (int64 positions), got {n}")
    per = per_node(n) if callable(per_node) else check_nonneg_int(per_node, "per_node")
    if per:
        check_budget(per * n, f"{name} = {n} at per_node = {per} bytes" + (f" ({what})" if what else ""))
    return n


def check_eps(epsilon, name: str = "epsilon") -> float:
    """ε > 0 within :data:`EPSILON_RANGE`, where every method's noise scales and variances are finite floats.

    Example
    -------
    >>> check_eps(1)
    1.0
    """
    eps = check_epsilon(epsilon, name)
    lo, hi = EPSILON_RANGE
    if not lo <= eps <= hi:
        raise ValueError(f"{name} must be in [{lo:g}, {hi:g}] for continual release (noise scales and variances "
                         f"must stay finite in float64), got {epsilon!r}")
    return eps


def check_result(out: np.ndarray, epsilon) -> np.ndarray:
    """``out`` when finite; else a ValueError naming epsilon (a variance or noise scale left float64).

    Example
    -------
    >>> check_result(np.array([1.0, 2.0]), 1.0).tolist()
    [1.0, 2.0]
    """
    epsilon = check_epsilon(epsilon)
    if not isinstance(out, np.ndarray) or out.dtype.kind not in "iuf":
        raise TypeError(f"out must be a numeric numpy array (a release), got {type(out).__name__}")
    if out.dtype.kind == "f" and not np.isfinite(out).all():
        raise ValueError(f"epsilon={epsilon!r} gives a non-finite result (noise scale out of float64 range)")
    return out


def check_times(t, name: str = "t", *, bits: int = 63, dtype=np.int64) -> np.ndarray:
    """Integer times (node indices) as a fresh ``dtype`` array of the same shape.

    Integral floats are accepted; bool, complex, strings, NaN, ±inf and magnitudes at or beyond
    2^bits are refused (ValueError/TypeError naming ``name``).

    Example
    -------
    >>> check_times([1, 2.0, 3]).tolist()
    [1, 2, 3]
    """
    bits = check_positive_int(bits, "bits", maximum=64)
    try:
        dt = np.dtype(dtype)
    except TypeError:
        raise TypeError(f"dtype must be a numpy integer dtype, got {dtype!r}") from None
    if dt.kind not in "iu":
        raise TypeError(f"dtype must be a numpy integer dtype, got {dtype!r}")
    f = check_finite_array(t, name)  # type and finiteness; a float copy
    raw = np.asarray(t)
    if raw.dtype.kind in "iu":  # exact integers: only uint64 can pass 2^63
        big = raw >= np.uint64(1 << bits) if raw.dtype.kind == "u" and bits < 64 else np.zeros(raw.shape, bool)
    else:
        frac = f != np.round(f)
        if frac.any():
            raise ValueError(f"{name} must be integers, got {f[frac].ravel()[0].item()!r}")
        big = np.abs(f) >= 2.0**bits
    if big.any():
        raise ValueError(f"{name} must be < 2^{bits}, got {f[big].ravel()[0].item()!r}")
    return np.array(raw if raw.dtype.kind in "iu" else f, dtype=dtype)


def check_total(counts: np.ndarray, name: str = "counts") -> None:
    """Refuse counts (an integer array, already checked) whose running total would overflow int64.

    numpy wraps around silently, so the bound is checked in Python integers.

    Example
    -------
    >>> check_total(np.array([1, 2, 3])) is None
    True
    """
    a = counts
    if not isinstance(a, np.ndarray) or a.dtype.kind not in "iu":
        raise TypeError(f"{name} must be an integer array, got {type(a).__name__}")
    if a.size and int(a.max()) * a.size >= MAX_TOTAL and sum(int(x) for x in a.ravel()) >= MAX_TOTAL:
        raise ValueError(f"{name} too large: their total must stay below 2^62 (int64 running totals)")


def check_count(a_t) -> int:
    """One pushed count ``a_t``: a non-negative integer below 2^62 (integral floats accepted), as an int.

    The bound is :data:`MAX_TOTAL`, the bound on every running total (batch or stream): beyond it
    the noisy total leaves int64 under discrete noise, and ``1e308`` would overflow float64 at the
    next push under Laplace noise.  Such a count is a ValueError naming ``a_t`` and its value.

    Example
    -------
    >>> check_count(3), check_count(2.0)
    (3, 2)
    >>> check_count(1e308)
    Traceback (most recent call last):
    ...
    ValueError: a_t must be < 2^62 (running totals stay inside int64), got 1e+308
    """
    a = a_t
    if type(a) is int:  # fast path
        if a < 0:
            raise ValueError(f"a_t must be a non-negative integer, got {a!r}")
        if a >= MAX_TOTAL:
            raise ValueError(f"a_t must be < 2^62 (running totals stay inside int64), got {a!r}")
        return a
    if isinstance(a, (bool, np.bool_)) or not isinstance(a, (numbers.Real, np.integer, np.floating)):
        raise TypeError(f"a_t must be a non-negative integer, got {a!r} of type {type(a).__name__}")
    if isinstance(a, (numbers.Integral, np.integer)):
        v = int(a)
    else:
        f = float(a)
        if not np.isfinite(f) or f != int(f) or f < 0:
            raise ValueError(f"a_t must be a non-negative integer, got {a!r}")
        v = int(f)
    if v < 0:
        raise ValueError(f"a_t must be a non-negative integer, got {a!r}")
    if v >= MAX_TOTAL:
        raise ValueError(f"a_t must be < 2^62 (running totals stay inside int64), got {a!r}")
    return v


def check_noise(noise) -> str:
    """The noise kind: ``"laplace"`` (continuous) or ``"discrete"`` (two-sided geometric, integer outputs).

    Example
    -------
    >>> check_noise("laplace")
    'laplace'
    """
    if not isinstance(noise, str) or noise not in NOISES:
        raise ValueError(f"noise must be 'laplace' or 'discrete', got {noise!r}")
    return noise


def laplace_only(noise, method: str) -> None:
    """Methods whose estimate is real-valued release with Laplace noise only.

    Example
    -------
    >>> laplace_only("laplace", "boost") is None
    True
    """
    check_noise(noise)
    if not isinstance(method, str):
        raise TypeError(f"method must be a method name (str), got {method!r} of type {type(method).__name__}")
    if noise != "laplace":
        raise ValueError(f"{method} releases with Laplace noise only (real-valued estimate): noise must be 'laplace'")


def check_noise_scale(epsilon: float, min_weight: float, noise: str) -> None:
    """Refuse an ε whose noise cannot be represented: non-finite 1/(ε λ), or integer noise beyond 2^40.

    Example
    -------
    >>> check_noise_scale(1.0, 0.5, "discrete") is None
    True
    """
    epsilon = check_epsilon(epsilon)
    min_weight = check_real(min_weight, "min_weight", positive=True)
    check_noise(noise)
    scale = 1.0 / (epsilon * min_weight) if epsilon * min_weight > 0 else float("inf")
    if not np.isfinite(scale) or not np.isfinite(2.0 * scale * scale):
        raise ValueError(f"epsilon={epsilon!r} is too small for min_weight={min_weight!r}: the noise scale "
                         f"1/(ε·λ) = {scale!r} overflows float64")
    if noise == "discrete" and scale > MAX_DISCRETE_SCALE:
        raise ValueError(f"epsilon={epsilon!r} is too small for integer noise: scale 1/(ε·λ) = {scale:.3g} > 2^40 "
                         "(the noisy totals would not stay inside int64)")
