"""Rooms: what a room declares, and how the engine finds rooms without naming them.

A **room** is one folder (a Python package) that holds one subject whole::

    myroom/
        __init__.py       the room's public API
        room.py           ROOM = Room(...): its papers, CLI commands and glossary words
        mechanisms.py     mechanisms() -> the room's mechanisms (dpverify.mechanisms.Family list)
        claims/           one module per subject; importing a module registers its claims
        proofs/           the proof documents (Markdown), shipped as package data
        ...               the room's code, in small modules named for what they hold

The engine (claims, report, auditor, CLI, catalogue) finds rooms here and never names one:

- **shipped** rooms are the subpackages of :mod:`dpverify` that hold a ``room.py``;
- **installed** rooms come from the ``dpverify.rooms`` entry-point group (name: the room; value:
  the room's package, e.g. ``myroom = "mypkg.myroom"``).  A package without a ``room.py``
  is a room with no papers, commands or glossary.

``room.py`` is read from its file without importing the room's package, so ``dpverify --help``
lists every room's commands and glossary words without importing scipy or sympy.  It may import
only this module.

A proof is named one way everywhere: ``"<room>/<file>.md"`` (``claim(proof=...)``,
``@proven(...)``, the report), found at ``<room folder>/proofs/<file>.md`` by :func:`proof_path`.
The engine's own proofs (the auditor's) sit in ``dpverify/audit/proofs/`` and are named
``"audit/<file>.md"``.

Example
-------
>>> names = {r.name for r in rooms()}
>>> {"continual", "rr"} <= names
True
>>> room("rr").papers[0].key
'003'
"""

from __future__ import annotations

import functools
import importlib.util
import re
from pathlib import Path

from dpverify.declarations import PACKAGE_DIR, Command, Paper, Room
from dpverify.plain_checks import check_flag, check_path, check_text

__all__ = [
    "ENTRY_POINT_GROUP",
    "Command",
    "Paper",
    "Room",
    "claim_module_names",
    "claims_modules_in",
    "is_claims_file",
    "problems",
    "proof_name",
    "proof_path",
    "room",
    "proof_rooms",
    "reserved_namespaces",
    "room_of",
    "rooms",
]

#: The entry-point group through which an installed package adds a room.
ENTRY_POINT_GROUP = "dpverify.rooms"



def _load_declaration(name: str, package: str, folder: Path | None) -> Room:
    """The room declared in ``folder/room.py``, read without importing its package."""
    decl = None if folder is None else folder / "room.py"
    if decl is None or not decl.is_file():
        return Room(name=name, package=package, path=folder)
    spec = importlib.util.spec_from_file_location(f"_dpverify_room_{name}", decl)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)  # type: ignore[union-attr]
    declared = getattr(mod, "ROOM", None)
    if not isinstance(declared, Room):
        raise TypeError(f"{decl} must define ROOM = dpverify.rooms.Room(...)")
    if declared.name != name:
        raise ValueError(f"{decl} declares the room {declared.name!r}, but it is found as {name!r}")
    object.__setattr__(declared, "package", package)
    object.__setattr__(declared, "path", folder)
    return declared


def _shipped() -> list[Room]:
    out = []
    for decl in sorted(PACKAGE_DIR.glob("*/room.py")):
        folder = decl.parent
        if folder.name.startswith("_"):
            continue
        out.append(_load_declaration(folder.name, f"dpverify.{folder.name}", folder))
    return out


def _installed() -> tuple[list[Room], list[tuple[str, str, str]]]:
    """The rooms of the ``dpverify.rooms`` entry points, and the entry points that are no room."""
    from importlib.metadata import entry_points

    out, bad = [], []
    for ep in sorted(entry_points(group=ENTRY_POINT_GROUP), key=lambda e: e.name):
        module = ep.value.split(":", 1)[0].strip()
        try:
            spec = importlib.util.find_spec(module)
            locations = list(spec.submodule_search_locations or []) if spec is not None else []
            folder = Path(locations[0]) if locations else None
            out.append(_load_declaration(ep.name, module, folder))
        except (KeyboardInterrupt, GeneratorExit):
            raise
        except BaseException as exc:  # a broken room.py must not take the other rooms down
            bad.append((ep.name, module, f"{type(exc).__name__}: {exc}"))
    return out, bad


@functools.lru_cache(maxsize=1)
def _discover() -> tuple[tuple[Room, ...], tuple[tuple[str, str, str], ...]]:
    shipped = _shipped()
    taken = {r.name for r in shipped}
    reserved = {ns for r in shipped for ns in r.namespaces}
    installed, bad = _installed()
    kept = []
    for r in installed:
        clash = sorted(({r.name} & taken) | (set(r.namespaces) & reserved))
        if clash:
            bad.append((r.name, r.package, f"the entry point {r.name!r} = {r.package!r} takes the name(s) "
                        f"{', '.join(clash)} of a room shipped with dpverify; choose another room name"))
        else:
            kept.append(r)
    return tuple(shipped + kept), tuple(bad)


def _all() -> tuple[Room, ...]:
    return _discover()[0]


def rooms(*, refresh: bool = False) -> tuple[Room, ...]:
    """Every room: the shipped ones (``dpverify/<room>/room.py``), then the installed ones.

    An installed room that takes a shipped room's name is left out (the registry reports it).
    ``refresh=True`` looks again (after installing a room in a running process).

    Example
    -------
    >>> all(isinstance(r, Room) for r in rooms())
    True
    """
    if check_flag(refresh, "refresh"):
        _discover.cache_clear()
    return _all()


def problems(*, refresh: bool = False) -> tuple[tuple[str, str, str], ...]:
    """The ``dpverify.rooms`` entry points that give no room: ``(name, module, why)``.

    An entry point whose ``room.py`` fails, or that takes a shipped room's name or namespace,
    is left out of :func:`rooms`; the claims registry reports each as an ``error`` claim.

    Example
    -------
    >>> isinstance(problems(), tuple)
    True
    """
    if check_flag(refresh, "refresh"):
        _discover.cache_clear()
    return _discover()[1]


def reserved_namespaces() -> frozenset[str]:
    """The claim-id prefixes of the shipped rooms: no claim from outside the package may use them.

    Example
    -------
    >>> {"rr", "continual"} <= reserved_namespaces()
    True
    """
    return frozenset(ns for r in rooms() if r.shipped for ns in r.namespaces)


def room(name: str, *, refresh: bool = False) -> Room:
    """The room called ``name`` (KeyError naming the rooms there are); ``refresh`` as in :func:`rooms`.

    Example
    -------
    >>> room("continual").package
    'dpverify.continual'
    """
    check_text(name, "name")
    for r in rooms(refresh=refresh):
        if r.name == name:
            return r
    raise KeyError(f"no room {name!r}; rooms: {', '.join(r.name for r in rooms())}")


def room_of(claim_id: str) -> Room | None:
    """The room whose namespaces hold a claim id's prefix (None when no room does).

    Example
    -------
    >>> room_of("rr.model2.optimum").name
    'rr'
    """
    prefix = check_text(claim_id, "claim_id").split(".", 1)[0]
    for r in rooms():
        if prefix in r.namespaces:
            return r
    return None


def is_claims_file(path: str | Path) -> bool:
    """The one claim-discovery rule: a ``.py`` file named ``claims.py``, ``claims_*.py`` or
    ``*_claims.py``, or any module (not ``_private``) inside a ``claims/`` folder.

    Example
    -------
    >>> [is_claims_file(p) for p in ("a/claims.py", "a/claims/thm5.py", "a/claims/_util.py", "a/fda.py")]
    [True, True, False, False]
    """
    p = check_path(path, "path")
    if p.suffix != ".py" or p.name == "__init__.py":
        return False
    stem = p.stem
    if stem == "claims" or stem.startswith("claims_") or stem.endswith("_claims"):
        return True
    return p.parent.name == "claims" and not stem.startswith("_")


def claim_module_names(r: Room) -> list[str]:
    """The dotted names of a room's claims modules, by :func:`is_claims_file`, sorted.

    A room that is one module (no folder) is its own claims module.

    Example
    -------
    >>> any(m.startswith("dpverify.rr.claims") for m in claim_module_names(room("rr")))
    True
    """
    if not isinstance(r, Room):
        raise TypeError(f"r must be a dpverify.rooms.Room, got {r!r} of type {type(r).__name__}")
    if r.path is None:
        return [r.package]
    return claims_modules_in(r.package, r.path)


def claims_modules_in(package: str, folder: str | Path) -> list[str]:
    """The dotted names of the claims modules (by :func:`is_claims_file`) under a package's folder.

    Folders whose name starts with ``_`` or ``.`` and ``__pycache__`` are skipped.

    Example
    -------
    >>> claims_modules_in("dpverify.rr", room("rr").path) == claim_module_names(room("rr"))
    True
    """
    if not check_text(package, "package").strip():
        raise ValueError(f"package must be a dotted package name, got {package!r}")
    folder = check_path(folder, "folder")
    out = []
    for f in sorted(folder.rglob("*.py")):
        rel = f.relative_to(folder)
        if any(part.startswith((".", "_")) for part in rel.parts[:-1]):
            continue
        if is_claims_file(rel):
            out.append(".".join((package, *rel.with_suffix("").parts)))
    return out


def proof_rooms() -> dict[str, Path]:
    """Every folder of proof documents: ``{name: <folder>/proofs}`` for the rooms and the engine.

    The engine's own proofs (``dpverify/audit/proofs``) are named by their subpackage.

    Example
    -------
    >>> proof_rooms()["rr"].name
    'proofs'
    """
    out: dict[str, Path] = {}
    for r in rooms():
        if r.path is not None and (Path(r.path) / "proofs").is_dir():
            out.setdefault(r.name, Path(r.path) / "proofs")
    for f in sorted(PACKAGE_DIR.glob("*/proofs")):
        if f.is_dir() and not f.parent.name.startswith("_"):
            out.setdefault(f.parent.name, f)
    return out


_PROOF_NAME_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*/[A-Za-z0-9_][A-Za-z0-9_.\-]*\.md$")


def proof_name(spec: str) -> str:
    """The one spelling of a proof's name, ``"<room>/<file>.md"``, checked (ValueError otherwise).

    One slash; the room a Python identifier; the file a plain name ending in ``.md`` (no ``..``,
    no absolute path, no folder, no backslash).  A name read from a file (a saved report)
    passes here before any file is opened.

    Example
    -------
    >>> proof_name("rr/binary_optimum.md")
    'rr/binary_optimum.md'
    >>> proof_name("rr/../../etc/passwd.md")
    Traceback (most recent call last):
    ...
    ValueError: a proof document is named '<room>/<file>.md', got 'rr/../../etc/passwd.md'
    """
    if not isinstance(spec, str):  # a ValueError, as for any other spelling: a saved report may hold anything
        raise ValueError(f"spec must be a proof name '<room>/<file>.md' (a string), got {spec!r} "
                         f"of type {type(spec).__name__}")
    if ".." in spec or not _PROOF_NAME_RE.match(spec):
        raise ValueError(f"a proof document is named '<room>/<file>.md', got {spec!r}")
    return spec


def _inside(f: Path, folder: Path) -> Path | None:
    """``f`` resolved, when it is a file that stays inside ``folder`` (links followed); else None."""
    try:
        resolved, base = f.resolve(), folder.resolve()
    except (OSError, RuntimeError):
        return None
    if resolved.is_file() and resolved.is_relative_to(base):
        return resolved
    return None


def proof_path(spec: str, *, root: str | Path | None = None) -> Path | None:
    """The file a proof name ``"<room>/<file>.md"`` refers to, when it exists.

    The name is checked by :func:`proof_name` (ValueError for any other spelling, e.g. one
    with ``..``).  The first part names a room (its ``proofs/`` folder) or a subpackage of
    :mod:`dpverify` with a ``proofs/`` folder (the auditor's); with ``root``, the document is
    looked for at ``root/<room>/<file>.md`` instead.  The file found must stay inside that
    folder once links are resolved; otherwise, or when it does not exist, the answer is None.

    Example
    -------
    >>> proof_path("rr/binary_optimum.md").name
    'binary_optimum.md'
    >>> proof_path("rr/no_such_proof.md") is None
    True
    """
    head, rest = proof_name(spec).split("/", 1)
    if root is not None:
        folders = [check_path(root, "root") / head]
    else:
        folders = [Path(r.path) / "proofs" for r in rooms() if r.name == head and r.path is not None]
        folders.append(PACKAGE_DIR / head / "proofs")
    for folder in folders:
        found = _inside(folder / rest, folder)
        if found is not None:
            return found
    return None
