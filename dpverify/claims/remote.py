"""Claims of a user's files, known to the parent only from what a child process read: the parent never imports them.

``dpverify verify FILE``, ``dpverify claims FILE`` and the pytest plugin import a user's claims
files only in child processes.  First a loading child imports them and sends each claim's
*record* (:func:`record_of`: id, source, statement, method, expected verdict, proof, time limit,
the module and file that define it, and the source it came from) as JSON; then the parent builds
a stand-in :class:`~dpverify.claims.model.Claim` for each (:func:`remote_claims`) whose check is a
:class:`RemoteCheck`.  A supervised worker serving a source loads that source itself, once, and
runs the claim of the same id (:func:`resolve`); a claim whose record differs from the one the
loading child sent ("declared differently when loaded again") or that is missing then is that
claim's ``error``.  So a file that behaves one way in a child and another in the parent (it
exits, say, only in the process pytest or ``verify`` started in) can end nothing but a child.

Example
-------
>>> from dpverify.claims.model import Claim, Method, Outcome, Source, Verdict
>>> c = Claim("zzremdoc.a", Source("mine"), "1 = 1", Method.EXACT, Verdict.HOLDS,
...           lambda thorough=False: Outcome(Verdict.HOLDS, {}))
>>> rec = record_of(c, spec="my_claims.py")
>>> (stand_in,) = remote_claims([rec], lambda spec: (lambda: [c]))
>>> stand_in.id, stand_in.expected.value, isinstance(stand_in.check, RemoteCheck)
('zzremdoc.a', 'holds', True)
>>> resolve(stand_in) is c
True
"""

from __future__ import annotations

import math
import os
import sys
from typing import Any, Callable, Iterable

from dpverify.claims.model import Claim, Method, Source, Verdict
from dpverify.validation import check_bool

#: No Python API: the stand-in claims of :mod:`dpverify.claims.loading` and the pytest plugin.
__all__: list[str] = []

Loader = Callable[[], list]  # runs in a worker: imports a source and returns its claims

_FIELDS = {"id": str, "source": list, "statement": str, "method": str, "expected": str, "proof": (str, type(None)),
           "timeout": float, "module": str, "file": (str, type(None)), "spec": str, "failure": (dict, type(None)),
           "figure": bool}


class RemoteCheck:
    """The check of a claim defined in a file the parent did not import; it runs only in a worker.

    ``load()`` (called in the worker) imports the claim's source and returns its claims;
    ``group`` names the source, so the claims of one source share a worker and no other's;
    ``file`` is the file that defines the claim (the files guard watches it and its folder);
    ``module`` is the module of the claim's own check; ``record`` what the loading child sent;
    ``draw`` whether the check's process also draws the claim's figure (set when the stand-in is
    made, before any worker is forked: ``verify --save`` and ``report``; :func:`wants_figure`).
    """

    def __init__(self, load: Loader, record: dict) -> None:
        self.load, self.record, self.cwd = load, dict(record), os.getcwd()
        self.group, self.file, self.module = "source:" + record["spec"], record["file"], record["module"]
        self.failure: dict | None = record["failure"]  # a file that failed to load: its error, known already
        self.siblings: frozenset[str] = frozenset({record["id"]})  # the ids reported for the same source
        self.only: str | None = None  # the id prefix the records were selected by
        self.draw = False  # the check's process draws the claim's figure and sends it with its report

    def __call__(self, thorough: bool = False) -> Any:
        raise RuntimeError(f"the check of {self.record['id']} runs only in a supervised worker "
                           "(its claims file is imported there, never in this process)")

    def __repr__(self) -> str:
        return f"RemoteCheck({self.record['id']!r} from {self.record['spec']!r})"


def wants_figure(c: Claim) -> bool:
    """Whether the process that runs ``c``'s check must also draw its figure (a stand-in made with
    ``figures=True``: :func:`remote_claims`); the figure of any other claim is drawn by the parent."""
    return isinstance(c.check, RemoteCheck) and c.check.draw is True and c.check.record["figure"] is True


def drawing_imports() -> None:
    """Import what drawing a figure needs: in the parent of a run whose checks' processes draw
    figures (:func:`remote_claims`), before any worker is forked, so the import counts toward no
    claim's time limit and each worker inherits it.  A failure here is left to the drawing, which
    reports it as the figure's error."""
    try:
        import matplotlib.backends.backend_agg  # noqa: F401
        import matplotlib.figure  # noqa: F401

        import dpverify.report.figures  # noqa: F401
    except Exception:
        pass


def check_module(c: Claim) -> str | None:
    """The module of a claim's check (for a stand-in: the module the loading child saw)."""
    return c.check.module if isinstance(c.check, RemoteCheck) else getattr(c.check, "__module__", None)


def record_of(c: Claim, *, spec: str, failure: dict | None = None) -> dict:
    """A claim's record: its JSON-able fields and where it comes from (``spec``: the source that a
    worker loads to run it); ``failure`` is the error of a claim that stands for a file that failed
    to load (``{"summary", "evidence", "error"}``), which needs no worker."""
    module = getattr(c.check, "__module__", None) or ""
    mod = sys.modules.get(module)
    f = getattr(mod, "__file__", None) if mod is not None and module != "dpverify.claims.store" else None
    return {"id": c.id, "source": [c.source.paper, c.source.section, c.source.equation], "statement": c.statement,
            "method": c.method.value, "expected": c.expected.value, "proof": c.proof, "timeout": float(c.timeout),
            "module": module, "file": f if isinstance(f, str) else None, "spec": str(spec), "failure": failure,
            "figure": c.figure is not None}


def _checked(rec: Any, k: int) -> dict:
    """A record as the loading child sent it, checked field by field (the child ran a user's file)."""
    if not isinstance(rec, dict) or set(rec) != set(_FIELDS):
        raise ValueError(f"record {k} is not a claim record")
    for name, kind in _FIELDS.items():
        if not isinstance(rec[name], kind) or isinstance(rec[name], bool) is not (kind is bool):
            raise ValueError(f"record {k}: field {name!r} has type {type(rec[name]).__name__}")
    if len(rec["source"]) != 3 or not all(isinstance(x, str) for x in rec["source"]):
        raise ValueError(f"record {k}: source must be three strings")
    if not (math.isfinite(rec["timeout"]) and rec["timeout"] > 0):
        raise ValueError(f"record {k}: timeout must be a positive number")
    fail = rec["failure"]
    if fail is not None and not (set(fail) == {"summary", "evidence", "error"} and isinstance(fail["summary"], str)
                                 and isinstance(fail["evidence"], dict) and isinstance(fail["error"], str)):
        raise ValueError(f"record {k}: failure must hold a summary, evidence and an error")
    return rec


def failed_result(c: Claim):
    """The ``error`` result of a stand-in for a file that failed to load (no worker runs it), else None."""
    from dpverify.claims.execute import with_route
    from dpverify.claims.model import Outcome, Result

    fail = c.check.failure if isinstance(c.check, RemoteCheck) else None
    if fail is None:
        return None
    return Result(c, with_route(c, Outcome(Verdict.ERROR, dict(fail["evidence"]), summary=fail["summary"])), 0.0,
                  fail["error"])


def remote_claims(records: Iterable[dict], loader_for: Callable[[str], Loader], only: str | None = None,
                  figures: bool = False) -> list[Claim]:
    """Stand-in claims for records sent by a loading child; ``loader_for(spec)`` gives the
    function a worker calls to load that source (each source's loader is made once); ``only``
    is the id prefix the records were selected by; ``figures``: the process that runs the check of
    a claim that has a figure function (its record's ``figure``) also draws the figure
    (:func:`dpverify.claims.server.drawn_figure`), and what drawing needs is imported here."""
    figures = check_bool(figures, "figures")
    records = [_checked(rec, k) for k, rec in enumerate(records)]
    siblings: dict[str, set[str]] = {}
    for rec in records:
        siblings.setdefault(rec["spec"], set()).add(rec["id"])
    out, loaders = [], {}
    for rec in records:
        spec = rec["spec"]
        if spec not in loaders:
            loaders[spec] = loader_for(spec)
        check = RemoteCheck(loaders[spec], rec)
        check.siblings, check.only, check.draw = frozenset(siblings[spec]), only, figures
        out.append(Claim(rec["id"], Source(*rec["source"]), rec["statement"], Method(rec["method"]),
                         Verdict(rec["expected"]), check, proof=rec["proof"], timeout=rec["timeout"]))
    if figures and any(rec["figure"] for rec in records):  # only then: a plain run never imports matplotlib
        drawing_imports()
    return out


_LOADED: dict[int, dict[str, Claim]] = {}  # in a worker: id(loader) -> the claims it loaded


def resolve(c: Claim) -> Claim:
    """The claim to run for ``c``: ``c`` itself, or for a stand-in the claim of the same id that its
    source defines when loaded in this process (loaded once per source); LookupError when that
    claim is missing or declared differently from the record the loading child sent."""
    rc = c.check
    if not isinstance(rc, RemoteCheck):
        return c
    found = _LOADED.get(id(rc.load))
    if found is None:
        here = os.getcwd()
        os.chdir(rc.cwd)  # the file is imported where the loading child imported it
        try:
            found = _LOADED[id(rc.load)] = {x.id: x for x in rc.load()}
        finally:
            os.chdir(here)
    extra = sorted(k for k in found if k not in rc.siblings and (not rc.only or k.startswith(rc.only)))
    if extra:  # the loading child was shown fewer claims than this process sees: the run cannot vouch for them
        raise LookupError(f"{_shown(rc)} declares claims the loading child did not report when it is "
                          f"loaded again in the worker: {', '.join(extra[:10])}")
    real = found.get(c.id)
    if real is None:
        raise LookupError(f"claim {c.id} is not defined when {_shown(rc)} is loaded again in the worker")
    if record_of(real, spec=rc.record["spec"], failure=rc.record["failure"]) != rc.record:
        raise LookupError(f"claim {c.id} is declared differently when {_shown(rc)} is loaded again "
                          "in the worker")
    return real


def _shown(rc: RemoteCheck) -> str:
    """The source a stand-in comes from, as a user knows it (its file, else its module)."""
    return rc.file or rc.module or rc.record["spec"]
