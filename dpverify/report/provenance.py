"""How a report was made: versions, git revision, platform, seeds -- so it can be rerun.

Example
-------
>>> p = collect_provenance(command="dpverify report --out r")
>>> sorted(p)[:3]
['command', 'cpu_count', 'dpverify_version']
>>> find_seeds({"seed": 7, "inner": {"rng_seed": [1, 2]}, "n": 3})
{'seed': 7, 'inner.rng_seed': [1, 2]}
"""

from __future__ import annotations

import os
import platform
import subprocess
import sys
from datetime import datetime, timezone
from importlib import metadata
from pathlib import Path
from typing import Any, Mapping

from dpverify.validation import check_path

__all__ = ["PACKAGES", "collect_provenance", "git_revision", "package_versions", "find_seeds"]

#: Packages whose versions decide the numbers of a run.
PACKAGES = ("numpy", "scipy", "sympy", "cvxpy", "clarabel", "highspy", "matplotlib", "scikit-learn", "rich")


def package_versions(names: tuple[str, ...] = PACKAGES) -> dict[str, str]:
    """Installed version of each package, ``"not installed"`` when absent."""
    if isinstance(names, (str, bytes)) or not isinstance(names, (tuple, list)) or len(names) > 1000 or not all(
            isinstance(n, str) and n for n in names):
        raise TypeError(f"names must be a tuple of (at most 1000) package names, got {names!r}")
    out = {}
    for name in names:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = "not installed"
    return out


def git_revision(path: str | Path | None = None) -> dict[str, Any]:
    """``{"revision": sha or "unknown", "dirty": bool or None}`` of the checkout holding ``path``.

    Read-only: ``git rev-parse HEAD`` and ``git --no-optional-locks status``
    (which does not even refresh the index).  Outside a checkout, or without
    git, the revision is ``"unknown"``.
    """
    where = check_path(path, "path") if path is not None else Path(__file__).resolve().parent
    try:
        rev = subprocess.run(["git", "rev-parse", "HEAD"], cwd=where, capture_output=True, text=True,
                             timeout=10, check=True).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return {"revision": "unknown", "dirty": None}
    try:
        st = subprocess.run(["git", "--no-optional-locks", "status", "--porcelain", "--untracked-files=no"],
                            cwd=where, capture_output=True, text=True, timeout=20, check=True).stdout
        dirty: bool | None = bool(st.strip())
    except (OSError, subprocess.SubprocessError):
        dirty = None
    return {"revision": rev or "unknown", "dirty": dirty}


def collect_provenance(*, command: str | None = None, started: datetime | None = None) -> dict[str, Any]:
    """Everything a second auditor needs to rerun a report and compare.

    Parameters
    ----------
    command : str, optional
        The command line that made the report (default: ``sys.argv`` joined).
    started : datetime, optional
        When the run started (default: now, UTC).
    """
    import dpverify

    if command is not None and not isinstance(command, str):
        raise TypeError(f"command must be a string, got {command!r} of type {type(command).__name__}")
    if started is not None and not isinstance(started, datetime):
        raise TypeError(f"started must be a datetime or None, got {started!r} of type {type(started).__name__}")
    git = git_revision()
    return {
        "dpverify_version": dpverify.__version__,
        "git_revision": git["revision"],
        "git_dirty": git["dirty"],
        "python": sys.version.split()[0],
        "python_implementation": platform.python_implementation(),
        "platform": platform.platform(),
        "machine": platform.machine(),
        "cpu_count": os.cpu_count(),
        "packages": package_versions(),
        "command": command if command is not None else " ".join([Path(sys.argv[0]).name, *sys.argv[1:]]),
        "started_utc": (started or datetime.now(timezone.utc)).isoformat(timespec="seconds"),
    }


def find_seeds(evidence: Mapping[str, Any], _prefix: str = "") -> dict[str, Any]:
    """Every evidence entry whose key mentions a seed (``seed``, ``seeds``, ``rng_seed``, ...).

    Nested mappings are searched too; the result maps dotted paths to values.
    """
    if not isinstance(evidence, Mapping):
        raise TypeError(f"evidence must be a mapping, got {type(evidence).__name__}")
    out: dict[str, Any] = {}
    for k, v in evidence.items():
        path = f"{_prefix}{k}"
        if "seed" in str(k).lower():
            out[path] = v
        elif isinstance(v, Mapping):
            out.update(find_seeds(v, path + "."))
    return out
