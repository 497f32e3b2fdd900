"""The exponential mechanism for the median of n records in {0..m} (McSherry & Talwar, FOCS 2007), and
the version that forgot the factor ½: a violation that lives on a structured pair of inputs.

The utility of an output r ∈ {0..m} is u(x, r) = −|#{i : x_i ≤ r} − n/2|; replacing one record moves
every count #{i : x_i ≤ r} by at most 1, so u has sensitivity 1 and drawing r with probability
∝ exp(ε·u(x, r)/2) is ε-DP (McSherry & Talwar, Thm 6).  ``halved=False`` draws ∝ exp(ε·u(x, r)) — the
factor ½ forgotten — and is only 2ε-DP.  The exact ε of either (``true_epsilon``) is the largest
|ln P_x(r) − ln P_y(r)| over all inputs x, all y with one record replaced and all outputs r,
computed by enumerating the (m+1)^n inputs.  At ε = 1, n = 5, m = 5 the broken version's is 1.771,
reached at x = (0, 0, 4, 4, 4), y = (5, 0, 4, 4, 4) (the issue's "true ε 1.77 against a claim of 1"):
a pair where one record crosses the median.  The StatDP patterns around the input of ones reach
only 0.763 (the pair (1,1,1,1,1), (5,1,1,1,1)); 13.7 % of all neighbouring pairs exceed 1.

Example
-------
>>> m = ExponentialMedian(1.0, halved=False)
>>> round(m.true_epsilon, 3), m.pair_epsilon([0, 0, 4, 4, 4], [5, 0, 4, 4, 4]) == m.true_epsilon
(1.771, True)
>>> round(ExponentialMedian(1.0).true_epsilon, 3)      # the correct mechanism: at most ε
0.831
"""

from __future__ import annotations

import numpy as np

from dpverify.audit.suite.base import BenchmarkMechanism, count_of, epsilon_of, vector_of
from dpverify.mechanisms.relations import Neighbours
from dpverify.validation import check_budget, check_work

__all__ = ["ExponentialMedian"]

_MAX_INPUTS = 10**6  # the exact ε enumerates every input: (m+1)^n of them at most


def _check_enumeration(records: int, top: int) -> None:
    """Refuse (top + 1)^records > _MAX_INPUTS inputs, or an enumeration beyond the memory budget.

    top >= 1, so records >= 20 gives at least 2^20 > 10^6 inputs: refused without the power."""
    if records >= 20 or (top + 1) ** records > _MAX_INPUTS:
        count = (top + 1) ** records if records < 20 else f"at least 2^{records}"
        raise ValueError(f"records={records!r}, top={top!r} give {count} inputs: "
                         f"the exact ε enumerates at most {_MAX_INPUTS}")
    inputs, what = (top + 1) ** records, f"records={records!r}, top={top!r} (the exact ε enumerates every input)"
    # it holds inputs × records × (top + 1) comparisons and a few inputs × (top + 1) float arrays, and
    # compares inputs × (top + 1) log-probabilities for each of records × (top + 1) replacements
    check_budget(inputs * (top + 1) * (records + 32), what)
    check_work(inputs * records * (top + 1) ** 2, what)


class ExponentialMedian(BenchmarkMechanism):
    """The exponential-mechanism median of ``records`` records in {0..``top``} (neighbours: one record
    replaced), claimed ε-DP; ``halved=False`` forgets the ½ in the exponent.  The exact ε enumerates
    the (top + 1)^records inputs: more than 10^6 of them, or beyond the memory or work budget, is refused
    (ValueError naming ``records`` and ``top``).

    Example
    -------
    >>> m = ExponentialMedian(1.0)
    >>> m.sample(np.array([0, 0, 4, 4, 4]), np.random.default_rng(0), 5).tolist()
    [3, 1, 0, 0, 3]
    >>> m.relation.describe_domain()
    '5 integer entries in [0, 5]'
    """

    name = "ExponentialMedian"

    def __init__(self, epsilon: float = 1.0, records: int = 5, top: int = 5, halved: bool = True):
        self.epsilon = epsilon_of(epsilon)
        self.records, self.top = count_of(records, "records"), count_of(top, "top")
        if not isinstance(halved, (bool, np.bool_)):
            raise TypeError(f"halved must be True or False, got {halved!r}")
        _check_enumeration(self.records, self.top)
        self.halved = bool(halved)
        if not self.halved:
            self.name = "ExponentialMedianUnhalved"
        self.relation = Neighbours(shape=(self.records,), kind="replace", low=0, high=self.top, integer=True,
                                   description="one record replaced by any value in {0..%d}" % self.top)
        self.true_epsilon = self._exact_epsilon()

    def log_probabilities(self, x) -> np.ndarray:
        """ln P_x(r) for r = 0..top, for one input or a stack of inputs (rows)."""
        x = np.asarray(x)
        le = (x[..., :, None] <= np.arange(self.top + 1)).sum(axis=-2)
        w = -np.abs(le - self.records / 2) * self.epsilon / (2.0 if self.halved else 1.0)
        w = w - w.max(axis=-1, keepdims=True)
        return w - np.log(np.exp(w).sum(axis=-1, keepdims=True))

    def pair_epsilon(self, x, y) -> float:
        """The exact ε of one pair: max over outputs of |ln P_x(r) − ln P_y(r)|."""
        return float(np.max(np.abs(self.log_probabilities(x) - self.log_probabilities(y))))

    def _exact_epsilon(self) -> float:
        """max over inputs, one record replaced, and outputs (every input enumerated)."""
        v, n = self.top + 1, self.records
        codes = np.arange(v**n)
        xs = (codes[:, None] // v ** np.arange(n)[::-1]) % v
        logp = self.log_probabilities(xs)
        worst = 0.0
        for j in range(n):
            for value in range(v):
                ys = codes + (value - xs[:, j]) * v ** (n - 1 - j)
                worst = max(worst, float(np.max(np.abs(logp - logp[ys]))))
        return worst

    def sample(self, data, rng, n):
        x = vector_of(data)
        if x.size != self.records:
            raise ValueError(f"data must hold {self.records} records, got {x.size}")
        p = np.exp(self.log_probabilities(np.clip(np.round(x), 0, self.top)))
        return rng.choice(self.top + 1, size=count_of(n), p=p / p.sum())
