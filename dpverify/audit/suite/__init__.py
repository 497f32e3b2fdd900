"""The benchmark mechanisms of StatDP (Ding et al., CCS 2018) and DP-Sniper (Bichsel et al., S&P
2021), written from the papers' definitions, each with its exact ε under its relation.

``CASES`` lists them with the parameters of DP-Sniper's evaluation, DP-Sniper's published
90 %-confidence lower bound (its reference results, Table 2 of the paper, estimated on 2·10^8 draws
per input) and its own bound at 1.07·10^7 draws per input (the check stage of its search).  The last
case is not DP-Sniper's (its bounds are NaN): the exponential-mechanism median that forgot the ½
(:mod:`dpverify.audit.suite.median`), whose violation needs a pair beyond the base patterns
(``benchmarks/bench_structured_search.py``).

Example
-------
>>> [c.name for c in CASES][:3]
['Laplace', 'TruncatedGeometric', 'NoisyHist1']
>>> CASES[0].make().true_epsilon, CASES[0].dpsniper
(0.1, 0.0968)
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass
from typing import Callable

import numpy as np

from dpverify.audit.suite.geometric import TruncatedGeometric
from dpverify.audit.suite.median import ExponentialMedian
from dpverify.audit.suite.noise import Laplace, LaplaceParallel, NoisyHist1, NoisyHist2, PrefixSum
from dpverify.audit.suite.noisy_max import ReportNoisyMax1, ReportNoisyMax2, ReportNoisyMax3, ReportNoisyMax4
from dpverify.audit.suite.rappor import OneTimeRappor, Rappor
from dpverify.audit.suite.svt import SVT1, SVT2, SVT3, SVT4, SVT5, SVT6, NumericalSVT, SVT34Parallel
from dpverify.validation import check_real

__all__ = ["CASES", "Case", "ExponentialMedian", "Laplace", "LaplaceParallel", "NoisyHist1", "NoisyHist2",
           "NumericalSVT", "OneTimeRappor", "PrefixSum", "Rappor", "ReportNoisyMax1", "ReportNoisyMax2", "ReportNoisyMax3",
           "ReportNoisyMax4", "SVT1", "SVT2", "SVT3", "SVT4", "SVT5", "SVT6", "SVT34Parallel", "TruncatedGeometric"]


def _is_real(x) -> bool:
    return isinstance(x, numbers.Real) and not isinstance(x, (bool, np.bool_))


@dataclass(frozen=True)
class Case:
    """One benchmark: a name, a factory, and DP-Sniper's published bound.

    ``dpsniper`` is DP-Sniper's published bound, from its final estimate on 2·10^8 draws per input;
    ``dpsniper_1e7`` its own bound for the same pair and attack at its check stage, on 1.07·10^7 draws
    per input (``best_result.lower_bound`` in its reference log ``dd_search_reg_data.log``, logistic
    regression): DP-Sniper's strength at the draws ``audit()`` is given in the benchmark.

    ``name`` is text, ``make`` a callable, each bound a real number >= 0 or NaN (not DP-Sniper's case);
    anything else is refused (TypeError/ValueError naming the field).

    Example
    -------
    >>> Case("x", lambda: Laplace(0.1), 0.0968).make().name
    'Laplace'
    """

    name: str
    make: Callable
    dpsniper: float
    dpsniper_1e7: float = math.nan

    def __post_init__(self):
        if not isinstance(self.name, str) or not self.name:
            raise TypeError(f"name must be a non-empty str, got {self.name!r}")
        if not callable(self.make):
            raise TypeError(f"make must be callable (it builds the mechanism), got {self.make!r}")
        for field in ("dpsniper", "dpsniper_1e7"):
            bound = getattr(self, field)
            if not (_is_real(bound) and math.isnan(bound)):  # NaN: no published bound
                check_real(bound, field, nonneg=True)


CASES = [
    Case("Laplace", lambda: Laplace(0.1), 0.0968, 0.0918),
    Case("TruncatedGeometric", lambda: TruncatedGeometric(0.1, 5), 0.1156, 0.1085),
    Case("NoisyHist1", lambda: NoisyHist1(0.1), 0.0978, 0.0955),
    Case("NoisyHist2", lambda: NoisyHist2(0.1), 4.602, 4.6004),
    Case("ReportNoisyMax1", lambda: ReportNoisyMax1(0.1), 0.0923, 0.0853),
    Case("ReportNoisyMax2", lambda: ReportNoisyMax2(0.1), 0.0975, 0.0902),
    Case("ReportNoisyMax3", lambda: ReportNoisyMax3(0.1), 0.2478, 0.2430),
    Case("ReportNoisyMax4", lambda: ReportNoisyMax4(0.1), 0.3463, 0.3443),
    Case("SVT1", lambda: SVT1(0.1, c=1, threshold=0.5), 0.0858, 0.0772),
    Case("SVT2", lambda: SVT2(0.1, c=1, threshold=1.0), 0.0859, 0.0793),
    Case("SVT3", lambda: SVT3(0.1, c=1, threshold=1.0), 0.1716, 0.1655),
    Case("SVT4", lambda: SVT4(0.1, c=1, threshold=1.0), 0.1687, 0.1666),
    Case("SVT5", lambda: SVT5(0.1, c=1, threshold=1.0), 1.761, 1.7569),
    Case("SVT6", lambda: SVT6(0.1, c=1, threshold=1.0), 0.2720, 0.2693),
    Case("Rappor", lambda: Rappor(), 0.2930, 0.2924),
    Case("OneTimeRappor", lambda: OneTimeRappor(), 0.5978, 0.5920),
    Case("LaplaceParallel", lambda: LaplaceParallel(20, 0.005), 0.0350, 0.0287),
    Case("SVT34Parallel", lambda: SVT34Parallel(0.1, c=2, threshold=1.0), 0.2610, 0.2599),  # DP-Sniper's default c = 2
    Case("PrefixSum", lambda: PrefixSum(0.1), 0.5040, 0.5063),
    Case("NumericalSVT", lambda: NumericalSVT(0.1, c=2, threshold=1.0), 0.0343, 0.0271),
    Case("ExponentialMedianUnhalved", lambda: ExponentialMedian(1.0, halved=False), math.nan),  # not DP-Sniper's
]
