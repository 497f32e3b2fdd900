"""Seed 001 §3.3: PPCA's SVM accuracy above the baseline's (a statement that had no claim)."""

from __future__ import annotations

import numpy as np

from dpverify.claims import Outcome, Source, Verdict, claim


@claim("pca.fig5_6_ppca_above_baseline", source=Source("001", "§3.3", "Figs. 5-6: PPCA 的 SVM 准确率高于 PCA-based PPDP"),
       method="simulation", expected="holds",
       statement="PPCA's published data give a higher SVM accuracy than PCA-based PPDP's (averaged over k, at every ε, "
                 "on both data sets) and never a lower one at any k.")
def _ppca_above(thorough: bool = False) -> Outcome:
    from dpverify.pca.claims import _EPS, _both, _table

    ev, ok, ties = {}, True, []
    for d, (rows, setup) in _both(thorough).items():
        pp = dict(_table(rows, "ppca", "acc_mean")[None])
        base = _table(rows, "pca-ppdp", "acc_mean")
        for e in _EPS:
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


def svm_noise_sweep(dataset: str, multipliers=(1.0, 0.1, 0.01, 0.001), ks=None, epsilon: float = 1.0,
                    runs: int = 2, max_rows: int = 2000, max_test_rows: int = 4000, rng: int = 5) -> dict:
    """SVM accuracy of PPCA-DP for other readings of the lost noise scale of eq. (16), and of the baseline.

    Alg. 2's noise Lap(Δ/ε) lost Δ in extraction; dpverify reads Δ = √(k p).  Readings such as Δ = k,
    √k or 1 are the multipliers √(k/p), … of that scale; each multiplier m publishes with
    Δ = m·√(k p).  Returns ``{"ks", "majority_rate", "baseline": [...], "ppca_dp": {m: [...]}}``.

    Example
    -------
    >>> r = svm_noise_sweep("magic", multipliers=(1.0,), ks=(1,), runs=1, max_rows=300, max_test_rows=300)
    >>> sorted(r)
    ['baseline', 'ks', 'majority_rate', 'ppca_dp']
    """
    import math

    from dpverify.pca import PCABasedPPDP, PPCADP
    from dpverify.pca.evaluate import load_split, svm_accuracy

    X, y, Xt, yt, _ = load_split(dataset)
    g = np.random.default_rng(rng)
    i = np.sort(g.choice(X.shape[0], size=min(max_rows, X.shape[0]), replace=False))
    j = np.sort(g.choice(Xt.shape[0], size=min(max_test_rows, Xt.shape[0]), replace=False))
    X, y, Xt, yt = X[i], y[i], Xt[j], yt[j]
    p = X.shape[1]
    ks = list(ks) if ks is not None else [1, max(2, p // 4), max(3, p // 2), p]

    def acc(mech):
        pubs = mech.publish_many(X, runs, rng=g)
        return float(np.mean([svm_accuracy(P, y, Xt, yt, reference=X) for P in pubs]))

    out = {"ks": ks, "majority_rate": float(max(yt.mean(), 1 - yt.mean())),
           "baseline": [acc(PCABasedPPDP(k, epsilon)) for k in ks], "ppca_dp": {}}
    for m in multipliers:
        out["ppca_dp"][m] = [acc(PPCADP(k, epsilon, sensitivity=m * math.sqrt(k * p))) for k in ks]
    return out
