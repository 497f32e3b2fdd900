"""The memory and work budgets: work beyond them is refused up front, never attempted.

:data:`MEMORY_BUDGET_BYTES` (4 GiB, or ``DPVERIFY_MEMORY_BUDGET`` bytes) bounds the arrays of one
call; :data:`WORK_BUDGET_DRAWS` (2·10^9 random draws, or ``DPVERIFY_WORK_BUDGET``) bounds streamed
work that needs little memory but would run for hours.  :func:`check_size` applies the memory
budget to an output shape, :func:`check_elements` to an input array by its *logical* size (a
zero-stride view of 1.5·10^9 elements is refused by name before any copy).  Every room reaches
these checks through :mod:`dpverify.validation`, the one validation module, which re-exports them.

Example
-------
>>> check_budget(1024, "size")
>>> memory_budget() >= 1
True
"""

from __future__ import annotations

import math
import numbers
import os
from typing import Any

import numpy as np

__all__ = ["MEMORY_BUDGET_BYTES", "WORK_BUDGET_DRAWS", "check_budget", "check_elements", "check_size", "check_work",
           "draws_in_memory", "memory_budget", "work_budget"]

#: Default work budget: random draws (or comparable unit steps) one call may perform, about a
#: minute of sampling; override with DPVERIFY_WORK_BUDGET.  Beyond it a call is refused up front.
WORK_BUDGET_DRAWS = 2 * 10**9

#: Default memory budget (bytes) for any single call; override with DPVERIFY_MEMORY_BUDGET.
MEMORY_BUDGET_BYTES = 4 * 2**30

def memory_budget() -> int:
    """The memory budget in bytes: ``DPVERIFY_MEMORY_BUDGET`` if set (a positive integer), else 4 GiB.

    Example
    -------
    >>> memory_budget() >= 1
    True
    """
    env = os.environ.get("DPVERIFY_MEMORY_BUDGET")
    if env is None or env.strip() == "":
        return MEMORY_BUDGET_BYTES
    try:
        v = int(env)
    except ValueError:
        raise ValueError(f"DPVERIFY_MEMORY_BUDGET must be a positive integer number of bytes, got {env!r}") from None
    if v < 1:
        raise ValueError(f"DPVERIFY_MEMORY_BUDGET must be a positive integer number of bytes, got {env!r}")
    return v


def _gib(nbytes: float) -> str:
    return f"{nbytes / 2**30:.3g} GiB"


def _amount(x: Any, name: str, what: Any) -> float:
    """An amount of bytes or draws: a real number >= 0 (NaN counts as too much: it is refused later).

    Python ints beyond float64 are +inf (always over the budget); ``what`` must be text."""
    if not isinstance(what, str):
        raise TypeError(f"what must be a str (the parameter responsible), got {type(what).__name__}")
    if isinstance(x, (bool, np.bool_)) or not isinstance(x, (numbers.Real, np.integer, np.floating)):
        raise TypeError(f"{name} must be a real number >= 0, got {x!r} of type {type(x).__name__}")
    try:
        v = float(x)
    except OverflowError:
        return math.inf
    if v < 0:
        raise ValueError(f"{name} must be >= 0, got {x!r}")
    return v


def check_budget(nbytes: Any, what: str) -> None:
    """Refuse work whose arrays need more than :func:`memory_budget` bytes (``ValueError`` naming ``what``).

    ``what`` names the parameter responsible, e.g. ``"n = 10000000000"``.

    Example
    -------
    >>> check_budget(1024, "size")
    >>> try:
    ...     check_budget(2**70, "n = 2**67")
    ... except ValueError as e:
    ...     print(str(e).split(":")[0])
    n = 2**67 is too large
    """
    need = _amount(nbytes, "nbytes", what)
    budget = memory_budget()
    if not need <= budget:
        raise ValueError(
            f"{what} is too large: it needs about {_gib(need)}, over the memory budget of {_gib(budget)} "
            "(set DPVERIFY_MEMORY_BUDGET to change it)"
        )


def check_work(units: Any, what: str) -> None:
    """Refuse a call that would take more than the work budget (``DPVERIFY_WORK_BUDGET`` or 2·10^9 draws).

    Example
    -------
    >>> check_work(10**6, "trials")
    """
    units = _amount(units, "units", what)
    budget = work_budget()
    if not units <= budget:
        raise ValueError(
            f"{what} is too much work: {units:.3g} draws, over the budget of {budget:.3g} "
            "(set DPVERIFY_WORK_BUDGET to change it)"
        )


def work_budget() -> int:
    """The work budget in draws: ``DPVERIFY_WORK_BUDGET`` if set, else :data:`WORK_BUDGET_DRAWS`.

    Example
    -------
    >>> work_budget() >= 1
    True
    """
    env = os.environ.get("DPVERIFY_WORK_BUDGET")
    try:
        return WORK_BUDGET_DRAWS if env is None or not env.strip() else int(env)
    except ValueError:
        raise ValueError(f"DPVERIFY_WORK_BUDGET must be a positive integer number of draws, got {env!r}") from None


def draws_in_memory(bytes_per_draw: Any) -> int:
    """How many draws fit the memory budget when each costs ``bytes_per_draw`` bytes (at least 1).

    Stages that hold their draws (a screening round, a classifier's training sample) are capped at
    this many; stages that only count draw them in chunks of at most this many.

    Example
    -------
    >>> draws_in_memory(8) == memory_budget() // 8
    True
    """
    per = _amount(bytes_per_draw, "bytes_per_draw", "bytes_per_draw")
    if not 1 <= per < math.inf:
        raise ValueError(f"bytes_per_draw must be a finite number of bytes >= 1, got {bytes_per_draw!r}")
    return max(1, int(memory_budget() // per))


def _show(x: Any) -> str:
    """repr of a value for an error message, numpy scalars shown as plain numbers."""
    return repr(x.item() if isinstance(x, np.generic) else x)


def check_size(size: Any, name: str = "size", *, broadcast: tuple = (), itemsize: int = 8) -> tuple:
    """An output shape: ``None`` (→ ``broadcast``), a positive int or a tuple of positive ints.

    The shape must broadcast with ``broadcast`` (the shape of array parameters) to itself, and
    ``prod(shape) * itemsize`` bytes must fit :func:`memory_budget`.  A sampler's ``size``
    means independent draws: ``size`` noisy releases of the same data under one ε cost
    ``size``·ε in total (sequential composition).

    Example
    -------
    >>> check_size(3), check_size((2, np.int64(2))), check_size(None, broadcast=(4,))
    ((3,), (2, 2), (4,))
    """
    if isinstance(itemsize, (bool, np.bool_)) or not isinstance(itemsize, (numbers.Integral, np.integer)) or itemsize < 0:
        raise TypeError(f"itemsize must be an integer >= 0 (bytes an entry), got {_show(itemsize)}")
    if not isinstance(broadcast, (tuple, list)) or any(
            isinstance(d, (bool, np.bool_)) or not isinstance(d, (numbers.Integral, np.integer)) or d < 0 for d in broadcast):
        raise TypeError(f"broadcast must be a shape (a tuple of integers >= 0), got {_show(broadcast)}")
    if size is None:
        shape = tuple(int(d) for d in broadcast)
    else:
        if isinstance(size, np.ndarray) and size.ndim == 0:
            size = size.item()
        dims = size if isinstance(size, (tuple, list)) else (size,)
        shape = []
        for d in dims:
            if isinstance(d, bool) or not isinstance(d, (numbers.Integral, np.integer)):
                raise TypeError(f"{name} must be a positive integer or a tuple of them, got {_show(size)}")
            if d < 1:
                raise ValueError(f"{name} must be a positive integer or a tuple of them, got {_show(size)}")
            shape.append(int(d))
        shape = tuple(shape)
        if broadcast:
            try:
                ok = np.broadcast_shapes(tuple(broadcast), shape) == shape
            except ValueError:
                ok = False
            if not ok:
                raise ValueError(f"{name} {shape} does not match the shape {tuple(broadcast)} of the array parameters")
    count = math.prod(shape)
    check_budget(count * itemsize, f"{name} = {_show(size)}")
    return shape


def check_elements(arr: Any, name: str, *, itemsize: int = 8) -> None:
    """Refuse an array whose copy would not fit the memory budget, counting its *logical* size.

    A zero-stride view (``np.broadcast_to(1, (1_500_000_000,))``) costs no memory itself, but
    every copy or elementwise result has its full logical size: the budget counts ``arr.size``
    elements of ``itemsize`` bytes (float64 by default), so such a view is refused by name before
    any copy is attempted.

    Example
    -------
    >>> check_elements(np.broadcast_to(1.0, (1000,)), "pi")
    >>> try:
    ...     check_elements(np.broadcast_to(1.0, (1_500_000_000,)), "pi")
    ... except ValueError as e:
    ...     print(str(e).split(":")[0])
    pi with 1500000000 entries is too large
    """
    if isinstance(itemsize, (bool, np.bool_)) or not isinstance(itemsize, (int, np.integer)):
        raise TypeError(f"itemsize must be an integer number of bytes, got {itemsize!r} of type {type(itemsize).__name__}")
    if itemsize < 1:
        raise ValueError(f"itemsize must be >= 1, got {itemsize!r}")
    size = int(getattr(arr, "size", 0) or 0)
    if size * itemsize > 2**20:  # small arrays: nothing to check
        check_budget(size * itemsize, f"{name} with {size} entries")
