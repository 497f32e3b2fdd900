"""The matrices a linear mechanism is made of, as the verifier of :mod:`dpverify.continual.matrix` reads
them: dense arrays, scipy.sparse matrices or LinearOperators checked for shape, their dense forms (within a
memory bound), their rows' squared norms, and the sparse triangular and LU solves that give B = W A⁺.

Example
-------
>>> import numpy as np
>>> row_sq_norms(np.array([[1.0, 2.0], [0.0, 3.0]])).tolist()
[5.0, 9.0]
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla

from dpverify.validation import check_bool, check_elements

__all__ = ["MAX_ENTRIES", "as_matrix", "dense", "row_sq_norms", "tri_solve", "lu_solve"]

MAX_ENTRIES = 2**26  # dense intermediates above this many entries are refused (512 MB of float64)


def as_matrix(x, name: str):
    """``x`` as a 2-D ndarray, sparse matrix or LinearOperator (ValueError/TypeError naming ``name``).

    Example
    -------
    >>> as_matrix([[1, 0], [0, 1]], "W").shape
    (2, 2)
    """
    if isinstance(x, spla.LinearOperator):
        if len(x.shape) != 2:
            raise ValueError(f"{name} must be 2-dimensional, got shape {x.shape}")
        return x
    if sp.issparse(x):
        m = sp.csr_matrix(x, dtype=np.float64)
        if not np.isfinite(m.data).all():
            raise ValueError(f"{name} has a NaN or infinite entry")
        return m
    if isinstance(x, (str, bytes)) or x is None:
        raise TypeError(f"{name} must be an array, a scipy.sparse matrix or a LinearOperator, got {type(x).__name__}")
    a = np.asarray(x)
    check_elements(a, name)
    if a.dtype.kind not in "biuf":
        raise TypeError(f"{name} must be real-valued, got dtype {a.dtype}")
    a = a.astype(np.float64)
    if a.ndim != 2:
        raise ValueError(f"{name} must be 2-dimensional, got shape {a.shape}")
    if not np.isfinite(a).all():
        raise ValueError(f"{name} has a NaN or infinite entry")
    return a


def dense(x, name: str) -> np.ndarray:
    """``x`` as a dense ndarray, refused beyond :data:`MAX_ENTRIES` entries.

    Example
    -------
    >>> dense(sp.eye(2), "A").tolist()
    [[1.0, 0.0], [0.0, 1.0]]
    """
    x = as_matrix(x, name)
    if x.shape[0] * x.shape[1] > MAX_ENTRIES:
        raise ValueError(f"{name} of shape {x.shape} is too large to form densely (> {MAX_ENTRIES} entries)")
    if isinstance(x, spla.LinearOperator):
        return np.asarray(x.matmat(np.eye(x.shape[1])))
    return x.toarray() if sp.issparse(x) else np.asarray(x)


def row_sq_norms(B) -> np.ndarray:
    """``‖B_t‖²`` for every row t of B (sparse, dense or a LinearOperator read in blocks of rows).

    Example
    -------
    >>> row_sq_norms(sp.eye(2)).tolist()
    [1.0, 1.0]
    """
    B = as_matrix(B, "B")
    with np.errstate(over="ignore"):
        out = _row_sq_norms(B)
    if not np.isfinite(out).all():
        raise ValueError("B is too large: its squared row norms overflow float64")
    return out


def _row_sq_norms(B) -> np.ndarray:
    if sp.issparse(B):
        return np.asarray(B.multiply(B).sum(axis=1)).ravel()
    if isinstance(B, spla.LinearOperator):
        out = np.empty(B.shape[0])
        step = max(1, MAX_ENTRIES // max(1, B.shape[1]) // 4)
        for lo in range(0, B.shape[0], step):
            E = np.zeros((B.shape[0], min(step, B.shape[0] - lo)))
            E[np.arange(lo, lo + E.shape[1]), np.arange(E.shape[1])] = 1.0
            cols = np.asarray(B.rmatmat(E))  # Bᵀ e_t: row t of B
            out[lo : lo + E.shape[1]] = (cols**2).sum(axis=0)
        return out
    return (B**2).sum(axis=1)


def _check_rhs(Y, rows: int, name: str = "Y") -> np.ndarray:
    """The right-hand sides: a finite real ``rows`` × k array (ValueError/TypeError naming ``name``)."""
    if isinstance(Y, (str, bytes)) or Y is None:
        raise TypeError(f"{name} must be a real 2-D array, got {type(Y).__name__}")
    a = np.asarray(Y)
    check_elements(a, name)
    if a.dtype.kind not in "iuf":
        raise TypeError(f"{name} must be a real 2-D array, got dtype {a.dtype}")
    if a.ndim != 2 or a.shape[0] != rows:
        raise ValueError(f"{name} must be a {rows} × k array (one row per row of the matrix), got shape {a.shape}")
    if not np.isfinite(a).all():
        raise ValueError(f"{name} has a NaN or infinite entry")
    return a


def tri_solve(T, Y: np.ndarray, lower: bool) -> np.ndarray:
    """Solve T X = Y for sparse triangular T and dense Y by level scheduling.

    Row i's level is 1 + the largest level of the rows it depends on; the rows of
    one level are solved together with one sparse-dense product, so a tree-shaped
    strategy (depth O(log n)) costs O(log n) products of total work nnz(T)·columns(Y).

    Example
    -------
    >>> tri_solve(sp.csr_matrix(np.array([[2.0, 0.0], [1.0, 1.0]])), np.array([[2.0], [3.0]]), lower=True).tolist()
    [[1.0], [2.0]]
    """
    if not (sp.issparse(T) or isinstance(T, np.ndarray)):
        raise TypeError(f"T must be a square scipy.sparse matrix or 2-D array, got {type(T).__name__}")
    lower = check_bool(lower, "lower")
    T = as_matrix(T, "T")
    T = sp.csr_matrix(T)
    n = T.shape[0]
    if T.shape != (n, n):
        raise ValueError(f"T must be square, got shape {T.shape}")
    Y = _check_rhs(Y, n)
    diag = T.diagonal()
    if (diag == 0).any():
        raise ValueError("strategy is singular (a zero pivot): no reconstruction B = W A⁺")
    off = sp.csr_matrix(T - sp.diags(diag))
    off.eliminate_zeros()
    if (sp.triu(off) if lower else sp.tril(off)).nnz:
        raise ValueError(f"T must be {'lower' if lower else 'upper'} triangular (lower={lower})")
    ip, ind = off.indptr, off.indices
    level = np.zeros(n, dtype=np.int64)
    for i in range(n) if lower else range(n - 1, -1, -1):
        deps = ind[ip[i] : ip[i + 1]]
        if deps.size:
            level[i] = level[deps].max() + 1
    Y = np.ascontiguousarray(Y, dtype=np.float64)
    X = np.empty(Y.shape)  # C order: scipy's sparse @ dense then needs no copy
    order = np.argsort(level, kind="stable")
    bounds = np.searchsorted(level[order], np.arange(level.max() + 2))
    for a, b in zip(bounds[:-1], bounds[1:]):
        rows = order[a:b]
        X[rows] = (Y[rows] - off[rows] @ X) / diag[rows, None] if off[rows].nnz else Y[rows] / diag[rows, None]
    return X


def lu_solve(M, Y: np.ndarray) -> np.ndarray:
    """M X = Y with a sparse LU of M (Pr M Pc = L U) and row-wise triangular solves for many right-hand sides.

    Example
    -------
    >>> lu_solve(sp.csr_matrix(np.array([[0.0, 1.0], [1.0, 0.0]])), np.array([[2.0], [3.0]])).tolist()
    [[3.0], [2.0]]
    """
    try:
        lu = spla.splu(sp.csc_matrix(M))
    except RuntimeError:
        raise ValueError("strategy is singular (rank < number of columns): no reconstruction B = W A⁺") from None
    Y = np.asarray(_check_rhs(Y, lu.shape[0]), dtype=np.float64)
    V = tri_solve(lu.L, _perm_rows(Y, lu.perm_r), lower=True)  # L V = Pr Y
    Z = tri_solve(lu.U, V, lower=False)  # U Z = V
    return Z[lu.perm_c]  # X = Pc Z


def _perm_rows(Y, perm_r):
    """``Pr Y``: row i of Y moved to position ``perm_r[i]``.

    Example
    -------
    >>> _perm_rows(np.array([[1], [2]]), np.array([1, 0])).tolist()
    [[2], [1]]
    """
    out = np.empty_like(Y)
    out[perm_r] = Y  # Pr Y: row i of Y goes to position perm_r[i]
    return out
