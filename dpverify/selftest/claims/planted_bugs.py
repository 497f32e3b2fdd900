"""The auditor's planted bugs: broken mechanisms it must refute (ids ``audit.bug.*``).

Each bug is a known way to get differential privacy wrong (half the noise, the wrong neighbours,
the exponential mechanism without its factor 2, noisy max publishing its value, the broken
sparse-vector variants of Lyu et al.); the auditor must find ε_lb > the claimed ε.  Audited at
confidence 0.99 with seed 7; ten times the samples with ``--thorough``.
"""

from __future__ import annotations

from dpverify.audit import PatternCode
from dpverify.audit.controls import (
    BinDifference,
    HistogramLaplace,
    LaplaceMechanism,
    NoisyMax,
    SparseVector,
)
from dpverify.claims import Outcome, claim
from dpverify.selftest.controls import ExponentialMechanism
from dpverify.selftest.audits import DEF, EXP, LAP, NMAX_D, NMAX_DP, SVT_D, SVT_DP, audited

#: name -> (statement, source, make() -> (mechanism, d, d', ε, samples, auditor keywords))
BUGS = {
    "half_noise_laplace": ("Laplace mechanism with noise Lap(Δf/(2ε)) (half the scale) is ε-DP (ε = 1)",
                           LAP, lambda: (LaplaceMechanism(1.0, scale_factor=0.5), 0.0, 1.0, 1.0, 50_000, {})),
    "wrong_neighbours_histogram": (
        "Noisy histogram with Lap(1/ε) per bin (add/remove sensitivity) is ε-DP under replace-one neighbours",
        LAP, lambda: (HistogramLaplace(1.0, 4, 1.0), [0, 1, 2, 3], [1, 1, 2, 3], 1.0, 100_000,
                      {"statistic": BinDifference(0, 1)})),
    "exponential_without_2": ("Exponential mechanism with exp(ε q/Δq) (no factor 2) is ε-DP for non-monotone q",
                              EXP, lambda: (ExponentialMechanism(1.0, factor=1.0), [0.0, 5.0, 5.0], [1.0, 4.0, 4.0],
                                            1.0, 100_000, {})),
    "noisy_max_value_laplace": ("Report-noisy-max with Lap(2/ε) that publishes the noisy maximum value is ε-DP",
                                DEF, lambda: (NoisyMax(1.0, returns="value"), NMAX_D, NMAX_DP, 1.0, 200_000, {})),
    "noisy_max_value_exponential": (
        "Report-noisy-max with Exp(2/ε) noise that publishes the noisy maximum value is ε-DP",
        DEF, lambda: (NoisyMax(1.0, noise="exponential", returns="value"), NMAX_D, NMAX_DP, 1.0, 50_000, {})),
    "svt_no_query_noise": ("Sparse vector without noise on the queries (Lyu et al. Alg. 5) is ε-DP",
                           DEF, lambda: (SparseVector(1.0, variant="no_query_noise"), SVT_D, SVT_DP, 1.0, 20_000,
                                         {"statistic": PatternCode()})),
    "svt_lee_clifton": ("Sparse vector with query noise Lap(Δ/ε2) not scaled by c (Lyu et al. Alg. 4, Lee & "
                        "Clifton; ε1 = ε/4, ε2 = 3ε/4, c = 1) is ε-DP",
                        DEF, lambda: (SparseVector(1.0, variant="lee_clifton"), SVT_D, SVT_DP, 1.0, 400_000,
                                      {"statistic": PatternCode()})),
    "svt_no_cutoff": ("Sparse vector answering every query without a cutoff (Lyu et al. Alg. 6) is ε-DP",
                      DEF, lambda: (SparseVector(1.0, variant="no_cutoff"), SVT_D, SVT_DP, 1.0, 100_000,
                                    {"statistic": PatternCode()})),
}


def _register_bug(name, statement, source, make):
    @claim(f"audit.bug.{name}", source=source, statement=statement, method="audit", expected="refuted",
           proof="audit/auditor_validity.md")
    def _check(thorough: bool = False) -> Outcome:
        mech, d, dp, eps, n, kw = make()
        return audited(mech, d, dp, epsilon=eps, samples=n * (10 if thorough else 1), seed=7, confidence=0.99, **kw)

    return _check


for _name, (_stmt, _src, _make) in BUGS.items():
    _register_bug(_name, _stmt, _src, _make)
