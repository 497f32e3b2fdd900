"""The sizes of LP and QP data, checked before any entry is converted.

A certificate is for the problem given: every constraint matrix has one row per entry of its
right-hand side and one column per entry of ``c``, and a ``{(row, col): value}`` matrix has
indices that are integers in range and non-negative.  A matrix with a row that has no
right-hand side is refused, not dropped, and a negative index is refused, not read from the end
(:func:`dpverify.toolkit.lp.exact_lp_certificate`, :func:`~dpverify.toolkit.lp.lp_optimum`,
:func:`dpverify.toolkit.qp.qp_optimum`).  These checks read only the shapes (and the keys of a
dict), so a mismatch is reported at once, before millions of entries are converted to Fractions.

Example
-------
>>> check_shape([[1, 1]], "A_ub", 1, 2, "b_ub")
>>> check_shape([[1, 1]], "A_eq", 0, 2, "b_eq")
Traceback (most recent call last):
...
ValueError: A_eq has shape (1, 2), expected (0, 2): one row per entry of b_eq (0), one column per entry of c (2)
"""

from __future__ import annotations

from typing import Any

import numpy as np
import scipy.sparse

from dpverify.plain_checks import check_text
from dpverify.validation import check_elements, check_nonneg_int

__all__ = ["check_shape", "checked_coo", "vector_length"]


def vector_length(v: Any, name: str) -> int:
    """The number of entries of a vector (a number, a list or a 1-d array); errors name ``name``.

    >>> vector_length([1, "1/3", 0.5], "b_ub"), vector_length([], "b_eq")
    (3, 0)
    """
    check_text(name, "name")
    if v is None or isinstance(v, (str, bytes, dict)):
        raise TypeError(f"{name} must be a vector of rationals, got {v!r}")
    try:
        raw = np.asarray(v)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{name} must be a vector of rationals: {exc}") from None
    if raw.ndim > 1:
        raise ValueError(f"{name} must be a vector, got shape {raw.shape}")
    check_elements(raw, name, itemsize=64)  # a Fraction is about 64 bytes and more
    _check_finite(raw, name)
    return int(raw.size)


def _check_finite(raw: np.ndarray, name: str) -> None:
    """A float or complex array must be finite (cheap; other entries are read by the converter)."""
    if raw.dtype.kind in "fc" and not np.all(np.isfinite(raw)):
        raise ValueError(f"{name} must be finite, got {raw.ravel()[~np.isfinite(raw.ravel())][0]!r}")


def _dict_keys_ok(A: dict) -> bool:
    return all(isinstance(k, tuple) and len(k) == 2 and all(
        isinstance(t, (int, np.integer)) and not isinstance(t, bool) and t >= 0 for t in k) for k in A)


def check_shape(A: Any, name: str, m: int, n: int, b_name: str) -> None:
    """Refuse a constraint matrix ``A`` that is not ``m × n`` (``m`` entries of ``b_name``, ``n`` of c).

    ``A`` may be dense (nested lists or an array), scipy sparse, or ``{(row, col): value}`` (a sparse
    matrix: indices non-negative integers below ``(m, n)``).  With ``m = 0`` an empty list ``[]`` and an
    empty dict stand for "no constraint of this kind".  TypeError for a matrix of the wrong type or
    keys that are not index pairs, ValueError for a wrong shape or an index out of range; each
    message names ``name``.

    >>> check_shape({(0, 1): 5}, "A_ub", 1, 2, "b_ub")
    >>> check_shape({(0, -1): 5}, "A_ub", 1, 2, "b_ub")
    Traceback (most recent call last):
    ...
    TypeError: A_ub as a dict must map (row, col) pairs of indices >= 0 to values
    """
    name, b_name = check_text(name, "name"), check_text(b_name, "b_name")
    m, n = check_nonneg_int(m, "m"), check_nonneg_int(n, "n")
    why = f"one row per entry of {b_name} ({m}), one column per entry of c ({n})"
    if isinstance(A, dict):
        if not _dict_keys_ok(A):
            raise TypeError(f"{name} as a dict must map (row, col) pairs of indices >= 0 to values")
        outside = sorted(k for k in A if k[0] >= m or k[1] >= n)
        if outside:
            i, j = outside[0]
            raise ValueError(f"{name} has an entry at (row {i}, column {j}), outside {(m, n)}: {why}")
        return
    if hasattr(A, "tocoo") and hasattr(A, "shape"):
        shape = tuple(int(s) for s in A.shape)
    else:
        if A is None or isinstance(A, (str, bytes)):
            raise TypeError(f"{name} must be a matrix, got {A!r}")
        try:
            raw = np.asarray(A)
        except (TypeError, ValueError) as exc:
            raise TypeError(f"{name} must be a (rectangular) array of rationals: {exc}") from None
        check_elements(raw, name, itemsize=64)
        _check_finite(raw, name)
        shape = tuple(raw.shape)
        if m == 0 and shape in ((0,), (0, n)):
            return
    if shape != (m, n):
        raise ValueError(f"{name} has shape {shape}, expected {(m, n)}: {why}")


def checked_coo(A: Any, name: str):
    """A scipy sparse matrix as a fresh COO copy whose indices lie inside its shape, duplicates summed
    (scipy's meaning of a repeated entry); an index outside (e.g. ``.col`` altered after construction)
    is a ValueError naming ``name``.

    >>> import scipy.sparse as sps
    >>> checked_coo(sps.coo_matrix(([1, 2], ([0, 0], [1, 1])), shape=(1, 2)), "A").toarray().tolist()
    [[0, 3]]
    """
    check_text(name, "name")
    if not scipy.sparse.issparse(A):
        raise TypeError(f"{name} must be a scipy.sparse matrix, got {type(A).__name__}")
    try:
        coo = A.tocoo(copy=True)
    except (ValueError, IndexError, TypeError) as exc:  # scipy's own check of altered indices
        raise ValueError(f"{name} is not a valid sparse matrix: {exc}") from None
    rows, cols = np.asarray(coo.row), np.asarray(coo.col)
    m, n = (int(t) for t in coo.shape)
    bad = (rows < 0) | (rows >= m) | (cols < 0) | (cols >= n)
    if bad.any():
        k = int(np.argmax(bad))
        raise ValueError(f"{name} has a stored entry at (row {int(rows[k])}, column {int(cols[k])}), outside its "
                         f"shape {(m, n)}: a sparse matrix's indices must lie in 0..rows-1 and 0..cols-1")
    coo.sum_duplicates()
    return coo
