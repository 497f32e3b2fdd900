"""Where claims come from: the rooms (shipped and installed), and files, folders and modules.

One rule says which files hold claims: :func:`dpverify.rooms.is_claims_file` (``claims.py``,
``claims_*.py``, ``*_claims.py``, or any module inside a ``claims/`` folder).

- :func:`load_rooms` imports every room's claims modules (:func:`dpverify.rooms.rooms` and
  :func:`dpverify.rooms.claim_module_names`); an installed room's claims must use its own
  namespaces, and an entry point that gives no room becomes an ``error`` claim;
- :func:`load_sources` imports what it is given, and only that (the rooms are not loaded),
  and returns the claims those imports registered.  A file is imported the way pytest's
  default ("prepend") import mode imports a test module, so ``dpverify verify FILE`` and
  ``pytest FILE`` see one module: its folder goes first on ``sys.path`` and it may import
  its neighbours.

A module that fails to import becomes one ``error`` claim carrying the traceback, with one
exception: a claim defined wrongly (an id without a room prefix, an unknown method, a check
without ``thorough``: a ValueError or TypeError raised by :mod:`dpverify.claims` while the file
registers its claims) in a file or module given to :func:`load_sources` is a
:class:`ClaimDefinitionError` of one line, ``FILE:LINE: message`` (the message names the id),
and the claims that file registered before the mistake are removed.  A room's claims module
with such a mistake stays an ``error`` claim, its message that one line, with no traceback.
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.util
import os
import re
import sys
import traceback
from pathlib import Path
from typing import Iterable

from dpverify.claims import store
from dpverify.claims.checks import check_instance, check_items
from dpverify.claims.model import Claim
from dpverify.rooms import Room, claim_module_names, claims_modules_in, is_claims_file, problems, rooms
from dpverify.validation import check_path

__all__ = ["ClaimDefinitionError", "SourceError", "authoring_error", "claim_files", "is_claims_file", "load_room", "load_rooms", "load_sources", "module_of_file"]

_MODULE_RE = re.compile(r"^[A-Za-z_]\w*(\.[A-Za-z_]\w*)*$")
_LOADED: set[str] = set()  # rooms whose claims modules were imported


class SourceError(ValueError):
    """A path or module given to :func:`load_sources` does not exist (or defines a claim wrongly)."""


class ClaimDefinitionError(SourceError):
    """A file or module given to :func:`load_sources` defines a claim wrongly: ``FILE:LINE: message``."""


_CLAIMS_DIR = Path(__file__).resolve().parent


def _in_claims_package(filename: str) -> bool:
    try:
        return Path(filename).resolve().parent == _CLAIMS_DIR
    except (OSError, ValueError):
        return False


def _shown(filename: str) -> str:
    """A file name as short as it stays unambiguous: relative to the current folder when inside it."""
    try:
        return str(Path(filename).resolve().relative_to(Path.cwd().resolve()))
    except (OSError, ValueError):
        return filename


def authoring_error(exc: BaseException, shown: dict[str, str] | None = None) -> str | None:
    """``FILE:LINE: message`` when ``exc`` is a claim defined wrongly, else None.

    A claim is defined wrongly when a ValueError or TypeError (not a duplicate id, which names
    its two files itself) was raised inside :mod:`dpverify.claims` while code outside it called
    it; FILE:LINE is that calling line (the ``@claim(...)`` line of a claims file).  ``shown``
    maps resolved file names to the names to print (e.g. the path as the user typed it).

    Example
    -------
    >>> from dpverify.claims import claim, Outcome, Source
    >>> try:
    ...     claim("noprefix", source=Source("x"), statement="s", method="property")(lambda thorough=False: None)
    ... except ValueError as exc:
    ...     print(authoring_error(exc).split(": ", 1)[1])
    claim id must be '<room>.<name>' (room: a Python identifier), got 'noprefix'
    """
    from dpverify.claims.store import DuplicateClaimError

    if not isinstance(exc, BaseException):
        raise TypeError(f"exc must be an exception, got {type(exc).__name__}")
    if shown is not None and not isinstance(shown, dict):
        raise TypeError(f"shown must be a dict of file names or None, got {type(shown).__name__}")
    if not isinstance(exc, (ValueError, TypeError)) or isinstance(exc, DuplicateClaimError):
        return None
    frames = traceback.extract_tb(exc.__traceback__)
    if not frames or not _in_claims_package(frames[-1].filename):
        return None
    for f in reversed(frames):
        if not _in_claims_package(f.filename):
            try:
                key = str(Path(f.filename).resolve())
            except (OSError, ValueError):
                key = f.filename
            where = (shown or {}).get(key) or _shown(f.filename)
            return f"{where}:{f.lineno}: " + str(exc).replace("\n", " ")
    return None


def _import(room: str, module: str) -> bool:
    """Import a module; a failure (even ``sys.exit`` or a test-framework skip) becomes an ``error`` claim."""
    try:
        importlib.import_module(module)
        return True
    except (KeyboardInterrupt, GeneratorExit):
        raise
    except BaseException as exc:  # a claims file that raises, exits or skips is an error result
        one_line = authoring_error(exc)
        if one_line is None:
            store.import_failure(room, module)
        else:  # a claim defined wrongly: its one line, no traceback
            store.import_failure(room, module, (TypeError if isinstance(exc, TypeError) else ValueError)(one_line))
        return False


def load_room(r: Room) -> list[Claim]:
    """Import a room's package and its claims modules (once); return the claims they registered."""
    check_instance(r, Room, "r")
    before = store.snapshot()
    if r.name in _LOADED:
        return []
    _LOADED.add(r.name)
    prefix = r.namespaces[0] if r.namespaces else r.name  # the id prefix of an import failure's claim
    with contextlib.nullcontext() if r.shipped else store.installed_room(r.name, r.namespaces):
        if _import(prefix, r.package):
            for module in claim_module_names(r):
                if module != r.package:
                    _import(prefix, module)
    return store.registered_since(before)


def load_rooms() -> None:
    """Import every room's claims modules (once each); report entry points that give no room."""
    for r in rooms():
        load_room(r)
    for name, module, why in problems():
        if f"problem:{name}" not in _LOADED:
            _LOADED.add(f"problem:{name}")
            room = name if re.match(r"^[A-Za-z_]\w*$", name) else "entry_point"
            store.import_failure(room, module, ValueError(why))


def module_of_file(path: Path):
    """Import a Python file as pytest's default ('prepend') import mode does.

    The module name is the dotted path from the first folder above without
    ``__init__.py``; that folder goes first on ``sys.path`` so the file can
    import its neighbours.  A file already imported (under any name) is reused.
    """
    path = check_path(path, "path").resolve()
    for m in list(sys.modules.values()):
        f = getattr(m, "__file__", None)
        if f and f.endswith(path.name):
            try:
                if Path(f).resolve() == path:
                    return m
            except OSError:
                continue
    root, parts = path.parent, [path.stem]
    while (root / "__init__.py").is_file():
        parts.insert(0, root.name)
        root = root.parent
    name = ".".join(parts)
    if str(root) not in sys.path:
        sys.path.insert(0, str(root))
    if name in sys.modules or len(parts) == 1:
        if name in sys.modules:  # another file of that name: import this one under a private name
            name = f"_dpverify_external.{abs(hash(str(path))):x}.{path.stem}"
        spec = importlib.util.spec_from_file_location(name, path)
        if spec is None or spec.loader is None:
            raise ImportError(f"cannot import {path}")
        mod = importlib.util.module_from_spec(spec)
        sys.modules[name] = mod
        try:
            spec.loader.exec_module(mod)
        except BaseException:
            sys.modules.pop(name, None)
            raise
        return mod
    return importlib.import_module(name)


def _definition_error(exc: BaseException, before: dict, shown: dict[str, str]) -> None:
    """Raise :class:`ClaimDefinitionError` (one line) if ``exc`` is a claim defined wrongly.

    The claims registered since ``before`` (by the file that failed) are removed first.
    """
    one_line = authoring_error(exc, shown)
    if one_line is None:
        return
    for c in store.registered_since(before):
        if before.get(c.id) is None:
            store.unregister(c.id)
    raise ClaimDefinitionError(one_line) from None


def _load_file(path: Path, shown: str | None = None) -> list[Claim]:
    before = store.snapshot()
    try:
        module_of_file(path)
    except (KeyboardInterrupt, GeneratorExit):
        raise
    except BaseException as exc:  # a claims file that raises, exits or skips is an error result
        _definition_error(exc, before, {str(path): shown or str(path)})
        room = re.sub(r"\W", "_", path.stem) or "file"
        room = room if room[0].isalpha() or room[0] == "_" else f"_{room}"
        return [store.import_failure(room, str(path))]
    return store.registered_since(before, {str(path)})


def _load_module(name: str) -> list[Claim]:
    before = store.snapshot()
    files: set[str] = set()
    try:
        mod = importlib.import_module(name)
        mods = [mod]
        for folder in getattr(mod, "__path__", [])[:1]:
            mods += [importlib.import_module(m) for m in claims_modules_in(name, folder)]
        files = {str(Path(m.__file__).resolve()) for m in mods if getattr(m, "__file__", None)}
    except (KeyboardInterrupt, GeneratorExit):
        raise
    except BaseException as exc:  # a claims file that raises, exits or skips is an error result
        _definition_error(exc, before, {})
        room = name.split(".")[-1] if name.split(".")[0] != "dpverify" else name.split(".")[1]
        return [store.import_failure(room, name)]
    return store.registered_since(before, files)


def load_sources(specs: str | os.PathLike | Iterable[str | os.PathLike]) -> list[Claim]:
    """Import the claims of files, folders and dotted modules; return them sorted by id.

    ``specs`` is one path or module name (``str`` or ``os.PathLike``) or a list of them; an
    empty one is refused (:class:`SourceError`, a ValueError), never read as the current folder,
    and ``bytes`` are refused (TypeError).

    A folder contributes its claims files (:func:`dpverify.rooms.is_claims_file`, recursively;
    hidden folders and ``__pycache__`` skipped).  A module contributes the claims its import
    registers (a package: also its claims modules).  Only these are imported: the rooms are
    not, unless named.  A path that does not exist and is no importable module raises
    :class:`SourceError`; a claim defined wrongly raises :class:`ClaimDefinitionError`, one
    line ``FILE:LINE: message`` (a module that fails to import otherwise is an ``error`` claim).

    Example
    -------
    >>> load_sources(["no/such/folder"])
    Traceback (most recent call last):
    ...
    dpverify.claims.sources.SourceError: no/such/folder: no such file, folder or importable module
    >>> load_sources("")
    Traceback (most recent call last):
    ...
    dpverify.claims.sources.SourceError: specs must be a non-empty path or module name, got ''
    """
    one = isinstance(specs, (str, os.PathLike))  # one path, not its characters
    specs = [specs] if one else check_items(specs, (str, os.PathLike), "specs")
    found: dict[str, Claim] = {}
    for i, spec in enumerate(specs):
        spec = os.fspath(spec)
        where = "specs" if one else f"specs[{i}]"
        if not isinstance(spec, str):
            raise TypeError(f"{where} must be a path (str or os.PathLike of str), got {spec!r}")
        if not spec.strip():  # '' would mean the current folder without saying so
            raise SourceError(f"{where} must be a non-empty path or module name, got {spec!r}")
        p = Path(spec)
        if p.is_file():
            if p.suffix != ".py":
                raise SourceError(f"{spec}: not a Python file")
            claims = _load_file(p.resolve(), spec)
        elif p.is_dir():
            claims = []
            for f in claim_files(p):
                claims += _load_file(f, str(p / f.relative_to(p.resolve())))
        elif _MODULE_RE.match(spec) and not spec.endswith(".py") and _find_spec(spec):
            claims = _load_module(spec)
        else:
            raise SourceError(f"{spec}: no such file, folder or importable module")
        for c in claims:
            found[c.id] = c
    return sorted(found.values(), key=lambda c: c.id)


def _find_spec(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False


def claim_files(folder: str | Path) -> list[Path]:
    """The claims files under a folder (:func:`dpverify.rooms.is_claims_file`), resolved and sorted.

    Example
    -------
    >>> import tempfile
    >>> claim_files(tempfile.mkdtemp())
    []
    """
    if not isinstance(folder, (str, os.PathLike)) or isinstance(folder, str) and not folder.strip():
        raise (ValueError if isinstance(folder, str) else TypeError)(
            f"folder must be a non-empty path, got {folder!r}")
    out = []
    for f in sorted(Path(folder).rglob("*.py")):
        rel = f.relative_to(folder).parts[:-1]
        if any(part.startswith(".") or part == "__pycache__" for part in rel):
            continue
        if is_claims_file(f):
            out.append(f.resolve())
    return out
