"""``dpverify verify`` and ``dpverify claims``: run and list the registered claims.

``verify --save FILE`` writes the results as the report's JSON (``report.json``), so that
``dpverify report --from FILE --out DIR`` writes the report without running a claim again.
"""

from __future__ import annotations

import argparse
import json
import sys

from rich.console import Console
from rich.table import Table

from dpverify.console import line, make_console, quote
from dpverify.progress import progress

_LOAD_LIMIT = 300.0  # seconds that named claims files may take to load, unless --timeout is given

_VERDICT_STYLE = {"holds": "green", "erratum": "yellow", "refuted": "red", "inconclusive": "cyan", "error": "bold magenta"}


def _console() -> Console:
    # Not a terminal (CI logs, pipes): a wide fixed width so ids and evidence stay readable.
    # Every text from a claim, a check or an error is printed through quote/line (never as markup).
    return make_console()


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


def _output_options(args: argparse.Namespace) -> None:
    """Read the baseline and check the files to write before any claim runs (a bad file costs nothing)."""
    from dpverify.atomic import check_output_path
    from dpverify.claims.baseline import drift

    for flag, value in (("--baseline", args.baseline), ("--update-baseline", args.update_baseline),
                        ("--save", args.save)):
        if value is not None and not value.strip():  # '' would be read as the option left out
            raise ValueError(f"{flag} needs a file name, got {value!r}")
    if args.baseline and args.update_baseline:
        raise ValueError("give either --baseline (check) or --update-baseline (write), not both")
    drift({}, {}, rtol=args.rtol, atol=args.atol)  # the library checks the tolerances
    if args.baseline:
        args.baseline_data = _read_baseline(args.baseline)
    if args.update_baseline:
        p = check_output_path(args.update_baseline, force=True, name="--update-baseline")
        if p.exists():
            _read_baseline(p)  # never replace a file that is not a baseline
    if args.save:
        check_output_path(args.save, force=True, name="--save")


def _read_baseline(path) -> dict:
    """The baseline file; one that is nested too deeply to read is one error naming it (no traceback)."""
    from dpverify.claims.baseline import load_baseline

    try:
        return load_baseline(path)
    except RecursionError:
        raise ValueError(f"baseline {str(path)!r} is nested too deeply to be a dpverify baseline") from None


def cmd_verify(args: argparse.Namespace) -> int:
    from datetime import datetime, timezone
    import time

    from dpverify.claims import result_to_json
    from dpverify.claims.runner import errors_first, run_claims

    _output_options(args)
    started, t0 = datetime.now(timezone.utc), time.perf_counter()
    try:
        results, claims, problem = _load(args)
        _remember(args, results, claims, problem)
        if not results and not claims:
            print("no claim matches --only " + repr(args.only) if args.only else "no claims registered",
                  file=sys.stderr)
            return 2
        if claims:
            with progress("verifying", len(claims), stream=sys.stderr, unit="claims") as step:
                ran = run_claims(claims, thorough=args.thorough, jobs=args.jobs, timeout=args.timeout,
                                 progress=lambda r: step(1, r.claim.id), supervised=True)
            results = results + [row for r in ran for row in _declared_instead(r, args.only)]
    except KeyboardInterrupt:  # the user's, not a check's (checks run in workers of their own process group)
        print("dpverify verify: interrupted; no results written", file=sys.stderr)
        return 130
    results = errors_first(results)
    js = [result_to_json(r) for r in results]
    if args.json or getattr(args, "json_envelope", False):
        out: object = js
        if getattr(args, "json_envelope", False):  # the versioned envelope (dpverify.claims.envelope)
            import shlex

            from dpverify.claims.envelope import envelope

            command = " ".join(["dpverify", *(shlex.quote(a) for a in sys.argv[1:])]) if sys.argv[1:] else "dpverify verify"
            out = envelope(js, command=command, seconds=time.perf_counter() - t0, created=started)
        json.dump(out, sys.stdout, indent=2, ensure_ascii=False)
        print()
    else:
        _print_results(_console(), results)
    if args.save:
        _save(args, results, started, time.perf_counter() - t0)
    status = 0 if all(r.as_expected for r in results) else 1
    return max(status, _gate(args, js))


def _load(args: argparse.Namespace) -> tuple[list, list, str | None]:
    """The claims to run (:func:`dpverify.claims.loading.claims_to_run`): ``(rows, claims, problem)``."""
    from dpverify.claims.loading import claims_to_run
    from dpverify.claims.model import check_timeout

    limit = _LOAD_LIMIT if args.timeout is None else check_timeout(args.timeout, "--timeout")
    # --save keeps the figures: the check of a claim from a user's file then draws its own (see _save)
    return claims_to_run(list(args.sources or []), only=args.only, limit=limit,
                         figures=bool(getattr(args, "save", None)))


def _declared_instead(r, only: str | None) -> list:
    from dpverify.claims.loading import declared_instead

    return declared_instead(r, only)


def _save(args: argparse.Namespace, results: list, started, seconds: float) -> None:
    """``--save FILE``: the results as the report's JSON (``dpverify report --from FILE`` reads it)."""
    import shlex

    from dpverify.atomic import atomic_write_text
    from dpverify.report.build import draw_figures, results_document

    command = " ".join(["dpverify", *(shlex.quote(a) for a in sys.argv[1:])]) if sys.argv[1:] else "dpverify verify"
    # the same figure fields as the report's JSON; a claim from a user's file brings the figure its
    # check's process drew (claims_to_run(figures=True)), the shipped rooms' figures are drawn here
    figures, figure_errors = draw_figures(results)
    doc = results_document(results, command=command, started=started, total_seconds=seconds,
                           settings={"only": args.only, "jobs": args.jobs, "timeout": args.timeout,
                                     "thorough": args.thorough},
                           figures_drawn=figures, figure_errors=figure_errors)
    from dpverify.claims.protocol import utf8_safe  # a lone surrogate (a file name in evidence) is escaped

    atomic_write_text(args.save, json.dumps(utf8_safe(doc), indent=2, ensure_ascii=False) + "\n", force=True,
                      name="--save")
    print(f"saved {len(results)} results to {args.save} (dpverify report --from {args.save} --out DIR)",
          file=sys.stderr)


def _print_results(console: Console, results: list) -> None:
    errors = [r for r in results if r.verdict.value == "error"]
    for r in errors:  # first: a check that did not conclude is the first thing to fix
        console.print(line(("error", "bold magenta"), f": {r.claim.id}: {r.outcome.summary}"))
        if r.error and r.error.strip() not in r.outcome.summary:  # not the summary again
            console.print(quote(r.error.rstrip()))
    table = Table(title="dpverify: claims, checked", show_lines=False)
    for col in ("claim", "method", "expected", "verdict", "s", "evidence"):
        table.add_column(col, overflow="fold", no_wrap=col in ("method", "expected", "verdict", "s"))
    for r in results:
        v = r.verdict.value
        mark = "" if r.as_expected else " ✗"
        table.add_row(
            quote(r.claim.id),
            quote(r.claim.method.value),
            quote(r.claim.expected.value),
            quote(f"{v}{mark}", style=_VERDICT_STYLE[v]),
            f"{r.seconds:.2f}",
            quote(_short(r.outcome.evidence)),
        )
    console.print(table)
    order = ("error", "holds", "erratum", "refuted", "inconclusive")
    counts = {v: sum(r.verdict.value == v for r in results) for v in order}
    bad = [r for r in results if not r.as_expected]
    console.print(quote(
        f"{len(results)} {'claim' if len(results) == 1 else 'claims'}: "
        + ", ".join(f"{n} {v}" for v, n in counts.items())
        + f"; {len(bad)} {'differs' if len(bad) == 1 else 'differ'} from the expected verdict"
    ))
    for r in bad:
        if r.verdict.value != "error":
            console.print(line(("differs", "red"), f": {r.claim.id} expected {r.claim.expected.value}, got "
                               f"{r.verdict.value}", f": {r.outcome.summary}" if r.outcome.summary else ""))


def _gate(args: argparse.Namespace, js: list[dict]) -> int:
    """``--baseline``: 1 when a verdict or the evidence differs (:func:`~dpverify.claims.baseline.check_baseline`,
    the rule of ``pytest --dpverify-baseline`` too); ``--update-baseline``: write the file."""
    from dpverify.claims.baseline import baseline_key, check_baseline, entry_of, write_baseline

    current = {baseline_key(j["id"], args.thorough): entry_of(j) for j in js if j["verdict"] != "error"}
    if args.update_baseline:
        write_baseline(args.update_baseline, current)
        print(f"baseline {args.update_baseline}: wrote {len(current)} {'claim' if len(current) == 1 else 'claims'}"
              + (f" ({len(js) - len(current)} {'error' if len(js) - len(current) == 1 else 'errors'} left out)" if len(js) > len(current) else ""), file=sys.stderr)
        return 0
    if args.baseline:
        checked = check_baseline(args.baseline_data, current, rtol=args.rtol, atol=args.atol)
        for _, text in checked.differences:
            print(f"baseline: {text}", file=sys.stderr)
        print(f"{checked.summary()} ({args.baseline})", file=sys.stderr)
        return 0 if checked.ok else 1
    return 0


def cmd_claims(args: argparse.Namespace) -> int:
    listed = _cached(args)
    if listed is not None:
        return _print_listing(args, listed)
    rows, claims, problem = _load(args)  # sources that exit, are killed or block while loading: not loaded
    _remember(args, rows, claims, problem)
    if not claims and not rows:
        print("dpverify claims: error: " + ("no claim matches --only " + repr(args.only) if args.only
                                            else "no claims registered"), file=sys.stderr)
        return 2
    if args.json:
        from dpverify.claims.listing import listing_row

        listed = [listing_row(c) for c in claims]
        listed += [{"id": r.claim.id, "source": str(r.claim.source), "statement": r.claim.statement,
                    "method": r.claim.method.value, "expected": r.claim.expected.value, "proof": None,
                    "loaded": False, "error": r.outcome.summary} for r in rows]
        json.dump(listed, sys.stdout, indent=2, ensure_ascii=False)
        print()
    if problem is not None:
        print(f"dpverify claims: error: {problem}", file=sys.stderr)
        return 2
    if args.json:
        return 0
    from dpverify.claims.listing import listing_row

    return _print_listing(args, [listing_row(c) for c in claims])


def _cached(args: argparse.Namespace) -> list | None:
    """Every shipped claim's listing row from the cache (:mod:`dpverify.claims.listing`), when no
    source is named and no room is installed; else None."""
    from dpverify.claims.listing import cached_listing
    from dpverify.rooms import rooms

    if args.sources or args.only == "" or any(not r.shipped for r in rooms()):
        return None
    rows = cached_listing(args.only)
    return rows if rows else None


def _remember(args: argparse.Namespace, rows: list, claims: list, problem: str | None) -> None:
    """After every shipped claim was loaded: cache their listing (for the next ``dpverify claims``)."""
    if not args.sources and not args.only and not rows and problem is None:
        from dpverify.claims.listing import remember

        remember()


def _print_listing(args: argparse.Namespace, listed: list) -> int:
    if not listed:
        print("dpverify claims: error: " + ("no claim matches --only " + repr(args.only) if args.only
                                            else "no claims registered"), file=sys.stderr)
        return 2
    if args.json:
        json.dump(listed, sys.stdout, indent=2, ensure_ascii=False)
        print()
        return 0
    table = Table(title=f"{len(listed)} registered claims")
    for col in ("claim", "source", "method", "expected", "statement"):
        table.add_column(col, overflow="fold")
    for r in listed:
        table.add_row(*(quote(r[k]) for k in ("id", "source", "method", "expected", "statement")))
    _console().print(table)
    return 0


def register(subparsers) -> None:
    """Add ``verify`` and ``claims`` to the ``dpverify`` command."""
    from dpverify.claims.baseline import DEFAULT_ATOL, DEFAULT_RTOL

    srcs = ("files, folders (their claims files: claims.py, claims_*.py, *_claims.py, claims/*.py) or "
            "dotted modules; default: every shipped and installed room")
    v = subparsers.add_parser("verify", help="run claims' checks and print the verdicts (errors first)")
    v.add_argument("sources", nargs="*", metavar="PATH_OR_MODULE", help=srcs)
    v.add_argument("--only", metavar="PREFIX", help="only claims whose id starts with PREFIX")
    v.add_argument("--json", action="store_true", help="print JSON instead of a table")
    v.add_argument("--json-envelope", action="store_true",
                   help="print JSON in the versioned envelope (schema dpverify-verify/1: summary, version, "
                        "results; its JSON Schema ships in the package) instead of a bare list")
    v.add_argument("--thorough", action="store_true", help="run the long sweeps too")
    v.add_argument("--jobs", type=int, default=1, help="worker processes that run the checks (default 1)")
    v.add_argument("--timeout", type=float, default=None,
                   help="per-claim time limit in seconds (default: each claim's declared limit)")
    v.add_argument("--baseline", metavar="FILE", help="fail (exit 1) when verdicts or evidence drifted from FILE")
    v.add_argument("--update-baseline", metavar="FILE", help="write this run's verdicts and evidence to FILE")
    v.add_argument("--save", metavar="FILE",
                   help="write the results as the report's JSON (then: dpverify report --from FILE --out DIR)")
    v.add_argument("--rtol", type=float, default=DEFAULT_RTOL, help=f"relative tolerance of --baseline (default {DEFAULT_RTOL:g})")
    v.add_argument("--atol", type=float, default=DEFAULT_ATOL, help=f"absolute tolerance of --baseline (default {DEFAULT_ATOL:g})")
    v.set_defaults(func=cmd_verify)

    c = subparsers.add_parser("claims", help="list claims with their sources")
    c.add_argument("sources", nargs="*", metavar="PATH_OR_MODULE", help=srcs)
    c.add_argument("--only", metavar="PREFIX", help="only claims whose id starts with PREFIX")
    c.add_argument("--json", action="store_true", help="print JSON instead of a table (with --json, the claims "
                   "of a file that cannot be loaded are listed from its text, with \"loaded\": false)")
    c.add_argument("--timeout", type=float, default=None,
                   help=f"seconds the named files may take to load (default {_LOAD_LIMIT:g}); a file that "
                        "exits, is killed or blocks while loading is an error (exit status 2)")
    c.set_defaults(func=cmd_claims)
