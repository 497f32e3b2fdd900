"""``dpverify claims`` at once: the shipped rooms' claims listed from a cache that cannot go stale.

Listing the shipped claims means importing every room's claims modules, and with them sympy,
scipy and cvxpy: seconds.  What a listing shows (id, source, statement, method, expected verdict,
proof) depends only on dpverify's own files, so :func:`remember` (called by ``dpverify verify``
and ``dpverify claims`` after they loaded every room) writes it to the user's cache folder under a key that
is the SHA-256 of every Python and JSON file of the installed package (:func:`package_digest`,
about 20 ms to compute); a load in which a claims module failed to import (a missing optional
library, say) is not cached.  :func:`cached_listing` returns it only when that key matches the files
as they are now; after any change to the package, or when the cache cannot be read or is not a
listing, it returns None and the caller imports the rooms as before.  Nothing but the listing is
read from the cache: ``verify`` always imports and runs the claims themselves.

The folder is ``$DPVERIFY_CACHE_DIR``, else ``$XDG_CACHE_HOME/dpverify``, else
``~/.cache/dpverify``; a folder that cannot be written is skipped silently.

Example
-------
>>> len(package_digest()) == 64
True
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

__all__ = ["cached_listing", "package_digest", "remember"]

_PACKAGE = Path(__file__).resolve().parents[1]
_FIELDS = ("id", "source", "statement", "method", "expected", "proof")


def package_digest() -> str:
    """The SHA-256 of the names and contents of every ``.py`` and ``.json`` file of the dpverify package."""
    h = hashlib.sha256()
    for root, dirs, files in os.walk(_PACKAGE):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__" and not d.startswith("."))
        for name in sorted(files):
            if name.endswith((".py", ".json")):
                p = Path(root) / name
                h.update(str(p.relative_to(_PACKAGE)).encode("utf-8") + b"\0")
                h.update(p.read_bytes() + b"\0")
    return h.hexdigest()


def _cache_file(digest: str) -> Path:
    base = os.environ.get("DPVERIFY_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"), "dpverify")
    return Path(base) / f"claims-{digest[:32]}.json"


def _rows(listing: Any) -> list[dict] | None:
    """The listing's rows if it is one (a list of objects with the listing's string fields), else None."""
    if not isinstance(listing, list):
        return None
    for row in listing:
        if not (isinstance(row, dict) and set(row) == set(_FIELDS)
                and all(isinstance(row[k], str) for k in _FIELDS if k != "proof")
                and (row["proof"] is None or isinstance(row["proof"], str))):
            return None
    return listing


def cached_listing(only: str | None = None) -> list[dict] | None:
    """The shipped rooms' claims as listing rows (id, source, statement, method, expected, proof),
    from a cache written for the package files as they are now; None when there is none."""
    if only is not None and not (isinstance(only, str) and only.strip()):
        raise (ValueError if isinstance(only, str) else TypeError)(
            f"only must be None or a non-empty claim id prefix, got {only!r}")
    digest = package_digest()
    try:
        data = json.loads(_cache_file(digest).read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        return None
    if not isinstance(data, dict) or data.get("digest") != digest:
        return None
    rows = _rows(data.get("claims"))
    if rows is None:
        return None
    return [r for r in rows if not only or r["id"].startswith(only)]


def listing_row(c: Any) -> dict:
    """A claim's listing row."""
    return {"id": c.id, "source": str(c.source), "statement": c.statement, "method": c.method.value,
            "expected": c.expected.value, "proof": c.proof}


def remember() -> bool:
    """Write the listing of every shipped claim to the cache (the shipped rooms are loaded first, if
    they were not); False when a claims module failed to import or the cache could not be written."""
    from dpverify.atomic import atomic_write_text
    from dpverify.claims.registry import all_claims
    from dpverify.rooms import rooms

    shipped = {r.name for r in rooms() if r.shipped}
    claims = all_claims(skip=[r.name for r in rooms() if r.name not in shipped])
    modules = [getattr(c.check, "__module__", None) or "" for c in claims]
    if "dpverify.claims.store" in modules:  # a module that failed to import (a missing library, say): not cached
        return False
    rows = [listing_row(c) for c, m in zip(claims, modules) if m.startswith("dpverify.")]
    digest = package_digest()
    try:
        path = _cache_file(digest)
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_text(path, json.dumps({"digest": digest, "claims": rows}, ensure_ascii=False), force=True)
    except (OSError, ValueError):
        return False
    return True
