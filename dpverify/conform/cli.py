"""``dpverify conform opendp|diffprivlib [--json] [--samples N] [--jobs N] [--only NAME ...] [--confidence C] [--seed S]``.

Sweeps the installed library's measurements against their own stated privacy
(:func:`dpverify.conform.sweep.sweep`) and prints one row per measurement and parameters: the claim (in the
library's own measure), the lower confidence bound on the loss in that measure, the verdict and the time;
then the constructors that are not driven, with the reason.  ``--json`` prints the rows as a JSON list (each
with ``constructor``, ``params``, ``claim``, ``bound``, ``verdict``, ``seconds``, and ``measure``, ``law``,
``exact``, ``detail``, ``library``); the constructors not driven then go to stderr, one line each.

Exit status: 0 when nothing is refuted (``error`` rows included: a map that cannot be evaluated or a
measurement that fails to draw is written down, not fatal), 1 when a measurement is refuted, 2 on bad input
or when the library is not installed.
"""

from __future__ import annotations

import argparse
import json
import sys

_EPILOG = """exit status:
  0    no measurement refuted (rows with verdict "error" are listed, they do not change the status)
  1    a measurement is refuted: its stated privacy is below a lower confidence bound on its loss
  2    bad input, or the library is not installed"""

#: draws per constructor by default (the benchmark uses 10^6)
DEFAULT_SAMPLES = 200_000


def _table(result, stream) -> None:
    from rich.table import Table

    from dpverify.console import make_console, quote

    console = make_console(file=stream)
    table = Table(title=quote(f"{result.library}: each measurement against its own claim"))
    for col in ("constructor", "params", "claim", "bound", "verdict", "law fitted", "exact", "s"):
        table.add_column(col)
    for r in result.rows:
        params = ", ".join(f"{k}={v}" for k, v in r.params.items())
        bound = "" if r.bound is None else f"{r.bound:.4g}"
        exact = "" if r.exact is None else f"{r.exact:.4g}"
        style = {"refuted": "red", "error": "yellow"}.get(r.verdict, "")
        table.add_row(quote(r.constructor), quote(params), quote(r.claim), quote(bound), quote(r.verdict, style),
                      quote(r.law if r.verdict != "error" else r.detail), quote(exact), quote(f"{r.seconds:.1f}"))
    console.print(table)
    for name, reason in result.not_driven:
        console.print(quote(f"not driven: {name}: {reason}"), soft_wrap=True)
    counts = {v: sum(r.verdict == v for r in result.rows) for v in ("consistent", "refuted", "error")}
    console.print(quote(f"{len(result.rows)} checked: {counts['consistent']} consistent, {counts['refuted']} refuted, "
                        f"{counts['error']} error; {len(result.not_driven)} not driven"), soft_wrap=True)


def cmd_conform(args: argparse.Namespace) -> int:
    """Run the sweep and print it; the exit status (module docstring)."""
    from dpverify.conform.sweep import rows_json, sweep

    if args.samples < 1000:
        raise ValueError(f"--samples must be an integer >= 1000, got {args.samples}")
    if not 0 < args.confidence < 1:
        raise ValueError(f"--confidence must lie in (0, 1), got {args.confidence}")
    if not 1 <= args.jobs <= 64:
        raise ValueError(f"--jobs must be an integer in [1, 64], got {args.jobs}")
    result = sweep(args.library, samples=args.samples, confidence=args.confidence, rng=args.seed, only=args.only,
                   jobs=args.jobs)
    if args.json:
        sys.stdout.write(json.dumps(rows_json(result), indent=2, ensure_ascii=False) + "\n")
        for name, reason in result.not_driven:
            print(f"not driven: {name}: {reason}", file=sys.stderr)
    else:
        _table(result, sys.stdout)
    return 1 if result.refuted else 0


def register(subparsers) -> None:
    p = subparsers.add_parser("conform", help="check a DP library's measurements against their own stated privacy",
                              epilog=_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("library", choices=("opendp", "diffprivlib"), help="the installed library to sweep")
    p.add_argument("--samples", type=int, default=DEFAULT_SAMPLES,
                   help=f"draws per constructor, shared by its cases and their inputs (default {DEFAULT_SAMPLES:,})")
    p.add_argument("--confidence", type=float, default=0.99,
                   help="1 − α for the whole sweep (each case at α/cases; default 0.99)")
    p.add_argument("--only", nargs="+", default=None, metavar="NAME", help="sweep only these constructors/classes")
    p.add_argument("--seed", type=int, default=None,
                   help="seed (diffprivlib's draws; OpenDP draws from the system's generator and cannot be seeded)")
    p.add_argument("--jobs", type=int, default=1,
                   help="worker processes that run the cases (default 1); the rows keep their order")
    p.add_argument("--json", action="store_true", help="print the rows as a JSON list")
    p.set_defaults(func=cmd_conform)
