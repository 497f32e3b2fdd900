"""Access to the papers' text files for claims about what is printed.

Claims about the printed text (an erratum in a proof's wording, say) read the
paper's text file when it is available: ``$DPVERIFY_SEEDS``, or ``shared/seeds``
beside the source tree.  Without it they fall back to *facts* packaged with
the room (small excerpts and counts, recorded together with the text's
sha256); a test recomputes those facts from the text whenever it is present,
so the packaged copy cannot drift from the text.
"""

from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path

__all__ = ["check_prefix", "seed_path", "seed_text", "seed_sha256"]

_PREFIX_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")


def _roots() -> list[Path]:
    roots = []
    env = os.environ.get("DPVERIFY_SEEDS")
    if env:
        roots.append(Path(env))
    here = Path(__file__).resolve().parents[2]  # the source tree root (editable install)
    roots += [here.parent / "shared" / "seeds", Path.cwd().parent / "shared" / "seeds", Path.cwd() / "shared" / "seeds"]
    return roots


def seed_path(prefix: str) -> Path | None:
    """The paper's text file whose name starts with ``prefix + '_'`` (e.g. ``"000"``), or None.

    ``prefix`` is the paper's key as text: letters, digits, ``_``, ``.`` and ``-``
    (no path separator or wildcard, which would reach other files).

    Example
    -------
    >>> seed_path("0/../*")
    Traceback (most recent call last):
    ...
    ValueError: prefix must be a paper's key such as '000' (letters, digits, '_', '.', '-'), got '0/../*'
    """
    check_prefix(prefix)
    for root in _roots():
        if root.is_dir():
            hits = sorted(root.glob(f"{prefix}_*.txt"))
            if hits:
                return hits[0]
    return None


def check_prefix(prefix: str, name: str = "prefix") -> str:
    """A paper's key as text (letters, digits, ``_``, ``.``, ``-``; never a path or a wildcard).

    Example
    -------
    >>> check_prefix("000")
    '000'
    """
    if not isinstance(prefix, str):
        raise TypeError(f"{name} must be a paper's key as text such as '000', got {prefix!r} of type "
                        f"{type(prefix).__name__}")
    if not _PREFIX_RE.match(prefix):
        raise ValueError(f"{name} must be a paper's key such as '000' (letters, digits, '_', '.', '-'), got {prefix!r}")
    return prefix


def seed_text(prefix: str) -> str | None:
    """The text of the file :func:`seed_path` finds, or None."""
    p = seed_path(prefix)
    return p.read_text(encoding="utf-8") if p else None


def seed_sha256(prefix: str) -> str | None:
    """The sha256 (hex) of the file :func:`seed_path` finds, or None."""
    p = seed_path(prefix)
    return hashlib.sha256(p.read_bytes()).hexdigest() if p else None
