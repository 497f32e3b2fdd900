"""Turn evidence (numpy, sympy, fractions, dataclasses) into plain JSON values."""

from __future__ import annotations

import dataclasses
import math
import sys
from fractions import Fraction
from typing import Any

import numpy as np


def to_jsonable(value: Any) -> Any:
    """Convert evidence to JSON-compatible values.

    sympy expressions become ``{"sympy": str, "latex": latex}``; numpy arrays
    lists; non-finite floats the strings ``"inf"``, ``"-inf"``, ``"nan"``.
    A container that contains itself (a reference cycle) or is nested deeper than
    :data:`MAX_DEPTH` is refused with a ``ValueError`` naming ``value``.

    Example
    -------
    >>> to_jsonable({"eps": np.float64(0.5), "hits": np.array([1, 2]), "ok": np.bool_(True)})
    {'eps': 0.5, 'hits': [1, 2], 'ok': True}
    >>> loop = []; loop.append(loop)
    >>> to_jsonable(loop)
    Traceback (most recent call last):
    ...
    ValueError: value contains a reference cycle (a container inside itself) and cannot be converted to JSON
    """
    return _convert(value, set(), 0)


#: Deepest nesting :func:`to_jsonable` converts.
MAX_DEPTH = 200


def _convert(value: Any, stack: set, depth: int) -> Any:
    # sympy objects exist only if sympy was imported: never import it here (a claims
    # file without sympy must not pay for it)
    sympy = sys.modules.get("sympy")
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, np.bool_):
        return bool(value)
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        v = float(value)
        if math.isfinite(v):
            return v
        return "nan" if math.isnan(v) else ("inf" if v > 0 else "-inf")
    if isinstance(value, Fraction):
        try:
            approx = float(value)
        except OverflowError:
            approx = "inf" if value > 0 else "-inf"
        return {"fraction": f"{value.numerator}/{value.denominator}", "float": approx}
    if sympy is not None and isinstance(value, (sympy.Basic, sympy.MatrixBase)):
        return {"sympy": str(value), "latex": sympy.latex(value)}
    container = isinstance(value, (np.ndarray, dict, list, tuple, set, frozenset)) or (
        dataclasses.is_dataclass(value) and not isinstance(value, type)
    )
    if not container:
        if hasattr(value, "value") and hasattr(value, "name"):  # Enum
            return _convert(value.value, stack, depth + 1)
        return str(value)
    if id(value) in stack:
        raise ValueError("value contains a reference cycle (a container inside itself) and cannot be converted to JSON")
    if depth > MAX_DEPTH:
        raise ValueError(f"value is nested deeper than {MAX_DEPTH} levels and cannot be converted to JSON")
    stack.add(id(value))
    try:
        if isinstance(value, np.ndarray):
            if value.dtype == object:
                items = value.tolist() if value.ndim else value.item()
                return _convert(items, stack, depth + 1) if value.ndim else _convert(items, stack, depth + 1)
            return [_convert(v, stack, depth + 1) for v in value.tolist()] if value.ndim else _convert(value.item(), stack, depth + 1)
        if dataclasses.is_dataclass(value):
            return {f.name: _convert(getattr(value, f.name), stack, depth + 1) for f in dataclasses.fields(value)}
        if isinstance(value, dict):
            return {str(k): _convert(v, stack, depth + 1) for k, v in value.items()}
        return [_convert(v, stack, depth + 1) for v in value]
    finally:
        stack.discard(id(value))
