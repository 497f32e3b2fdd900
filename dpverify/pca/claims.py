"""Claims of seed 001 (Gu, Zhang, Song: PPCA and PPCA-DP privacy-preserving data publishing).

Default runs use subsamples and few repetitions (the whole room stays within its
~12 s budget); ``thorough=True`` runs the paper's full grid (all rows, every k,
5 runs) and larger audits.
"""

from __future__ import annotations

import functools
import math

import numpy as np

from dpverify.claims import Outcome, Source, Verdict, claim

SEED = "001"
_AUDIT_SEED = 20261121


# ---------------------------------------------------------------------------------------------
# data and Fig. 2
# ---------------------------------------------------------------------------------------------

@claim("pca.adult_21_features", source=Source(SEED, "§3 experiments", "Adult, 9 attributes → 21 features"),
       statement="Keeping age, workclass, education-num, race, gender, capital-gain, capital-loss, "
                 "hours-per-week and income of UCI Adult and converting the non-numeric ones gives a "
                 "21-feature data set with income (≤50K / >50K) as the target.",
       method="exact computation", expected="holds")
def _adult_21(thorough: bool = False) -> Outcome:
    from dpverify.datasets import ADULT_FEATURES, load_adult

    X, y = load_adult()
    Xt, yt = load_adult(split="test")
    onehot = X[:, [i for i, f in enumerate(ADULT_FEATURES) if "=" in f]]
    ok = (X.shape == (32561, 21) and Xt.shape[1] == 21 and set(np.unique(y)) == {0, 1}
          and bool((onehot.sum(axis=1) == 3).all()))   # exactly one category per categorical attribute
    return Outcome(Verdict.HOLDS if ok else Verdict.REFUTED, {
        "shape_train": list(X.shape), "shape_test": list(Xt.shape),
        "encoding": "5 numeric + workclass 8 categories + '?' (9) + race 5 + sex 2 = 21",
        "positive_rate_train": float(y.mean())})


def _fig2_figure(outcome):
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(5, 3))
    for name, c in outcome.figure_data.items():
        ax.plot(range(1, len(c) + 1), c, marker="o", label=name)
    ax.axhline(0.9, color="grey", ls="--")
    ax.set_xlabel("k")
    ax.set_ylabel("cumulative eigenvalue share")
    ax.legend()
    return fig


@claim("pca.fig2_explained_variance", source=Source(SEED, "§3.1", "Fig. 2"),
       statement="The first 9 principal components of Adult and the first 4 of Magic04 explain more "
                 "than 90% of the variance (cumulative eigenvalue share).",
       method="exact computation", expected="holds", figure=_fig2_figure)
def _fig2(thorough: bool = False) -> Outcome:
    from dpverify.datasets import load_adult, load_magic
    from dpverify.pca.evaluate import explained_variance

    ca = explained_variance(load_adult()[0])
    cm = explained_variance(load_magic()[0])
    ka = int(np.argmax(ca >= 0.9)) + 1
    km = int(np.argmax(cm >= 0.9)) + 1
    ok = ka == 9 and km == 4
    return Outcome(Verdict.HOLDS if ok else Verdict.REFUTED, {
        "adult_k_for_90pct": ka, "magic_k_for_90pct": km,
        "adult_cum_share_k8_k9": [round(float(ca[7]), 4), round(float(ca[8]), 4)],
        "magic_cum_share_k3_k4": [round(float(cm[2]), 4), round(float(cm[3]), 4)],
        "normalisation": "min-max to [0, 1] (Alg. 1 step 2)"},
        figure_data={"adult": ca.tolist(), "magic": cm.tolist()})


# ---------------------------------------------------------------------------------------------
# Thms 1–2: the PPCA model
# ---------------------------------------------------------------------------------------------

@claim("pca.thm1_thm2_ppca_formulas", source=Source(SEED, "§2", "Thm 1 eqs. (5)-(8), Thm 2 eqs. (9)-(11)"),
       statement="For x = W s + μ + ξ with s ~ N(0, I_k), ξ ~ N(0, σ² I_p): the ML estimates are μ = mean, "
                 "σ² = mean of the p−k smallest eigenvalues, W = U_k(Λ_k − σ²I)^{1/2}; and "
                 "s | x ~ N(M⁻¹Wᵀ(x − μ), σ² M⁻¹) with M = WᵀW + σ²I.",
       method="solver cross-check", expected="holds", proof="pca/ppca_model.md")
def _thm12(thorough: bool = False) -> Outcome:
    from scipy.optimize import minimize

    from dpverify.pca.ppca import fit_ppca

    rng = np.random.default_rng(7)
    n, p, k = (400, 5, 2)
    X = rng.normal(size=(n, p)) @ rng.normal(size=(p, p)) + rng.normal(size=p)
    f = fit_ppca(X, k)
    S = np.cov(X.T, bias=True)

    def nll(theta):  # −(2/n) log-likelihood up to a constant: ln|C| + tr(C⁻¹ S)
        W = theta[:-1].reshape(p, k)
        C = W @ W.T + math.exp(theta[-1]) * np.eye(p)
        sign, logdet = np.linalg.slogdet(C)
        return logdet + np.trace(np.linalg.solve(C, S))

    theta0 = np.concatenate([rng.normal(size=p * k), [0.0]])
    res = minimize(nll, theta0, method="BFGS", options={"gtol": 1e-10, "maxiter": 5000})
    closed = nll(np.concatenate([f.W.ravel(), [math.log(float(f.sigma2))]]))
    sigma2_solver = math.exp(res.x[-1])
    # Thm 2 against Gaussian conditioning of the joint (s, x): E[s|x] = Wᵀ C⁻¹ (x − μ), Var = I − Wᵀ C⁻¹ W
    W, s2 = f.W, float(f.sigma2)
    C = W @ W.T + s2 * np.eye(p)
    M = W.T @ W + s2 * np.eye(k)
    x = X[:5]
    cond_mean = (W.T @ np.linalg.solve(C, (x - f.mean).T)).T
    thm2_mean = (np.linalg.solve(M, W.T @ (x - f.mean).T)).T
    cond_var = np.eye(k) - W.T @ np.linalg.solve(C, W)
    thm2_var = s2 * np.linalg.inv(M)
    d_mean = float(np.abs(cond_mean - thm2_mean).max())
    d_var = float(np.abs(cond_var - thm2_var).max())
    ok = (closed <= res.fun + 1e-9 and abs(sigma2_solver - s2) < 1e-4 * s2
          and d_mean < 1e-10 and d_var < 1e-10)
    return Outcome(Verdict.HOLDS if ok else Verdict.REFUTED, {
        "nll_closed_form": closed, "nll_solver": float(res.fun), "sigma2_closed": s2,
        "sigma2_solver": sigma2_solver, "thm2_mean_max_diff": d_mean, "thm2_var_max_diff": d_var,
        "seed": 7, "n_p_k": [n, p, k]})


# ---------------------------------------------------------------------------------------------
# privacy
# ---------------------------------------------------------------------------------------------

@claim("pca.ppca_protects_privacy", source=Source(SEED, "§2.1", "Alg. 1 (closing paragraph)"),
       statement="PPCA publishing (Alg. 1) does not add differential privacy but, by publishing a data set "
                 "generated from the PPCA model, protects the privacy of the original data.",
       method="exact computation", expected="refuted")
def _ppca_privacy(thorough: bool = False) -> Outcome:
    from dpverify.datasets import load_adult
    from dpverify.pca import PPCA

    X = load_adult()[0]
    if not thorough:
        X = X[:2000]
    P = PPCA(k=X.shape[1]).fit_publish(X, rng=0)
    err = float(np.abs(P - X).max())
    # also k = p − 3 on Adult: its 3 one-hot groups give 3 zero eigenvalues, σ² = 0 again
    P3 = PPCA(k=X.shape[1] - 3).fit_publish(X, rng=1)
    err3 = float(np.abs(P3 - X).max())
    leaked = err < 1e-6 or err3 < 1e-6
    return Outcome(Verdict.REFUTED if leaked else Verdict.HOLDS, {
        "rows": X.shape[0], "max_abs_diff_k_eq_p": err, "max_abs_diff_k_eq_p_minus_3": err3,
        "units": "original units (capital-gain ranges up to 99999)",
        "why": "when the discarded eigenvalues are 0, σ² = 0, the posterior and the likelihood are point "
               "masses and x′ = U_k U_kᵀ(x − μ) + μ = x: the published table is the original one"})


@functools.lru_cache(maxsize=2)
def _thm3_evidence(thorough: bool) -> dict:
    from dpverify.pca import PPCADP, paper_sensitivity
    from dpverify.pca.thm3 import (degenerate_pair, feature2_law, gaussian_hockey_stick, gaussian_pair,
                                   output_coordinate)

    eps = 1.0
    D, Dp = gaussian_pair()
    (m, v), (mp, vp) = feature2_law(D), feature2_law(Dp)
    delta_exact = max(gaussian_hockey_stick(mp, vp, m, v, eps), gaussian_hockey_stick(m, v, mp, vp, eps))
    # simulation cross-check of the exact law of a published feature-2 value
    mech = PPCADP(k=1, epsilon=eps)
    sim = mech.publish_many(Dp, 4000, _AUDIT_SEED)[:, :, 1].ravel()
    z_mean = abs(sim.mean() - mp) / math.sqrt(vp / sim.size)
    ratio_var = float(sim.var() / vp)
    # degenerate pair: every published row of D lies on x1 = x2, none of D′ does
    Dd, Ddp = degenerate_pair()
    od = mech.publish_many(Dd, 2000, _AUDIT_SEED)
    odp = mech.publish_many(Ddp, 2000, _AUDIT_SEED + 1)
    off_d = float(np.mean(np.abs(od[..., 0] - od[..., 1]) > 1e-9))
    off_dp = float(np.mean(np.abs(odp[..., 0] - odp[..., 1]) > 1e-9))
    ev = {"epsilon_claimed": eps, "sensitivity_used": paper_sensitivity(1, 2),
          "pair": "gaussian_pair(): D, D' differ in one record (1/2,1/2) -> (1/2,0.9)",
          "feature2_law_D": [m, v], "feature2_law_Dprime": [mp, vp],
          "exact_delta_at_eps": delta_exact,
          "sim_z_mean": float(z_mean), "sim_var_ratio": ratio_var,
          "degenerate_pair_off_line_rate_D_Dprime": [off_d, off_dp]}
    try:
        from dpverify.audit import epsilon_lower_bound
    except ImportError:  # pragma: no cover - auditor not installed
        ev["audit"] = "auditor unavailable"
        return ev
    samples = 400_000 if thorough else 20_000
    r = epsilon_lower_bound(output_coordinate(mech), D, Dp, samples=samples, confidence=0.99, rng=_AUDIT_SEED)
    ev.update({"audit_epsilon_lower_bound": float(r.epsilon), "audit_event": r.event.description,
               "audit_samples": samples, "audit_confidence": 0.99, "audit_seed": _AUDIT_SEED})
    if thorough:  # real data: neighbouring subsets of Adult, k = 9, spread of published capital-gain
        from dpverify.datasets import ADULT_FEATURES
        from dpverify.pca.thm3 import adult_pair, column_spread

        A, Ap = adult_pair()
        ra = epsilon_lower_bound(column_spread(PPCADP(k=9, epsilon=eps), ADULT_FEATURES.index("capital-gain")),
                                 A, Ap, samples=4000, confidence=0.99, rng=_AUDIT_SEED)
        ev.update({"adult_pair_audit_epsilon_lower_bound": float(ra.epsilon),
                   "adult_pair": "adult_pair(2000, seed 0): one record's capital-gain -> 99999; k = 9"})
    return ev


def _thm3_figure(outcome):
    import matplotlib.pyplot as plt
    from scipy import stats

    (m0, v0), (m1, v1) = outcome.figure_data["law_D"], outcome.figure_data["law_Dprime"]
    t = np.linspace(0.3, 0.8, 600)
    fig, ax = plt.subplots(1, 2, figsize=(9, 3))
    ax[0].plot(t, stats.norm.pdf(t, m0, math.sqrt(v0)), label="D")
    ax[0].plot(t, stats.norm.pdf(t, m1, math.sqrt(v1)), label="D′")
    ax[0].set_yscale("log")
    ax[0].set_ylim(1e-3, 200)
    ax[0].set_title("law of a published feature-2 value")
    ax[0].set_xlabel("published feature-2 value t (data units)")
    ax[0].set_ylabel("density (log scale)")
    ax[0].legend()
    ax[1].plot(t, stats.norm.logpdf(t, m1, math.sqrt(v1)) - stats.norm.logpdf(t, m0, math.sqrt(v0)),
               label="ln p_D′(t) / p_D(t)")
    ax[1].axhline(outcome.figure_data["epsilon"], color="grey", ls="--", label="claimed ε")
    ax[1].set_ylim(-10, 100)
    ax[1].set_title("privacy loss (unbounded) vs claimed ε")
    ax[1].set_xlabel("published feature-2 value t (data units)")
    ax[1].set_ylabel("privacy loss (nats)")
    ax[1].legend()
    fig.tight_layout()
    return fig


@claim("pca.thm3_ppca_dp_is_dp", source=Source(SEED, "§2.2", "Thm 3, eqs. (15)-(18), Alg. 2"),
       statement="Algorithm PPCA-DP (Alg. 2: Laplace noise added to the score matrix K = (X − E X)U_k) "
                 "satisfies ε-differential privacy.",
       method="exact computation", expected="refuted", proof="pca/thm3_counterexample.md", figure=_thm3_figure)
def _thm3(thorough: bool = False) -> Outcome:
    ev = dict(_thm3_evidence(thorough))
    exact_violation = ev["exact_delta_at_eps"] > 1e-6           # pure ε-DP needs δ(ε) = 0
    sim_agrees = ev["sim_z_mean"] < 5 and abs(ev["sim_var_ratio"] - 1) < 0.1
    audit_violation = max(ev.get("audit_epsilon_lower_bound", 0.0),
                          ev.get("adult_pair_audit_epsilon_lower_bound", 0.0)) > ev["epsilon_claimed"]
    degenerate_violation = ev["degenerate_pair_off_line_rate_D_Dprime"][0] == 0.0 and \
        ev["degenerate_pair_off_line_rate_D_Dprime"][1] == 1.0
    ev["simulation_matches_exact_law"] = bool(sim_agrees)
    refuted = (exact_violation and sim_agrees) or audit_violation or degenerate_violation
    return Outcome(Verdict.REFUTED if refuted else Verdict.INCONCLUSIVE, ev,
                   figure_data={"law_D": ev["feature2_law_D"], "law_Dprime": ev["feature2_law_Dprime"],
                                "epsilon": ev["epsilon_claimed"]})


@claim("pca.thm3_score_sensitivity", source=Source(SEED, "§2.2", "Thm 3 proof, eqs. (17)-(18)"),
       statement="Between neighbouring data sets the score matrix K = (X − E X)U_k changes by at most "
                 "the ℓ1 sensitivity used for the Laplace noise (√(k p) for rows in [0,1]^p).",
       method="exact computation", expected="refuted", proof="pca/thm3_counterexample.md")
def _thm3_sens(thorough: bool = False) -> Outcome:
    from dpverify.pca import paper_sensitivity
    from dpverify.pca.thm3 import flip_pair, score_change_l1

    D, Dp = flip_pair(25)
    change = score_change_l1(D, Dp, 1)
    bound = paper_sensitivity(1, 2)
    also_k_sqrt_p = 1 * math.sqrt(2)
    return Outcome(Verdict.REFUTED if change > max(bound, also_k_sqrt_p) else Verdict.HOLDS, {
        "pair": "flip_pair(25): 100 records, one differs", "l1_change_of_K_min_over_signs": change,
        "claimed_sensitivity": bound, "ratio": change / bound,
        "why": "U_k and E X are data-dependent; the argument bounds one row with U fixed"})


# The corrected PPCA-DP (white-box budget and audit) is in claims_corrected.py.


# ---------------------------------------------------------------------------------------------
# utility: Figs. 3-6
# ---------------------------------------------------------------------------------------------

_EPS = (0.1, 0.5, 1.0)
_QUICK_ROWS = 2000


@functools.lru_cache(maxsize=4)
def _grid(dataset: str, thorough: bool):
    from dpverify.pca.evaluate import evaluate

    if thorough:
        rows = evaluate(dataset, methods=("ppca", "ppca-dp", "pca-ppdp"), epsilons=_EPS, runs=5, rng=5, jobs=2)
        return rows, {"rows": "all", "ks": "1..p", "runs": 5, "seed": 5}
    ks = (1, 5, 9, 21) if dataset == "adult" else (1, 4, 7, 10)
    rows = evaluate(dataset, methods=("ppca", "ppca-dp", "pca-ppdp"), epsilons=_EPS, ks=ks, runs=2,
                    max_rows=_QUICK_ROWS, max_test_rows=4000, rng=5)
    return rows, {"rows": _QUICK_ROWS, "test_rows": 4000, "ks": list(ks), "runs": 2, "seed": 5}


def _table(rows, method, what="mse_mean"):
    """{epsilon: [(k, value), ...]} for one method."""
    t: dict = {}
    for r in rows:
        if r.method == method:
            t.setdefault(r.epsilon, []).append((r.k, getattr(r, what)))
    return {e: sorted(v) for e, v in t.items()}


def _both(thorough):
    return {d: _grid(d, thorough) for d in ("adult", "magic")}


@claim("pca.fig3_4_ppca_mse", source=Source(SEED, "§3.2", "Figs. 3-4"),
       statement="PPCA's MSE is very small, not of the same order of magnitude as the two DP methods', "
                 "and decreases as the number k of retained components grows.",
       method="simulation", expected="holds")
def _fig34_ppca(thorough: bool = False) -> Outcome:
    ev, ok = {}, True
    for d, (rows, setup) in _both(thorough).items():
        pp = [v for _, v in _table(rows, "ppca")[None]]
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
    for d, (rows, setup) in _both(thorough).items():
        for m in ("ppca-dp", "pca-ppdp"):
            t = _table(rows, m)
            up_k = all(all(b[1] > a[1] for a, b in zip(v, v[1:])) for v in t.values())
            ks = [k for k, _ in t[_EPS[0]]]
            down_eps = all(t[e1][i][1] > t[e2][i][1] for i in range(len(ks)) for e1, e2 in zip(_EPS, _EPS[1:]))
            ok &= up_k and down_eps
            ev[f"{d}/{m}"] = {"increasing_in_k": up_k, "decreasing_in_eps": down_eps,
                              "mse_eps0.1_by_k": [float(f"{v:.4g}") for _, v in t[0.1]]}
            for e in _EPS:
                fd.setdefault(d, {})[f"{m} ε={e:g}"] = ([k for k, _ in t[e]], [float(v) for _, v in t[e]])
        ev[f"{d}/setup"] = setup
    return Outcome(Verdict.HOLDS if ok else Verdict.REFUTED, ev, figure_data=fd)


@claim("pca.fig3_4_ppcadp_beats_baseline_mse", source=Source(SEED, "§3.2", "Figs. 3-4"),
       statement="At the same privacy budget, PPCA-DP's MSE is lower than PCA-based PPDP's.",
       method="simulation", expected="holds")
def _fig34_compare(thorough: bool = False) -> Outcome:
    ev, ok = {}, True
    for d, (rows, setup) in _both(thorough).items():
        a, b = _table(rows, "ppca-dp"), _table(rows, "pca-ppdp")
        ratios = [bv / av for e in _EPS for (_, av), (_, bv) in zip(a[e], b[e])]
        ok &= min(ratios) > 1
        ev[d] = {"baseline_over_ppcadp_min": min(ratios), "baseline_over_ppcadp_max": max(ratios),
                 "setup": setup}
    ev["note"] = "baseline implemented as read in dpverify/pca/pca_ppdp.py (ref. [8] not available here)"
    return Outcome(Verdict.HOLDS if ok else Verdict.REFUTED, ev)


@claim("pca.fig5_6_ppca_svm", source=Source(SEED, "§3.3", "Figs. 5-6"),
       statement="PPCA's SVM accuracy rises with k and, as k approaches the number of features, "
                 "approaches the accuracy on the original data.",
       method="simulation", expected="holds")
def _fig56_ppca(thorough: bool = False) -> Outcome:
    from dpverify.pca.evaluate import load_split, svm_accuracy

    ev, ok = {}, True
    for d, (rows, setup) in _both(thorough).items():
        acc = [v for _, v in _table(rows, "ppca", "acc_mean")[None]]
        X, y, Xt, yt, _ = load_split(d)
        if not thorough:
            idx = np.sort(np.random.default_rng(5).choice(X.shape[0], _QUICK_ROWS, replace=False))
            X, y = X[idx], y[idx]
        base = svm_accuracy(X, y, Xt, yt, reference=X)
        rises = acc[-1] > acc[0] and all(b >= a - 0.01 for a, b in zip(acc, acc[1:]))
        close = abs(acc[-1] - base) < 0.01
        ok &= rises and close
        ev[d] = {"ppca_acc_by_k": [round(a, 4) for a in acc], "original_acc_same_rows": round(base, 4),
                 "setup": setup}
    return Outcome(Verdict.HOLDS if ok else Verdict.REFUTED, ev)


@claim("pca.fig5_6_dp_svm", source=Source(SEED, "§3.3", "Figs. 5-6"),
       statement="At the same ε, PPCA-DP's SVM accuracy is slightly higher than PCA-based PPDP's, and "
                 "both fall as k grows.",
       method="simulation", expected="inconclusive")
def _fig56_dp(thorough: bool = False) -> Outcome:
    ev, higher, falls = {}, True, True
    from dpverify.pca.evaluate import load_split

    degenerate = True  # every DP accuracy equals the majority-class rate: the SVM predicts one class
    for d, (rows, setup) in _both(thorough).items():
        a, b = _table(rows, "ppca-dp", "acc_mean"), _table(rows, "pca-ppdp", "acc_mean")
        yt = load_split(d)[3]
        maj = float(max(yt.mean(), 1 - yt.mean()))
        for e in _EPS:
            va, vb = [v for _, v in a[e]], [v for _, v in b[e]]
            higher &= float(np.mean(va)) > float(np.mean(vb))
            falls &= va[-1] < va[0] - 0.005 and vb[-1] < vb[0] - 0.005
            acc = np.array(va + vb)
            # near-constant predictor: every DP accuracy at the majority rate (the quick grid tests on a
            # 4000-row subsample, whose own majority rate is within ±0.01), all within 12 of 4000 predictions
            degenerate &= bool(np.all(np.abs(acc - maj) < 0.01) and np.ptp(acc) <= 0.003)
        dp_acc = [v for t in (a, b) for e in _EPS for _, v in t[e]]
        ev[d] = {"dp_accuracy_range": [round(min(dp_acc), 4), round(max(dp_acc), 4)],"ppcadp_acc_eps1_by_k": [round(v, 4) for _, v in a[1.0]],
                 "baseline_acc_eps1_by_k": [round(v, 4) for _, v in b[1.0]], "setup": setup,
                 "majority_class_rate_test": round(maj, 4)}
    ev.update({"ppcadp_higher_at_every_eps": bool(higher), "both_fall_with_k": bool(falls),
               "every_dp_accuracy_is_the_majority_rate": degenerate})
    if thorough:  # other readings of the lost noise scale of eq. (16): Δ = m·√(kp)
        from dpverify.pca.claims_statements import svm_noise_sweep

        ev["noise_scale_sweep_eps1"] = {d: svm_noise_sweep(d, multipliers=(1.0, 0.1, 0.01, 0.001)) for d in ("adult", "magic")}
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
