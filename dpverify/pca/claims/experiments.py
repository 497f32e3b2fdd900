"""Gu, Zhang and Song's experiments (§3.2–§3.3, Figs. 3–6): the MSE and SVM accuracy of the published data.

Every claim reads the one utility grid of :mod:`dpverify.pca.grid` (a quick subsample by
default, the paper's full grid with ``thorough=True``).
"""

from __future__ import annotations

import numpy as np

from dpverify.claims import Outcome, Source, Verdict, claim
from dpverify.pca import grid
from dpverify.pca.grid import EPSILONS, QUICK_ROWS, method_table

SEED = "001"


# ---------------------------------------------------------------------------------------------
# Figs. 3-4: MSE
# ---------------------------------------------------------------------------------------------

@claim("pca.fig3_4_ppca_mse", source=Source(SEED, "§3.2", "Figs. 3-4"),
       statement="PPCA's MSE is very small, not of the same order of magnitude as the two DP methods', "
                 "and decreases as the number k of retained components grows.",
       method="simulation", expected="holds")
def _fig34_ppca(thorough: bool = False) -> Outcome:
    ev, ok = {}, True
    for d, (rows, setup) in grid.figure_grids(thorough).items():
        pp = [v for _, v in method_table(rows, "ppca")[None]]
        dp_min = min(r.mse_mean for r in rows if r.method != "ppca")
        decreasing = all(b <= a + 1e-12 for a, b in zip(pp, pp[1:]))
        gap = dp_min / max(pp[0], 1e-300)
        ok &= decreasing and gap >= 10
        ev[d] = {"ppca_mse_by_k": [float(f"{v:.4g}") for v in pp], "smallest_dp_mse": dp_min,
                 "dp_over_ppca_at_k1": gap, "setup": setup}
    return Outcome(Verdict.HOLDS if ok else Verdict.REFUTED, ev)


def _trends_figure(outcome):
    import matplotlib.pyplot as plt

    data = outcome.figure_data
    fig, axes = plt.subplots(1, len(data), figsize=(9, 3), sharey=True)
    for ax, (d, curves) in zip(np.atleast_1d(axes), data.items()):
        for label, (ks, vals) in curves.items():
            ax.plot(ks, vals, marker="o", label=label)
        ax.set_yscale("log")
        ax.set_title(d)
        ax.set_xlabel("k")
    np.atleast_1d(axes)[0].set_ylabel("MSE")
    np.atleast_1d(axes)[0].legend(fontsize=6)
    fig.tight_layout()
    return fig


@claim("pca.fig3_4_dp_mse_trends", source=Source(SEED, "§3.2", "Figs. 3-4"),
       statement="For PPCA-DP and PCA-based PPDP the MSE grows as ε falls (k fixed) and grows as k "
                 "grows (ε fixed).",
       method="simulation", expected="holds", figure=_trends_figure)
def _fig34_trends(thorough: bool = False) -> Outcome:
    ev, ok, fd = {}, True, {}
    for d, (rows, setup) in grid.figure_grids(thorough).items():
        for m in ("ppca-dp", "pca-ppdp"):
            t = method_table(rows, m)
            up_k = all(all(b[1] > a[1] for a, b in zip(v, v[1:])) for v in t.values())
            ks = [k for k, _ in t[EPSILONS[0]]]
            down_eps = all(t[e1][i][1] > t[e2][i][1] for i in range(len(ks)) for e1, e2 in zip(EPSILONS, EPSILONS[1:]))
            ok &= up_k and down_eps
            ev[f"{d}/{m}"] = {"increasing_in_k": up_k, "decreasing_in_eps": down_eps,
                              "mse_eps0.1_by_k": [float(f"{v:.4g}") for _, v in t[0.1]]}
            for e in EPSILONS:
                fd.setdefault(d, {})[f"{m} ε={e:g}"] = ([k for k, _ in t[e]], [float(v) for _, v in t[e]])
        ev[f"{d}/setup"] = setup
    return Outcome(Verdict.HOLDS if ok else Verdict.REFUTED, ev, figure_data=fd)


@claim("pca.fig3_4_ppcadp_beats_baseline_mse", source=Source(SEED, "§3.2", "Figs. 3-4"),
       statement="At the same privacy budget, PPCA-DP's MSE is lower than PCA-based PPDP's.",
       method="simulation", expected="holds")
def _fig34_compare(thorough: bool = False) -> Outcome:
    ev, ok = {}, True
    for d, (rows, setup) in grid.figure_grids(thorough).items():
        a, b = method_table(rows, "ppca-dp"), method_table(rows, "pca-ppdp")
        ratios = [bv / av for e in EPSILONS for (_, av), (_, bv) in zip(a[e], b[e])]
        ok &= min(ratios) > 1
        ev[d] = {"baseline_over_ppcadp_min": min(ratios), "baseline_over_ppcadp_max": max(ratios),
                 "setup": setup}
    ev["note"] = "baseline implemented as read in dpverify/pca/pca_ppdp.py (ref. [8] not available here)"
    return Outcome(Verdict.HOLDS if ok else Verdict.REFUTED, ev)


# ---------------------------------------------------------------------------------------------
# Figs. 5-6: SVM accuracy
# ---------------------------------------------------------------------------------------------

@claim("pca.fig5_6_ppca_svm", source=Source(SEED, "§3.3", "Figs. 5-6"),
       statement="PPCA's SVM accuracy rises with k and, as k approaches the number of features, "
                 "approaches the accuracy on the original data.",
       method="simulation", expected="holds")
def _fig56_ppca(thorough: bool = False) -> Outcome:
    from dpverify.pca.evaluate import load_split, svm_accuracy

    ev, ok = {}, True
    for d, (rows, setup) in grid.figure_grids(thorough).items():
        acc = [v for _, v in method_table(rows, "ppca", "acc_mean")[None]]
        X, y, Xt, yt, _ = load_split(d)
        if not thorough:
            idx = np.sort(np.random.default_rng(5).choice(X.shape[0], QUICK_ROWS, replace=False))
            X, y = X[idx], y[idx]
        base = svm_accuracy(X, y, Xt, yt, reference=X)
        rises = acc[-1] > acc[0] and all(b >= a - 0.01 for a, b in zip(acc, acc[1:]))
        close = abs(acc[-1] - base) < 0.01
        ok &= rises and close
        ev[d] = {"ppca_acc_by_k": [round(a, 4) for a in acc], "original_acc_same_rows": round(base, 4),
                 "setup": setup}
    return Outcome(Verdict.HOLDS if ok else Verdict.REFUTED, ev)


@claim("pca.fig5_6_ppca_above_baseline", source=Source(SEED, "§3.3", "Figs. 5-6: PPCA 的 SVM 准确率高于 PCA-based PPDP"),
       method="simulation", expected="holds",
       statement="PPCA's published data give a higher SVM accuracy than PCA-based PPDP's (averaged over k, at every ε, "
                 "on both data sets) and never a lower one at any k.")
def _ppca_above(thorough: bool = False) -> Outcome:
    ev, ok, ties = {}, True, []
    for d, (rows, setup) in grid.figure_grids(thorough).items():
        pp = dict(method_table(rows, "ppca", "acc_mean")[None])
        base = method_table(rows, "pca-ppdp", "acc_mean")
        for e in EPSILONS:
            b = dict(base[e])
            ks = sorted(set(pp) & set(b))
            diff = np.array([pp[k] - b[k] for k in ks])
            ok &= bool(diff.mean() > 0 and diff.min() > -2.5e-3)  # ±10 of 4000 test rows counts as a tie
            ties += [f"{d} ε={e} k={k}" for k, x in zip(ks, diff) if abs(x) <= 2.5e-3]
        ev[d] = {"ppca_acc_by_k": [round(pp[k], 4) for k in sorted(pp)],
                 "baseline_acc_eps1_by_k": [round(v, 4) for _, v in base[1.0]], "setup": setup}
    ev["ties_within_10_test_rows"] = ties
    if ok:
        return Outcome(Verdict.HOLDS, ev, summary=("Holds on average and never reversed; ties at " + ", ".join(ties[:3])
                                                  + (" …" if len(ties) > 3 else "") + ".") if ties else "")
    return Outcome(Verdict.REFUTED, ev, summary="PPCA's accuracy is not above the baseline's at some ε or k.")


@claim("pca.fig5_6_dp_svm", source=Source(SEED, "§3.3", "Figs. 5-6"),
       statement="At the same ε, PPCA-DP's SVM accuracy is slightly higher than PCA-based PPDP's, and "
                 "both fall as k grows.",
       method="simulation", expected="inconclusive")
def _fig56_dp(thorough: bool = False) -> Outcome:
    ev, higher, falls = {}, True, True
    from dpverify.pca.evaluate import load_split

    degenerate = True  # every DP accuracy equals the majority-class rate: the SVM predicts one class
    for d, (rows, setup) in grid.figure_grids(thorough).items():
        a, b = method_table(rows, "ppca-dp", "acc_mean"), method_table(rows, "pca-ppdp", "acc_mean")
        yt = load_split(d)[3]
        maj = float(max(yt.mean(), 1 - yt.mean()))
        for e in EPSILONS:
            va, vb = [v for _, v in a[e]], [v for _, v in b[e]]
            higher &= float(np.mean(va)) > float(np.mean(vb))
            falls &= va[-1] < va[0] - 0.005 and vb[-1] < vb[0] - 0.005
            acc = np.array(va + vb)
            # near-constant predictor: every DP accuracy at the majority rate (the quick grid tests on a
            # 4000-row subsample, whose own majority rate is within ±0.01), all within 12 of 4000 predictions
            degenerate &= bool(np.all(np.abs(acc - maj) < 0.01) and np.ptp(acc) <= 0.003)
        dp_acc = [v for t in (a, b) for e in EPSILONS for _, v in t[e]]
        ev[d] = {"dp_accuracy_range": [round(min(dp_acc), 4), round(max(dp_acc), 4)],
                 "ppcadp_acc_eps1_by_k": [round(v, 4) for _, v in a[1.0]],
                 "baseline_acc_eps1_by_k": [round(v, 4) for _, v in b[1.0]], "setup": setup,
                 "majority_class_rate_test": round(maj, 4)}
    ev.update({"ppcadp_higher_at_every_eps": bool(higher), "both_fall_with_k": bool(falls),
               "every_dp_accuracy_is_the_majority_rate": degenerate})
    if thorough:  # other readings of the lost noise scale of eq. (16): Δ = m·√(kp)
        ev["noise_scale_sweep_eps1"] = {d: grid.svm_noise_sweep(d, multipliers=(1.0, 0.1, 0.01, 0.001))
                                        for d in ("adult", "magic")}
    if degenerate:
        rates = ", ".join(f"{d.capitalize()} {ev[d]['majority_class_rate_test']}" for d in ("adult", "magic"))
        return Outcome(Verdict.INCONCLUSIVE, ev, summary=(
            f"not reproduced: every DP accuracy equals the majority-class rate ({rates}), so the SVM predicts one "
            "class and the figure's ordering can be neither confirmed nor refuted on these data."))
    if higher and falls:
        return Outcome(Verdict.HOLDS, ev)
    return Outcome(Verdict.REFUTED, ev, summary=(
        "With informative DP accuracies, " + ("PPCA-DP is not higher at every ε" if not higher else
                                              "the accuracies do not fall with k") + "."))
