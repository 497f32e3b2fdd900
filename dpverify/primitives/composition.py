"""Composition (the survey (Zhu et al.), sections "sequential / parallel composition") and a budget accountant that refuses to overspend.

Sequential: mechanisms with ε_1..ε_m run on the same data give Σ ε_i (m·ε when equal).
Parallel: mechanisms run on disjoint parts of the data give max ε_i.  ``product_law``
builds the exact output law of independent mechanisms so that the composed privacy loss
can be computed exactly (:func:`dpverify.audit.exact.max_privacy_loss`).
"""

from __future__ import annotations

import math

import numpy as np

from dpverify.validation import check_budget, check_real, check_epsilon, check_finite_array, check_probability_vector
from dpverify.proofdocs import proven

__all__ = ["BudgetExceeded", "Accountant", "parallel_epsilon", "product_law", "sequential_epsilon"]


class BudgetExceeded(ValueError):
    """A spend would take the accountant past its budget (nothing was spent)."""


@proven("survey/composition.md")
def sequential_epsilon(epsilons) -> float:
    """Σ ε_i: the budget of running ε_i-DP mechanisms one after another on the same data.

    Example
    -------
    >>> sequential_epsilon([0.5, 0.5, 1.0])
    2.0
    """
    e = check_finite_array(epsilons, "epsilons", ndim=1)
    if e.size < 1 or (e <= 0).any():
        raise ValueError(f"epsilons must be a non-empty list of values > 0, got {e.tolist()}")
    return float(e.sum())  # proof: seq-sum


@proven("survey/composition.md")
def parallel_epsilon(epsilons) -> float:
    """max ε_i: the budget of ε_i-DP mechanisms each run on a disjoint subset of the data.

    Example
    -------
    >>> parallel_epsilon([0.5, 0.2, 1.0])
    1.0
    """
    e = check_finite_array(epsilons, "epsilons", ndim=1)
    if e.size < 1 or (e <= 0).any():
        raise ValueError(f"epsilons must be a non-empty list of values > 0, got {e.tolist()}")
    return float(e.max())  # proof: par-max


@proven("survey/composition.md")
def product_law(*laws) -> np.ndarray:
    """The law of the tuple of independent outputs, flattened (outer product of the laws).

    Example
    -------
    >>> product_law([0.5, 0.5], [0.25, 0.75]).tolist()
    [0.125, 0.375, 0.125, 0.375]
    """
    if not laws:
        raise ValueError("product_law needs at least one law")
    checked = [check_probability_vector(p, f"laws[{i}]") for i, p in enumerate(laws)]
    check_budget(8.0 * math.prod(p.size for p in checked), f"the product of {len(laws)} laws")
    out = np.ones(1)
    for p in checked:
        out = np.multiply.outer(out, p).ravel()  # proof: product-law
    return out


class Accountant:
    """Sequential-composition budget: ``spend(ε)`` succeeds only while Σ spent ≤ budget.

    Example
    -------
    >>> acc = Accountant(1.0)
    >>> acc.spend(0.4, "f1"); acc.spend(0.6, "f2"); round(acc.remaining, 12)
    0.0
    >>> try:
    ...     acc.spend(0.1, "f3")
    ... except BudgetExceeded as exc:
    ...     print(exc)
    spending 0.1 on 'f3' would exceed the budget 1.0 (spent 1.0)
    """

    def __init__(self, budget: float, *, tolerance: float = 1e-12):
        self.budget = check_epsilon(budget, "budget")
        self._tol = check_real(tolerance, "tolerance", nonneg=True)
        self._ledger: list[tuple[str, float]] = []

    @property
    def spent(self) -> float:
        return math.fsum(e for _, e in self._ledger)

    @property
    def remaining(self) -> float:
        return max(0.0, self.budget - self.spent)

    @property
    def ledger(self) -> tuple[tuple[str, float], ...]:
        return tuple(self._ledger)

    def spend(self, epsilon: float, label: str = "") -> None:
        """Record a spend of ε, or raise :class:`BudgetExceeded` and record nothing."""
        e = check_epsilon(epsilon)
        if not isinstance(label, str):
            raise TypeError(f"label must be a str, got {label!r} of type {type(label).__name__}")
        if self.spent + e > self.budget * (1 + self._tol):  # proof: accountant-refuse
            raise BudgetExceeded(
                f"spending {e} on {label!r} would exceed the budget {self.budget} (spent {round(self.spent, 12)})"
            )
        self._ledger.append((str(label), e))

    def spend_parallel(self, epsilons, label: str = "") -> None:
        """Spend on mechanisms over disjoint subsets: costs max ε_i (parallel composition)."""
        self.spend(parallel_epsilon(epsilons), label)
