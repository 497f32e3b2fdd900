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
