"""``dpverify audit MODULE:FUNCTION --d … --d-prime … --epsilon E [--delta D] --samples N [--json]``.

Thin: parse, call :func:`dpverify.audit.epsilon_lower_bound`, print.  Exit status 0 when the
claim is not refuted (verdict ``inconclusive``), 1 when it is refuted, 2 on bad input.
"""

from __future__ import annotations

import argparse
import ast
import importlib
import json
import sys


def _load(spec: str, what: str):
    if ":" not in spec:
        raise ValueError(f"{what} must be MODULE:NAME, got {spec!r}")
    mod_name, attr = spec.split(":", 1)
    try:
        obj = importlib.import_module(mod_name)
    except ImportError as exc:
        raise ValueError(f"{what}: cannot import module {mod_name!r}: {exc}") from None
    for part in attr.split("."):
        if not hasattr(obj, part):
            raise ValueError(f"{what}: {mod_name!r} has no attribute {attr!r}")
        obj = getattr(obj, part)
    if not callable(obj) or isinstance(obj, type):
        raise ValueError(f"{what}: {spec!r} is not a callable mechanism(data, rng, n)")
    return obj


def _literal(text: str):
    """A Python/JSON literal (number, list, ...); anything else is passed as the string itself."""
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return text


def cmd_audit(args: argparse.Namespace) -> int:
    from rich.console import Console
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn
    from rich.table import Table

    from dpverify._validation import check_epsilon
    from dpverify.audit.statistical import MechanismError, epsilon_lower_bound

    mech = _load(args.mechanism, "mechanism")
    claimed = check_epsilon(args.epsilon)
    stat = None
    if args.statistic:
        stat = "classifier" if args.statistic == "classifier" else _load(args.statistic, "statistic")
    kwargs = dict(samples=args.samples, confidence=args.confidence, delta=args.delta, rng=args.seed, statistic=stat,
                  selection_fraction=args.selection_fraction)
    console = Console(stderr=True)
    try:
        if args.json or not console.is_terminal:
            r = epsilon_lower_bound(mech, _literal(args.d), _literal(args.d_prime), **kwargs)
        else:
            with Progress(TextColumn("[bold]auditing"), BarColumn(), TextColumn("{task.completed:,}/{task.total:,}"),
                          TimeElapsedColumn(), TimeRemainingColumn(), console=console, transient=True) as bar:
                task = bar.add_task("", total=2 * args.samples)
                r = epsilon_lower_bound(mech, _literal(args.d), _literal(args.d_prime),
                                        progress=lambda done, total: bar.update(task, completed=done), **kwargs)
    except MechanismError as exc:
        print(f"dpverify audit: error: {exc}", file=sys.stderr)
        return 2
    verdict = r.verdict(claimed)
    if args.json:
        json.dump({"mechanism": args.mechanism, "claimed_epsilon": claimed, "verdict": verdict.value, **r.as_dict()},
                  sys.stdout, indent=2, ensure_ascii=False)
        print()
    else:
        t = Table(title=f"audit of {args.mechanism} (claimed ε = {claimed:g}, δ = {r.delta:g})")
        t.add_column("quantity")
        t.add_column("value", overflow="fold")
        style = "red" if verdict.value == "refuted" else "cyan"
        rows = [("verdict", f"[{style}]{verdict.value}[/]"), ("ε lower bound", f"{r.epsilon:.6g}"),
                ("confidence", f"{r.confidence:g}"), ("event", r.event.description), ("direction", r.direction),
                *([("event, reverse order (pooled)", r.event_reverse.description)] if r.event_reverse else []),
                ("count P / Q", f"{r.count_p} / {r.count_q} of {r.n_trials} trials"),
                ("P lower, Q upper", f"{r.p_interval[0]:.6g}, {r.q_interval[1]:.6g}"),
                ("samples (selection + estimation)", f"{r.n_selection} + {r.n_estimation} per input")]
        for k, v in rows:
            t.add_row(k, v)
        Console().print(t)
    return 1 if verdict.value == "refuted" else 0


def register(subparsers) -> None:
    p = subparsers.add_parser("audit", help="black-box lower bound on a mechanism's ε from samples")
    p.add_argument("mechanism", metavar="MODULE:FUNCTION", help="a callable mechanism(data, rng, n)")
    p.add_argument("--d", required=True, help="input D (a Python literal, e.g. 0 or [1,2,3])")
    p.add_argument("--d-prime", required=True, dest="d_prime", help="neighbouring input D'")
    p.add_argument("--epsilon", required=True, type=float, help="claimed ε")
    p.add_argument("--delta", type=float, default=0.0, help="claimed δ (default 0)")
    p.add_argument("--samples", required=True, type=int, help="outputs per input")
    p.add_argument("--confidence", type=float, default=0.99, help="1 − α (default 0.99)")
    p.add_argument("--seed", type=int, default=None, help="seed for reproducible audits")
    p.add_argument("--statistic", default=None, help="MODULE:FUNCTION mapping vector outputs to numbers, or 'classifier'")
    p.add_argument("--selection-fraction", type=float, default=0.5, dest="selection_fraction")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.set_defaults(func=cmd_audit)
