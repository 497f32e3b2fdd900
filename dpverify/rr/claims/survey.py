"""Zhou, Lu and Wu's paper, the worked example of §3.3 and the simulated surveys of Figs. 4 and 8."""

from __future__ import annotations

import math

import numpy as np

from dpverify.claims import Outcome, Source, Verdict, claim

SEED = "003"


@claim(
    "rr.example",
    source=Source(SEED, "§3.3", "worked example"),
    statement="10 000 respondents, ε = 0.1, δ = 0.15, π0 = 0.2: 1/(e^ε+1) = 0.4750; the ε-DP optimum is "
    "[[0,1],[0,1]] with u* = 0.8; the (ε,δ) optimum is [[0.15,0.85],[0,1]] with u* = 0.83.",
    method="exact computation",
    expected="holds",
)
def _example(thorough: bool = False) -> Outcome:
    from dpverify.rr import optimal_mechanism, simulate_survey, solve_lp
    from dpverify.toolkit import finite_mechanism_privacy

    e, d, p = 0.1, 0.15, 0.2
    thr = 1 / (math.exp(e) + 1)
    P0, u0 = optimal_mechanism([p, 1 - p], e)
    P1, u1 = optimal_mechanism([p, 1 - p], e, d)
    lp0, lp1 = solve_lp([p, 1 - p], e).u, solve_lp([p, 1 - p], e, d).u
    checks = {
        "threshold_rounds_to_0.4750": round(thr, 4) == 0.4750,
        "eps_matrix": np.allclose(P0, [[0, 1], [0, 1]], atol=1e-12),
        "eps_u": abs(u0 - 0.8) < 1e-12 and abs(lp0 - 0.8) < 1e-9,
        "eps_delta_matrix": np.allclose(P1, [[0.15, 0.85], [0, 1]], atol=1e-12),
        "eps_delta_u": abs(u1 - 0.83) < 1e-12 and abs(lp1 - 0.83) < 1e-9,
        "ldp_eps": finite_mechanism_privacy(P0, epsilon=e).verdict is Verdict.HOLDS,
        "ldp_eps_delta": finite_mechanism_privacy(P1, epsilon=e, delta=d).verdict is Verdict.HOLDS,
    }
    sims = {}
    for name, P in (("eps", P0), ("eps_delta", P1)):
        r = simulate_survey(P, [p, 1 - p], 10_000, rng=3)
        sims[name] = {"truthful_fraction": r.truthful_fraction, "expected": r.expected_truthful, "std": r.std_truthful}
    return Outcome(
        Verdict.HOLDS if all(checks.values()) else Verdict.REFUTED,
        {"threshold": thr, "u_eps": u0, "u_eps_delta": u1, "checks": checks, "simulation_seed": 3, "simulation": sims},
    )


def _simulation_figure(outcome: Outcome):
    """Simulated truthful fractions (dots) against u* of (4)/(15) (lines), as Figs. 4 and 8."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from dpverify.rr import optimal_utility

    fd = outcome.figure_data
    fig, ax = plt.subplots(figsize=(6, 4))
    for name, ys in fd["curves"].items():
        e, d = (float(part.split("=")[1]) for part in name.split(","))
        (line,) = ax.plot(fd["pi0"], ys, "o", ms=3, label=name)
        ax.plot(fd["pi0"], [optimal_utility([p, 1 - p], e, d) for p in fd["pi0"]], "-", color=line.get_color(), lw=1)
    ax.set_xlabel("pi0")
    ax.set_ylabel("truthful fraction (10 000 respondents)")
    ax.legend(fontsize=7)
    fig.tight_layout()
    return fig


@claim(
    "rr.simulation",
    source=Source(SEED, "§2.3, §3.3", "Figs. 4 and 8"),
    statement="Sampling the optimal mechanisms of (4) and (15) gives truthful fractions matching u* "
    "(the simulated curves agree with Figs. 2 and 6).",
    method="simulation",
    expected="holds",
    figure=_simulation_figure,
)
def _simulation(thorough: bool = False) -> Outcome:
    """Seeded; each point is tested at ±4.5 σ (two-sided normal tail 6.8e-6 per point), so with at most
    ~200 points the false-alarm rate of the whole check is below 1.4e-3."""
    from dpverify.rr import optimal_mechanism, simulate_survey

    rng = np.random.default_rng(20190088)
    pis = np.linspace(0, 1, 41 if thorough else 11)
    worst_z, n_points, fails, curves = 0.0, 0, [], {}
    for e in (0.1, 1.0):
        for d in (0.0, 0.15):
            sim = []
            for p in pis:
                P, u = optimal_mechanism([p, 1 - p], e, d)
                r = simulate_survey(P, [p, 1 - p], 10_000, rng=rng)
                sim.append(r.truthful_fraction)
                n_points += 1
                if r.std_truthful == 0:
                    ok = r.truthful_fraction == r.expected_truthful
                    z = 0.0 if ok else math.inf
                else:
                    z = abs(r.truthful_fraction - r.expected_truthful) / r.std_truthful
                ok = z <= 4.5 and abs(r.expected_truthful - u) <= 1e-4  # composition rounding ≤ 1/N
                worst_z = max(worst_z, z)
                if not ok:
                    fails.append({"epsilon": e, "delta": d, "pi0": float(p), "z": z})
            curves[f"eps={e},delta={d}"] = sim
    return Outcome(
        Verdict.HOLDS if not fails else Verdict.REFUTED,
        {"points": n_points, "respondents_per_point": 10_000, "max_abs_z": worst_z, "z_limit": 4.5,
         "failures": fails[:5], "seed": 20190088},
        figure_data={"pi0": pis.tolist(), "curves": curves},
    )
