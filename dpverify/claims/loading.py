"""The claims a command runs, read without importing a user's claims file in the calling process.

``dpverify verify``, ``dpverify claims`` and ``dpverify report`` call :func:`claims_to_run`.
Named sources (files, folders, dotted modules outside dpverify) are imported only in a loading
child (:func:`dpverify.claims.loadguard.load_in_child`), which sends the claims' records; the
caller gets stand-ins (:func:`dpverify.claims.remote.remote_claims`) that run in supervised
workers, each of which loads its source again.  A source that exits, is killed or blocks while it
loads gives an ``error`` row for each claim it declares (read from its text,
:func:`dpverify.claims.execute.unloaded_results`); with several sources each is then tried alone
to find the one to blame, and the others load and run.  Without sources, every room: the
shipped rooms are dpverify's own code and are imported here; installed rooms, like named
sources, are imported only in a loading child and in the workers, and skipped when they fail.

Example
-------
>>> rows, claims, problem = claims_to_run([], only="rr.model2.")
>>> rows, problem, all(c.id.startswith("rr.model2.") for c in claims) and len(claims) > 0
([], None, True)
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Callable

from dpverify.claims.checks import check_items
from dpverify.validation import check_bool
from dpverify.claims.loadguard import ChildLoadError, guarded_load, load_in_child
from dpverify.claims.model import Claim, check_timeout
from dpverify.claims.remote import RemoteCheck, check_module, record_of, remote_claims

__all__ = ["claims_to_run", "not_reported"]


def claims_to_run(sources: list[str], *, only: str | None = None, limit: float = 300.0, figures: bool = False
                  ) -> tuple[list, list[Claim], str | None]:
    """The claims to run and the rows of the sources that could not be loaded.

    Parameters
    ----------
    sources : list of str
        Files, folders or dotted modules (empty: every shipped and installed room).
    only : str, optional
        Keep the claims whose id starts with it (a non-empty prefix).
    limit : float
        Seconds the sources may take to load in the child.
    figures : bool
        The claims' figures will be drawn (``verify --save``, ``report``): the process that runs the
        check of a claim whose file this process never imports also draws its figure and sends it
        with its report (:func:`dpverify.claims.server.drawn_figure`), when the loading child saw a
        figure function (the record's ``figure``); what drawing needs is then imported here, before
        any check runs.  False (a plain ``verify``): nothing is drawn, and matplotlib is not imported.

    Returns
    -------
    (rows, claims, problem)
        ``error`` results for the claims of the sources that could not be loaded, the claims
        of the others, and a line naming the sources that failed (None when all loaded).

    Raises
    ------
    ValueError
        A source that does not exist, a claim defined wrongly (one line ``FILE:LINE: message``),
        or an empty ``only``.
    """
    sources = check_items(sources, str, "sources")
    limit = check_timeout(limit, "limit")
    if only is not None and not (isinstance(only, str) and only):
        raise ValueError("--only needs a non-empty claim id prefix (leave --only out to select every claim)")
    figures = check_bool(figures, "figures")
    if not sources:
        return _rooms(only, limit, figures)
    recs, why = _records_in_child(sources, only, limit)
    if why is None:
        claims = _stand_ins(recs, only, figures)
        return not_reported(sources, claims, only), claims, None
    failed, good = _blame(sources, limit, why)
    rest: list = []
    if good:
        recs, again = _records_in_child(good, only, limit)
        if again is not None:  # they load alone, not together: nothing can be run safely
            failed, good = [(s, f"{why} (loading {', '.join(sources)} together)") for s in sources], []
        else:
            rest = _stand_ins(recs, only, figures)
    rows = [r for spec, w in failed for r in unloaded(spec, w, only)] + not_reported(good, rest, only)
    return rows, rest, "; ".join(f"{spec}: {w}" for spec, w in failed)


def _records(sources: list[str], only: str | None) -> list[dict]:
    """In the loading child: the records of the claims the sources define, sorted by id.

    Each claim's ``spec`` names what a worker loads to run it: the file that defines it (when it
    comes from a file or folder given) or its module (when a dotted module was given), so the
    claims of different files never share a worker.  A claim that stands for a file that failed to
    load (an import error, an id registered twice: :func:`~dpverify.claims.store.import_failure`)
    carries its error, found by running its check here (dpverify's own code)."""
    from dpverify.claims.registry import load_sources, select
    from dpverify.claims.runner import run_claim

    roots = [os.path.realpath(x) for x in sources if os.path.exists(x)]
    out = []
    for c in select(load_sources(sources), only):
        rec = record_of(c, spec="")
        if rec["module"] == "dpverify.claims.store":  # a file that failed to load: its error is known now
            r = run_claim(c)
            failure = {"summary": r.outcome.summary or "", "evidence": dict(r.outcome.evidence), "error": r.error or ""}
            out.append(record_of(c, spec=json.dumps(["failed", c.id]), failure=json.loads(json.dumps(
                failure, default=str))))
            continue
        f = rec["file"]
        inside = f is not None and any(os.path.realpath(f) == r or os.path.realpath(f).startswith(r + os.sep)
                                       for r in roots)
        out.append(record_of(c, spec=json.dumps(["file", os.path.realpath(f)] if inside else ["module", rec["module"]])))
    return out


def _records_in_child(sources: list[str], only: str | None, limit: float) -> tuple[list | None, str | None]:
    try:
        return load_in_child(lambda: _records(sources, only), limit)
    except ChildLoadError as exc:  # a missing source, a claim defined wrongly: the caller's one-line error
        raise (TypeError if exc.kind == "TypeError" else ValueError)(str(exc)) from None


def source_loader(spec: str) -> Callable[[], list[Claim]]:
    """The function a worker calls to load what ``spec`` names (``["file", path]`` or
    ``["module", name]``, as :func:`_records` writes it)."""
    from dpverify.claims.registry import load_sources

    kind, target = json.loads(spec)
    if kind not in ("file", "module", "failed"):
        raise ValueError(f"spec must name a file or a module, got {spec!r}")
    return lambda: load_sources([target]) if kind != "failed" else []


def _stand_ins(recs: list | None, only: str | None, figures: bool) -> list[Claim]:
    if not isinstance(recs, list):
        raise ValueError("loading the claims sent a malformed message (not a list of claim records)")
    return remote_claims(recs, source_loader, only, figures)


def _rooms(only: str | None, limit: float, figures: bool) -> tuple[list, list[Claim], str | None]:
    """Every room.  The shipped rooms are imported here; the installed ones only in a loading
    child (stand-ins run in workers that import them again), one at a time when they fail
    together; those that fail give ``error`` rows and are skipped."""
    from dpverify.claims.registry import all_claims
    from dpverify.rooms import rooms

    installed = [r for r in rooms() if not r.shipped]
    claims = all_claims(only, skip=[r.name for r in installed])  # the shipped rooms (and entry-point problems)
    if not installed:
        return [], claims, None
    recs, why = _room_records(installed, only, limit)
    failed, good = [], list(installed)
    if why is not None:
        failed = [(installed[0], why)] if len(installed) == 1 else []
        for r in installed if len(installed) > 1 else []:
            w = _room_records([r], only, limit)[1]
            if w is not None:
                failed.append((r, w))
        failed = failed or [(r, f"{why} (loading the installed rooms together)") for r in installed]
        good = [r for r in installed if r not in [f for f, _ in failed]]
        recs = _room_records(good, only, limit)[0] if good else []
    by_name = {f"room:{r.name}": r for r in good}
    stand_ins = remote_claims(recs or [], lambda spec: _room_loader(by_name[spec]), only, figures)
    rows = [row for r, w in failed for row in unloaded(r.package, f"room {r.name}: {w}", only)]
    problem = "; ".join(f"room {r.name} ({r.package}): {w}" for r, w in failed) or None
    return rows, sorted(claims + stand_ins, key=lambda c: c.id), problem


def _room_records(installed: list, only: str | None, limit: float) -> tuple[list | None, str | None]:
    """The records of installed rooms' claims, loaded in a child (or why that failed)."""
    from dpverify.claims.registry import load_room, select

    def records() -> list[dict]:
        return [record_of(c, spec=f"room:{r.name}") for r in installed for c in select(load_room(r), only)]

    try:
        return load_in_child(records, limit)
    except ChildLoadError as exc:
        return None, f"loading the room raised {exc.kind}: {exc}"


def _room_loader(room) -> Callable[[], list[Claim]]:
    from dpverify.claims.registry import load_room

    return lambda: load_room(room)


def _blame(sources: list[str], limit: float, why: str) -> tuple[list[tuple[str, str]], list[str]]:
    """The sources that fail to load alone (with the reason) and those that load, one file at a time."""
    from dpverify.claims.registry import load_sources
    from dpverify.claims.sources import claim_files

    units = []
    for spec in sources:
        p = Path(spec)
        units += [str(p / f.relative_to(p.resolve())) for f in claim_files(p)] if p.is_dir() else [spec]
    if len(units) == 1:
        return [(units[0], why)], []
    failed, good = [], []
    for u in units:
        w = guarded_load(lambda u=u: load_sources([u]), limit)
        (good if w is None else failed).append(u if w is None else (u, w))
    if not failed:  # each loads alone: blame them together
        return [(s, f"{why} (loading {', '.join(sources)} together)") for s in sources], []
    return failed, good


def not_reported(sources: list[str], claims: list[Claim], only: str | None) -> list:
    """``error`` rows for the claims the sources' text declares at import (a literal id, not inside a
    function: :mod:`dpverify.claims.declared`) that the loading child did not report, so a file
    that declares a claim only in some processes cannot drop it.  (A computed id is caught by the
    worker instead, when it loads the file again: :func:`dpverify.claims.remote.resolve`.)"""
    from dpverify.claims.declared import declared_in_file, source_files
    from dpverify.claims.execute import unloaded_results

    sources, claims = check_items(sources, str, "sources"), check_items(claims, Claim, "claims")
    if only is not None and not (isinstance(only, str) and only):
        raise (ValueError if isinstance(only, str) else TypeError)(f"only must be None or a non-empty prefix, got {only!r}")
    have = {c.id for c in claims}
    why = ("declared in the file but not reported when the file was loaded (a file that declares claims "
           "differently in different processes, or registers them only under a condition)")
    out = []
    for f in dict.fromkeys(f for spec in sources for f in source_files(spec)):
        try:
            declared = declared_in_file(f).claims
        except (SyntaxError, OSError, UnicodeError, ValueError):  # the loading child reported on it
            continue
        missing = {d.id for d in declared if d.at_import and d.id not in have
                   and (not only or d.id.startswith(only))}
        if missing:
            out += [r for r in unloaded_results([(str(f), f)], why, only=only) if r.claim.id in missing]
    return out


def unloaded(spec: str, why: str, only: str | None) -> list:
    """``error`` rows for the claims a source declares (read from its text, never run)."""
    from dpverify.claims.declared import source_files
    from dpverify.claims.execute import unloaded_results

    files = [(spec, Path(spec))] if Path(spec).is_file() else [(str(f), f) for f in source_files(spec)]
    return unloaded_results(files or [(spec, Path(spec))], why, only=only)


def declared_instead(r, only: str | None) -> list:
    """A file that raised while it was imported (its one ``error`` row, :func:`~dpverify.claims.store.import_failure`)
    becomes a row per claim it declares, each carrying the traceback; any other result stays as it is."""
    from dpverify.claims.store import source_of

    c = r.claim
    module = c.source.section
    here = source_of(c.id) == module or isinstance(c.check, RemoteCheck)  # registered here, or in the loading child
    if not (c.id.endswith(f".import:{module}") and c.source.paper == "dpverify" and here
            and check_module(c) == "dpverify.claims.store" and r.verdict.value == "error"):
        return [r]
    from dpverify.claims.declared import source_files
    from dpverify.claims.execute import unloaded_results

    first = str(r.outcome.evidence.get("error", "")).split(" failed to import: ", 1)[-1]
    files = [(str(f), f) for f in source_files(module)] if module else []
    rows = unloaded_results(files, f"importing it raised {first}", error=r.error, only=only) if files else []
    if not rows or all(".import:" in x.claim.id for x in rows):  # nothing declared can be read: one row, as before
        return [r]
    return rows
