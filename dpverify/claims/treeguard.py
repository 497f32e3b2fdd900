"""A snapshot of the files under the claims' source folders, compared after every claim.

:class:`dpverify.claims.workers.FileGuard` hashes the files that define the claims; a check could
still change a module they import or add a data file beside them.  :class:`TreeSnapshot` records
``(size, mtime_ns, inode)`` of every file under each folder (found with :func:`os.scandir`, cheap
enough to repeat after every claim), skipping ``__pycache__``, ``.git``, tool caches and the
files a supervised run itself writes (its workers' working folders and stack files, which live in
the temporary folder a claims file may sit in).  A folder with more than :data:`MAX_FILES` files
is not snapshot (the defining files are still hashed) and :attr:`TreeSnapshot.notes` says so.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Iterable

#: No Python API: the parent-side file guard of :mod:`dpverify.claims.supervisor`.
__all__: list[str] = []

#: Most files a folder may hold for it to be snapshot.
MAX_FILES = 20_000

_SKIP_DIRS = frozenset({"__pycache__", ".git", ".hg", ".svn", ".pytest_cache", ".mypy_cache", ".ruff_cache",
                        ".hypothesis", ".tox", ".nox"})
_SKIP_PREFIXES = ("dpverify-work-", "dpverify-stack-", "pytest-of-")


def source_folders(files: Iterable[str]) -> list[str]:
    """The folders to watch for the defining ``files``: each file's folder, or for a file in a
    ``claims`` subpackage of a package, the package's folder (a shipped room's folder)."""
    out = set()
    for f in files:
        d = Path(f).resolve().parent
        if (d / "__init__.py").is_file() and (d.parent / "__init__.py").is_file():
            d = d.parent
        out.add(str(d))
    return sorted(d for d in out if not any(d != o and d.startswith(o.rstrip(os.sep) + os.sep) for o in out))


class TreeSnapshot:
    """``(size, mtime_ns, inode)`` of every file under ``folders``; :meth:`changed` names a difference."""

    def __init__(self, folders: Iterable[str]) -> None:
        self.notes: list[str] = []
        self.folders: list[str] = []
        for d in folders:
            files = _scan(d)
            if files is None:
                self.notes.append(f"{d} holds more than {MAX_FILES} files: only the files defining the claims "
                                  "are watched for changes")
            else:
                self.folders.append(d)
        self.state = {d: _scan(d) or {} for d in self.folders}

    def changed(self) -> str | None:
        """The first file under the folders that was added, removed or changed since the last call."""
        found = None
        for d in self.folders:
            now = _scan(d) or {}
            old = self.state[d]
            if now != old and found is None:
                diff = sorted((set(now) ^ set(old)) | {k for k in now.keys() & old.keys() if now[k] != old[k]})
                rel = diff[0] if diff else "?"
                what = "created" if rel in now and rel not in old else "removed" if rel not in now else "changed"
                found = f"{os.path.join(d, rel)} ({what})"
            self.state[d] = now  # blame one claim per change
        return found


def _scan(folder: str) -> dict[str, tuple[int, int, int]] | None:
    """The files under ``folder`` (relative path -> (size, mtime_ns, inode)); None past MAX_FILES."""
    out: dict[str, tuple[int, int, int]] = {}
    stack = [(folder, "")]
    while stack:
        path, rel = stack.pop()
        try:
            entries = list(os.scandir(path))
        except OSError:  # removed or unreadable meanwhile
            continue
        for e in entries:
            if e.name.startswith(_SKIP_PREFIXES):
                continue
            r = f"{rel}{e.name}"
            try:
                if e.is_dir(follow_symlinks=False):
                    if e.name not in _SKIP_DIRS:
                        stack.append((e.path, r + os.sep))
                    continue
                st = e.stat(follow_symlinks=False)
            except OSError:
                continue
            out[r] = (st.st_size, st.st_mtime_ns, st.st_ino)
            if len(out) > MAX_FILES:
                return None
    return out
