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
    """
    # sympy objects exist only if sympy was imported: never import it here (a claims
    # file without sympy must not pay for it)
    sympy = sys.modules.get("sympy")
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        v = float(value)
        if math.isfinite(v):
            return v
        return "nan" if math.isnan(v) else ("inf" if v > 0 else "-inf")
    if isinstance(value, Fraction):
        return {"fraction": f"{value.numerator}/{value.denominator}", "float": float(value)}
    if isinstance(value, np.ndarray):
        return [to_jsonable(v) for v in value.tolist()] if value.ndim else to_jsonable(value.item())
    if sympy is not None and isinstance(value, (sympy.Basic, sympy.MatrixBase)):
        return {"sympy": str(value), "latex": sympy.latex(value)}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: to_jsonable(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, dict):
        return {str(k): to_jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [to_jsonable(v) for v in value]
    if hasattr(value, "value") and hasattr(value, "name"):  # Enum
        return to_jsonable(value.value)
    return str(value)
