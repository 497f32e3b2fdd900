"""The memory and work budgets: work beyond them is refused up front, never attempted.

:data:`MEMORY_BUDGET_BYTES` (4 GiB, or ``DPVERIFY_MEMORY_BUDGET`` bytes) bounds the arrays of one
call; :data:`WORK_BUDGET_DRAWS` (2·10^9 random draws, or ``DPVERIFY_WORK_BUDGET``) bounds streamed
work that needs little memory but would run for hours.  Every room reaches these checks through
:mod:`dpverify.validation`, the one validation module, which re-exports them.

Example
-------
>>> check_budget(1024, "size")
>>> memory_budget() >= 1
True
"""

from __future__ import annotations

import os
from typing import Any

__all__ = ["MEMORY_BUDGET_BYTES", "WORK_BUDGET_DRAWS", "check_budget", "check_work", "memory_budget"]

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
    need = float(nbytes)
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
    env = os.environ.get("DPVERIFY_WORK_BUDGET")
    budget = WORK_BUDGET_DRAWS if env is None or not env.strip() else int(env)
    if not float(units) <= budget:
        raise ValueError(
            f"{what} is too much work: {float(units):.3g} draws, over the budget of {budget:.3g} "
            "(set DPVERIFY_WORK_BUDGET to change it)"
        )
