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
from dataclasses import dataclass, field
from pathlib import Path

__all__ = [
    "ENTRY_POINT_GROUP",
    "Command",
    "Paper",
    "Room",
    "claim_module_names",
    "is_claims_file",
    "proof_path",
    "room",
    "room_of",
    "rooms",
]

#: The entry-point group through which an installed package adds a room.
ENTRY_POINT_GROUP = "dpverify.rooms"

PACKAGE_DIR = Path(__file__).resolve().parent
_NAME_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


@dataclass(frozen=True)
class Paper:
    """A paper a room verifies.

    ``key`` is its seed id (``"004"``: the file ``004_*.txt`` of the seeds), the id a claim's
    ``Source.seed`` names.

    Example
    -------
    >>> Paper("003", "Study on utility optimization for randomized response mechanism",
    ...       authors="Zhou, Lu, Wu", venue="J. on Communications 2019").key
    '003'
    """

    key: str
    title: str
    authors: str = ""
    venue: str = ""
    seed_file: str = ""

    def __post_init__(self):
        for f in ("key", "title", "authors", "venue", "seed_file"):
            if not isinstance(getattr(self, f), str):
                raise TypeError(f"Paper.{f} must be a string, got {getattr(self, f)!r}")
        if not self.key.strip() or not self.title.strip():
            raise ValueError(f"a paper needs a key and a title, got key={self.key!r}, title={self.title!r}")

    @property
    def citation(self) -> str:
        """``authors, title, venue`` (the parts that are known)."""
        return ", ".join(p for p in (self.authors, self.title, self.venue) if p)


@dataclass(frozen=True)
class Command:
    """A CLI command a room adds: ``dpverify NAME``.

    ``module`` provides ``register(subparsers)``; it is imported only when its command runs.

    Example
    -------
    >>> Command("rr", "dpverify.rr.cli", "utility-optimal randomized response").name
    'rr'
    """

    name: str
    module: str
    help: str

    def __post_init__(self):
        if not isinstance(self.name, str) or not re.match(r"^[a-z][a-z0-9-]*$", self.name):
            raise ValueError(f"a command name is lower-case words joined by '-', got {self.name!r}")
        if not isinstance(self.module, str) or not self.module:
            raise ValueError(f"command {self.name!r}: module must be a dotted module name, got {self.module!r}")
        if not isinstance(self.help, str):
            raise TypeError(f"command {self.name!r}: help must be a string")


@dataclass(frozen=True)
class Room:
    """What a room declares in its ``room.py`` (``ROOM = Room(...)``).

    Parameters
    ----------
    name : str
        The room's name (a Python identifier; the folder's name for a shipped room).
    summary : str
        One line: what the room holds.
    papers : tuple of Paper
        The papers it verifies (none for a room about dpverify itself).
    commands : tuple of Command
        The CLI commands it adds.
    glossary : tuple of (word, meaning)
        Words the room uses, shown at the end of ``dpverify --help`` and in the docs.
    namespaces : tuple of str
        The claim-id prefixes its claims use (default: its name).  Ids stay stable when claims
        move between rooms, so a room may hold claims of another prefix.

    ``package`` and ``path`` are filled in by discovery.
    """

    name: str
    summary: str = ""
    papers: tuple[Paper, ...] = ()
    commands: tuple[Command, ...] = ()
    glossary: tuple[tuple[str, str], ...] = ()
    namespaces: tuple[str, ...] = ()
    package: str = field(default="", compare=False)
    path: Path | None = field(default=None, compare=False)

    def __post_init__(self):
        if not isinstance(self.name, str) or not _NAME_RE.match(self.name):
            raise ValueError(f"a room's name must be a Python identifier, got {self.name!r}")
        for f, kind in (("papers", Paper), ("commands", Command)):
            items = tuple(getattr(self, f))
            if any(not isinstance(x, kind) for x in items):
                raise TypeError(f"room {self.name!r}: {f} must hold {kind.__name__} objects")
            object.__setattr__(self, f, items)
        gloss = tuple(tuple(g) for g in self.glossary)
        if any(len(g) != 2 or not all(isinstance(x, str) for x in g) for g in gloss):
            raise TypeError(f"room {self.name!r}: glossary must hold (word, meaning) string pairs")
        object.__setattr__(self, "glossary", gloss)
        ns = tuple(self.namespaces) or (self.name,)
        if any(not isinstance(x, str) or not _NAME_RE.match(x) for x in ns):
            raise ValueError(f"room {self.name!r}: namespaces must be Python identifiers, got {ns!r}")
        object.__setattr__(self, "namespaces", ns)

    def module(self, sub: str) -> str | None:
        """The dotted name of the room's module ``sub`` (e.g. ``"mechanisms"``), when it exists."""
        if self.path is None:
            return None
        if (self.path / f"{sub}.py").is_file() or (self.path / sub / "__init__.py").is_file():
            return f"{self.package}.{sub}"
        return None


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


def _installed() -> list[Room]:
    from importlib.metadata import entry_points

    out = []
    for ep in sorted(entry_points(group=ENTRY_POINT_GROUP), key=lambda e: e.name):
        module = ep.value.split(":", 1)[0]
        try:
            spec = importlib.util.find_spec(module)
        except (ImportError, ValueError):
            spec = None
        locations = list(spec.submodule_search_locations or []) if spec is not None else []
        folder = Path(locations[0]) if locations else None
        out.append(_load_declaration(ep.name, module, folder))
    return out


@functools.lru_cache(maxsize=1)
def _all() -> tuple[Room, ...]:
    shipped = _shipped()
    taken = {r.name for r in shipped}
    installed = [r for r in _installed() if r.name not in taken]
    return tuple(shipped + installed)


def rooms(*, refresh: bool = False) -> tuple[Room, ...]:
    """Every room: the shipped ones (``dpverify/<room>/room.py``), then the installed ones.

    An installed room that takes a shipped room's name is left out (the registry reports it).
    ``refresh=True`` looks again (after installing a room in a running process).

    Example
    -------
    >>> all(isinstance(r, Room) for r in rooms())
    True
    """
    if refresh:
        _all.cache_clear()
    return _all()


def room(name: str) -> Room:
    """The room called ``name`` (KeyError naming the rooms there are).

    Example
    -------
    >>> room("continual").package
    'dpverify.continual'
    """
    for r in rooms():
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
    prefix = claim_id.split(".", 1)[0]
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
    p = Path(path)
    if p.suffix != ".py" or p.name == "__init__.py":
        return False
    stem = p.stem
    if stem == "claims" or stem.startswith("claims_") or stem.endswith("_claims"):
        return True
    return p.parent.name == "claims" and not stem.startswith("_")


def claim_module_names(r: Room) -> list[str]:
    """The dotted names of a room's claims modules, by :func:`is_claims_file`, sorted.

    Example
    -------
    >>> any(m.startswith("dpverify.rr.claims") for m in claim_module_names(room("rr")))
    True
    """
    if r.path is None:
        return [r.package]
    out = []
    for f in sorted(r.path.rglob("*.py")):
        rel = f.relative_to(r.path)
        if "__pycache__" in rel.parts or any(part.startswith((".", "_")) for part in rel.parts[:-1]):
            continue
        if is_claims_file(rel):
            out.append(".".join((r.package, *rel.with_suffix("").parts)))
    return out


def proof_path(spec: str) -> Path | None:
    """The file a proof name ``"<room>/<file>.md"`` refers to, when it exists.

    The first part names a room (its ``proofs/`` folder) or a subpackage of :mod:`dpverify`
    with a ``proofs/`` folder (the auditor's).

    Example
    -------
    >>> proof_path("rr/binary_optimum.md").name
    'binary_optimum.md'
    >>> proof_path("rr/no_such_proof.md") is None
    True
    """
    if not isinstance(spec, str) or "/" not in spec:
        raise ValueError(f"a proof is named '<room>/<file>.md', got {spec!r}")
    head, rest = spec.split("/", 1)
    folders = [r.path for r in rooms() if r.name == head and r.path is not None]
    folders.append(PACKAGE_DIR / head)
    for folder in folders:
        f = folder / "proofs" / rest
        if f.is_file():
            return f
    return None
