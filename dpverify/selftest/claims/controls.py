"""The auditor's controls: correct mechanisms it must never refute (ids ``audit.control.*``).

A correct mechanism's privacy claim can only come out ``inconclusive`` (an audit never proves
privacy).  Each control is audited at confidence 1 − 1e-6 with seed 2026; ten times the samples
with ``--thorough``.
"""

from __future__ import annotations

from dpverify.audit import PatternCode
from dpverify.audit.controls import (
    BinDifference,
    HistogramLaplace,
    LaplaceMechanism,
    NoisyMax,
    SparseVector,
    SuffixSum,
)
from dpverify.claims import Outcome, Source, claim
from dpverify.selftest.controls import KRR, ExponentialMechanism, FDARelease, GeometricMechanism
from dpverify.selftest.audits import CONF_CONTROL, DEF, EXP, LAP, NMAX_D, NMAX_DP, SVT_D, SVT_DP, audited

#: name -> (statement, source, make() -> (mechanism, d, d', ε, samples, auditor keywords))
CONTROLS = {
    "laplace": ("Laplace mechanism f(D) + Lap(Δf/ε) is ε-DP (ε = 1, Δf = 1, f(D) = 0, f(D') = 1)",
                LAP, lambda: (LaplaceMechanism(1.0), 0.0, 1.0, 1.0, 200_000, {})),
    "geometric": ("Geometric (discrete Laplace) mechanism is ε-DP (ε = 1, integer counts 0 vs 1)",
                  LAP, lambda: (GeometricMechanism(1.0), 0, 1, 1.0, 200_000, {})),
    "exponential": ("Exponential mechanism with exp(ε q/(2Δq)) is ε-DP (ε = 1, scores [0,5,5] vs [1,4,4])",
                    EXP, lambda: (ExponentialMechanism(1.0), [0.0, 5.0, 5.0], [1.0, 4.0, 4.0], 1.0, 200_000, {})),
    "krr": ("k-ary randomized response (k = 4) is ε-DP (ε = 1, value 0 vs 1)",
            DEF, lambda: (KRR(4, 1.0), 0, 1, 1.0, 200_000, {})),
    "noisy_max_index": ("Report-noisy-max with Lap(2/ε) returning the index is ε-DP (ε = 1)",
                        DEF, lambda: (NoisyMax(1.0), NMAX_D, NMAX_DP, 1.0, 100_000, {})),
    "svt_alg1": ("Sparse vector (Lyu et al. Alg. 1, c = 1) is ε-DP (ε = 1, queries 0^10 vs 1^5(−1)^5)",
                 DEF, lambda: (SparseVector(1.0), SVT_D, SVT_DP, 1.0, 100_000, {"statistic": PatternCode()})),
    "histogram_substitution": ("Noisy histogram with Lap(2/ε) per bin is ε-DP under replace-one neighbours",
                               LAP, lambda: (HistogramLaplace(1.0, 4, 2.0), [0, 1, 2, 3], [1, 1, 2, 3], 1.0, 100_000,
                                             {"statistic": BinDifference(0, 1)})),
    "fda_release": ("The continual room's FDA release (ε = 1) is ε-DP for streams differing in one count",
                    Source("004", "Alg. 4/5", "FDA release"),
                    lambda: (FDARelease(1.0), [1, 0, 1, 1], [1, 1, 1, 1], 1.0, 1500, {"statistic": SuffixSum(1)})),
}


def _register_control(name, statement, source, make):
    @claim(f"audit.control.{name}", source=source, statement=statement, method="audit", expected="inconclusive",
           proof="audit/auditor_validity.md")
    def _check(thorough: bool = False) -> Outcome:
        mech, d, dp, eps, n, kw = make()
        return audited(mech, d, dp, epsilon=eps, samples=n * (10 if thorough else 1), seed=2026,
                       confidence=CONF_CONTROL, **kw)

    return _check


for _name, (_stmt, _src, _make) in CONTROLS.items():
    _register_control(_name, _stmt, _src, _make)
