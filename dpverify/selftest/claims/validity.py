"""The auditor's validity: its ε_lb never exceeds the truth, and it rarely refutes a correct mechanism.

Ids ``audit.ground_truth`` (ε_lb against the exact ε(δ) of discrete mechanisms computed from their
output laws) and ``audit.false_refutation_rate`` (seeded audits of correct controls refute at most
a fraction α = 1 − confidence).  Both read the auditor through
:func:`dpverify.audit.epsilon_lower_bound`, so an auditor that overclaims refutes them.
"""

from __future__ import annotations

import math

import numpy as np

from dpverify.audit import clopper_pearson_upper, epsilon_lower_bound, max_privacy_loss, privacy_curve
from dpverify.audit.controls import LaplaceMechanism
from dpverify.selftest.controls import KRR, ExponentialMechanism, GeometricMechanism
from dpverify.claims import Outcome, Verdict, claim
from dpverify.selftest.audits import DEF

#: each ground-truth audit runs at this confidence: ≤ 27 audits exceed the truth with probability < 3e-6
GT_CONFIDENCE = 1 - 1e-7
#: the clipped geometric mechanism's range is {−K..K}
K = 6


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


class _ClippedGeometric(GeometricMechanism):
    """The geometric mechanism clipped to {−K..K}: its exact law is :func:`_geometric_law`."""

    def __call__(self, data, rng, n):
        return np.clip(super().__call__(data, rng, n), -K, K)


def _ground_truth_cases():
    """(name, mechanism, d, d', exact law at d, exact law at d') of the audited discrete mechanisms."""
    from dpverify.primitives.exponential import exponential_probabilities
    from dpverify.primitives.randomized_response import krr_matrix

    P = krr_matrix(4, 1.0)
    sd, sdp = [0.0, 5.0, 5.0], [1.0, 4.0, 4.0]
    return [("krr", KRR(4, 1.0), 0, 1, P[0], P[1]),
            ("exp_factor1", ExponentialMechanism(1.0, factor=1.0), sd, sdp,
             exponential_probabilities(sd, 1.0, 1.0, factor=1.0), exponential_probabilities(sdp, 1.0, 1.0, factor=1.0)),
            ("clipped_geometric", _ClippedGeometric(0.7), 0, 1, _geometric_law(0, 0.7, K), _geometric_law(1, 0.7, K))]


def _exact_epsilon(p, q, delta: float) -> float:
    """The exact ε(δ): smallest ε with max(δ_pq(ε), δ_qp(ε)) ≤ δ, on a grid of the exact curve (≥ the truth)."""
    grid = np.linspace(0, max(max_privacy_loss(p, q), max_privacy_loss(q, p)) + 1e-9, 4001)
    curve = np.maximum(privacy_curve(p, q, grid), privacy_curve(q, p, grid))
    return float(grid[np.argmax(curve <= delta + 1e-15)])


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


@claim("audit.ground_truth", source=DEF, method="simulation", expected="holds", figure=_ground_truth_figure,
       statement="The auditor's ε_lb never exceeds the exact ε(δ) of discrete mechanisms (k-RR, exponential, "
                 "geometric on a clipped range) computed from their output laws (audits at confidence 1 − 1e-7 each, "
                 "so a valid auditor exceeds in any of the 27 audits with probability below 3e-6)",
       proof="audit/auditor_validity.md")
def _ground_truth(thorough: bool = False) -> Outcome:
    seeds = range(6 if thorough else 3)
    worst = -math.inf
    rows = []
    for name, mech, d, dp, p, q in _ground_truth_cases():
        for delta in [0.0, 0.01, 0.05]:
            exact_eps = _exact_epsilon(p, q, delta)
            for s in seeds:
                # per-audit confidence 1 − 1e-7: the check's false-alarm rate is ≤ (#audits)·1e-7
                r = epsilon_lower_bound(mech, d, dp, samples=40_000, confidence=GT_CONFIDENCE, delta=delta, rng=s)
                worst = max(worst, r.epsilon - exact_eps)
                rows.append([name, delta, s, round(r.epsilon, 4), round(exact_eps, 4)])
    ok = worst <= 1e-12  # the grid value is ≥ the exact ε(δ), so a valid bound stays below it
    fig = {"names": [r[0] for r in rows], "eps_lb": [r[3] for r in rows], "exact": [r[4] for r in rows]}
    return Outcome(Verdict.HOLDS if ok else Verdict.REFUTED,
                   {"max_eps_lb_minus_exact": worst, "audits": len(rows), "examples": rows[:: max(1, len(rows) // 6)],
                    "confidence": GT_CONFIDENCE,  # of each audit, as run (it was reported as 0.99)
                    "false_alarm_bound": round(len(rows) * (1 - GT_CONFIDENCE), 12)}, figure_data=fig)


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
