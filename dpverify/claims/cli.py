"""``dpverify verify`` and ``dpverify claims``: run and list the registered claims."""

from __future__ import annotations

import argparse
import json
import sys

from rich.console import Console
from rich.table import Table

from dpverify._progress import progress

_VERDICT_STYLE = {"holds": "green", "erratum": "yellow", "refuted": "red", "inconclusive": "cyan", "error": "bold magenta"}


def _console() -> Console:
    # Not a terminal (CI logs, pipes): a wide fixed width so ids and evidence stay readable.
    return Console(stderr=False, soft_wrap=False, width=None if sys.stdout.isatty() else 180)


def _short(evidence: dict, width: int = 90) -> str:
    from dpverify.claims import to_jsonable

    items = []
    for k, v in to_jsonable(dict(evidence)).items():
        if isinstance(v, dict) and "sympy" in v:
            v = v["sympy"]
        s = json.dumps(v, ensure_ascii=False) if not isinstance(v, str) else v
        items.append(f"{k}={s}")
    text = "; ".join(items)
    return text if len(text) <= width else text[: width - 1] + "…"


def cmd_verify(args: argparse.Namespace) -> int:
    from dpverify.claims import all_claims, result_to_json, run_claims

    claims = all_claims(args.only)
    if not claims:
        print("no claim matches --only " + repr(args.only) if args.only else "no claims registered", file=sys.stderr)
        return 2
    if args.json:
        with progress("verifying", len(claims), stream=sys.stderr, unit="claims") as step:
            results = run_claims(claims, thorough=args.thorough, jobs=args.jobs, timeout=args.timeout,
                                 progress=lambda r: step(1, r.claim.id))
        json.dump([result_to_json(r) for r in results], sys.stdout, indent=2, ensure_ascii=False)
        print()
    else:
        console = _console()
        with progress("verifying", len(claims), stream=sys.stderr, unit="claims") as step:
            results = run_claims(claims, thorough=args.thorough, jobs=args.jobs, timeout=args.timeout,
                                 progress=lambda r: step(1, r.claim.id))
        table = Table(title="dpverify: claims of the papers, checked", show_lines=False)
        for col in ("claim", "method", "expected", "verdict", "s", "evidence"):
            table.add_column(col, overflow="fold", no_wrap=col in ("method", "expected", "verdict", "s"))
        for r in results:
            v = r.verdict.value
            mark = "" if r.as_expected else " ✗"
            table.add_row(
                r.claim.id,
                r.claim.method.value,
                r.claim.expected.value,
                f"[{_VERDICT_STYLE[v]}]{v}{mark}[/]",
                f"{r.seconds:.2f}",
                _short(r.outcome.evidence),
            )
        console.print(table)
        counts = {v: sum(r.verdict.value == v for r in results) for v in _VERDICT_STYLE}
        bad = [r for r in results if not r.as_expected]
        console.print(
            f"{len(results)} claims: "
            + ", ".join(f"{n} {v}" for v, n in counts.items())
            + f"; {len(bad)} differ from the expected verdict"
        )
        for r in bad:
            console.print(f"[red]differs[/]: {r.claim.id} expected {r.claim.expected.value}, got {r.verdict.value}")
            if r.error:
                console.print(r.error, markup=False)
    return 0 if all(r.as_expected for r in results) else 1


def cmd_claims(args: argparse.Namespace) -> int:
    from dpverify.claims import all_claims

    claims = all_claims(args.only)
    if not claims:
        print("dpverify claims: error: " + ("no claim matches --only " + repr(args.only) if args.only
                                            else "no claims registered"), file=sys.stderr)
        return 2
    if args.json:
        json.dump(
            [
                {
                    "id": c.id,
                    "source": str(c.source),
                    "statement": c.statement,
                    "method": c.method.value,
                    "expected": c.expected.value,
                    "proof": c.proof,
                }
                for c in claims
            ],
            sys.stdout,
            indent=2,
            ensure_ascii=False,
        )
        print()
        return 0
    table = Table(title=f"{len(claims)} registered claims")
    for col in ("claim", "source", "method", "expected", "statement"):
        table.add_column(col, overflow="fold")
    for c in claims:
        table.add_row(c.id, str(c.source), c.method.value, c.expected.value, c.statement)
    _console().print(table)
    return 0


def register(subparsers) -> None:
    """Add ``verify`` and ``claims`` to the ``dpverify`` command."""
    v = subparsers.add_parser("verify", help="run every registered claim's check and print the verdicts")
    v.add_argument("--only", metavar="PREFIX", help="only claims whose id starts with PREFIX")
    v.add_argument("--json", action="store_true", help="print JSON instead of a table")
    v.add_argument("--thorough", action="store_true", help="run the long sweeps too")
    v.add_argument("--jobs", type=int, default=1, help="worker processes (default 1: in-process)")
    v.add_argument("--timeout", type=float, default=None, help="per-claim time limit in seconds (with --jobs > 1)")
    v.set_defaults(func=cmd_verify)

    c = subparsers.add_parser("claims", help="list the registered claims with their sources")
    c.add_argument("--only", metavar="PREFIX", help="only claims whose id starts with PREFIX")
    c.add_argument("--json", action="store_true", help="print JSON instead of a table")
    c.set_defaults(func=cmd_claims)
