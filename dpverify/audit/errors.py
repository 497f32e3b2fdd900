"""The one place where a mechanism's outputs are checked: :class:`MechanismError`.

Every sampling path of the auditor (``epsilon_lower_bound``, ``audit``, the pair search,
the curve audit) calls :func:`call_mechanism`, so a mechanism that raises, returns the
wrong number of outputs, non-numeric values, NaN or ±∞ is reported the same way,
naming the input and the call.

Example
-------
>>> import numpy as np
>>> call_mechanism(lambda d, rng, n: rng.random(n), 0.0, np.random.default_rng(0), 3).shape
(3,)
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["MechanismError", "call_mechanism", "describe_input"]


class MechanismError(RuntimeError):
    """The audited mechanism raised, or returned outputs of the wrong shape or with NaN/inf.

    Example
    -------
    >>> issubclass(MechanismError, RuntimeError)
    True
    """


def describe_input(data: Any, limit: int = 60) -> str:
    """A short printable form of an input (for error messages).

    Example
    -------
    >>> describe_input([1, 2, 3])
    '[1, 2, 3]'
    """
    if isinstance(data, np.ndarray):
        text = np.array2string(data, separator=", ", threshold=8)
    else:
        text = repr(data)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def call_mechanism(mechanism: Any, data: Any, rng: np.random.Generator, n: int) -> np.ndarray:
    """Draw ``n`` outputs of ``mechanism`` on ``data``; raise :class:`MechanismError` on any defect.

    ``mechanism`` is a callable ``mechanism(data, rng, n)`` or an object with
    ``sample(data, rng, n)``; the outputs must be numeric, finite, with ``n`` rows.

    Example
    -------
    >>> def bad(d, rng, n):
    ...     return rng.random(n + 1)
    >>> try:
    ...     call_mechanism(bad, 0, np.random.default_rng(0), 2)
    ... except MechanismError as e:
    ...     print(e)
    mechanism 'bad' returned shape (3,), expected (2,) or (2, k), in sample(data=0, rng, n=2)
    """
    from dpverify.audit.protocol import checked_sample  # the one place the sampling rules live

    return checked_sample(mechanism, data, rng, n)
