"""The ideal auditor on the StatDP / DP-Sniper suite: which published bounds a budget can reach.

For every suite mechanism with a finite output space (``dpverify.audit.ideal.laws``), over the
candidate pairs its relation generates (the StatDP patterns and the random pairs of
``relation.candidates(default_rng(0))``) and DP-Sniper's own pair, compute the exact laws and
print the best pair, its exact ε, and the bound of the ideal auditor (events ordered by the exact
likelihood ratio, every draw spent on estimation, counts at their expected values, one-sided
Clopper–Pearson at α/2 each) at ``--n`` draws per input (single events, and with dpverify's
pooled event of both orders), under the conditional test of Poisson(n) draw counts (one bound at α,
as ``audit()`` at δ = 0), and at ``--n-final`` (DP-Sniper's final sample size, 2·10^8), beside
DP-Sniper's published 90 %-confidence bound.  "reach" says whether the ideal auditor reaches
DP-Sniper's bound at ``--n`` with one of these tests: when it does not, no auditor of these pairs
using them can, at typical counts; "P(reach)" is the chance that the binomial test does by luck
(the best event fixed in advance, the counts binomial), and beside it the chance that the
conditional test does (its best event, Poisson counts): the odds of an auditor that knew the pair
and the event and spent every draw on estimation.

    python3 benchmarks/bench_audit_oracle.py            # about 2.5 minutes
    python3 benchmarks/bench_audit_oracle.py --only SVT1,SVT4
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np

from dpverify.progress import progress
from dpverify.audit.suite import CASES
from dpverify.audit.ideal.laws import COVERED, exact_law
from dpverify.audit.ideal.oracle import best_event_bound, exact_epsilon, reach_probability

#: DP-Sniper's reference pair per mechanism (Bichsel et al., S&P 2021, §6.1 / their code base).
_X = ([0.0] * 5 + [1.0] * 5, [1.0] * 5 + [0.0] * 5)
DPSNIPER_PAIRS = {
    "SVT1": _X, "SVT2": _X, "SVT5": _X, "SVT6": _X,
    "SVT4": ([1.0] * 10, [2.0] * 5 + [0.0] * 5),
    "ReportNoisyMax1": ([1.0] * 5, [0.0, 2.0, 2.0, 2.0, 2.0]),
    "ReportNoisyMax2": ([1.0] * 5, [0.0, 2.0, 2.0, 2.0, 2.0]),
    "TruncatedGeometric": ([2.0], [1.0]),
}


def _label(a, b, i) -> str:
    a, b = np.asarray(a, float).ravel(), np.asarray(b, float).ravel()
    if all(v == round(v) and 0 <= v <= 9 for v in np.r_[a, b]):
        return "".join(str(int(v)) for v in a) + " vs " + "".join(str(int(v)) for v in b)
    return f"random pair #{i}"


def _pairs(m, name):
    pairs = [(np.asarray(a, float).ravel(), np.asarray(b, float).ravel())
             for a, b in m.relation.candidates(np.random.default_rng(0))]
    sniper = tuple(np.asarray(v, float) for v in DPSNIPER_PAIRS[name])
    keys = {frozenset((a.tobytes(), b.tobytes())) for a, b in pairs}
    if frozenset((sniper[0].tobytes(), sniper[1].tobytes())) not in keys:
        pairs.append(sniper)
    return pairs, sniper


def evaluate(case, n: int, n_final: int, confidence: float, tick) -> list[dict]:
    """One row per candidate pair: exact ε and the ideal bounds at n and n_final."""
    m = case.make()
    pairs, sniper = _pairs(m, case.name)
    laws = {}
    rows = []
    for i, (a, b) in enumerate(pairs):
        for x in (a, b):
            if x.tobytes() not in laws:
                laws[x.tobytes()] = exact_law(m, x)[1]
                tick(1, note=case.name)
        p, q = laws[a.tobytes()], laws[b.tobytes()]
        single = best_event_bound(p, q, n=n, confidence=confidence)
        pois = best_event_bound(p, q, n=n, confidence=confidence, test="poisson")
        is_sniper = frozenset((a.tobytes(), b.tobytes())) == frozenset((sniper[0].tobytes(), sniper[1].tobytes()))
        rows.append({
            "pair": (a, b), "label": _label(*(sniper if is_sniper else (a, b)), i), "exact": exact_epsilon(p, q), "ideal": single.epsilon,
            "pooled": best_event_bound(p, q, n=n, confidence=confidence, pooled=True).epsilon,
            "poisson": pois.epsilon,
            "final": best_event_bound(p, q, n=n_final, confidence=confidence).epsilon,
            "p_event": single.p_event, "q_event": single.q_event,
            "luck": reach_probability(single.p_event, single.q_event, n=n, confidence=confidence, target=case.dpsniper),
            "luck_poisson": reach_probability(pois.p_event, pois.q_event, n=n, confidence=confidence, target=case.dpsniper,
                                              test="poisson"),
            "sniper": is_sniper,
        })
    return rows


# ---- continuous outputs, on a grid of cells: every union of cells is an event, so the ideal bound over
# the cells' laws is one an auditor of these pairs could reach (and a lower estimate of the continuous ideal)

def _laplace_cdf(z, b):
    return np.where(z < 0, 0.5 * np.exp(np.minimum(z, 0) / b), 1 - 0.5 * np.exp(-np.maximum(z, 0) / b))


def _noisy_max_cells(m, x, h=0.05, width=600.0):
    """ReportNoisyMax3: exact masses of max_i(x_i + Lap(2/ε)) on cells of width h (its CDF is Π_i F(t − x_i))."""
    b = 2.0 / m.epsilon
    edges = np.arange(-width, width + h, h)
    z = edges[:, None] - np.asarray(x, float)[None, :]
    log_cdf = np.sum(np.where(z < 0, math.log(0.5) + np.minimum(z, 0) / b,
                              np.log1p(-0.5 * np.exp(-np.maximum(z, 0) / b))), axis=1)
    cdf, sf = np.exp(log_cdf), -np.expm1(log_cdf)  # the upper cells from the survival function: no cancellation
    low = np.diff(np.concatenate([[0.0], cdf]))
    high = -np.diff(np.concatenate([sf, [0.0]]))
    return np.concatenate([np.where(cdf < 0.5, low, -np.diff(np.concatenate([[1.0], sf]))), [high[-1]]])


def _svt3_cells(m, x, h=0.1, width=600.0):
    """SVT3 with c = 1: the law of (first ⊤ position i, released value v), v on cells of width h, and
    "no ⊤", by numerical integration over the threshold noise r (midpoint rule):
    p_i(v) = f_ν(v − x_i) ∫_{r ≤ v − T} f_ρ(r) Π_{j<i} F_ν(T + r − x_j) dr,  ρ ~ Lap(2/ε), ν ~ Lap(2/ε)."""
    b = 2.0 / m.epsilon
    r = np.arange(-width, width, h) + h / 2
    f_rho = np.exp(-np.abs(r) / b) / (2 * b) * h
    below = np.ones_like(r)  # Π_{j<i} F_ν(T + r − x_j): every earlier query ⊥
    cells = []
    for xi in np.asarray(x, float):
        g = np.cumsum(f_rho * below)  # ∫_{r' ≤ r}
        cells.append(np.exp(-np.abs(r + m.threshold - xi) / b) / (2 * b) * h * g)  # v = r + T
        below = below * _laplace_cdf(m.threshold + r - xi, b)
    p = np.concatenate(cells + [[np.sum(f_rho * below)]])
    return p / p.sum(), abs(p.sum() - 1)


def continuous(n: int, confidence: float) -> None:
    """The ideal bound on the cell laws of ReportNoisyMax3 (exact masses) and SVT3 (numerical)."""
    makers = {"ReportNoisyMax3": _noisy_max_cells, "SVT3": _svt3_cells}
    n_s = f"{n:.0e}".replace("+0", "")
    print(f"\ncontinuous outputs on cells (ReportNoisyMax3: exact cell masses, width 0.05; SVT3 (c = 1): numerical, "
          f"width 0.1), ideal bound at {n_s} draws per input, binomial / Poisson test")
    for case in [c for c in CASES if c.name in makers]:
        m = case.make()
        pairs, _ = _pairs(m, case.name) if case.name in DPSNIPER_PAIRS else (
            [(np.asarray(a, float).ravel(), np.asarray(b, float).ravel())
             for a, b in m.relation.candidates(np.random.default_rng(0))], None)
        laws, err = {}, 0.0
        best = None
        for a, b in pairs:
            for v in (a, b):
                if v.tobytes() not in laws:
                    law = makers[case.name](m, v)
                    if isinstance(law, tuple):
                        law, e = law
                        err = max(err, e)
                    laws[v.tobytes()] = law
            p, q = laws[a.tobytes()], laws[b.tobytes()]
            pois = best_event_bound(p, q, n=n, confidence=confidence, test="poisson")
            row = (best_event_bound(p, q, n=n, confidence=confidence).epsilon, pois.epsilon, exact_epsilon(p, q),
                   _label(a, b, len(laws)), pois)
            if best is None or max(row[:2]) > max(best[:2]):
                best = row
        luck = reach_probability(best[4].p_event, best[4].q_event, n=n, confidence=confidence, target=case.dpsniper,
                                 test="poisson")
        reach = "yes" if max(best[:2]) >= case.dpsniper else "no"
        print(f"{case.name:<19} best pair {best[3]:<28} cells' ε {best[2]:.4f}  binomial {best[0]:.4f}  "
              f"Poisson {best[1]:.4f}  DP-Sniper {case.dpsniper:.4f} (at 1.07e7: {case.dpsniper_1e7:.4f})  reach {reach}  "
              f"P(reach, conditional) {luck:.3g}"
              + (f"  (integration error {err:.1e})" if err else ""))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=10**7, help="draws per input (the issue's budget)")
    ap.add_argument("--n-final", type=int, default=2 * 10**8, help="DP-Sniper's final sample size")
    ap.add_argument("--confidence", type=float, default=0.9)
    ap.add_argument("--only", default="", help="comma-separated names")
    args = ap.parse_args()
    only = {s for s in args.only.split(",") if s}
    cases = [c for c in CASES if c.name in COVERED and (not only or c.name in only)]
    if only - {c.name for c in cases} - {"ReportNoisyMax3", "SVT3"}:
        raise SystemExit(f"--only: no exact law for {sorted(only - {c.name for c in cases})}; covered: {COVERED}")
    n_laws = sum(len({x.tobytes() for pr in _pairs(c.make(), c.name)[0] for x in pr}) for c in cases)
    t0 = time.monotonic()
    results = []
    with progress("exact laws", total=n_laws) as tick:
        for case in cases:
            results.append((case, evaluate(case, args.n, args.n_final, args.confidence, tick)))
    n_s, f_s = f"{args.n:.0e}".replace("+0", ""), f"{args.n_final:.0e}".replace("+0", "")
    print(f"ideal auditor, confidence {args.confidence}; bounds at {n_s} draws per input (single event, pooled) "
          f"and at {f_s}; P(S), Q(S): the single event's exact probabilities")
    print(f"{'mechanism':<19} {'which':<8} {'pair':<28} {'exact ε':>8} {'@' + n_s:>7} {'pooled':>7} {'Poisson':>7} "
          f"{'@' + f_s:>7} {'P(S)':>7} {'Q(S)':>7} {'DP-Sniper':>9} reach@{n_s} {'P(reach)':>8} {'P(cond)':>7}")
    for case, rows in results:
        best = max(rows, key=lambda r: max(r["ideal"], r["pooled"], r["poisson"]))
        shown = [("best=DPS" if best["sniper"] else "best", best)] + \
            [("DPS", r) for r in rows if r["sniper"] and r is not best]
        for which, r in shown:
            reach = "yes" if max(r["ideal"], r["pooled"], r["poisson"]) >= case.dpsniper else "no"
            print(f"{case.name:<19} {which:<8} {r['label']:<28} {r['exact']:>8.4f} {r['ideal']:>7.4f} "
                  f"{r['pooled']:>7.4f} {r['poisson']:>7.4f} {r['final']:>7.4f} {r['p_event']:>7.4f} {r['q_event']:>7.4f} "
                  f"{case.dpsniper:>9.4f} {reach:<9} {r['luck']:>8.3g} {r['luck_poisson']:>7.3g}")
    for case, rows in results:
        best = max(rows, key=lambda r: max(r["ideal"], r["pooled"], r["poisson"]))
        if best["label"].startswith("random"):
            a, b = (np.round(v, 3).tolist() for v in best["pair"])
            print(f"{case.name} {best['label']}: {a} vs {b}")
    print("best: the pair with the largest ideal bound at the budget; DPS: DP-Sniper's pair; "
          "Poisson: the single event under the conditional test of Poisson(n) draw counts (audit() at δ = 0); "
          "reach: max(single, pooled, Poisson) >= DP-Sniper's bound at expected counts; P(reach): probability that the "
          "single event, fixed in advance, reaches it over the binomial counts (binomial test); P(cond): the same for "
          "the Poisson column's event over Poisson counts (conditional test)")
    if not only or only & {"ReportNoisyMax3", "SVT3"}:
        continuous(args.n, args.confidence)
    print(f"({len(results)} mechanisms, {sum(len(r) for _, r in results)} pairs, {time.monotonic() - t0:.0f} s)")


if __name__ == "__main__":
    main()
