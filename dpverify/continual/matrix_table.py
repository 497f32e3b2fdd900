"""Side-by-side table: a user's matrix mechanism against the library's own running-count strategies.

Example
-------
>>> import numpy as np
>>> from dpverify.continual import MatrixMechanism
>>> rows = compare(MatrixMechanism(np.tril(np.ones((8, 8))), np.eye(8)), 1.0)
>>> rows[0]["name"], rows[0]["total_mse"]
('user', 72.0)
"""

from __future__ import annotations

import numpy as np

from dpverify.validation import check_epsilon

__all__ = ["compare", "format_table"]


def _is_prefix(W) -> bool:
    import scipy.sparse as sp
    import scipy.sparse.linalg as spla

    n = W.shape[1]
    if W.shape[0] != n:
        return False
    x = np.random.default_rng(0).normal(size=n)
    y = W.matvec(x) if isinstance(W, spla.LinearOperator) else (W @ x if sp.issparse(W) else np.asarray(W) @ x)
    return bool(np.allclose(y, np.cumsum(x)))


def compare(mechanism, epsilon: float, methods=None) -> list[dict]:
    """Rows {name, total_mse, max_mse, sensitivity, causal} for the user's mechanism and the library's.

    The library's rows need the workload to be the running counts (lower-triangular ones);
    a static method defined only for n = 2^m is left out at other n.

    Example
    -------
    >>> import numpy as np
    >>> from dpverify.continual import MatrixMechanism
    >>> [r["name"] for r in compare(MatrixMechanism(np.tril(np.ones((4, 4))), np.eye(4)), 1.0, ["fda"])]
    ['user', 'fda']
    """
    from dpverify.continual.api import expected_mse
    from dpverify.continual.methods import get_method, method_names

    from dpverify.continual.matrix import MatrixMechanism

    if not isinstance(mechanism, MatrixMechanism):
        raise TypeError(f"mechanism must be a MatrixMechanism, got {type(mechanism).__name__}")
    eps = check_epsilon(epsilon)
    if methods is not None:
        if isinstance(methods, (str, bytes)) or not hasattr(methods, "__iter__"):
            raise TypeError(f"methods must be a list of method names, got {methods!r}")
        methods = list(methods)
        if len(set(map(repr, methods))) != len(methods):
            raise ValueError("methods must be distinct method names")
        for name in methods:
            try:
                get_method(name)  # an unknown method is refused before any work
            except (TypeError, ValueError) as exc:
                raise type(exc)(f"methods: {exc}") from None
    v = mechanism.variances(eps)
    rows = [{"name": "user", "total_mse": float(v.sum()), "max_mse": float(v.max()),
             "sensitivity": mechanism.sensitivity(1), "causal": mechanism.is_causal()}]
    if not _is_prefix(mechanism.workload):
        return rows
    n = mechanism.workload.shape[1]
    for name in method_names() if methods is None else methods:
        m = get_method(name)
        if m.leaves_power_of_two and n & (n - 1):
            continue
        e = expected_mse(n, eps, name)
        rows.append({"name": name, "total_mse": float(e.sum()), "max_mse": float(e.max()),
                     "sensitivity": 1.0, "causal": m.online})
    return rows


def format_table(rows: list[dict]) -> str:
    """A plain-text table of :func:`compare`'s rows, sorted by total MSE.

    Example
    -------
    >>> print(format_table([{"name": "x", "total_mse": 2.0, "max_mse": 1.0, "sensitivity": 1.0, "causal": True}]))
    method            total MSE      max MSE  sens.  online
    x                         2            1  1.000  yes
    """
    if not isinstance(rows, (list, tuple)):
        raise TypeError(f"rows must be a list of compare()'s rows (dicts), got {type(rows).__name__}")
    for i, r in enumerate(rows):
        if not isinstance(r, dict):
            raise TypeError(f"rows[{i}] must be a dict (a row of compare()), got {r!r}")
        for key in ("name", "total_mse", "max_mse", "sensitivity", "causal"):
            if key not in r:
                raise ValueError(f"rows[{i}] must have the key {key!r}, got keys {sorted(map(str, r))}")
        for key in ("total_mse", "max_mse", "sensitivity"):
            if isinstance(r[key], (bool, np.bool_)) or not isinstance(r[key], (int, float, np.integer, np.floating)):
                raise TypeError(f"rows[{i}][{key!r}] must be a real number, got {r[key]!r}")
    out = [f"{'method':<12}{'total MSE':>15}{'max MSE':>13}{'sens.':>7}  online"]
    for r in sorted(rows, key=lambda r: r["total_mse"]):
        out.append(f"{r['name']:<12}{r['total_mse']:>15,.0f}{r['max_mse']:>13,.0f}{r['sensitivity']:>7.3f}  "
                   + ("yes" if r["causal"] else "no"))
    return "\n".join(out)
