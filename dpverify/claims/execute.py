"""The outcomes the engine writes: a check's outcome with its route, or turned into an ``error``.

Shared by :func:`dpverify.claims.runner.run_claim` and :mod:`dpverify.claims.supervisor`; and the
``error`` results of claims whose file could not be loaded (:func:`unloaded_results`: one per
claim the file declares, read from its text by :mod:`dpverify.claims.declared`).
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Iterable

from dpverify.claims.checks import check_items
from dpverify.claims.declared import Declared, declared_in_file
from dpverify.claims.model import Claim, Method, Outcome, Result, Source, Verdict

__all__ = ["as_error", "unloaded_results", "with_route"]


def as_error(outcome: Outcome, why: str) -> Outcome:
    """The outcome turned into an ``error`` saying ``why`` (its verdict kept as ``returned_verdict``)."""
    _check_outcome(outcome)
    if not isinstance(why, str) or not why.strip():
        raise (ValueError if isinstance(why, str) else TypeError)(f"why must be a non-empty string, got {why!r:.100}")
    return Outcome(Verdict.ERROR, {**dict(outcome.evidence), "error": why, "returned_verdict": outcome.verdict.value},
                   outcome.figure_data, summary=why, route=outcome.route)


def with_route(c: Claim, outcome: Outcome, sampled: Iterable[str] = ()) -> Outcome:
    """The outcome with the evidence keys ``route`` (and ``sampling_ran`` when the check sampled).

    Parameters
    ----------
    c : Claim
        The claim whose method is the route when the outcome names none.
    outcome : Outcome
        The check's outcome.
    sampled : iterable of str
        What the check sampled (:func:`~dpverify.claims.model.sampling_notes`).
    """
    if not isinstance(c, Claim):
        raise TypeError(f"c must be a Claim, got a {type(c).__name__}")
    _check_outcome(outcome)
    sampled = check_items(sampled, str, "sampled")  # what was sampled: names, not one string's letters
    route = outcome.route or c.method
    ev = dict(outcome.evidence)
    ev["route"] = route.value
    if sampled:
        ev["sampling_ran"] = ", ".join(sorted(sampled))
    return Outcome(outcome.verdict, ev, outcome.figure_data, outcome.summary, route)


def _check_outcome(outcome) -> None:
    if not isinstance(outcome, Outcome):
        raise TypeError(f"outcome must be an Outcome, got a {type(outcome).__name__}")


def unloaded_results(files: list[tuple[str, Path]], why: str, error: str | None = None,
                     only: str | None = None) -> list[Result]:
    """``error`` results for the claims of files that could not be loaded, read from their text.

    Parameters
    ----------
    files : list of (str, Path)
        Each file as it is to be shown, and its path.
    why : str
        Why they were not loaded ("loading the claims exited with code 0 before it finished").
    error : str, optional
        The traceback (or message) every result carries; default ``why``.
    only : str, optional
        Keep the named claims whose id starts with it (rows for unnamed claims and files are kept).

    Example
    -------
    >>> import tempfile, pathlib
    >>> f = pathlib.Path(tempfile.mkdtemp()) / "claims_y.py"
    >>> _ = f.write_text("from dpverify.claims import claim\\n@claim('zz.y', source=('p',), statement='s', "
    ...                  "method='property')\\ndef _y(thorough=False): ...\\n")
    >>> [(r.claim.id, r.verdict.value) for r in unloaded_results([("claims_y.py", f)], "it blocked")]
    [('zz.y', 'error')]
    """
    for name, value in (("why", why), ("error", error), ("only", only)):
        if value is not None and not isinstance(value, str) or name == "why" and not (value or "").strip():
            raise (ValueError if isinstance(value, str) else TypeError)(
                f"{name} must be a{' non-empty' if name == 'why' else ''} string, got {value!r}")
    if not isinstance(files, (list, tuple)) or not all(
            isinstance(f, tuple) and len(f) == 2 and isinstance(f[0], str) and f[0].strip()
            and isinstance(f[1], (str, os.PathLike)) for f in files):
        raise TypeError(f"files must be a list of (name shown, path) pairs, got a {type(files).__name__}")
    out: list[Result] = []
    seen: set[str] = set()
    empty: list[Result] = []  # files that declare nothing readable: shown only when no file declares a claim
    skipped = False
    for shown, path in dict.fromkeys((shown, os.fspath(path)) for shown, path in files):  # each file once
        room = re.sub(r"\W", "_", Path(shown).stem) or "file"
        room = room if room[0].isalpha() or room[0] == "_" else f"_{room}"
        try:
            d = declared_in_file(path)
        except (SyntaxError, OSError, UnicodeError, ValueError) as exc:
            out.append(_row(f"{room}.import:{shown}", Source(shown), f"the claims file {shown} loads",
                            f"{shown}: {why}; its claims cannot be read without running it "
                            f"({type(exc).__name__}: {exc})", error or why, {}))
            continue
        for c in d.claims:
            if only and not c.id.startswith(only):
                skipped = True
            if c.id in seen or (only and not c.id.startswith(only)):
                continue
            seen.add(c.id)
            out.append(_declared_row(c, shown, why, error))
        if d.unnamed:
            lines = ", ".join(map(str, d.unnamed))
            out.append(_row(f"{room}.unnamed:{shown}", Source(shown), f"the claims declared in {shown} at line(s) "
                            f"{lines}", f"{shown}: {why}; {len(d.unnamed)} further claim(s) declared at line(s) "
                            f"{lines} could not be named without running the file (their ids are computed when it "
                            "runs; a declaration in a loop or a function may stand for several claims)",
                            error or why, {"lines": lines}))
        elif not d.claims:
            empty.append(_row(f"{room}.import:{shown}", Source(shown), f"the claims file {shown} loads",
                              f"{shown}: {why}; it declares no claim that can be read without running it",
                              error or why, {}))
    return out or ([] if skipped else empty)


def _declared_row(c: Declared, shown: str, why: str, error: str | None) -> Result:
    not_read = [k for k, v in (("source", c.source), ("statement", c.statement), ("method", c.method),
                               ("expected", c.expected)) if v is None]
    ev = {"declared_at": f"{shown}:{c.line}"}
    if c.where:
        ev["where"] = c.where
    if not_read:
        ev["not_read"] = ", ".join(not_read) + " (computed when the file runs)"
    return _row(c.id, Source(*c.source) if c.source else Source(shown, f"line {c.line}"),
                c.statement or f"the claim declared at {shown}:{c.line}",
                f"{shown}: {why}; so claim {c.id} (line {c.line}) never ran", error or why, ev,
                Method(c.method or Method.EXACT), Verdict(c.expected or Verdict.HOLDS))


def _not_run(thorough: bool = False) -> Outcome:
    """The check of a claim whose file could not be loaded: it was never run."""
    raise RuntimeError("the claim's file could not be loaded; its check was never run")


def _row(cid: str, source: Source, statement: str, summary: str, error: str, ev: dict,
         method: Method = Method.EXACT, expected: Verdict = Verdict.HOLDS) -> Result:
    c = Claim(id=cid, source=source, statement=statement, method=method, expected=expected, check=_not_run)
    return Result(c, Outcome(Verdict.ERROR, {"error": summary, "route": method.value, **ev}, summary=summary),
                  0.0, error)
