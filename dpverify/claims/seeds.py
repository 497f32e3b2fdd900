"""Access to the papers' text (the seed files) for claims about what is printed.

Claims about the printed text (an erratum in a proof's wording, say) read the
seed file when it is available: ``$DPVERIFY_SEEDS``, or ``shared/seeds``
beside the source tree.  Without it they fall back to *facts* packaged with
the room (small excerpts and counts, recorded together with the seed's
sha256); a test recomputes those facts from the seed whenever it is present,
so the packaged copy cannot drift from the text.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

__all__ = ["seed_path", "seed_text", "seed_sha256"]


def _roots() -> list[Path]:
    roots = []
    env = os.environ.get("DPVERIFY_SEEDS")
    if env:
        roots.append(Path(env))
    here = Path(__file__).resolve().parents[2]  # the source tree root (editable install)
    roots += [here.parent / "shared" / "seeds", Path.cwd().parent / "shared" / "seeds", Path.cwd() / "shared" / "seeds"]
    return roots


def seed_path(prefix: str) -> Path | None:
    """The seed file whose name starts with ``prefix + '_'`` (e.g. ``"000"``), or None."""
    for root in _roots():
        if root.is_dir():
            hits = sorted(root.glob(f"{prefix}_*.txt"))
            if hits:
                return hits[0]
    return None


def seed_text(prefix: str) -> str | None:
    p = seed_path(prefix)
    return p.read_text(encoding="utf-8") if p else None


def seed_sha256(prefix: str) -> str | None:
    p = seed_path(prefix)
    return hashlib.sha256(p.read_bytes()).hexdigest() if p else None
