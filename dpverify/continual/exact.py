"""Exact (rational) column norms of float matrices: the sensitivity of a strategy without rounding.

A float is m·2^e with integer m; a column's l1 norm Σ|m_i| 2^{e_i} (or its
squared l2 norm Σ m_i² 2^{2 e_i}) is an exact integer multiple of a power of
two, summed here with Python integers.  Float sums are used only to find the
columns that can attain the maximum (those within the float summation error
of the largest float sum); only those are summed exactly.

Example
-------
>>> import numpy as np
>>> from fractions import Fraction
>>> A = np.full((9, 2), 1 / 9)
>>> float(A.sum(axis=0).max()) > 1          # the float sum rounds over 1 ...
True
>>> max_column_norm_exact(A, 1) < 1          # ... the exact sum of the stored floats does not
True
>>> max_column_norm_exact(np.full((10, 1), 0.1), 1) > 1   # fl(0.1) > 1/10: ten of them exceed 1
True
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import scipy.sparse as sp

from dpverify.validation import check_finite_array

__all__ = ["max_column_norm_exact", "round_up"]

_U = 2.0**-53


def _exact_sum(vals: np.ndarray, power: int) -> Fraction:
    """Σ |v|^power exactly, for float64 v (power 1 or 2)."""
    v = np.abs(np.asarray(vals, dtype=np.float64))
    v = v[v != 0]
    if v.size == 0:
        return Fraction(0)
    f, e = np.frexp(v)  # v = f 2^e, f in [0.5, 1)
    m = (f * 2.0**53).astype(np.int64)  # exact: f has 53 significant bits
    e = e.astype(np.int64) - 53
    if power == 2:
        e = 2 * e
    emin = int(e.min())
    total = 0
    for mi, ei in zip(m.tolist(), (e - emin).tolist()):
        total += (mi * mi if power == 2 else mi) << ei
    return Fraction(total) * Fraction(2) ** emin


def max_column_norm_exact(A, p: int = 1) -> Fraction:
    """max_j Σ_i |A_ij| (p = 1) or max_j Σ_i A_ij² (p = 2, the *squared* l2 norm), exactly.

    ``A``: a dense array or scipy.sparse matrix of finite floats.

    Example
    -------
    >>> max_column_norm_exact(np.array([[0.5, 1.0], [0.5, -1.0]]), 2)
    Fraction(2, 1)
    """
    if isinstance(p, (bool, np.bool_)) or p not in (1, 2):
        raise ValueError(f"p must be 1 or 2, got {p!r}")
    if sp.issparse(A):
        C = sp.csc_matrix(A)
        C.sum_duplicates()
        data = np.abs(C.data) ** p
        if data.size and not np.isfinite(data).all():
            raise ValueError("strategy must have finite entries")
        sums = np.add.reduceat(data, C.indptr[:-1]) if data.size else np.zeros(C.shape[1])
        sums[np.diff(C.indptr) == 0] = 0.0
        counts = np.diff(C.indptr)

        def column(j):
            return C.data[C.indptr[j] : C.indptr[j + 1]]
    else:
        D = check_finite_array(A, "A", ndim=2)
        sums = (np.abs(D) ** p).sum(axis=0)
        counts = np.full(D.shape[1], D.shape[0])

        def column(j):
            return D[:, j]
    if sums.size == 0:
        return Fraction(0)
    top = float(sums.max())
    slack = 4 * (int(counts.max()) + 2) * _U * top  # float summation error bound (p = 2: squares add 1 ulp)
    cand = np.flatnonzero(sums >= top - slack)
    fast = _exact_max_int64(A, cand, p)
    if fast is not None:
        return fast
    return max(_exact_sum(column(int(j)), p) for j in cand)  # proof: exact-sensitivity


def _exact_max_int64(A, cand: np.ndarray, p: int):
    """The same exact maximum with int64 arithmetic when no sum can overflow 2^62 (else None)."""
    if p != 1:
        return None
    C = sp.csc_matrix(A)[:, cand] if sp.issparse(A) else sp.csc_matrix(np.asarray(A)[:, cand])
    v = np.abs(C.data)
    nz = v != 0
    if not nz.any():
        return Fraction(0)
    f, e = np.frexp(v[nz])
    m = (f * 2.0**53).astype(np.int64)
    e = e.astype(np.int64) - 53
    emin = int(e.min())
    shift = e - emin
    per_col = int(np.diff(C.indptr).max())
    if int(shift.max()) + 53 + per_col.bit_length() > 62:
        return None
    col = np.repeat(np.arange(C.shape[1]), np.diff(C.indptr))[nz]
    sums = np.zeros(C.shape[1], dtype=np.int64)
    np.add.at(sums, col, m << shift)  # exact: every partial sum stays below 2^62  # proof: exact-sensitivity
    return Fraction(int(sums.max())) * Fraction(2) ** emin


def round_up(x: Fraction) -> float:
    """The smallest float >= x (a sound float bound for an exact value).

    Example
    -------
    >>> round_up(Fraction(1, 3)) >= Fraction(1, 3)
    True
    """
    if isinstance(x, (bool, np.bool_)) or not isinstance(x, (Fraction, int, np.integer, float, np.floating)):
        raise TypeError(f"x must be a Fraction (or an int or float), got {x!r} of type {type(x).__name__}")
    if isinstance(x, (float, np.floating)):
        if not np.isfinite(x):
            raise ValueError(f"x must be finite, got {x!r}")
        return float(x)
    x = Fraction(x)
    try:
        f = float(x)
    except OverflowError:
        raise ValueError(f"x = {x} is beyond the float64 range") from None
    return f if Fraction(f) >= x else float(np.nextafter(f, np.inf))
