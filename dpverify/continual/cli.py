"""``dpverify continual ...``: release noisy running totals from a CSV column; exact MSE per method.

Example
-------
``dpverify continual release --input counts.csv --column n --epsilon 1 --seed 0 --output out.csv``
writes the input rows with an added column ``<NAME>_noisy_total`` (integers with the default
``--noise discrete``).  ``dpverify continual mse --n 4095 --epsilon 1`` prints the exact
per-release and total MSE of every method (``--noise discrete`` only for the methods whose MSE
takes it).  Exit status 0 on success, 2 on bad input (messages name the option or the CSV line).
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
from pathlib import Path


def _read_column(path: str, column: str) -> tuple[list[str], list[list[str]], list[int | float]]:
    p = Path(path)
    if not p.is_file():
        raise FileNotFoundError(f"--input file not found: {path}")
    with p.open(newline="") as fh:
        reader = csv.reader(fh)
        try:
            header = next(reader)
        except StopIteration:
            raise ValueError(f"--input {path} is empty") from None
        if column not in header:
            raise ValueError(f"--column {column!r} not in the header of {path}: {header}")
        j = header.index(column)
        rows, values = [], []
        for lineno, row in enumerate(reader, start=2):
            if not row:
                continue
            cell = row[j].strip() if j < len(row) else ""
            try:
                values.append(int(cell))
            except ValueError:
                try:
                    f = float(cell)  # 3.0 is accepted, 2.5 / nan rejected by check_counts
                    # integral floats as ints, so one "3.0" cell does not turn every count into float64
                    values.append(int(f) if f.is_integer() else f)
                except ValueError:
                    raise ValueError(f"counts: line {lineno} of {path} has {cell!r} in column {column!r}") from None
            rows.append(row)
    return header, rows, values


def cmd_release(args: argparse.Namespace) -> int:
    import numpy as np

    from dpverify._validation import check_counts
    from dpverify.continual import release

    header, rows, values = _read_column(args.input, args.column)
    counts = check_counts(np.array(values), "counts")
    if args.seed is not None and args.seed < 0:
        raise ValueError(f"--seed must be >= 0, got {args.seed}")
    out = release(counts, args.epsilon, args.method, rng=args.seed, noise=args.noise)
    name = f"{args.column}_noisy_total"
    if not Path(args.output).resolve().parent.is_dir():
        raise FileNotFoundError(f"--output directory does not exist: {args.output}")
    with open(args.output, "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(header + [name])
        for row, v in zip(rows, out.tolist()):
            w.writerow(row + [v if args.noise == "discrete" else repr(float(v))])
    if args.json:
        json.dump({"n": int(counts.size), "epsilon": args.epsilon, "method": args.method, "noise": args.noise,
                   "output": args.output}, sys.stdout)
        print()
    else:
        from rich.console import Console

        Console(soft_wrap=True).print(
            f"released {counts.size} running totals ({args.method}, {args.noise} noise, ε = {args.epsilon}) "
            f"→ {args.output} column {name}"
        )
    return 0


def _method_mse(n: int, epsilon: float, method: str, noise: str):
    """The exact MSE; Laplace is every method's default, other noise only where the method takes it."""
    from dpverify.continual import expected_mse

    if noise == "laplace":
        return expected_mse(n, epsilon, method)
    try:
        return expected_mse(n, epsilon, method, noise=noise)
    except TypeError as exc:
        if "'noise'" not in str(exc):
            raise
        raise ValueError(f"--noise {noise}: method {method!r} gives the exact MSE for Laplace noise only") from None


def cmd_mse(args: argparse.Namespace) -> int:
    from dpverify.continual import method_names

    methods = args.method or [m for m in ("naive", "fenwick", "fda") if m in method_names()]
    rows = []
    for m in methods:
        e = _method_mse(args.n, args.epsilon, m, args.noise)
        rows.append({"method": m, "total": float(e.sum()), "mean": float(e.mean()), "max": float(e.max()), "last": float(e[-1])})
    if args.json:
        json.dump(rows, sys.stdout, indent=2)
        print()
        return 0
    from rich.console import Console
    from rich.table import Table

    t = Table(title=f"exact MSE, n = {args.n}, ε = {args.epsilon}, {args.noise} noise")
    for col in ("method", "total", "mean per release", "max per release", "release n"):
        t.add_column(col, justify="right")
    for r in rows:
        t.add_row(r["method"], f"{r['total']:.6g}", f"{r['mean']:.6g}", f"{r['max']:.6g}", f"{r['last']:.6g}")
    Console().print(t)
    return 0


def register(subparsers) -> None:
    p = subparsers.add_parser("continual", help="continual release of running counts (seeds 000, 004)")
    sub = p.add_subparsers(dest="continual_command", required=True)

    r = sub.add_parser("release", help="read a CSV column of counts, write the noisy running totals")
    r.add_argument("--input", required=True, metavar="FILE.csv")
    r.add_argument("--column", required=True, metavar="NAME")
    r.add_argument("--epsilon", required=True, type=float)
    r.add_argument("--method", default="fda")
    r.add_argument("--noise", default="discrete", choices=("discrete", "laplace"))
    r.add_argument("--seed", type=int, default=None)
    r.add_argument("--output", required=True, metavar="OUT.csv")
    r.add_argument("--json", action="store_true")
    r.set_defaults(func=cmd_release)

    m = sub.add_parser("mse", help="exact expected MSE of each method (no Monte Carlo)")
    m.add_argument("--n", required=True, type=int)
    m.add_argument("--epsilon", required=True, type=float)
    m.add_argument("--method", action="append", help="repeatable; default naive, fenwick, fda")
    m.add_argument("--noise", default="laplace", choices=("discrete", "laplace"))
    m.add_argument("--json", action="store_true")
    m.set_defaults(func=cmd_mse)
