"""Claims: the experiments of Cai, Wu and Wang's paper, §5, and the beyond-FDA table, with verdicts from exact numbers.

Default runs use exact expected errors only (closed forms, O(n log n) sums) plus
small solver cross-checks; ``--thorough`` adds the paper's 500-repetition
simulations at N = 4095, the table at N = 2^20 − 1 and the per-release sums up to m = 25.
"""

from __future__ import annotations

import dataclasses
import math
import warnings

import numpy as np

from dpverify.claims import Outcome, Source, Verdict, claim
from dpverify.toolkit import erratum_outcome


_Z5_RATE = math.erfc(5 / math.sqrt(2))  # P(|Z| ≥ 5) ≈ 5.7e-7: the false-alarm rate of a "|z| < 5" z-test


def _v(ok: bool, bad: Verdict = Verdict.REFUTED) -> Verdict:
    return Verdict.HOLDS if ok else bad


@claim(
    "continual.exp.naive_crossover",
    source=Source("004", "§5.1", "Figs. 2–3"),
    statement="At N = 4095 (ε = 1) the naive method's MSE grows linearly while FDA's does not grow; "
    "the naive method is better only early, the crossover lies at about 400 releases.",
    method="exact computation",
    proof="continual/baselines_variance.md",
)
def _naive_crossover(thorough: bool = False) -> Outcome:
    from dpverify.continual.experiments import naive_vs_fda

    from dpverify.continual.api import expected_mse

    c = naive_vs_fda(4095, 1.0, window=100)
    f = expected_mse(4095, 1.0, "fda")
    q = 4095 // 4
    growth = float(f[-q:].mean() / f[:q].mean())  # FDA: last quarter vs first quarter of the releases
    ok = 300 <= c.majority <= 500 and c.first <= 400 <= c.last and growth <= 1.0
    return Outcome(
        _v(ok),
        {
            "fda_mean_last_quarter/first_quarter": round(growth, 4),
            "first_release_naive_worse": c.first,
            "last_release_naive_better": c.last,
            "majority_switch_window100": c.majority,
            "t_with_2t_eq_mean_FDA": round(c.mean_equal, 1),
            "reading": "'crossover' = centre of the first 100-release window where naive wins < half the releases",
        },
    )


def _bm_fig(outcome):
    from matplotlib.figure import Figure

    d = outcome.figure_data
    fig = Figure(figsize=(5, 3))
    ax = fig.subplots()
    ax.hist(d["ratio_sample"], bins=40)
    ax.set_xlabel("MSE_BM / MSE_FDA per release (N = 4095)")
    ax.set_ylabel("number of releases")
    return fig


@claim(
    "continual.exp.bm_ratio",
    source=Source("004", "§5.2", "Fig. 6"),
    statement="FDA is more accurate than the binary mechanism BM in most releases at N = 4095; "
    "the improvement is mostly 2–4×, at most 6×.",
    method="exact computation",
    proof="continual/baselines_variance.md",
    figure=_bm_fig,
)
def _bm_ratio(thorough: bool = False) -> Outcome:
    from dpverify.continual.api import expected_mse
    from dpverify.continual.experiments import bm_vs_fda

    r12 = bm_vs_fda(4095, 1.0)  # L = floor(log2 4095) + 1 = 12, CSS's ε/log T
    r13 = bm_vs_fda(4095, 1.0, levels=13)  # a complete tree over 4096 leaves, 13 levels
    ok = r12.fda_better_fraction > 0.5 and r12.fraction_2_to_4 > 0.5 and 5.5 <= r12.max <= 6.5
    ratio = expected_mse(4095, 1.0, "binary") / expected_mse(4095, 1.0, "fda")
    return Outcome(
        _v(ok),
        {
            "assumption": "BM noise Lap(L/ε) with L = 12 p-sums per count (CSS ε' = ε/log T, T = 4095)",
            "fda_better_fraction": round(r12.fda_better_fraction, 4),
            "fraction_ratio_in_[2,4]": round(r12.fraction_2_to_4, 4),
            "median_ratio": round(r12.median, 3),
            "max_ratio": round(r12.max, 3),
            "min_ratio": round(r12.min, 3),
            "with_L=13_max_ratio": round(r13.max, 3),
            "with_L=13_median_ratio": round(r13.median, 3),
        },
        figure_data={"ratio_sample": ratio[::4].round(3).tolist()},
    )


@claim(
    "continual.exp.bm_steadier",
    source=Source("004", "§5.2", "Figs. 4–5"),
    statement="FDA's per-release errors are more concentrated than BM's, whose errors fluctuate more.",
    method="exact computation",
)
def _bm_steadier(thorough: bool = False) -> Outcome:
    from dpverify.continual.api import expected_mse

    f = expected_mse(4095, 1.0, "fda")
    b = expected_mse(4095, 1.0, "binary")
    ok = f.std() < b.std() and f.std() / f.mean() < b.std() / b.mean()
    return Outcome(
        _v(ok),
        {
            "std_fda": round(float(f.std()), 2),
            "std_bm": round(float(b.std()), 2),
            "cv_fda": round(float(f.std() / f.mean()), 4),
            "cv_bm": round(float(b.std() / b.mean()), 4),
            "max/min_fda": round(float(f.max() / f.min()), 3),
            "max/min_bm": round(float(b.max() / b.min()), 3),
            "note": "by spread (std, CV) FDA is steadier; by max/min and max/mean it is not",
        },
    )


def _static_fig(outcome):
    from matplotlib.figure import Figure

    d = outcome.figure_data
    fig = Figure(figsize=(5, 3))
    ax = fig.subplots()
    ax.plot(d["m"], d["boost"], ".-", label="Boost / FDA")
    ax.plot(d["m"], d["privelet"], "x-", label="Privelet / FDA")
    ax.axhline(0.625, ls=":", c="gray", label="0.625 (the paper's value)")
    ax.set_xlabel("m (N = 2^m)")
    ax.set_ylabel("total MSE ratio to FDA")
    ax.set_ylim(0.5, 1.5)
    ax.legend()
    return fig


@claim(
    "continual.exp.static_ratio",
    source=Source("004", "§5.3", "Figs. 7–8"),
    statement="For N = 2^m, m = 1..25, Boost and Privelet have about equal error, both lower than FDA's; "
    "the ratio err_static/err_FDA is stable at about 0.625.",
    method="exact computation",
    expected="erratum",
    proof="continual/baselines_variance.md",
    figure=_static_fig,
)
def _static_ratio(thorough: bool = False) -> Outcome:
    from dpverify.continual.experiments import static_vs_fda

    s = static_vs_fda(25, 1.0)
    # cross-check the O(log n) totals against the exact per-release arrays
    chk = static_vs_fda(25 if thorough else 14, 1.0, per_release=True)
    k = chk.m.size
    xdiff = float(max(np.max(np.abs(chk.boost / s.boost[:k] - 1)), np.max(np.abs(chk.privelet / s.privelet[:k] - 1))))
    rb, rp = s.boost_ratio, s.privelet_ratio
    eq = np.abs(s.boost / s.privelet - 1)
    as_printed = bool(np.all(rb < 1) and np.all(rp < 1) and np.all(np.abs(rb - 0.625) < 0.05) and np.all(eq < 0.05))
    static_better_from = int(s.m[np.flatnonzero((rb >= 1) | (rp >= 1)).max() + 1]) if np.any((rb >= 1) | (rp >= 1)) else 1
    near = np.flatnonzero((np.abs(rb - 0.625) > 0.03) | (np.abs(rp - 0.625) > 0.03))
    near_from = int(s.m[near.max() + 1]) if near.size and near.max() + 1 < s.m.size else (1 if not near.size else -1)
    monotone = bool(np.all(np.diff(rb) < 0) and np.all(np.diff(rp) < 0))
    corrected = monotone and near_from != -1 and float(np.max(eq[3:])) < 0.02 and abs(rb[-1] - 0.625) < 0.01
    ev = {
        "boost/fda_m=1,2,3,4": [round(float(x), 4) for x in rb[:4]],
        "boost/fda_m=10,15,20,25": [round(float(rb[i - 1]), 4) for i in (10, 15, 20, 25)],
        "privelet/fda_m=10,15,20,25": [round(float(rp[i - 1]), 4) for i in (10, 15, 20, 25)],
        "static_better_than_fda_from_m": static_better_from,
        "within_0.625±0.03_from_m": near_from,
        "ratio_decreasing_in_m": monotone,
        "max_|boost/privelet-1|_m>=4": round(float(np.max(eq[3:])), 4),
        "corrected": "Boost ≈ Privelet (within 2% for m ≥ 4); both beat FDA only from m = 4; the ratio falls "
        "monotonically from 2.67 (m = 1) and approaches ≈ 0.625 only near m = 25 — not stable over m = 1..25",
        "assumption": "Boost: Lap((m+1)/ε) per tree node + least squares; Privelet: Lap((m+1)/(ε W(c))); mean per-release MSE",
        "totals_vs_per_release_max_rel_diff": xdiff,
    }
    figure = {"m": s.m.tolist(), "boost": rb.round(4).tolist(), "privelet": rp.round(4).tolist()}
    if xdiff > 1e-9:  # the O(log n) totals disagree with the per-release sums: nothing is claimed
        return Outcome(Verdict.INCONCLUSIVE, ev, figure_data=figure)
    out = erratum_outcome(printed_holds=as_printed, corrected_holds=corrected, evidence=ev,
                          summaries={Verdict.HOLDS: "", Verdict.REFUTED: ""})
    return dataclasses.replace(out, figure_data=figure)


@claim(
    "continual.exp.simulation",
    source=Source("004", "§5", "500 repetitions, ε = 1"),
    statement="Averaging 500 repeated releases gives each method's expected error (the paper's measurement); "
    "the exact MSEs of naive, BM, FDA, Boost, Privelet, Honaker and k-ary FDA agree with such simulations.",
    method="simulation",
)
def _simulation(thorough: bool = False) -> Outcome:
    """Test per method: z = (mean − exact)/(sd/√R) of the replicate totals Σ_t (ŝ_t − s_t)², |z| < 5 passes
    (false alarm ≈ 5.7e-7 per method, normal approximation).  R is planned from a pilot of 100 replicates
    (separate seed) so that a 30 % error in the variance (totals ×1.3 or ×0.7) gives |z| > 5 with
    probability ≥ 0.99: R = ⌈((5 + 2.33)·1.3·cv/0.3)²⌉ with cv = sd/mean of one total; at least 500
    (the paper's repetitions)."""
    from dpverify.continual.api import expected_mse, release
    from dpverify.toolkit import simulate_against

    n = 4095 if thorough else 255
    seed = 20240 + n
    rng = np.random.default_rng(seed)
    pilot_rng = np.random.default_rng(seed + 1)
    methods = [("naive", {}), ("binary", {}), ("fda", {}), ("honaker", {}), ("kary-fda", {}),
               ("kary-fda", {"objective": "minimax"}), ("boost", {}), ("privelet", {})]

    def totals(name, nn, opts, reps, g):
        tot = np.empty(reps)
        for r in range(reps):
            a = g.poisson(5.0, size=nn)
            with warnings.catch_warnings():  # synthetic counts: the float-Laplace warning is not news here
                warnings.simplefilter("ignore", UserWarning)
                noisy = release(a, 1.0, name, rng=g, noise="laplace", **opts)  # the exact MSE is Laplace's
            tot[r] = np.sum((noisy - np.cumsum(a)) ** 2)
        return tot

    out, worst, plan, all_hold = {}, 0.0, {}, True
    for name, opts in methods:
        key = name + ("-minimax" if opts else "")
        nn = n + 1 if name in ("boost", "privelet") else n  # static methods: 2^m leaves
        exact = expected_mse(nn, 1.0, name, **opts).sum()
        pilot = totals(name, nn, opts, 100, pilot_rng)
        cv = float(pilot.std(ddof=1) / pilot.mean())
        reps = max(500, int(np.ceil(((5.0 + 2.33) * 1.3 * cv / 0.3) ** 2)))
        sim = simulate_against(lambda g, k, name=name, nn=nn, opts=opts: totals(name, nn, opts, k, g), exact,
                               n=reps, alpha=_Z5_RATE, detect=0.3 * exact, beta=0.01, rng=rng,
                               what=f"the exact MSE of {key}")
        mean = sim.evidence["simulated_mean"]
        z = math.copysign(math.inf if sim.evidence["z"] is None else sim.evidence["z"], mean - exact)
        worst = max(worst, abs(z))
        all_hold &= sim.verdict is Verdict.HOLDS
        plan[key] = reps
        out[key] = f"sim/exact = {mean / exact:.4f} (z = {z:+.2f}, R = {reps})"
    ev = {"n": n, "seed": seed, "replicates": plan, **out, "max_|z|": round(float(worst), 3),
          "test": "|z| < 5 per method (false alarm 5.7e-7 each); power ≥ 0.99 against a 30 % variance error"}
    if all_hold:
        return Outcome(_v(True), ev)
    bad = max(out, key=lambda k: abs(float(out[k].split("z = ")[1].split(",")[0])))
    return Outcome(_v(False), ev, summary=f"The simulated error of {bad} departs from its exact MSE ({out[bad]}).")


@claim(
    "continual.beyond.kary_recursion",
    source=Source("004", "§4.3 / §6", "k-ary analogue of Thm 5.4 and eq. (20), beyond the paper"),
    statement="For the k-ary Fenwick tree, E_j = E_{j−1} + Σ_{c=1}^{k−1} (E_{j−1}^{1/3} + ((k−c)k^{j−1})^{1/3})³ "
    "and its block recursion give the optimum of (5.10) for every N and k; the minimax recursion gives the "
    "smallest possible largest release error (both confirmed by cvxpy).",
    method="solver cross-check",
    proof="continual/kary_recursion.md",
)
def _kary_recursion(thorough: bool = False) -> Outcome:
    import cvxpy as cp

    from dpverify.continual.kary import (
        kary_column_sq_norms,
        kary_minimax_value,
        kary_optimum,
        kary_recombination,
        kary_strategy_matrix,
        kary_weights,
    )

    cases = [(26, 3), (47, 4)] if not thorough else [(26, 3), (47, 4), (63, 4), (80, 3), (124, 5), (100, 7), (200, 2)]
    mm_cases = [(26, 3)] if not thorough else [(26, 3), (40, 4), (63, 2)]
    worst_opt = worst_lam = worst_mm = 0.0
    for n, k in cases:
        M = kary_strategy_matrix(n, k)
        c = kary_column_sq_norms(n, k)
        lam = cp.Variable(n, pos=True)
        prob = cp.Problem(cp.Minimize(c @ cp.power(lam, -2)), [M.T @ lam <= 1])
        prob.solve(solver=cp.CLARABEL)
        worst_opt = max(worst_opt, abs(prob.value / kary_optimum(n, k) - 1))
        worst_lam = max(worst_lam, float(np.max(np.abs(lam.value / kary_weights(n, k) - 1))))
    for n, k in mm_cases:
        M = kary_strategy_matrix(n, k)
        B = kary_recombination(n, k)
        lam = cp.Variable(n, pos=True)
        prob = cp.Problem(cp.Minimize(cp.max(B @ cp.power(lam, -2))), [M.T @ lam <= 1])
        prob.solve(solver=cp.CLARABEL)
        worst_mm = max(worst_mm, abs(prob.value / kary_minimax_value(n, k) - 1))
    ok = worst_opt < 1e-6 and worst_lam < 1e-3 and worst_mm < 1e-6
    return Outcome(
        _v(ok),
        {
            "cases_total": [f"n={n},k={k}" for n, k in cases],
            "cases_minimax": [f"n={n},k={k}" for n, k in mm_cases],
            "max_rel_diff_optimum": worst_opt,
            "max_rel_diff_lambda": worst_lam,
            "max_rel_diff_minimax": worst_mm,
        },
    )


def _table_fig(outcome):
    from matplotlib.figure import Figure
    from matplotlib.ticker import NullFormatter

    d = outcome.figure_data
    fig = Figure(figsize=(6, 3.5))
    ax = fig.subplots()
    y = np.arange(len(d["label"]))
    ax.barh(y, d["mean"], label="mean per release")
    ax.plot(d["max"], y, "k|", ms=12, label="largest release")
    ax.set_yticks(y, d["label"], fontsize=7)
    ax.set_xscale("log")
    ax.xaxis.set_minor_formatter(NullFormatter())
    ax.set_xlabel("MSE (ε = 1), N = 4095")
    ax.set_ylabel("mechanism")
    ax.legend(fontsize=7)
    fig.tight_layout()
    return fig


@claim(
    "continual.beyond.table",
    source=Source("004", "§6", "beyond the paper: 'FDA can be improved further'"),
    statement="An online ε-DP mechanism (k-ary Fenwick tree with optimal diagonal) has total MSE at N = 4095 "
    "at least 1.8× below FDA's and a largest per-release MSE below FDA's largest.",
    method="exact computation",
    proof="continual/kary_recursion.md",
    figure=_table_fig,
)
def _table(thorough: bool = False) -> Outcome:
    from dpverify.continual.experiments import comparison_table

    ev, fig = {}, None
    ok = True
    for n in ((4095, 2**20 - 1) if thorough else (4095,)):
        rows = comparison_table(n, 1.0)
        fda = next(r for r in rows if r.method == "fda")
        best = next(r for r in rows if r.label.startswith("k-ary FDA, k="))
        lb = rows[-1]
        consistent = all(r.total >= lb.total for r in rows[:-1])
        if n == 4095:
            ok = consistent and fda.total / best.total >= 1.8 and best.max < fda.max
            fig = {"label": [r.label for r in rows[:-1]], "mean": [r.mean for r in rows[:-1]], "max": [r.max for r in rows[:-1]]}
        else:
            ok = ok and consistent
        ev[f"N={n}"] = [f"{r.label}: total {r.total:.4g}, mean {r.mean:.4g}, max {r.max:.4g}" for r in rows]
        ev[f"N={n}_fda/best_total"] = round(fda.total / best.total, 4)
        ev[f"N={n}_best_max/fda_max"] = round(best.max / fda.max, 4)
    return Outcome(_v(ok), ev, figure_data=fig)
