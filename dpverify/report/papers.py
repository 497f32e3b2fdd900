"""Which paper a claim comes from: a claim's ``Source.paper`` mapped to the papers the rooms declare.

A claim's ``source.paper`` is the key a room gives its paper, e.g. ``"004"`` (the name of the
paper's text file, such as ``"004_2063bbaa5f69f7be.txt"``, is accepted too).  The report groups
claims by paper and names each by its authors, title and venue: the papers are those the rooms
declare in their ``room.py`` (:class:`dpverify.rooms.Paper`), so a new room's paper appears without
an edit here.  Any other text (a paper of your own) gets a section of its own, under that text.

Example
-------
>>> paper_for("004").title.startswith("Cai, Wu, Wang")
True
>>> paper_for("4").key == paper_for("004_2063bbaa5f69f7be.txt").key == "004"
True
>>> paper_for("Balle & Wang, ICML 2018").known
False
>>> paper_for("Balle & Wang, ICML 2018").title
'Other source: Balle & Wang, ICML 2018'
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from pathlib import Path

from dpverify.rooms import Room, rooms

__all__ = ["Paper", "PAPERS", "paper_for", "paper_for_seed", "papers", "papers_from_spec"]


@dataclass(frozen=True)
class Paper:
    """A paper's section of the report.

    ``key`` is the paper's normalised key (three digits for the papers the rooms declare, the
    text of ``Source.paper`` otherwise); ``title`` the citation (authors, title, venue), or that
    text for a paper no room declares; ``seed_file`` the name of the paper's text file (a file
    reference, never shown as the paper's name); ``room`` the room that declares it; ``known``
    says whether a room declares it.
    """

    key: str
    title: str
    seed_file: str = ""
    room: str = ""
    known: bool = True


@functools.lru_cache(maxsize=4)
def _papers_of(found: tuple[Room, ...]) -> dict[str, Paper]:
    out: dict[str, Paper] = {}
    for r in found:
        for p in r.papers:
            key = _normalise(p.key) or p.key
            out.setdefault(key, Paper(key, p.citation, p.seed_file, r.name))
    return dict(sorted(out.items()))


def papers() -> dict[str, Paper]:
    """The papers of every room (:func:`dpverify.rooms.rooms`), by key.

    Example
    -------
    >>> papers()["003"].room
    'rr'
    """
    return _papers_of(rooms())


_SEED_RE = re.compile(r"^\s*0*(\d+)(?:_[0-9a-f]*)?(?:\.txt)?\s*$")


def _normalise(seed: str) -> str | None:
    m = _SEED_RE.match(seed)
    return f"{int(m.group(1)):03d}" if m else None


#: The papers of the rooms found when this module was imported (:func:`papers` looks again).
PAPERS: dict[str, Paper] = papers()


def paper_for(paper: str, papers: dict[str, Paper] | None = None) -> Paper:
    """The paper a ``Source.paper`` refers to; a paper no room declares becomes its own :class:`Paper`.

    Parameters
    ----------
    paper : str
        A room's key for its paper: ``"004"``, ``"4"`` and ``"004_2063bbaa5f69f7be.txt"`` all
        name the same paper.  Any other text names a paper of its own, titled "Other source: " and that text.
    papers : dict, optional
        The table to look in (default: :func:`papers`, every room's).

    Example
    -------
    >>> paper_for("003").title
    'Zhou, Lu, Wu, Study on utility optimization for randomized response mechanism, J. on Communications 2019'
    """
    if not isinstance(paper, str):
        raise TypeError(f"paper must be a string, got {paper!r} of type {type(paper).__name__}")
    table = _papers_of(rooms()) if papers is None else papers
    key = _normalise(paper)
    if key is not None and key in table:
        return table[key]
    label = paper.strip() or "(no seed)"
    return Paper(label, f"Other source: {label}", "", "", known=False)


def paper_for_seed(seed: str, papers: dict[str, Paper] | None = None) -> Paper:
    """The former name of :func:`paper_for` (same arguments, same result)."""
    if not isinstance(seed, str):
        raise TypeError(f"seed must be a string, got {seed!r} of type {type(seed).__name__}")
    return paper_for(seed, papers)


def papers_from_spec(path: str | Path) -> dict[str, Paper]:
    """Parse the ``| seed file | paper | room |`` table of a SPEC.md into :class:`Paper` s.

    Markdown emphasis and back-ticks are removed; the paper column is cut at
    the first " — " (the remark after the title).
    """
    from dpverify.validation import check_path

    path = check_path(path, "path")
    if not path.is_file():
        raise ValueError(f"path must be a papers' spec file, got {str(path)!r} (no such file)")
    text = path.read_text(encoding="utf-8")
    out: dict[str, Paper] = {}
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 3 or not line.lstrip().startswith("|"):
            continue
        seed_file = cells[0].strip("` ")
        key = _normalise(seed_file)
        if key is None:
            continue
        title = cells[1].split(" — ")[0].replace("*", "").strip()
        out[key] = Paper(key, title, seed_file, cells[2].strip("` "))
    return out
