"""dpverify report: write the audit report (HTML + JSON), or compare two runs.

    dpverify report [PATH_OR_MODULE ...] [--only PREFIX] --out DIR [--jobs N] [--timeout S] [--thorough]
                    [--baseline OLD.json]
    dpverify report --from RESULTS.json --out DIR [--baseline OLD.json]
    dpverify report --compare OLD.json [NEW.json] [--out DIR] [--json]

PATH_OR_MODULE are the same as ``dpverify verify``'s: your claims files, folders or dotted
modules (default: every shipped and installed room).  They are first loaded in a child
process; a file that exits, blocks or is killed while it loads gives an ``error`` row for
each claim it declares.  Every claim runs supervised.

``--from`` builds the report from saved results (``dpverify verify --save RESULTS.json``,
or an earlier ``report.json``) without running any claim again.

The page opens with what the papers got wrong (every claim that does not hold,
with its reason and a link to its evidence); ``--baseline`` adds a section of
the changes since an earlier ``report.json``.  Progress goes to stderr.

Exit status: 0 when every verdict is the expected one (with ``--compare``:
when no verdict changed and no claim disappeared), 1 otherwise, 2 on bad input.
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from pathlib import Path

from rich.table import Table

from dpverify.console import line, make_console, quote

_STYLE = {"holds": "green", "erratum": "yellow", "refuted": "red", "inconclusive": "cyan", "error": "bold magenta"}


def register(subparsers) -> None:
    """Add ``report`` to the ``dpverify`` command."""
    from dpverify.claims.drift import DEFAULT_ATOL, DEFAULT_RTOL

    p = subparsers.add_parser(
        "report",
        help="run the claims and write a self-contained HTML + JSON audit report; or compare two runs",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("sources", nargs="*", metavar="PATH_OR_MODULE",
                   help="claims files, folders or dotted modules, as for verify; default: every shipped and "
                        "installed room")
    p.add_argument("--only", metavar="PREFIX", help="only claims whose id starts with PREFIX (e.g. rr. for a room)")
    p.add_argument("--out", metavar="DIR", help="write DIR/report.html and DIR/report.json")
    p.add_argument("--jobs", type=int, default=1, help="worker processes (default 1)")
    p.add_argument("--timeout", type=float, default=None,
                   help="per-claim time limit in seconds (each claim then runs in a worker process)")
    p.add_argument("--thorough", action="store_true", help="run the long sweeps too")
    p.add_argument("--compare", nargs="+", metavar="JSON",
                   help="OLD.json [NEW.json]: what changed; without NEW the claims are run now "
                        "(--only defaults to the old run's)")
    p.add_argument("--baseline", metavar="JSON",
                   help="an earlier report.json (or its folder): the page gets a section of the changes since it")
    p.add_argument("--from", dest="from_file", metavar="JSON",
                   help="build the report from saved results (verify --save, or a report.json): no claim runs")
    p.add_argument("--rtol", type=float, default=DEFAULT_RTOL,
                   help=f"relative tolerance for moved evidence numbers (default {DEFAULT_RTOL:g})")
    p.add_argument("--atol", type=float, default=DEFAULT_ATOL,
                   help=f"absolute tolerance for moved evidence numbers (default {DEFAULT_ATOL:g})")
    p.add_argument("--json", action="store_true", help="print JSON to stdout instead of tables")
    p.set_defaults(func=cmd_report)


def _command_line() -> str:
    return " ".join(["dpverify", *(shlex.quote(a) for a in sys.argv[1:])]) if sys.argv[1:] else "dpverify report"


def _run(args: argparse.Namespace, only: str | None, out: str | None, compare_with=None):
    """Run the selected claims supervised and write the report (to a temporary folder without ``--out``)."""
    import tempfile
    import time
    from datetime import datetime, timezone

    from dpverify.claims.runner import errors_first, run_claims
    from dpverify.progress import progress
    from dpverify.report.build import results_document, write_report

    started, t0 = datetime.now(timezone.utc), time.perf_counter()
    rows, claims = _selected(args, only)
    if not rows and not claims:
        raise ValueError(f"no claim matches --only {only!r}" if only else "no claims to report")
    if claims and not sys.stderr.isatty():  # plain lines: say at once what is running (a terminal gets a bar)
        print(f"report: running {len(claims)} claims", file=sys.stderr, flush=True)
    with progress("report", len(claims), stream=sys.stderr, unit="claims") as step:
        ran = run_claims(claims, thorough=args.thorough, jobs=args.jobs, timeout=args.timeout,
                         progress=lambda r: step(1, f"{r.claim.id}: {r.verdict.value}"), supervised=True)
    from dpverify.claims.loading import declared_instead  # a file that raised at import: a row per claim

    results = errors_first(rows + [row for r in ran for row in declared_instead(r, only)])
    doc = results_document(results, command=_command_line(), started=started,
                           total_seconds=time.perf_counter() - t0,
                           settings={"only": only, "jobs": args.jobs, "timeout": args.timeout,
                                     "thorough": args.thorough})
    if out is None:
        with tempfile.TemporaryDirectory() as tmp:
            return write_report(tmp, doc, results, compare_with=compare_with)
    return write_report(out, doc, results, compare_with=compare_with)


#: seconds the named claims files may take to load (``verify``'s limit), unless ``--timeout`` is given
_LOAD_LIMIT = 300.0


def _selected(args: argparse.Namespace, only: str | None) -> tuple[list, list]:
    """``(error rows, claims)``: the claims of the named sources (or of every room), ``--only`` applied,
    loaded as ``dpverify verify`` loads them (:func:`dpverify.claims.loading.claims_to_run`): a source
    that exits, blocks or is killed while it loads gives an ``error`` row per claim it declares."""
    from dpverify.claims.loading import claims_to_run
    from dpverify.claims.model import check_timeout

    limit = _LOAD_LIMIT if args.timeout is None else check_timeout(args.timeout, "--timeout")
    rows, claims, problem = claims_to_run(list(getattr(args, "sources", None) or []), only=only, limit=limit,
                                          figures=True)  # a user's figures are drawn by their checks' processes
    if problem is not None:
        print(f"report: not loaded: {problem}", file=sys.stderr)
    return rows, claims


def _reading(path, read, *rest, **kw):
    """``read(path, ...)``; a file that is not text, or nested too deeply, is one error naming it."""
    try:
        return read(path, *rest, **kw)
    except UnicodeDecodeError as exc:
        raise ValueError(f"{str(path)!r} is not a UTF-8 text file ({exc.reason} at byte {exc.start})") from None
    except RecursionError:
        raise ValueError(f"{str(path)!r} is nested too deeply to be a dpverify report") from None


def cmd_report(args: argparse.Namespace) -> int:
    from dpverify.report import load_report

    if args.only == "":  # an empty prefix would silently select every claim
        raise ValueError("--only needs a non-empty claim id prefix (leave --only out to select every claim)")
    for flag, value in (("--from", args.from_file), ("--baseline", args.baseline), ("--out", args.out)):
        if value is not None and not value.strip():  # '' would be read as the option left out
            raise ValueError(f"{flag} needs a file or folder name, got {value!r}")
    if args.compare:
        return _cmd_compare(args)
    if not args.out:
        raise ValueError("--out DIR is required (or --compare OLD.json)")
    if args.from_file and args.sources:
        raise ValueError("give claims files (PATH_OR_MODULE) or --from RESULTS.json, not both "
                         "(--from reads results that already ran)")
    baseline = _reading(args.baseline, load_report) if args.baseline else None
    if args.from_file:
        from dpverify.report.build import report_from_file

        rep = _reading(args.from_file, report_from_file, args.out, compare_with=baseline)
    else:
        rep = _run(args, args.only, args.out, compare_with=baseline)
    doc = rep.document
    if args.json:
        json.dump(doc, sys.stdout, indent=2, ensure_ascii=False)
        print()
    else:
        con = make_console()
        counts = doc["summary"]["counts"]
        table = Table(title=f"dpverify report: {doc['summary']['total']} claims in {doc['total_seconds']:.1f} s")
        for v in counts:
            table.add_column(quote(v), justify="right", style=_STYLE.get(v, ""))
        table.add_column("differ from expected", justify="right")
        table.add_row(*(str(n) for n in counts.values()), str(len(doc["summary"]["differ_from_expected"])))
        con.print(table)
        for e in doc["claims"]:
            if not e["as_expected"]:
                con.print(line(("differs", "red"), f": {e['id']} expected {e['expected']}, got {e['verdict']}"))
        con.print(quote(f"wrote {rep.html} and {rep.json}"))
    return 0 if rep.all_as_expected else 1


def _cmd_compare(args: argparse.Namespace) -> int:
    from dpverify.report import compare_reports, load_report

    if len(args.compare) > 2:
        raise ValueError(f"--compare takes OLD.json [NEW.json], got {len(args.compare)} paths")
    old = _reading(args.compare[0], load_report)
    if len(args.compare) == 2:
        if args.out:
            raise ValueError("--out cannot be used with --compare OLD.json NEW.json (nothing is run)")
        new = _reading(args.compare[1], load_report)
        new_label = args.compare[1]
    else:
        only = args.only if args.only is not None else old.get("only")
        new = _run(args, only, args.out, compare_with=old).document
        new_label = str(Path(args.out) / "report.json") if args.out else "this run"
    cmp = compare_reports(old, new, rtol=args.rtol, atol=args.atol)
    if args.json:
        js = cmp.to_json()
        js["old_file"], js["new_file"] = args.compare[0], new_label
        json.dump(js, sys.stdout, indent=2, ensure_ascii=False)
        print()
    else:
        con = make_console()
        table = Table(title=quote(f"changes from {args.compare[0]} to {new_label} ({cmp.compared} claims in both)"))
        for col in ("change", "claim", "field", "old", "new", "rel. change"):
            table.add_column(col, overflow="fold")
        for c in cmp.changes:
            style = "red" if c.kind in ("verdict", "removed", "expected") else ("green" if c.kind == "new" else "")
            table.add_row(
                quote(str(c.kind), style=style),
                quote(str(c.claim_id)),
                quote(str(c.field)),
                quote(_fmt(c.old)),
                quote(_fmt(c.new)),
                "" if c.rel_change is None else f"{c.rel_change:.3g}",
            )
        con.print(table)
        old_rev = cmp.old_provenance.get("git_revision", "unknown")
        new_rev = cmp.new_provenance.get("git_revision", "unknown")
        con.print(quote(f"git {old_rev} → {new_rev}; {len(cmp.changes)} changes: "
                        + ", ".join(f"{len(cmp.of_kind(k))} {k}" for k in ("verdict", "expected", "new", "removed", "evidence"))))
    bad = cmp.verdict_changed or cmp.of_kind("removed") or cmp.of_kind("expected")
    return 1 if bad else 0


def _fmt(v) -> str:
    if v is None:
        return "—"
    s = v if isinstance(v, str) else json.dumps(v, ensure_ascii=False)
    return s if len(s) <= 60 else s[:59] + "…"
