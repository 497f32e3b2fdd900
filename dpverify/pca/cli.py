"""``dpverify pca-evaluate`` and ``dpverify pca-audit``: the paper's utility grid and the Thm 3 audit.

Examples
--------
``dpverify pca-evaluate --dataset adult`` runs PPCA, PPCA-DP and PCA-based PPDP for
ε ∈ {0.1, 0.5, 1}, k = 1..21, 5 runs each, and prints MSE and SVM accuracy (Figs. 3–6);
``--methods ppca-dp ppca-dp-corrected --ks 1 5 9`` narrows it, ``--json`` prints JSON.

``dpverify pca-audit --method ppca-dp --epsilon 1`` runs the statistical auditor on the
neighbouring pair of ``dpverify.pca.thm3.gaussian_pair`` and prints the ε lower bound;
``--pair adult --samples 2000`` audits on neighbouring subsets of UCI Adult instead.
"""

from __future__ import annotations

import argparse
import json
import sys
import time


def cmd_evaluate(args: argparse.Namespace) -> int:
    from rich.console import Console
    from rich.table import Table

    from dpverify.pca.evaluate import evaluate

    t = time.perf_counter()
    rows = evaluate(args.dataset, methods=tuple(args.methods), epsilons=tuple(args.eps), ks=args.ks,
                    runs=args.runs, svm=not args.no_svm, max_rows=args.max_rows, rng=args.seed,
                    jobs=args.jobs)
    secs = time.perf_counter() - t
    if args.json:
        print(json.dumps({"dataset": args.dataset, "seconds": secs, "seed": args.seed,
                          "rows": [r.__dict__ for r in rows]}, indent=2))
        return 0
    table = Table(title=f"{args.dataset}: {len(rows)} cells × {args.runs} runs in {secs:.1f} s "
                        f"(seed {args.seed}, {args.jobs} job(s))")
    for col in ("method", "ε", "k", "MSE mean", "MSE sd", "SVM acc", "acc sd"):
        table.add_column(col, justify="right" if col not in ("method",) else "left")
    for r in rows:
        table.add_row(r.method, "-" if r.epsilon is None else f"{r.epsilon:g}", str(r.k), f"{r.mse_mean:.4g}",
                      f"{r.mse_std:.2g}", "-" if r.acc_mean is None else f"{r.acc_mean:.4f}",
                      "-" if r.acc_std is None else f"{r.acc_std:.4f}")
    Console().print(table)
    return 0


def cmd_audit(args: argparse.Namespace) -> int:
    import numpy as np
    from rich.console import Console

    from dpverify._validation import check_epsilon
    from dpverify.audit import MechanismError, epsilon_lower_bound
    from dpverify.pca.evaluate import make_mechanism
    from dpverify.pca.ppca import check_k
    from dpverify.pca.thm3 import (adult_pair, column_spread, degenerate_pair, flip_pair, gaussian_pair,
                                   output_coordinate)

    # validate here: the mechanism only sees its parameters inside the auditor's sampling loop,
    # where a ValueError would surface as a MechanismError traceback instead of a usage error
    check_epsilon(args.epsilon)
    if args.pair == "adult":
        from dpverify.datasets import ADULT_BOUNDS, ADULT_FEATURES

        D, Dp = adult_pair()
        k = check_k(9 if args.k is None else args.k, D.shape[1])
        mech = make_mechanism(args.method, k, args.epsilon, ADULT_BOUNDS)
        observed = column_spread(mech, ADULT_FEATURES.index("capital-gain"))
    else:
        pairs = {"gaussian": gaussian_pair, "degenerate": degenerate_pair, "flip": lambda: flip_pair(3)}
        D, Dp = pairs[args.pair]()
        k = check_k(1 if args.k is None else args.k, D.shape[1])
        mech = make_mechanism(args.method, k, args.epsilon, (np.zeros(2), np.ones(2)))
        observed = output_coordinate(mech, 0, args.column)
    t = time.perf_counter()
    try:
        r = epsilon_lower_bound(observed, D, Dp, samples=args.samples, confidence=args.confidence, rng=args.seed)
    except MechanismError as exc:
        print(f"dpverify pca-audit: error: {exc}", file=sys.stderr)
        return 2
    secs = time.perf_counter() - t
    out = {"method": args.method, "pair": args.pair, "k": mech.k, "statistic": observed.__name__,
           "epsilon_claimed": args.epsilon,
           "epsilon_lower_bound": float(r.epsilon), "event": r.event.description, "direction": r.direction,
           "counts": [int(r.count_p), int(r.count_q)], "samples": args.samples, "confidence": args.confidence,
           "seed": args.seed, "seconds": secs,
           # PPCA claims no ε: there is nothing to refute; otherwise the auditor's own verdict
           "verdict": r.verdict(args.epsilon).value if args.method != "ppca" else "-"}
    if args.json:
        print(json.dumps(out, indent=2))
    else:
        con = Console()
        for key, v in out.items():
            con.print(f"[bold]{key}[/bold]: {v}")
    return 1 if out["verdict"] == "refuted" else 0  # as `dpverify audit`: 1 = refuted, 0 = not refuted


def register(subparsers) -> None:
    from dpverify.pca.evaluate import METHODS

    e = subparsers.add_parser("pca-evaluate", help="seed 001 utility grid: MSE and SVM accuracy (Figs. 3-6)")
    e.add_argument("--dataset", choices=("adult", "magic"), default="adult")
    e.add_argument("--methods", nargs="+", choices=METHODS, default=["ppca", "ppca-dp", "pca-ppdp"])
    e.add_argument("--eps", nargs="+", type=float, default=[0.1, 0.5, 1.0])
    e.add_argument("--ks", nargs="+", type=int, default=None, help="default: 1..p")
    e.add_argument("--runs", type=int, default=5)
    e.add_argument("--max-rows", type=int, default=None, help="publish a seeded subsample of this size")
    e.add_argument("--no-svm", action="store_true", help="MSE only")
    e.add_argument("--seed", type=int, default=0)
    e.add_argument("--jobs", type=int, default=1, help="worker processes (results do not depend on it)")
    e.add_argument("--json", action="store_true")
    e.set_defaults(func=cmd_evaluate)

    a = subparsers.add_parser("pca-audit", help="audit a pca-room mechanism on the Thm 3 neighbouring pairs")
    a.add_argument("--method", choices=METHODS, default="ppca-dp")
    a.add_argument("--pair", choices=("gaussian", "degenerate", "flip", "adult"), default="gaussian",
                   help="neighbouring data sets from dpverify.pca.thm3 (adult: real-data pair, observes the "
                        "spread of the published capital-gain column)")
    a.add_argument("--column", type=int, choices=(0, 1), default=1, help="toy pairs: feature of record 0 to observe")
    a.add_argument("--k", type=int, default=None, help="components (default 1 for toy pairs, 9 for adult)")
    a.add_argument("--epsilon", type=float, default=1.0)
    a.add_argument("--samples", type=int, default=100_000)
    a.add_argument("--confidence", type=float, default=0.99)
    a.add_argument("--seed", type=int, default=0)
    a.add_argument("--json", action="store_true")
    a.set_defaults(func=cmd_audit)
