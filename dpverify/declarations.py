"""What a room declares in its ``room.py``: :class:`Room`, its :class:`Paper` s and :class:`Command` s.

Import them from :mod:`dpverify.rooms` (a ``room.py`` may import only that module); they live
here so that :mod:`dpverify.rooms` holds the discovery.

Example
-------
>>> Room(name="demo", papers=(Paper("907", "A title", authors="Doe"),)).namespaces
('demo',)
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from dpverify.plain_checks import check_path

__all__ = ["PACKAGE_DIR", "Command", "Paper", "Room"]

#: The folder of the dpverify package: its subpackages with a ``room.py`` are the shipped rooms.
PACKAGE_DIR = Path(__file__).resolve().parent
_NAME_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


@dataclass(frozen=True)
class Paper:
    """A paper a room verifies.

    ``key`` is the short key a claim's ``Source.paper`` names (``"004"``; the report and the docs
    show the title, authors and venue instead); ``seed_file`` the name of the file holding the
    paper's text (``004_*.txt``; ``""``, the default: not given).

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
    namespaces : tuple of str, optional
        The claim-id prefixes its claims use (default, ``None``: its name; ``()``: it registers
        no claims).  Ids stay stable when claims move between rooms, so a room may hold claims
        of another prefix.
    acronyms : tuple of str
        Words the room writes in capitals (``"RR"``): the report shows an evidence key's word
        ``rr`` as ``RR``.  Glossary words in capitals (``"FDA"``, ``"PPCA-DP"``) count too.

    ``package`` and ``path`` are filled in by discovery.
    """

    name: str
    summary: str = ""
    papers: tuple[Paper, ...] = ()
    commands: tuple[Command, ...] = ()
    glossary: tuple[tuple[str, str], ...] = ()
    namespaces: tuple[str, ...] | None = None
    acronyms: tuple[str, ...] = ()
    package: str = field(default="", compare=False)
    path: Path | None = field(default=None, compare=False)

    def __post_init__(self):
        if not isinstance(self.name, str) or not _NAME_RE.match(self.name):
            raise ValueError(f"a room's name must be a Python identifier, got {self.name!r}")
        for f in ("summary", "package"):
            if not isinstance(getattr(self, f), str):
                raise TypeError(f"room {self.name!r}: {f} must be a string, got {getattr(self, f)!r}")
        if self.path is not None:
            object.__setattr__(self, "path", check_path(self.path, f"room {self.name!r}: path"))
        for f, kind in (("papers", Paper), ("commands", Command)):
            items = self._tuple(f)
            if any(not isinstance(x, kind) for x in items):
                raise TypeError(f"room {self.name!r}: {f} must hold {kind.__name__} objects")
            object.__setattr__(self, f, items)
        gloss = []
        for g in self._tuple("glossary"):
            pair = None if isinstance(g, (str, bytes)) or not hasattr(g, "__iter__") else tuple(g)
            if pair is None or len(pair) != 2 or not all(isinstance(x, str) for x in pair):
                raise TypeError(f"room {self.name!r}: glossary must hold (word, meaning) string pairs, got {g!r}")
            gloss.append(pair)
        object.__setattr__(self, "glossary", tuple(gloss))
        ns = (self.name,) if self.namespaces is None else self._tuple("namespaces")
        if any(not isinstance(x, str) or not _NAME_RE.match(x) for x in ns):
            raise ValueError(f"room {self.name!r}: namespaces must be Python identifiers, got {ns!r}")
        object.__setattr__(self, "namespaces", ns)
        acronyms = (self.acronyms,) if isinstance(self.acronyms, str) else self._tuple("acronyms")
        if any(not isinstance(a, str) or not re.fullmatch(r"[A-Z][A-Z0-9]*", a) for a in acronyms):
            raise ValueError(f"room {self.name!r}: acronyms must be words in capitals, got {acronyms!r}")
        object.__setattr__(self, "acronyms", acronyms)

    def _tuple(self, f: str) -> tuple:
        """The field ``f`` (a tuple, list or other iterable, not text) as a tuple; TypeError naming it."""
        value = getattr(self, f)
        if isinstance(value, (str, bytes)) or not hasattr(value, "__iter__"):
            raise TypeError(f"room {self.name!r}: {f} must be a tuple, got {value!r} of type {type(value).__name__}")
        return tuple(value)

    @property
    def capital_words(self) -> tuple[str, ...]:
        """The room's acronyms and the words in capitals of its glossary (``"PPCA-DP"`` gives PPCA and DP).

        Example
        -------
        >>> Room(name="demo", glossary=(("FDA-x", "..."),), acronyms=("RR",)).capital_words
        ('RR', 'FDA')
        """
        found = [w for word, _ in self.glossary for w in re.findall(r"[A-Za-z0-9]+", word)
                 if re.fullmatch(r"[A-Z][A-Z0-9]+", w)]
        return tuple(dict.fromkeys((*self.acronyms, *found)))

    @property
    def shipped(self) -> bool:
        """Whether the room is a subpackage of :mod:`dpverify` (its namespaces are reserved)."""
        if self.path is None:
            return False
        try:
            return Path(self.path).resolve().parent == PACKAGE_DIR
        except OSError:
            return False

    def module(self, sub: str) -> str | None:
        """The dotted name of the room's module ``sub`` (e.g. ``"mechanisms"``), when it exists."""
        if self.path is None:
            return None
        if (self.path / f"{sub}.py").is_file() or (self.path / sub / "__init__.py").is_file():
            return f"{self.package}.{sub}"
        return None


