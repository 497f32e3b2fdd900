"""Run the claims and write the report: ``report.html`` and ``report.json``.

Example
-------
>>> import tempfile
>>> from dpverify.claims import claim, unregister, Outcome, Verdict, Source
>>> @claim("zzdoc.sum", source=Source("seed-x", "§1"), statement="1 + 1 = 2", method="exact computation")
... def _c(thorough=False):
...     return Outcome(Verdict.HOLDS if 1 + 1 == 2 else Verdict.REFUTED, {"sum": 1 + 1})
>>> rep = make_report(tempfile.mkdtemp(), only="zzdoc.")
>>> rep.document["summary"]["counts"]["holds"], rep.html.name, rep.json.name
(1, 'report.html', 'report.json')
>>> unregister("zzdoc.sum")
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping

from dpverify.atomic import atomic_write_text
from dpverify.validation import check_bool, check_path, check_positive_int, check_real
from dpverify.claims import Claim, Method, Outcome, Result, Source, Verdict, all_claims, get_claim, result_to_json
from dpverify.claims import run_claims, to_jsonable
from dpverify.claims.drift import compare_reports
from dpverify.claims.protocol import DrawnFigure, utf8_safe
from dpverify.report.figures import FigureImage, image_from_json, image_to_json, render_claim_figure
from dpverify.report.document import check_document
from dpverify.report.entries import VERDICTS, is_self_test
from dpverify.report.render import render_html
from dpverify.report.papers import paper_for_seed
from dpverify.report.provenance import collect_provenance, find_seeds

__all__ = ["SCHEMA", "ReportFiles", "build_document", "draw_figures", "load_report", "make_report", "report_from_file",
           "results_document", "saved_results", "write_report"]

#: Identifies the JSON format (bumped when fields change incompatibly).
SCHEMA = "dpverify-report/1"


@dataclass(frozen=True)
class ReportFiles:
    """What :func:`make_report` wrote: the two paths, the JSON document and the results."""

    html: Path
    json: Path
    document: Mapping[str, Any]
    results: tuple[Result, ...]

    @property
    def all_as_expected(self) -> bool:
        return not self.document["summary"]["differ_from_expected"]


def build_document(
    results: Iterable[Result],
    *,
    provenance: Mapping[str, Any],
    total_seconds: float,
    figure_errors: Mapping[str, str] | None = None,
    figures_drawn: Iterable[str] = (),
    settings: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The machine-readable report (the content of ``report.json``).

    Each claim entry is :func:`dpverify.claims.result_to_json` plus ``paper``
    (normalised seed key), ``room`` (the room that holds the claim, :attr:`Claim.room`),
    ``namespace`` (the id's prefix, :attr:`Claim.namespace`), ``seeds`` (evidence entries naming a
    seed), ``figure`` (whether one was drawn) and ``figure_error``.
    """
    results = _results(results)
    total_seconds = check_real(total_seconds, "total_seconds", nonneg=True)
    if not isinstance(provenance, Mapping):
        raise TypeError(f"provenance must be a mapping, got {type(provenance).__name__}")
    if settings is not None and not isinstance(settings, Mapping):
        raise TypeError(f"settings must be a mapping or None, got {type(settings).__name__}")
    figure_errors = _text_map(figure_errors, "figure_errors")
    images = {k: v for k, v in figures_drawn.items() if isinstance(v, FigureImage)} \
        if isinstance(figures_drawn, Mapping) else {}
    drawn = set(_texts(figures_drawn, "figures_drawn"))
    entries = []
    for r in results:
        e = result_to_json(r)
        e["paper"] = paper_for_seed(r.claim.source.paper).key
        e["room"] = r.claim.room
        e["namespace"] = r.claim.namespace
        e["self_test"] = is_self_test({"id": r.claim.id, "source_parts": e["source_parts"]})
        e["seeds"] = find_seeds(e["evidence"])
        e["figure"] = r.claim.id in drawn
        e["figure_error"] = figure_errors.get(r.claim.id)
        if r.claim.id in images:  # kept, so that the report of these results need not draw it again
            e["figure_image"] = image_to_json(images[r.claim.id])
        entries.append(e)
    counts = {v: sum(1 for e in entries if e["verdict"] == v) for v in VERDICTS}
    paper_counts = {v: sum(1 for e in entries if e["verdict"] == v and not e["self_test"]) for v in VERDICTS}
    differ = [e["id"] for e in entries if not e["as_expected"]]
    papers = {}
    for r in results:
        p = paper_for_seed(r.claim.source.paper)
        papers[p.key] = {"title": p.title, "seed_file": p.seed_file, "room": p.room, "known": p.known}
    doc: dict[str, Any] = {
        "schema": SCHEMA,
        "provenance": dict(provenance),
        "summary": {"total": len(entries), "counts": counts, "papers_counts": paper_counts,
                    "self_tests": sum(1 for e in entries if e["self_test"]), "differ_from_expected": differ},
        "total_seconds": round(total_seconds, 4),
        "papers": papers,
        "claims": entries,
    }
    doc.update(dict(settings or {}))
    return doc


def make_report(
    out_dir: str | Path,
    *,
    only: str | None = None,
    claims: Iterable[Claim] | None = None,
    jobs: int = 1,
    timeout: float | None = None,
    thorough: bool = False,
    progress: Callable[[Result], None] | None = None,
    command: str | None = None,
    proofs_root: str | Path | None = None,
    compare_with: Mapping[str, Any] | None = None,
) -> ReportFiles:
    """Run the claims and write ``out_dir/report.html`` and ``out_dir/report.json``.

    Parameters
    ----------
    out_dir : path
        Created if missing; existing ``report.*`` files are replaced.
    only : str, optional
        Only claims whose id starts with this prefix (ignored if ``claims`` given).
    claims : iterable of Claim, optional
        The claims to run (default: every registered claim, see ``only``).
    jobs : int
        Supervised worker processes.  Every claim runs supervised
        (:func:`dpverify.claims.run_claims` with ``supervised=True``): a check that exits,
        is killed or hangs is an ``error`` row; the page is drawn from the JSON form of the
        evidence, so it is the same as the page of the saved results (:func:`report_from_file`).
    timeout : float, optional
        Per-claim time limit in seconds (default: each claim's own ``timeout``).
        A claim past its limit becomes ``error``.
    thorough : bool
        Run the long sweeps.
    progress : callable, optional
        Called with each :class:`Result` as it completes.
    command : str, optional
        The command line recorded in the provenance.
    proofs_root : path, optional
        A folder holding ``<room>/<file>.md`` proof documents (default: every room's ``proofs/``).
    compare_with : mapping, optional
        An earlier report document (:func:`load_report`); the changes since
        it are stored under ``"comparison"`` and shown in the page.
    """
    out = _check_out_dir(out_dir)
    _check_old(compare_with)
    if only is not None and not isinstance(only, str):
        raise TypeError(f"only must be a string, got {only!r} of type {type(only).__name__}")
    jobs = check_positive_int(jobs, "jobs")
    timeout = None if timeout is None else check_real(timeout, "timeout", positive=True)
    thorough = check_bool(thorough, "thorough")
    if command is not None and not isinstance(command, str):
        raise TypeError(f"command must be a string or None, got {type(command).__name__}")
    if progress is not None and not callable(progress):
        raise TypeError(f"progress must be callable or None, got {type(progress).__name__}")
    if proofs_root is not None:
        check_path(proofs_root, "proofs_root")
    selected = all_claims(only) if claims is None else _claims(claims)
    if not selected:
        raise ValueError(f"no claim matches --only {only!r}" if only else "no claims to report")
    started = datetime.now(timezone.utc)
    t0 = time.perf_counter()
    # supervised: a claim that exits, hangs or crashes its process is an error row, not the end of the report
    results = run_claims(selected, thorough=thorough, jobs=jobs, timeout=timeout, progress=progress,
                         supervised=True)
    doc = results_document(results, command=command, started=started, total_seconds=time.perf_counter() - t0,
                           settings={"only": only, "jobs": jobs, "timeout": timeout, "thorough": thorough})
    return write_report(out, doc, results, proofs_root=proofs_root, compare_with=compare_with)


def results_document(results: Iterable[Result], *, command: str | None, started: datetime,
                     total_seconds: float, settings: Mapping[str, Any] | None = None,
                     figures_drawn: Iterable[str] = (), figure_errors: Mapping[str, str] | None = None,
                     ) -> dict[str, Any]:
    """The report document of results that ran (what ``report.json`` and ``verify --save`` hold).

    Each entry also keeps the check's ``figure_data``, so that :func:`report_from_file`
    can draw the figures later without running the check again.
    """
    results = _results(results)
    if not isinstance(started, datetime):
        raise TypeError(f"started must be a datetime, got {started!r} of type {type(started).__name__}")
    doc = build_document(results, provenance=collect_provenance(command=command, started=started),
                         total_seconds=total_seconds, figure_errors=figure_errors, figures_drawn=figures_drawn,
                         settings=settings)
    for e, r in zip(doc["claims"], results):
        data = r.outcome.figure_data
        data = data.data if isinstance(data, DrawnFigure) else data  # the data, without what was drawn from it
        e["figure_data"] = None if data is None else to_jsonable(data)
    return doc


#: Claims or results one report holds at most (a page per claim: far beyond every room together).
MAX_CLAIMS = 100_000


def _items(xs: Any, name: str, kind: type) -> list:
    if isinstance(xs, (str, bytes, Mapping)) or not hasattr(xs, "__iter__"):
        raise TypeError(f"{name} must be an iterable of {kind.__name__} objects, got {type(xs).__name__}")
    out = []
    for x in xs:
        if not isinstance(x, kind):
            raise TypeError(f"{name} must hold {kind.__name__} objects, got {type(x).__name__}")
        out.append(x)
        if len(out) > MAX_CLAIMS:
            raise ValueError(f"{name} must hold at most {MAX_CLAIMS} items")
    return out


def _results(results: Any) -> list[Result]:
    return _items(results, "results", Result)


def _claims(claims: Any) -> list[Claim]:
    return _items(claims, "claims", Claim)


def _texts(xs: Any, name: str) -> list[str]:
    return _items(list(xs) if isinstance(xs, Mapping) else xs, name, str)  # a mapping: its keys


def _text_map(m: Any, name: str) -> dict[str, str]:
    if m is None:
        return {}
    if not isinstance(m, Mapping) or not all(isinstance(k, str) and isinstance(v, str) for k, v in m.items()):
        raise TypeError(f"{name} must map claim ids to text, got {type(m).__name__}")
    return dict(m)


def _check_out_dir(out_dir: str | Path) -> Path:
    out = check_path(out_dir, "out_dir")
    if out.exists() and not out.is_dir():
        raise ValueError(f"out_dir must be a directory, got the file {str(out)!r}")
    return out


def _check_old(compare_with: Mapping[str, Any] | None) -> None:
    if compare_with is not None and (not isinstance(compare_with, Mapping)
                                     or not isinstance(compare_with.get("claims"), list)):
        raise ValueError("compare_with must be a report document with a 'claims' list (old), "
                         f"got {type(compare_with).__name__}")


def draw_figures(results: Iterable[Result]) -> tuple[dict[str, FigureImage], dict[str, str]]:
    """The figures of the results that have one (claim id → image), and the tracebacks of those that failed.

    ``verify --save`` and the report both draw them, so the ``figure`` and ``figure_error`` fields of a
    saved results file say what the report of those results says.
    """
    figures: dict[str, FigureImage] = {}
    errors: dict[str, str] = {}
    for r in _results(results):
        img, err = render_claim_figure(r)
        if img is not None:
            figures[r.claim.id] = img
        elif err is not None:
            errors[r.claim.id] = err
    return figures, errors


def write_report(out_dir: str | Path, doc: Mapping[str, Any], results: Iterable[Result], *,
                 proofs_root: str | Path | None = None,
                 compare_with: Mapping[str, Any] | None = None) -> ReportFiles:
    """Draw the figures of ``results``, then write ``report.html`` and ``report.json`` of ``doc``."""
    out = _check_out_dir(out_dir)
    _check_old(compare_with)
    doc = utf8_safe(check_document(doc))  # every text can be written as UTF-8 (a lone surrogate is escaped)
    results = _results(results)
    if proofs_root is not None:
        check_path(proofs_root, "proofs_root")
    saved = {e["id"]: image_from_json(e.get("figure_image")) for e in doc["claims"]}
    saved = {k: v for k, v in saved.items() if v is not None}
    figures, figure_errors = draw_figures([r for r in results if r.claim.id not in saved])
    figures.update(saved)
    for e in doc["claims"]:  # a saved figure error stays when nothing here can draw the figure (a user's file)
        if isinstance(e.get("figure_error"), str) and e["id"] not in figures:
            figure_errors.setdefault(e["id"], e["figure_error"])
    doc = dict(doc)
    doc["claims"] = [{**e, "figure": e["id"] in figures, "figure_error": figure_errors.get(e["id"]),
                      **({"figure_image": image_to_json(figures[e["id"]])} if e["id"] in figures else {})}
                     for e in doc["claims"]]
    if compare_with is not None:
        doc["comparison"] = compare_reports(compare_with, doc).to_json()
    # the page is drawn from the JSON evidence only, so a run in this process, a supervised run and
    # a saved run (``--from``) give the same page
    page = render_html(doc, figures=figures, proofs_root=proofs_root)
    out.mkdir(parents=True, exist_ok=True)
    html_path, json_path = out / "report.html", out / "report.json"
    atomic_write_text(html_path, page, force=True)
    atomic_write_text(json_path, json.dumps(doc, indent=2, ensure_ascii=False) + "\n", force=True)
    return ReportFiles(html_path, json_path, doc, tuple(results))


class _Saved:
    """The check of a claim read back from a saved run: it is never run (running it is an error)."""

    def __init__(self, claim_id: str):
        self.claim_id = claim_id

    def __call__(self, thorough: bool = False):
        raise RuntimeError(f"claim {self.claim_id} was read from saved results; it is not run again")


def saved_results(doc: Mapping[str, Any]) -> list[Result]:
    """The results of a saved run (``verify --save`` or ``report.json``), without running any check.

    Each claim keeps its figure function when its room is found (:func:`dpverify.claims.registry.get_claim`
    imports the rooms, it runs nothing), so the report can draw the figures from the saved data.
    """
    doc = check_document(doc, require=("id", "method", "expected", "verdict"))
    out = []
    for i, e in enumerate(doc.get("claims", [])):
        try:
            method, expected, verdict = Method(e["method"]), Verdict(e["expected"]), Verdict(e["verdict"])
        except ValueError as exc:
            raise ValueError(f"doc['claims'][{i}] ({e['id']}): {exc}") from None
        figure = None
        if e.get("figure", True) is not False and image_from_json(e.get("figure_image")) is None:
            try:  # only a figure not saved drawn needs its claim's figure function (importing the rooms)
                figure = get_claim(e["id"]).figure
            except KeyError:
                pass
        parts = e.get("source_parts") or {"paper": e.get("source", "")}
        c = Claim(id=e["id"], source=Source(parts.get("paper", parts.get("seed", "")), parts.get("section", ""), parts.get("equation", "")),
                  statement=e.get("statement") or "", method=method, expected=expected,
                  check=_Saved(e["id"]), proof=e.get("proof"), figure=figure)
        outcome = Outcome(verdict, e.get("evidence") or {}, e.get("figure_data"), e.get("summary") or "")
        out.append(Result(c, outcome, float(e.get("seconds", 0.0)), e.get("error")))
    return out


def report_from_file(saved: str | Path, out_dir: str | Path, *, proofs_root: str | Path | None = None,
                     compare_with: Mapping[str, Any] | None = None) -> ReportFiles:
    """Write the report of saved results (``dpverify verify --save FILE``, or a ``report.json``): no check runs.

    Example
    -------
    >>> import tempfile, pathlib
    >>> from dpverify.claims import claim, unregister, Outcome, Verdict, Source
    >>> @claim("zzfrom.sum", source=Source("seed-x", "§1"), statement="1 + 1 = 2", method="exact computation")
    ... def _c(thorough=False):
    ...     return Outcome(Verdict.HOLDS, {"sum": 2})
    >>> first = make_report(tempfile.mkdtemp(), only="zzfrom.")
    >>> again = report_from_file(first.json, tempfile.mkdtemp())
    >>> again.document["claims"][0]["evidence"]["sum"], again.all_as_expected
    (2, True)
    >>> unregister("zzfrom.sum")
    """
    saved, _ = check_path(saved, "saved"), _check_out_dir(out_dir)  # both paths before the file is read
    doc = load_report(saved)
    results = saved_results(doc)
    # a file saved before claims knew their room (room = the id's prefix, no namespace) reads as today's
    doc = {**doc, "claims": [{**e, "room": r.claim.room, "namespace": r.claim.namespace}
                             for e, r in zip(doc["claims"], results)]}
    return write_report(out_dir, doc, results, proofs_root=proofs_root, compare_with=compare_with)


def load_report(path: str | Path) -> dict[str, Any]:
    """Read a ``report.json`` (or a folder holding one) and check it is a dpverify report."""
    p = check_path(path, "path")
    if p.is_dir():
        p = p / "report.json"
    if not p.is_file():
        raise FileNotFoundError(f"no report at {str(p)!r}")
    try:
        doc = json.loads(p.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise ValueError(f"{str(p)!r} is not JSON: {exc}") from None
    if not isinstance(doc, dict) or doc.get("schema") != SCHEMA or not isinstance(doc.get("claims"), list):
        raise ValueError(f"{str(p)!r} is not a dpverify report (schema {SCHEMA!r} expected)")
    return doc
