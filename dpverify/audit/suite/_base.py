"""Common base of the benchmark mechanisms: the protocol fields and vectorised sampling.

Example
-------
>>> from dpverify.audit.suite import Laplace
>>> Laplace(0.1).sample(np.array([1.0]), np.random.default_rng(0), 4).shape
(4,)
"""

from __future__ import annotations

import numpy as np

from dpverify.validation import check_epsilon, check_positive_int

__all__ = ["BenchmarkMechanism"]


class BenchmarkMechanism:
    """A benchmark mechanism: ``sample(data, rng, n)``, ``name``, claimed ``epsilon``, ``relation``
    (the neighbouring relation the claim is made under) and ``true_epsilon`` (its exact ε for that
    relation, ``inf`` for mechanisms that are not private at all).

    Example
    -------
    >>> from dpverify.audit.suite import ReportNoisyMax1
    >>> m = ReportNoisyMax1(0.1)
    >>> m.name, m.relation.kind, m.true_epsilon
    ('ReportNoisyMax1', 'linf', 0.1)
    """

    name = "BenchmarkMechanism"
    delta = 0.0

    def __call__(self, data, rng, n):
        return self.sample(data, rng, n)

    def __repr__(self) -> str:
        return f"{self.name}(epsilon={self.epsilon:g})"


def _eps(epsilon) -> float:
    return check_epsilon(epsilon)


def _vec(data, name: str = "data") -> np.ndarray:
    a = np.asarray(data, dtype=float).reshape(-1)
    if a.size == 0 or not np.isfinite(a).all():
        raise ValueError(f"{name} must be a non-empty finite vector, got {data!r}")
    return a


def _n(n) -> int:
    return check_positive_int(n, "n")
