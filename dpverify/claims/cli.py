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


def _select(args: argparse.Namespace) -> list:
    """The claims a command works on: those of the named sources, or every room's; then ``--only``."""
    from dpverify.claims.registry import all_claims, load_sources, select

    if args.only == "":  # an empty prefix would silently select every claim
        raise ValueError("--only needs a non-empty claim id prefix (leave --only out to select every claim)")
    if args.sources:
        return select(load_sources(args.sources), args.only)
    return all_claims(args.only)


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
        results, claims, _ = _load(args)
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
    if args.json:
        json.dump(js, sys.stdout, indent=2, ensure_ascii=False)
        print()
    else:
        _print_results(_console(), results)
    if args.save:
        _save(args, results, started, time.perf_counter() - t0)
    status = 0 if all(r.as_expected for r in results) else 1
    return max(status, _gate(args, js))


def _load(args: argparse.Namespace) -> tuple[list, list, str | None]:
    """The claims to run, after the named sources were first loaded in a supervised child.

    Returns ``(rows, claims, problem)``: ``error`` results for the claims of the sources that
    exit, are killed or block while they load (one per claim each declares:
    :func:`dpverify.claims.execute.unloaded_results`), the claims of the others, and a line
    naming the sources that failed (None when all loaded).  With several sources and a failure,
    each is tried alone to find the one to blame; the others then load and run.
    """
    from argparse import Namespace

    from dpverify.claims.model import check_timeout
    from dpverify.claims.supervisor import guarded_load

    limit = _LOAD_LIMIT if args.timeout is None else check_timeout(args.timeout, "--timeout")
    if not args.sources:
        return _load_rooms(args, limit)
    why = guarded_load(lambda: _select(args), limit)
    if why is None:
        return [], _select(args), None
    failed, good = _blame(args, limit, why)
    if good:
        rest = Namespace(**{**vars(args), "sources": good})
        again = guarded_load(lambda: _select(rest), limit)
        if again is not None:  # they load alone, not together: nothing can be run safely
            failed, good = [(s, f"{why} (loading {', '.join(args.sources)} together)") for s in args.sources], []
    rows = [r for spec, w in failed for r in _unloaded(spec, w, args.only)]
    problem = "; ".join(f"{spec}: {w}" for spec, w in failed)
    return rows, (_select(Namespace(**{**vars(args), "sources": good})) if good else []), problem


def _load_rooms(args: argparse.Namespace, limit: float) -> tuple[list, list, str | None]:
    """:func:`_load` for every room: the installed rooms (not the shipped ones) are first loaded
    in a supervised child, one at a time when they fail together; those that fail are skipped."""
    from dpverify.claims.registry import all_claims, load_room
    from dpverify.claims.supervisor import guarded_load
    from dpverify.rooms import rooms

    if args.only == "":
        _select(args)  # the one-line error
    installed = [r for r in rooms() if not r.shipped]
    why = guarded_load(lambda: [c for r in installed for c in load_room(r)], limit) if installed else None
    if why is None:
        return [], _select(args), None
    failed = [(installed[0], why)] if len(installed) == 1 else []
    for r in installed if len(installed) > 1 else []:
        w = guarded_load(lambda r=r: load_room(r), limit)
        if w is not None:
            failed.append((r, w))
    failed = failed or [(r, f"{why} (loading the installed rooms together)") for r in installed]
    rows = [row for r, w in failed for row in _unloaded(r.package, f"room {r.name}: {w}", args.only)]
    problem = "; ".join(f"room {r.name} ({r.package}): {w}" for r, w in failed)
    return rows, all_claims(args.only, skip=[r.name for r, _ in failed]), problem


def _blame(args: argparse.Namespace, limit: float, why: str) -> tuple[list[tuple[str, str]], list[str]]:
    """The sources that fail to load alone (with the reason) and those that load, one file at a time."""
    from pathlib import Path

    from dpverify.claims.registry import load_sources
    from dpverify.claims.sources import claim_files
    from dpverify.claims.supervisor import guarded_load

    units = []
    for spec in args.sources:
        p = Path(spec)
        units += [str(p / f.relative_to(p.resolve())) for f in claim_files(p)] if p.is_dir() else [spec]
    if len(units) == 1:
        return [(units[0], why)], []
    failed, good = [], []
    for u in units:
        w = guarded_load(lambda u=u: load_sources([u]), limit)
        (good if w is None else failed).append(u if w is None else (u, w))
    if not failed:  # each loads alone: blame them together
        return [(s, f"{why} (loading {', '.join(args.sources)} together)") for s in args.sources], []
    return failed, good


def _unloaded(spec: str, why: str, only: str | None) -> list:
    """``error`` rows for the claims a source declares (read from its text, never run)."""
    from pathlib import Path

    from dpverify.claims.declared import source_files
    from dpverify.claims.execute import unloaded_results

    files = [(spec, Path(spec))] if Path(spec).is_file() else [(str(f), f) for f in source_files(spec)]
    return unloaded_results(files or [(spec, Path(spec))], why, only=only)


def _declared_instead(r, only: str | None) -> list:
    """A file that raised while it was imported (its one ``error`` row, :func:`~dpverify.claims.store.import_failure`)
    becomes a row per claim it declares, each carrying the traceback; any other result stays as it is."""
    from dpverify.claims.store import source_of

    c = r.claim
    module = c.source.section
    if not (c.id.endswith(f".import:{module}") and c.source.seed == "dpverify" and source_of(c.id) == module
            and getattr(c.check, "__module__", None) == "dpverify.claims.store" and r.verdict.value == "error"):
        return [r]
    from pathlib import Path

    from dpverify.claims.declared import source_files
    from dpverify.claims.execute import unloaded_results

    first = str(r.outcome.evidence.get("error", "")).split(" failed to import: ", 1)[-1]
    files = [(str(f), f) for f in source_files(module)] if module else []
    rows = unloaded_results(files, f"importing it raised {first}", error=r.error, only=only) if files else []
    if not rows or all(".import:" in x.claim.id for x in rows):  # nothing declared can be read: one row, as before
        return [r]
    return rows


def _save(args: argparse.Namespace, results: list, started, seconds: float) -> None:
    """``--save FILE``: the results as the report's JSON (``dpverify report --from FILE`` reads it)."""
    import shlex

    from dpverify.atomic import atomic_write_text
    from dpverify.report.build import draw_figures, results_document

    command = " ".join(["dpverify", *(shlex.quote(a) for a in sys.argv[1:])]) if sys.argv[1:] else "dpverify verify"
    figures, figure_errors = draw_figures(results)  # the same figure fields as the report's JSON
    doc = results_document(results, command=command, started=started, total_seconds=seconds,
                           settings={"only": args.only, "jobs": args.jobs, "timeout": args.timeout,
                                     "thorough": args.thorough},
                           figures_drawn=figures, figure_errors=figure_errors)
    atomic_write_text(args.save, json.dumps(doc, indent=2, ensure_ascii=False) + "\n", force=True, name="--save")
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
        f"{len(results)} claims: "
        + ", ".join(f"{n} {v}" for v, n in counts.items())
        + f"; {len(bad)} differ from the expected verdict"
    ))
    for r in bad:
        if r.verdict.value != "error":
            console.print(line(("differs", "red"), f": {r.claim.id} expected {r.claim.expected.value}, got "
                               f"{r.verdict.value}", f": {r.outcome.summary}" if r.outcome.summary else ""))


def _gate(args: argparse.Namespace, js: list[dict]) -> int:
    """``--baseline``: 1 when the evidence drifted; ``--update-baseline``: write the file."""
    from dpverify.claims.baseline import baseline_key, drift, entry_of, write_baseline

    current = {baseline_key(j["id"], args.thorough): entry_of(j) for j in js if j["verdict"] != "error"}
    if args.update_baseline:
        write_baseline(args.update_baseline, current)
        print(f"baseline {args.update_baseline}: wrote {len(current)} claims"
              + (f" ({len(js) - len(current)} errors left out)" if len(js) > len(current) else ""), file=sys.stderr)
        return 0
    if args.baseline:
        lines = drift(args.baseline_data, current, rtol=args.rtol, atol=args.atol)
        for line in lines:
            print(f"baseline drift: {line}", file=sys.stderr)
        if lines:
            print(f"{len(lines)} differences from the baseline {args.baseline}", file=sys.stderr)
            return 1
    return 0


def cmd_claims(args: argparse.Namespace) -> int:
    rows, claims, problem = _load(args)  # sources that exit, are killed or block while loading: not loaded
    if not claims and not rows:
        print("dpverify claims: error: " + ("no claim matches --only " + repr(args.only) if args.only
                                            else "no claims registered"), file=sys.stderr)
        return 2
    if args.json:
        listed = [{"id": c.id, "source": str(c.source), "statement": c.statement, "method": c.method.value,
                   "expected": c.expected.value, "proof": c.proof} for c in claims]
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
    table = Table(title=f"{len(claims)} registered claims")
    for col in ("claim", "source", "method", "expected", "statement"):
        table.add_column(col, overflow="fold")
    for c in claims:
        table.add_row(*(quote(x) for x in (c.id, str(c.source), c.method.value, c.expected.value, c.statement)))
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
