"""``dpverify pca-evaluate`` and ``dpverify pca-audit``: the paper's utility grid and the Thm 3 audit.

Examples
--------
``dpverify pca-evaluate --dataset adult`` runs PPCA, PPCA-DP and PCA-based PPDP for
ε ∈ {0.1, 0.5, 1}, k = 1..21, 5 runs each, and prints MSE and SVM accuracy (Figs. 3–6);
``--methods ppca-dp ppca-dp-corrected --ks 1 5 9`` narrows it, ``--json`` prints JSON.
Progress goes to stderr.  An SVM accuracy equal to the test set's majority-class rate
(the classifier predicts one class for every record) is marked in its row and counted
in a closing line.

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
    from dpverify.progress import progress
    from dpverify.pca.evaluate import at_majority_rate, evaluate

    t = time.perf_counter()
    if not sys.stderr.isatty():  # plain lines: say at once what is running (a terminal gets a bar)
        print(f"pca-evaluate {args.dataset}: loading the data, then {args.runs} run(s) per grid cell",
              file=sys.stderr, flush=True)
    with progress(f"pca-evaluate {args.dataset}", None, stream=sys.stderr) as tick:
        tick(0, "loading the data")
        rows = evaluate(args.dataset, methods=tuple(args.methods), epsilons=tuple(args.epsilon), ks=args.ks,
                        runs=args.runs, svm=not args.no_svm, max_rows=args.max_rows, rng=args.seed,
                        jobs=args.jobs, progress=lambda done, total: tick(1, f"of {total} grid cells"))
    secs = time.perf_counter() - t
    majority = [at_majority_rate(r) for r in rows]
    n_major = sum(majority)
    remark = (f"{n_major} of {sum(r.acc_mean is not None for r in rows)} SVM accuracies equal the test set's "
              f"majority-class rate {rows[0].majority_rate:.4f}: there the classifier predicts one class for "
              "every record and learned nothing from the published data") if rows and n_major else ""
    if args.json:
        print(json.dumps({"dataset": args.dataset, "seconds": secs, "seed": args.seed,
                          "rows": [dict(r.__dict__, at_majority_rate=m) for r, m in zip(rows, majority)],
                          "remark": remark}, indent=2))
        return 0
    from rich.table import Table

    from dpverify.console import make_console, quote

    table = Table(title=quote(f"{args.dataset}: {len(rows)} cells × {args.runs} runs in {secs:.1f} s "
                              f"(RNG seed {args.seed}, {args.jobs} job(s))"))
    for col in ("method", "ε", "k", "MSE mean", "MSE sd", "SVM acc", "acc sd", "remark"):
        table.add_column(col, justify="left" if col in ("method", "remark") else "right")
    for r, m in zip(rows, majority):
        table.add_row(quote(r.method), "-" if r.epsilon is None else f"{r.epsilon:g}", str(r.k), f"{r.mse_mean:.4g}",
                      f"{r.mse_std:.2g}", "-" if r.acc_mean is None else f"{r.acc_mean:.4f}",
                      "-" if r.acc_std is None else f"{r.acc_std:.4f}", "= majority-class rate" if m else "")
    con = make_console()
    con.print(table)
    if remark:
        con.print(quote(remark))
    return 0


def cmd_audit(args: argparse.Namespace) -> int:
    import numpy as np

    from dpverify.validation import check_epsilon
    from dpverify.audit import MechanismError, epsilon_lower_bound
    from dpverify.pca.evaluate import make_mechanism
    from dpverify.pca.ppca import check_k
    from dpverify.pca.thm3 import (adult_pair, column_spread, degenerate_pair, flip_pair, gaussian_pair,
                                   output_coordinate)

    # validate here: the mechanism only sees its parameters inside the auditor's sampling loop,
    # where a ValueError would surface as a MechanismError traceback instead of a usage error
    check_epsilon(args.epsilon)
    from dpverify.budget import check_work

    check_work(2 * args.samples, f"--samples {args.samples} (per data set, two data sets)")  # refused up front
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
    from dpverify.progress import progress

    t = time.perf_counter()
    try:
        with progress("pca-audit", None, stream=sys.stderr, unit="samples") as tick:
            seen = [0]

            def step(done: int, total: int) -> None:
                tick(done - seen[0], f"of {total:,}")
                seen[0] = done

            r = epsilon_lower_bound(observed, D, Dp, samples=args.samples, confidence=args.confidence,
                                    rng=args.seed, progress=step)
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
        from dpverify.console import line, make_console

        con = make_console()
        for key, v in out.items():
            con.print(line((key, "bold"), f": {v}"))
    return 1 if out["verdict"] == "refuted" else 0  # as `dpverify audit`: 1 = refuted, 0 = not refuted


def register(subparsers) -> None:
    from dpverify.pca.evaluate import METHODS

    e = subparsers.add_parser("pca-evaluate", help="the PPCA-DP paper's utility grid (Gu, Zhang, Song): MSE and SVM accuracy (Figs. 3-6)",
                              description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    e.add_argument("--dataset", choices=("adult", "magic"), default="adult",
                   help="UCI data set shipped with dpverify: adult or magic (default adult)")
    e.add_argument("--methods", nargs="+", choices=METHODS, default=["ppca", "ppca-dp", "pca-ppdp"],
                   metavar="METHOD", help="methods to run, from: " + ", ".join(METHODS)
                   + " (default ppca ppca-dp pca-ppdp)")
    e.add_argument("--epsilon", "--eps", dest="epsilon", nargs="+", type=float, default=[0.1, 0.5, 1.0],
                   metavar="EPS", help="privacy budgets ε > 0 of the grid (default 0.1 0.5 1); --eps is an alias")
    e.add_argument("--ks", nargs="+", type=int, default=None, metavar="K",
                   help="numbers of principal components (default 1..p, all)")
    e.add_argument("--runs", type=int, default=5, help="publications averaged per grid cell (default 5, as the paper)")
    e.add_argument("--max-rows", type=int, default=None, metavar="N",
                   help="publish a seeded random subsample of N rows (default: all rows)")
    e.add_argument("--no-svm", action="store_true", help="MSE only (skip the SVM accuracy)")
    e.add_argument("--seed", type=int, default=0, help="RNG seed: the same seed gives the same numbers (default 0)")
    e.add_argument("--jobs", type=int, default=1, help="worker processes (results do not depend on it; default 1)")
    e.add_argument("--json", action="store_true", help="print JSON to stdout instead of a table")
    e.set_defaults(func=cmd_evaluate)

    a = subparsers.add_parser("pca-audit", help="audit a pca-room mechanism on the Thm 3 neighbouring pairs",
                              description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    a.add_argument("--method", choices=METHODS, default="ppca-dp",
                   help="mechanism to audit, one of: " + ", ".join(METHODS) + " (default ppca-dp)")
    a.add_argument("--pair", choices=("gaussian", "degenerate", "flip", "adult"), default="gaussian",
                   help="neighbouring data sets from dpverify.pca.thm3: gaussian, degenerate, flip, or adult "
                        "(real-data pair, observes the spread of the published capital-gain column); default gaussian")
    a.add_argument("--column", type=int, choices=(0, 1), default=1,
                   help="toy pairs: feature (0 or 1) of record 0 to observe (default 1)")
    a.add_argument("--k", type=int, default=None, help="components (default 1 for toy pairs, 9 for adult)")
    a.add_argument("--epsilon", type=float, default=1.0, metavar="EPS", help="the claimed ε > 0 (default 1)")
    a.add_argument("--samples", type=int, default=100_000, help="mechanism runs per data set (default 100000)")
    a.add_argument("--confidence", type=float, default=0.99,
                   help="confidence of the lower bound, in (0, 1) (default 0.99)")
    a.add_argument("--seed", type=int, default=0, help="RNG seed: the same seed gives the same numbers (default 0)")
    a.add_argument("--json", action="store_true", help="print JSON to stdout instead of lines")
    a.set_defaults(func=cmd_audit)
