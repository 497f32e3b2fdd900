"""A mechanism whose only informative output is rare: the sharpest control for :func:`dpverify.audit.audit`.

:class:`RareEvent` takes an input d ∈ {0, …, k−1} and outputs 1 (the rare event) with probability

    q(d) = p · exp(−factor · ε · (k − 1 − d)/(k − 1)),

else 0.  On the output 1 the likelihood ratio of the two extreme inputs is exactly e^{factor·ε};
on the output 0 it is (1 − q(0))/(1 − q(k−1)) ≤ e^ε whenever p ≤ 1/2 (below), so with
``factor = 1`` the mechanism is ε-DP and no better: its true ε (:meth:`RareEvent.true_epsilon`,
computed from the exact output laws) is the claim.  An audit's bound on it is then a bound on a
single likelihood ratio, on an event rare enough that the auditor's conditional (Poisson) test is
nearly exact, so the fraction of audits whose bound exceeds the true ε comes close to α = 1 −
confidence: a sharp check of the auditor's level (``audit.api.*`` claims).  ``factor > 1`` is a
planted bug (true ε = factor · ε).

Why p ≤ 1/2 suffices: (1 − p e^{−ε})/(1 − p) ≤ e^ε ⟺ p ≤ (e^ε − 1)/(e^ε − e^{−ε}),
which is e^ε/(1 + e^ε) > 1/2 for every ε > 0; inputs closer than 0 and k − 1 have smaller ratios
still (``tests/audit/test_audit_selftest_claims.py`` checks the inequality numerically).

Example
-------
>>> import numpy as np
>>> m = RareEvent(1.0)
>>> m(1, np.random.default_rng(0), 5).tolist(), round(m.true_epsilon(), 12)
([0, 0, 1, 1, 0], 1.0)
>>> round(RareEvent(1.0, factor=2.0).true_epsilon(), 12)
2.0
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from dpverify.audit.controls import Control
from dpverify.mechanisms import Neighbours
from dpverify.validation import check_epsilon, check_positive_int, check_real

__all__ = ["RareEvent"]


@dataclass(frozen=True)
class RareEvent(Control):
    """Output 1 with probability p·exp(−factor·ε·(k−1−d)/(k−1)) for the input d ∈ {0..k−1}, else 0.

    Parameters
    ----------
    epsilon : the claimed ε (> 0)
    p : the rare event's probability at the input k − 1, in (0, 1/2]
    k : the number of inputs (≥ 2); any two of them are neighbours
    factor : 1 for the correct mechanism; > 1 plants a bug (true ε = factor·ε)

    Example
    -------
    >>> m = RareEvent(0.5, p=0.2, k=3)
    >>> m.law(2)[1].tolist(), str(m.relation)
    ([0.8, 0.2], 'any two inputs in 0..2')
    """

    epsilon: float
    p: float = 0.1
    k: int = 2
    factor: float = 1.0

    def __post_init__(self):
        check_epsilon(self.epsilon)
        if check_real(self.p, "p", positive=True) > 0.5:
            raise ValueError(f"p must be in (0, 0.5] (then the output 0 leaks less than the output 1), got {self.p!r}")
        if check_positive_int(self.k, "k") < 2:
            raise ValueError(f"k must be >= 2 (two inputs at least), got {self.k!r}")
        check_real(self.factor, "factor", positive=True)

    @property
    def relation(self) -> Neighbours:
        """Any two inputs in 0..k−1 (a stated integer domain: the audit searches only it)."""
        return Neighbours(shape=(), kind="replace", low=0, high=self.k - 1, integer=True,
                          description=f"any two inputs in 0..{self.k - 1}")

    def rare_probability(self, data) -> float:
        """q(d), the probability of the output 1 at the input ``data``."""
        d = int(data)
        if not 0 <= d < self.k:
            raise ValueError(f"data must be an integer in 0..{self.k - 1}, got {data!r}")
        return self.p * math.exp(-self.factor * self.epsilon * (self.k - 1 - d) / (self.k - 1))

    def law(self, data):
        """The exact pmf at ``data``: (support (0, 1), probabilities (1 − q(d), q(d)))."""
        q = self.rare_probability(data)
        return np.arange(2), np.array([1.0 - q, q])

    def true_epsilon(self) -> float:
        """The exact ε: the largest |ln P[M(d) = o]/P[M(d′) = o]| over inputs d ≠ d′ and outputs o."""
        laws = [self.law(d)[1] for d in range(self.k)]
        return max(abs(math.log(a[o] / b[o])) for a in laws for b in laws for o in (0, 1))

    def __call__(self, data, rng, n):
        return (rng.random(n) < self.rare_probability(data)).astype(np.int64)
