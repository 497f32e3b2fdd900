"""pytest plugin: the claims in claims files become test items.

Installed with dpverify (entry point ``pytest11: dpverify``), so ``pytest
FILE`` collects the claims a claims file registers with
:func:`dpverify.claims.claim`.  Each claim gives two items:

- ``FILE::room.name`` runs ``check(thorough=False)``;
- ``FILE::room.name[thorough]`` runs ``check(thorough=True)`` and is marked
  ``slow``, so ``-m "not slow"`` skips it.

Supervised: a claims file is never imported in pytest's own process.  A child process imports
it (:func:`dpverify.claims.loadguard.load_in_child`) and sends the records of its claims, of
which the items are made (:mod:`dpverify.claims.remote`); a file that exits there (even by
``os._exit``), is killed, raises a ``BaseException`` that is not an ``Exception``, or blocks past
``--dpverify-load-timeout`` (default 60 s) is a collection error naming it, so pytest exits
non-zero.  The items' checks then run one at a time, as pytest reaches each item, in a
supervised worker process that imports the file again and serves that file's items
(:class:`dpverify.claims.supervisor.TaskRunner`): a check that calls ``os._exit``, is killed,
runs past its limit (``--dpverify-timeout``, else its declared ``timeout``), raises
``KeyboardInterrupt``, sends its supervisor anything but its one report, leaves processes
running, changes the claims engine in its worker or modifies a file under its claims file's
folder is an ``error``, and the worker is not used again.
An item passes when the verdict equals the claim's expected verdict; an
``error`` verdict always fails.  On failure the report shows the verdict,
the summary, the evidence and, for an error, the traceback.

Options: ``--dpverify-baseline FILE`` fails an item whose verdict or evidence
drifted from FILE beyond ``--dpverify-rtol`` / ``--dpverify-atol`` (the one drift
comparison, :mod:`dpverify.claims.drift`, with its defaults); with
``--dpverify-update-baseline`` the run writes FILE instead (the only way the plugin
writes it).  ``dpverify_baseline`` (ini) sets a default baseline file.

Which files: the claims files of dpverify's one rule (:func:`dpverify.rooms.is_claims_file`:
``claims.py``, ``claims_*.py``, ``*_claims.py``, a module inside a ``claims/`` folder), or
the glob patterns of the ini option ``dpverify_claims_files`` when a project sets it.  A
claims file that also matches pytest's ``python_files``
(e.g. ``test_x_claims.py``) is an ordinary test module and left to pytest; a
matching file is imported only if its text mentions ``dpverify`` and
``claim``, and it yields the claims its import registers (a helper module
that registers claims only when a function of it is called yields none).  A file named on
the command line is collected once (pytest would otherwise collect it as a test module too).
A claim defined wrongly (an id without a room prefix, an unknown method, ...) is a collection
error of one line, ``FILE:LINE: message`` naming the id, without a traceback.

The module imports nothing but pytest and the standard library until a claims
file is collected, so an installed dpverify costs other projects' test runs
nothing.
"""

from __future__ import annotations

import fnmatch
import json
from pathlib import Path
from typing import Any

import pytest

#: No Python API: the hooks below are called by pytest, the classes built by them.
__all__: list[str] = []

_ENTRIES = pytest.StashKey[dict]()
_BASELINE = pytest.StashKey[Any]()
_LIMITS = pytest.StashKey[dict]()  # "timeout" (None: each claim's own) and "load" seconds
_RUN = pytest.StashKey[Any]()  # the session's supervised run (_SessionRun), started by the first item
_LOAD_LIMIT = 60.0  # seconds a claims file may take to import (tried in a child first), by default


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("dpverify", "dpverify claims")
    group.addoption("--dpverify-baseline", metavar="FILE", default=None,
                    help="fail claims whose verdict or evidence drifted from this baseline file")
    group.addoption("--dpverify-update-baseline", action="store_true", default=False,
                    help="write the verdicts and evidence of the claims that ran to the baseline file")
    group.addoption("--dpverify-rtol", type=float, default=None,
                    help="relative tolerance of the baseline gate (default: that of dpverify verify --rtol)")
    group.addoption("--dpverify-atol", type=float, default=None,
                    help="absolute tolerance of the baseline gate (default: that of dpverify verify --atol)")
    group.addoption("--dpverify-timeout", type=float, default=None, metavar="SECONDS",
                    help="stop each claim's check after this many seconds (default: the claim's declared timeout)")
    group.addoption("--dpverify-load-timeout", type=float, default=None, metavar="SECONDS",
                    help=f"seconds a claims file may take to import at collection (default {_LOAD_LIMIT:g})")
    parser.addini("dpverify_claims_files", type="args", default=[],
                  help="glob patterns of the files whose dpverify claims become test items "
                       "(default: dpverify's rule, dpverify.rooms.is_claims_file)")
    parser.addini("dpverify_baseline", default="", help="default baseline file of --dpverify-baseline")
    parser.addini("dpverify_timeout", default="", help="default of --dpverify-timeout")
    parser.addini("dpverify_load_timeout", default="", help="default of --dpverify-load-timeout")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "slow: long checks (a dpverify claim's thorough run); deselect with -m 'not slow'")
    config.addinivalue_line("markers", "dpverify: a claim checked by dpverify")
    path = _baseline_path(config)
    config.stash[_ENTRIES] = {}
    config.stash[_BASELINE] = None
    if config.getoption("dpverify_update_baseline"):
        if not path:
            raise pytest.UsageError("--dpverify-update-baseline needs --dpverify-baseline FILE (or the "
                                    "dpverify_baseline ini option)")
        from dpverify.atomic import OutputError, check_output_path

        try:
            p = check_output_path(path, force=True, name="--dpverify-baseline")
            if p.exists():
                _load(p)  # never replace a file that is not a baseline
        except (OutputError, ValueError) as exc:
            raise pytest.UsageError(str(exc)) from None
    elif path:
        config.stash[_BASELINE] = _load(path)
    config.stash[_LIMITS] = _limits(config)
    rtol, atol = config.getoption("dpverify_rtol"), config.getoption("dpverify_atol")
    if rtol is not None or atol is not None:
        from dpverify.claims.baseline import drift

        try:  # the library checks the tolerances
            drift({}, {}, **{k: v for k, v in (("rtol", rtol), ("atol", atol)) if v is not None})
        except (TypeError, ValueError) as exc:
            raise pytest.UsageError(f"--dpverify-{exc}") from None


def _limits(config: pytest.Config) -> dict:
    """The per-claim and the load time limits of the options (or ini); a bad one is a usage error."""
    out: dict = {"timeout": None, "load": _LOAD_LIMIT}
    for key, opt in (("timeout", "dpverify_timeout"), ("load", "dpverify_load_timeout")):
        value: Any = config.getoption(opt)
        if value is None and config.getini(opt):
            value = config.getini(opt)
            try:
                value = float(value)
            except ValueError:
                pass  # reported by check_timeout
        if value is None:
            continue
        from dpverify.claims.model import check_timeout  # only when a limit is given

        try:
            out[key] = check_timeout(value, "--" + opt.replace("_", "-"))
        except ValueError as exc:
            raise pytest.UsageError(str(exc)) from None
    return out


def _baseline_path(config: pytest.Config) -> str | None:
    opt = config.getoption("dpverify_baseline")
    if opt:
        return opt
    ini = config.getini("dpverify_baseline")
    return str(config.rootpath / ini) if ini else None


def _load(path: Any) -> dict:
    from dpverify.claims.baseline import load_baseline

    try:
        return load_baseline(path)
    except ValueError as exc:
        raise pytest.UsageError(str(exc)) from None
    except RecursionError:
        raise pytest.UsageError(f"baseline {str(path)!r} is nested too deeply to be a dpverify baseline") from None


def _is_claims_file(file_path: Path, config: pytest.Config) -> bool:
    """Whether this plugin collects the file (see the module's docstring: "Which files")."""
    if file_path.suffix != ".py":
        return False
    name = file_path.name
    patterns = config.getini("dpverify_claims_files")
    if patterns:
        if not any(fnmatch.fnmatch(name, p) for p in patterns):
            return False
    else:
        from dpverify.rooms import is_claims_file  # the standard library only

        if not is_claims_file(file_path):
            return False
    if any(fnmatch.fnmatch(name, p) for p in config.getini("python_files")):
        return False  # an ordinary test module: pytest's own collector has it
    try:
        text = file_path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False
    return "dpverify" in text and "claim" in text


def pytest_collect_file(file_path: Path, parent: pytest.Collector):
    # A file named on the command line is also collected by pytest's python plugin, which
    # asks pytest_pycollect_makemodule (below) for its module: collected once, there.
    if parent.session.isinitpath(file_path) or not _is_claims_file(file_path, parent.config):
        return None
    return ClaimsFile.from_parent(parent, path=file_path)


def pytest_pycollect_makemodule(module_path: Path, parent):
    if parent.session.isinitpath(module_path) and _is_claims_file(module_path, parent.config):
        return ClaimsFile.from_parent(parent, path=module_path)
    return None


class ClaimsFile(pytest.Module):
    """A claims file: imported only in child processes (the way pytest imports test modules);
    yields an item for each claim the loading child reported."""

    def collect(self):
        from dpverify.claims.loadguard import ChildLoadError, load_in_child
        from dpverify.claims.remote import remote_claims

        limit = self.config.stash[_LIMITS]["load"]
        try:
            got, why = load_in_child(self._records, limit, base_exceptions=True)
        except ChildLoadError as exc:  # pytest's own message for a file that fails to import, with its traceback
            raise self.CollectError(str(exc) if exc.kind == "CollectError" else f"{exc.kind}: {exc}\n{exc.tb}") from None
        if why is not None:
            raise self.CollectError(f"{self.path}: {why} (imported in a child process; not collected)")
        if isinstance(got, dict) and isinstance(got.get("skip"), str):
            raise pytest.skip.Exception(got["skip"], allow_module_level=True)
        if isinstance(got, dict) and isinstance(got.get("error"), str):
            raise self.CollectError(got["error"])
        try:
            claims = remote_claims(got if isinstance(got, list) else [None], lambda spec: self._claims)
        except ValueError as exc:
            raise self.CollectError(f"{self.path}: loading the claims sent a malformed message ({exc})") from None
        for c in claims:
            yield ClaimItem.from_parent(self, name=c.id, claim=c, thorough=False)
            yield ClaimItem.from_parent(self, name=f"{c.id}[thorough]", claim=c, thorough=True)
        from dpverify.claims.loading import not_reported

        for r in not_reported([str(self.path)], claims, None):  # declared in its text, never reported: fails
            yield ClaimItem.from_parent(self, name=r.claim.id, claim=r.claim, thorough=False, known=r)

    def _claims(self) -> list:
        """Import the file (pytest's import mode, ``sys.path`` and errors) and return the claims it
        registered: in the loading child, and again in the worker that runs them."""
        from dpverify.claims.store import registered_since, snapshot

        before = snapshot()
        mod = self.obj
        files = {str(Path(mod.__file__).resolve())} if getattr(mod, "__file__", None) else set()
        return registered_since(before, files)

    def _records(self) -> Any:
        """In the loading child: the claims' records, or ``{"skip": reason}`` for a file that skips
        itself, or ``{"error": "FILE:LINE: message"}`` for a claim defined wrongly."""
        from dpverify.claims.remote import record_of

        try:
            return [record_of(c, spec=str(self.path)) for c in self._claims()]
        except pytest.skip.Exception as exc:
            return {"skip": str(exc.msg)}
        except (ValueError, TypeError) as exc:  # a claim defined wrongly: one line FILE:LINE: message
            from dpverify.claims.sources import authoring_error

            one_line = authoring_error(exc)
            if one_line is None:
                raise
            return {"error": one_line}


class ClaimFailed(Exception):
    """A claim's verdict differs from the expected one (or is an error), or its evidence drifted."""

    def __init__(self, text: str):
        super().__init__(text)
        self.text = text


class ClaimItem(pytest.Item):
    """One run of one claim's check."""

    def __init__(self, *, claim, thorough: bool, known: Any = None, **kw):
        super().__init__(**kw)
        self.claim = claim
        self.thorough = thorough
        self.known = known  # a result known without running a check (a claim declared but never reported)
        self.add_marker("dpverify")
        if thorough:
            self.add_marker("slow")

    def runtest(self) -> None:
        from dpverify.claims.baseline import baseline_key, check_baseline, entry_of
        from dpverify.claims.runner import result_to_json

        r = self.known if self.known is not None else _session_run(self).result(self)
        js = result_to_json(r)
        key = baseline_key(self.claim.id, self.thorough)
        if not r.as_expected:
            raise ClaimFailed(_describe(js, r.error))
        entry = entry_of(js)
        self.config.stash[_ENTRIES][key] = entry
        base = self.config.stash[_BASELINE]
        if base is not None:
            opt = self.config.getoption
            tolerances = {k: opt(f"dpverify_{k}") for k in ("rtol", "atol") if opt(f"dpverify_{k}") is not None}
            checked = check_baseline(base, {key: entry}, **tolerances)
            if not checked.ok:
                raise ClaimFailed(checked.headline(self.claim.id, _baseline_path(self.config)) + "\n"
                                  + "\n".join(f"  {ln}" for _, ln in checked.differences))

    def repr_failure(self, excinfo, style=None):
        if isinstance(excinfo.value, ClaimFailed):
            return excinfo.value.text
        return super().repr_failure(excinfo, style=style)

    def reportinfo(self):
        return self.path, None, f"dpverify claim {self.name}"


class _SessionRun:
    """The session's claim items, each run in a fresh supervised worker
    (:class:`dpverify.claims.supervisor.TaskRunner`) when pytest runs its item."""

    def __init__(self, session: pytest.Session) -> None:
        from dpverify.claims.runner import run_claim
        from dpverify.claims.supervisor import TaskRunner

        self.items = [it for it in session.items if isinstance(it, ClaimItem) and it.known is None]
        self.index = {id(it): k for k, it in enumerate(self.items)}
        self.timeout = session.config.stash[_LIMITS]["timeout"]
        self.runner = TaskRunner([(it.claim, it.thorough) for it in self.items], run_claim, timeout=self.timeout)

    def result(self, item: "ClaimItem") -> Any:
        """The item's result: a reported verdict, or an ``error`` saying why there is none."""
        from dpverify.claims.remote import failed_result

        known = failed_result(item.claim)  # a stand-in for a file that failed to load: no worker runs it
        if known is not None:
            return known
        k = self.index.get(id(item))
        if k is not None:
            return self.runner.result(k)
        from dpverify.claims.runner import run_claims  # an item pytest did not collect in this session

        (r,) = run_claims([item.claim], thorough=item.thorough, timeout=self.timeout, supervised=True)
        return r


def _session_run(item: ClaimItem) -> _SessionRun:
    run = item.config.stash.get(_RUN, None)
    if run is None:
        run = item.config.stash[_RUN] = _SessionRun(item.session)
    return run


def _describe(js: dict, tb: str | None) -> str:
    lines = [
        f"claim {js['id']}: expected {js['expected']}, got {js['verdict']}",
        f"  statement: {js['statement']}",
        f"  source:    {js['source']}",
        f"  method:    {js['method']}",
    ]
    if js.get("summary"):
        lines.append(f"  summary:   {js['summary']}")
    lines.append("  evidence:")
    for k, v in (js.get("evidence") or {}).items():
        s = json.dumps(v, ensure_ascii=False)
        lines.append(f"    {k} = {s if len(s) <= 400 else s[:399] + '…'}")
    if tb:
        lines += ["", tb.rstrip()]
    return "\n".join(lines)


def pytest_terminal_summary(terminalreporter, exitstatus: int, config: pytest.Config) -> None:
    """With a baseline: one line saying how many claims matched it (and what it did not record)."""
    base, entries = config.stash.get(_BASELINE, None), config.stash.get(_ENTRIES, {})
    if base is None or not entries:
        return
    from dpverify.claims.baseline import check_baseline

    opt = config.getoption
    tolerances = {k: opt(f"dpverify_{k}") for k in ("rtol", "atol") if opt(f"dpverify_{k}") is not None}
    terminalreporter.write_line(f"dpverify {check_baseline(base, entries, **tolerances).summary()} "
                                f"({_baseline_path(config)})")


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    config = session.config
    run = config.stash.get(_RUN, None)
    if run is not None:
        run.runner.close()
    if not config.getoption("dpverify_update_baseline"):
        return
    entries = config.stash.get(_ENTRIES, {})
    if not entries:
        return
    from dpverify.claims.baseline import write_baseline

    path = _baseline_path(config)
    write_baseline(path, entries)
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    if reporter is not None:
        reporter.write_line(f"dpverify: wrote {len(entries)} {'claim' if len(entries) == 1 else 'claims'} to the baseline {path}")
