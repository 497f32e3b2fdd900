"""Claims of the statistical auditor (ids ``audit.*``).

Privacy statements about concrete mechanisms are audited from samples: a correct
mechanism's claim can only come out ``inconclusive`` (an audit never proves privacy), a
broken one ``refuted`` with ε_lb > claimed ε.  The auditor's own properties (validity
against exact ground truth, false-refutation rate, power, tightness) are claims that hold
or are refuted by measurement.  Every audit is seeded; seeds are in the evidence.
"""

from __future__ import annotations

import math

import numpy as np

from dpverify.audit.exact import max_privacy_loss, privacy_curve
from dpverify.audit.mechanisms import (
    KRR,
    BinDifference,
    ExponentialMechanism,
    FDARelease,
    GeometricMechanism,
    HistogramLaplace,
    LaplaceMechanism,
    NoisyMax,
    SparseVector,
    SuffixSum,
)
from dpverify.audit.statistical import PatternCode, clopper_pearson_upper, epsilon_lower_bound
from dpverify.claims import Outcome, Source, Verdict, claim
from dpverify.claims.model import SELF_TEST
from dpverify.toolkit import audit_epsilon

# Claims about the auditor and the library's own (planted-bug, control) mechanisms cite the library,
# not seed 002: the survey states the definitions, it does not make these claims.
DEF = Source(SELF_TEST, "auditor", "(ε, δ)-DP definition applied to a library mechanism")
LAP = Source(SELF_TEST, "auditor", "Laplace-mechanism controls and planted bugs")
EXP = Source(SELF_TEST, "auditor", "exponential-mechanism control and planted bug")
CONF_CONTROL = 1 - 1e-6  # controls: a false refutation has probability ≤ 1e-6 per audit
SVT_D, SVT_DP = [0.0] * 10, [1.0] * 5 + [-1.0] * 5
NMAX_D, NMAX_DP = [1.0] * 5, [2.0, 0.0, 0.0, 0.0, 0.0]


def _audit(mech, d, dp, eps, samples, seed, confidence=0.99, **kw) -> Outcome:
    out = audit_epsilon(mech, d, dp, epsilon=eps, samples=samples, confidence=confidence, rng=seed, **kw)
    return Outcome(out.verdict, {**out.evidence, "mechanism": repr(mech)}, summary=out.summary)


# ----------------------------------------------------------------- controls (never "holds")

_CONTROLS = {
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
        return _audit(mech, d, dp, eps, n * (10 if thorough else 1), seed=2026, confidence=CONF_CONTROL, **kw)

    return _check


for _name, (_stmt, _src, _make) in _CONTROLS.items():
    _register_control(_name, _stmt, _src, _make)


# ----------------------------------------------------------------- known bugs (must be refuted)

_BUGS = {
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
        return _audit(mech, d, dp, eps, n * (10 if thorough else 1), seed=7, confidence=0.99, **kw)

    return _check


for _name, (_stmt, _src, _make) in _BUGS.items():
    _register_bug(_name, _stmt, _src, _make)


# ----------------------------------------------------------------- the auditor's own properties


def _geometric_law(mu: int, epsilon: float, K: int) -> np.ndarray:
    """Exact law of mu + two-sided geometric noise on {−K..K}, the two tails lumped into the end points."""
    r = math.exp(-epsilon)
    k = np.arange(-K, K + 1)
    p = (1 - r) / (1 + r) * r ** np.abs(k - mu)
    lo = r ** (K + 1 + mu) / (1 + r)  # Pr[X < −K] = Σ_{j ≥ K+1+mu} p_j
    hi = r ** (K + 1 - mu) / (1 + r)  # Pr[X > K]
    p[0] += lo
    p[-1] += hi
    return p


GT_CONFIDENCE = 1 - 1e-7


def _ground_truth_figure(outcome):
    from matplotlib.figure import Figure

    d = outcome.figure_data
    fig = Figure(figsize=(4.5, 4))
    ax = fig.add_subplot()
    for name in sorted(set(d["names"])):
        idx = [i for i, n in enumerate(d["names"]) if n == name]
        ax.scatter([d["exact"][i] for i in idx], [d["eps_lb"][i] for i in idx], label=name, s=18)
    top = max(d["exact"]) * 1.05
    ax.plot([0, top], [0, top], "k--", lw=1, label="ε_lb = exact ε(δ)")
    ax.set_xlabel("exact ε(δ) from the output laws")
    ax.set_ylabel("auditor's ε_lb (confidence 1 − 1e-7)")
    ax.legend(fontsize=7)
    return fig


@claim("audit.ground_truth", source=DEF, method="exact computation", expected="holds", figure=_ground_truth_figure,
       statement="The auditor's ε_lb never exceeds the exact ε(δ) of discrete mechanisms (k-RR, exponential, "
                 "geometric on a clipped range) computed from their output laws (audits at confidence 1 − 1e-7 each, "
                 "so a valid auditor exceeds in any of the 27 audits with probability below 3e-6)",
       proof="audit/auditor_validity.md")
def _ground_truth(thorough: bool = False) -> Outcome:
    from dpverify.primitives.exponential import exponential_probabilities
    from dpverify.primitives.randomized_response import krr_matrix

    cases = []
    P = krr_matrix(4, 1.0)
    cases.append(("krr", KRR(4, 1.0), 0, 1, P[0], P[1]))
    sd, sdp = [0.0, 5.0, 5.0], [1.0, 4.0, 4.0]
    cases.append(("exp_factor1", ExponentialMechanism(1.0, factor=1.0), sd, sdp,
                  exponential_probabilities(sd, 1.0, 1.0, factor=1.0), exponential_probabilities(sdp, 1.0, 1.0, factor=1.0)))

    K = 6  # the audited mechanism clips to {−K..K}; its exact law is the lumped one

    class ClippedGeometric(GeometricMechanism):
        def __call__(self, data, rng, n):
            return np.clip(super().__call__(data, rng, n), -K, K)

    cases.append(("clipped_geometric", ClippedGeometric(0.7), 0, 1, _geometric_law(0, 0.7, K), _geometric_law(1, 0.7, K)))
    deltas = [0.0, 0.01, 0.05]
    seeds = range(6 if thorough else 3)
    worst = -math.inf
    rows = []
    for name, mech, d, dp, p, q in cases:
        for delta in deltas:
            # exact ε(δ): smallest ε with max(δ_pq(ε), δ_qp(ε)) ≤ δ, by bisection on the exact curve
            grid = np.linspace(0, max(max_privacy_loss(p, q), max_privacy_loss(q, p)) + 1e-9, 4001)
            curve = np.maximum(privacy_curve(p, q, grid), privacy_curve(q, p, grid))
            exact_eps = float(grid[np.argmax(curve <= delta + 1e-15)])
            for s in seeds:
                # per-audit confidence 1 − 1e-7: the check's false-alarm rate is ≤ (#audits)·1e-7
                r = epsilon_lower_bound(mech, d, dp, samples=40_000, confidence=GT_CONFIDENCE, delta=delta, rng=s)
                gap = r.epsilon - exact_eps
                worst = max(worst, gap)
                rows.append([name, delta, s, round(r.epsilon, 4), round(exact_eps, 4)])
    ok = worst <= 1e-12  # the grid value is ≥ the exact ε(δ), so a valid bound stays below it
    fig = {"names": [r[0] for r in rows], "eps_lb": [r[3] for r in rows], "exact": [r[4] for r in rows]}
    return Outcome(Verdict.HOLDS if ok else Verdict.REFUTED,
                   {"max_eps_lb_minus_exact": worst, "audits": len(rows), "examples": rows[:: max(1, len(rows) // 6)],
                    "confidence": 0.99}, figure_data=fig)


@claim("audit.false_refutation_rate", source=DEF, method="simulation", expected="holds",
       statement="Over many seeded audits of correct mechanisms the auditor refutes at most a fraction α = 1 − "
                 "confidence (here α = 0.2, 300 audits of Laplace and geometric controls)",
       proof="audit/auditor_validity.md")
def _false_rate(thorough: bool = False) -> Outcome:
    alpha = 0.2
    runs = 1000 if thorough else 150
    mechs = [(LaplaceMechanism(1.0), 0.0, 1.0), (GeometricMechanism(1.0), 0, 1)]
    refuted = 0
    total = 0
    for mech, d, dp in mechs:
        for s in range(runs):
            r = epsilon_lower_bound(mech, d, dp, samples=4000, confidence=1 - alpha, rng=10_000 + s)
            refuted += r.refutes(1.0)
            total += 1
    upper = float(clopper_pearson_upper(refuted, total, 1e-3))
    ok = upper <= alpha
    return Outcome(Verdict.HOLDS if ok else Verdict.REFUTED,
                   {"alpha": alpha, "audits": total, "refuted": refuted, "rate": refuted / total,
                    "rate_upper_99.9%": upper, "seeds": f"10000..{10000 + runs - 1}"})


@claim("audit.power", source=LAP, method="simulation", expected="holds",
       statement="At confidence 1 − 1e-6 the auditor refutes a Laplace mechanism whose noise is 15 % too small "
                 "(ε = 1) in at least 90 % of seeded audits with 60 000 samples per input",
       proof="audit/auditor_validity.md")
def _power(thorough: bool = False) -> Outcome:
    runs = 100 if thorough else 20
    mech = LaplaceMechanism(1.0, scale_factor=0.85)
    hits = [epsilon_lower_bound(mech, 0.0, 1.0, samples=60_000, confidence=1 - 1e-6, rng=500 + s).refutes(1.0)
            for s in range(runs)]
    rate = float(np.mean(hits))
    return Outcome(Verdict.HOLDS if rate >= 0.9 else Verdict.REFUTED,
                   {"refuted_fraction": rate, "audits": runs, "true_epsilon": 1 / 0.85, "seeds": f"500..{499 + runs}"})


@claim("audit.tightness_laplace", source=LAP, method="simulation", expected="holds",
       statement="Laplace mechanism ε = 1: ε_lb ≥ 0.98 at 99 % confidence from 10^6 samples per input "
                 "(issue target; seed 0, seeds 0–4 with --thorough)",
       proof="audit/auditor_validity.md")
def _tightness(thorough: bool = False) -> Outcome:
    seeds = range(5) if thorough else range(1)
    vals = [epsilon_lower_bound(LaplaceMechanism(1.0), 0.0, 1.0, samples=10**6, rng=s).epsilon for s in seeds]
    ok = min(vals) >= 0.98 and max(vals) <= 1.0
    return Outcome(Verdict.HOLDS if ok else Verdict.REFUTED, {"eps_lb": vals, "seeds": list(seeds), "target": 0.98})


@claim("audit.tightness_laplace_eps0.1", source=LAP, method="simulation", expected="holds",
       statement="Laplace mechanism ε = 0.1: ε_lb ≥ 0.098 at 99 % confidence from 10^7 samples per input "
                 "(issue target; best published black-box bound 0.0968), with selection_fraction = 0.2; "
                 "seed 0 by default, the median of seeds 0–4 with --thorough",
       proof="audit/auditor_validity.md")
def _tightness01(thorough: bool = False) -> Outcome:
    seeds = range(5) if thorough else range(1)
    vals = [epsilon_lower_bound(LaplaceMechanism(0.1), 0.0, 1.0, samples=10**7, rng=s,
                                selection_fraction=0.2).epsilon for s in seeds]
    ok = float(np.median(vals)) >= 0.098 and max(vals) <= 0.1
    return Outcome(Verdict.HOLDS if ok else Verdict.REFUTED,
                   {"eps_lb": vals, "seeds": list(seeds), "target": 0.098, "met": sum(v >= 0.098 for v in vals),
                    "best_published": 0.0968, "selection_fraction": 0.2})


# ----------------------------------------------------------------- floating point (Mironov 2012)

_FP = Source(SELF_TEST, "auditor, floating point", "Laplace mechanism computed in double precision")


def _fp_audit(mech, thorough):
    from dpverify.audit.floating_point import fp_attack_statistic

    return _audit(mech, 0.0, 1.0, mech.epsilon, 2_000_000 if thorough else 200_000, seed=3,
                  confidence=0.99, statistic=fp_attack_statistic(1.0))


@claim("audit.fp_textbook_laplace", source=_FP, method="audit", expected="refuted", proof="audit/auditor_fp.md",
       statement="The textbook floating-point Laplace mechanism f(D) − b·sgn(r)·ln(1 − 2|r|), b = 1/ε, "
                 "is ε-DP for ε = 0.1 (f(D) = 0, f(D') = 1)")
def _fp_textbook(thorough: bool = False) -> Outcome:
    from dpverify.audit.floating_point import TextbookLaplace

    return _fp_audit(TextbookLaplace(0.1), thorough)


@claim("audit.fp_library_laplace", source=_FP, method="audit", expected="refuted", proof="audit/auditor_fp.md",
       statement="dpverify.primitives.laplace_mechanism (numpy Generator.laplace added in floating point) is "
                 "ε-DP for ε = 0.1 as implemented (f(D) = 0, f(D') = 1)")
def _fp_library(thorough: bool = False) -> Outcome:
    from dpverify.audit.floating_point import LibraryLaplace

    return _fp_audit(LibraryLaplace(0.1), thorough)


@claim("audit.fp_safe_laplace", source=_FP, method="audit", expected="inconclusive", proof="audit/auditor_fp.md",
       statement="dpverify.primitives.safe_laplace_mechanism (grid 2^-10, integer noise) is ε-DP for ε = 0.1, "
                 "also against the floating-point attack")
def _fp_safe(thorough: bool = False) -> Outcome:
    from dpverify.audit.floating_point import SafeLaplace

    return _fp_audit(SafeLaplace(0.1), thorough)
