"""Shared helpers of the adapters: parameters that may arrive as strings from the command line."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any


def coerce(value: Any) -> Any:
    """A command-line string as the number/bool/None/list it spells; other values unchanged.

    ``"1"`` -> 1, ``"0.5"`` -> 0.5, ``"true"`` -> True, ``"none"`` -> None, ``"a,b"`` -> ["a", "b"].

    Example
    -------
    >>> coerce("1"), coerce("0.5"), coerce("true"), coerce("none"), coerce("a,2"), coerce(3)
    (1, 0.5, True, None, ['a', 2], 3)
    """
    if not isinstance(value, str):
        return value
    text = value.strip()
    low = text.lower()
    if low in ("true", "false"):
        return low == "true"
    if low == "none":
        return None
    if "," in text:
        return [coerce(part) for part in text.split(",") if part.strip()]
    for kind in (int, float):
        try:
            x = kind(text)
        except ValueError:
            continue
        if isinstance(x, float) and not math.isfinite(x):
            raise ValueError(f"parameter value must be finite, got {value!r}")
        return x
    return text


def coerce_all(params: dict) -> dict:
    """Every value of ``params`` through :func:`coerce` (a new dict).

    Example
    -------
    >>> coerce_all({"scale": "2", "T": "float"})
    {'scale': 2, 'T': 'float'}
    """
    if not isinstance(params, Mapping):
        raise TypeError(f"params must be a mapping of parameter names to values, got {type(params).__name__}")
    return {k: coerce(v) for k, v in params.items()}


def missing_package(package: str, extra: str, exc: Exception) -> ImportError:
    """The ImportError to raise when an adapter's library is missing (says what to install).

    Example
    -------
    >>> print(missing_package("opendp", "opendp", ModuleNotFoundError("No module named 'opendp'")))
    opendp is needed for this adapter (ModuleNotFoundError: No module named 'opendp'); install it with: pip install 'dpverify[opendp]'
    """
    for name, text in (("package", package), ("extra", extra)):
        if not isinstance(text, str) or not text:
            raise TypeError(f"{name} must be a non-empty str, got {text!r} of type {type(text).__name__}")
    if not isinstance(exc, BaseException):
        raise TypeError(f"exc must be the exception the import raised, got {type(exc).__name__}")
    return ImportError(
        f"{package} is needed for this adapter ({type(exc).__name__}: {exc}); "
        f"install it with: pip install 'dpverify[{extra}]'"
    )
