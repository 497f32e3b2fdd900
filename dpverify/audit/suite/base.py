"""Common base of the benchmark mechanisms: the protocol fields and vectorised sampling.

Example
-------
>>> from dpverify.audit.suite import Laplace
>>> Laplace(0.1).sample(np.array([1.0]), np.random.default_rng(0), 4).shape
(4,)
"""

from __future__ import annotations

import numpy as np

from dpverify.mechanisms.privacy import PureDP
from dpverify.validation import check_epsilon, check_finite_array, check_positive_int

__all__ = ["BenchmarkMechanism", "count_of", "epsilon_of", "vector_of"]


class BenchmarkMechanism:
    """A benchmark mechanism: ``sample(data, rng, n)``, ``name``, claimed ``epsilon``, ``relation``
    (the neighbouring relation the claim is made under) and ``true_epsilon`` (its exact ε for that
    relation, ``inf`` for mechanisms that are not private at all).  Every benchmark is a
    :class:`dpverify.mechanisms.Mechanism` (``claim``: ε-DP at ``epsilon``).

    Example
    -------
    >>> from dpverify.audit.suite import ReportNoisyMax1
    >>> m = ReportNoisyMax1(0.1)
    >>> m.name, m.relation.kind, m.true_epsilon
    ('ReportNoisyMax1', 'linf', 0.1)
    """

    name = "BenchmarkMechanism"
    delta = 0.0
    ideal_arithmetic = True  # stands for the mechanism over the reals: float artefacts are not audited

    @property
    def claim(self) -> PureDP:
        """The stated privacy: ε-DP at the claimed ``epsilon`` (:class:`dpverify.mechanisms.Mechanism`)."""
        return PureDP(self.epsilon)

    def __call__(self, data, rng, n):
        return self.sample(data, rng, n)

    def __repr__(self) -> str:
        return f"{self.name}(epsilon={self.epsilon:g})"


def epsilon_of(epsilon) -> float:
    """A benchmark's ε, checked (:func:`dpverify.validation.check_epsilon`).

    >>> epsilon_of(0.5)
    0.5
    """
    return check_epsilon(epsilon)


def vector_of(data, name: str = "data") -> np.ndarray:
    """A benchmark's input as a non-empty finite float vector (a scalar becomes one entry).

    Bool, complex and text input is refused (TypeError naming ``name``), not coerced; an array whose
    copy would not fit the memory budget (a zero-stride view counts its logical size) is refused
    before any copy (:func:`dpverify.validation.check_finite_array`).

    >>> vector_of(2).tolist()
    [2.0]
    """
    a = check_finite_array(data, name).reshape(-1)
    if a.size == 0:
        raise ValueError(f"{name} must be a non-empty finite vector, got an empty array")
    return a


def count_of(n, name: str = "n", *, maximum: int | None = None) -> int:
    """A positive count (samples, sizes, cutoffs), checked under the parameter's own ``name``
    (:func:`dpverify.validation.check_positive_int`), optionally at most ``maximum``.

    >>> count_of(3), count_of(2, "c")
    (3, 2)
    """
    return check_positive_int(n, name, maximum=maximum)
