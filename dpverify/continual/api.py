"""Public entry points of the continual room: validate, then dispatch to the method."""

from __future__ import annotations

import warnings

import numpy as np

from dpverify.validation import as_generator, check_budget, check_counts
from dpverify.continual.checks import check_eps, check_n, check_noise, check_result, check_total
from dpverify.continual.methods import get_method

__all__ = ["expected_mse", "release", "strategy", "stream"]


_BYTES_PER_RELEASE = 48  # a method's exact MSE / batch release holds a few float64 arrays of length n
FLOAT_LAPLACE_WARNING = (
    "noise='laplace' samples floating-point Laplace noise, which leaks through the low-order bits of "
    "float64 (the floating-point attack, Mironov 2012; dpverify's auditor refutes it); integer counts "
    "should use noise='discrete', the exact two-sided geometric sampler"
)


def _noise_of(noise: str, *, warn: bool = False) -> str:
    check_noise(noise)
    if warn and noise == "laplace":
        warnings.warn(FLOAT_LAPLACE_WARNING, UserWarning, stacklevel=3)
    return noise


def _check_leaves(n: int, m) -> None:
    if m.leaves_power_of_two and n & (n - 1):
        raise ValueError(f"n must be a power of two for method {m.name!r}, got {n}")


def expected_mse(n: int, epsilon: float, method: str = "fda", **options) -> np.ndarray:
    """Exact expected squared error of each of the n releases (no Monte Carlo).

    Example
    -------
    >>> import numpy as np
    >>> from dpverify.continual import expected_mse
    >>> np.allclose(expected_mse(3, 1.0, "naive"), [2.0, 4.0, 6.0])
    True
    """
    n = check_n(n)
    eps = check_eps(epsilon)
    m = get_method(method)
    _check_leaves(n, m)
    check_budget(_BYTES_PER_RELEASE * n, f"expected_mse(n={n})")
    out = check_result(np.asarray(m.expected_mse(n, eps, **options), dtype=float), epsilon)
    if out.shape != (n,):  # a method's bug, not the caller's (kept under python -O, unlike an assert)
        raise RuntimeError(f"method {method!r} returned shape {out.shape} for n={n}")
    return out


def strategy(n: int, method: str = "fda", **options):
    """``(R, A)`` with R @ A = W and max column l1 norm of A <= 1.

    A is scipy.sparse. R is scipy.sparse, except for the static methods whose
    recombination is dense (boost, privelet, honaker above n = 1024): there R is
    a ``scipy.sparse.linalg.LinearOperator`` applied in O(n log n).

    Example
    -------
    >>> from dpverify.continual import strategy
    >>> R, A = strategy(4, "naive")
    >>> (R @ A).toarray().tolist()[3]
    [1.0, 1.0, 1.0, 1.0]
    """
    n = check_n(n)
    # a factorization stores O(n log n) entries (more for some baselines): refuse what cannot fit
    check_budget(n * (32 * n.bit_length() + 64), f"strategy(n={n}) (sparse factorization)")
    m = get_method(method)
    if m.strategy is None:
        raise ValueError(f"method {method!r} is not a factorization R·A of the workload")
    _check_leaves(n, m)
    return m.strategy(n, **options)


def release(counts, epsilon: float, method: str = "fda", rng=None, *, noise: str = "discrete", **options) -> np.ndarray:
    """Release the n noisy running totals of ``counts`` under ε-DP (batch).

    Parameters
    ----------
    counts : array of non-negative integers a_1..a_n (not mutated)
    epsilon : privacy budget ε > 0 for the whole stream (one record changes one a_i by ±1)
    method : a registered method name (``dpverify.continual.methods.method_names()``)
    rng : numpy.random.Generator, int seed or None
    noise : ``"discrete"`` (default: exact two-sided geometric sampler, integer outputs) or
        ``"laplace"`` (float64 Laplace noise; emits a ``UserWarning``: floating-point Laplace
        samples leak through their low-order bits, the floating-point attack)

    Example
    -------
    >>> import numpy as np
    >>> from dpverify.continual import release
    >>> release([1, 0, 2], 1.0, "naive", rng=np.random.default_rng(0)).shape
    (3,)
    """
    a = check_counts(counts, "counts", nonempty=True)
    check_total(a)
    eps = check_eps(epsilon)
    m = get_method(method)
    _noise_of(noise, warn=True)
    _check_leaves(a.size, m)
    if m.release is None:
        raise ValueError(f"method {method!r} has no release")
    check_budget(_BYTES_PER_RELEASE * a.size, f"release of {a.size} counts")
    return check_result(np.asarray(m.release(a, eps, as_generator(rng), noise, **options)), epsilon)


def stream(n: int, epsilon: float, method: str = "fda", rng=None, *, noise: str = "discrete", **options):
    """An online release object: ``push(a_t)`` returns the noisy s_t; at most n pushes.

    ``noise`` as in :func:`release` (``"discrete"`` by default; ``"laplace"`` warns).  The naive,
    fenwick and fda streams keep O(log n) state and also offer ``push_many(chunk)``.

    Example
    -------
    >>> from dpverify.continual import stream
    >>> s = stream(3, 1e9, "fda", rng=0, noise="discrete")   # huge ε: the noise is 0 here
    >>> [s.push(a) for a in (1, 0, 2)], s.remaining
    ([1, 1, 3], 0)
    """
    n = check_n(n)
    eps = check_eps(epsilon)
    m = get_method(method)
    _noise_of(noise, warn=True)
    if m.stream is None:
        raise ValueError(f"method {method!r} cannot run online")
    return m.stream(n, eps, as_generator(rng), noise, **options)
