"""Claims from outside the package: files, folders and dotted modules.

:func:`load_sources` imports what it is given, and only that (the shipped rooms are not
loaded), and returns the claims those imports registered.  A file is imported the way
pytest's default ("prepend") import mode imports a test module, so ``dpverify verify FILE``
and ``pytest FILE`` see one module: its folder goes first on ``sys.path`` and it may import
its neighbours.  A file that fails to import becomes one ``error`` claim with the traceback.
"""

from __future__ import annotations

import fnmatch
import importlib
import importlib.util
import pkgutil
import re
import sys
from pathlib import Path
from typing import Iterable

from dpverify.claims.model import Claim
from dpverify.claims.registry import _REGISTRY, _SOURCES, _register_import_failure

__all__ = ["CLAIM_FILE_PATTERNS", "SourceError", "is_claims_file", "load_sources"]

#: File names whose claims ``dpverify verify FOLDER`` picks up.
CLAIM_FILE_PATTERNS = ("claims.py", "claims_*.py", "*_claims.py")
_MODULE_RE = re.compile(r"^[A-Za-z_]\w*(\.[A-Za-z_]\w*)*$")


class SourceError(ValueError):
    """A path or module given to :func:`load_sources` does not exist."""


def is_claims_file(path: str | Path, patterns: Iterable[str] = CLAIM_FILE_PATTERNS) -> bool:
    """Whether a file name matches the claims-file patterns."""
    name = Path(path).name
    return name.endswith(".py") and any(fnmatch.fnmatch(name, p) for p in patterns)


def _module_of_file(path: Path):
    """Import a Python file as pytest's default ('prepend') import mode does.

    The module name is the dotted path from the first folder above without
    ``__init__.py``; that folder goes first on ``sys.path`` so the file can
    import its neighbours.  A file already imported (under any name) is reused.
    """
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


def _claims_of(files: set[str], before: dict[str, Claim]) -> list[Claim]:
    return [c for cid, c in _REGISTRY.items() if _SOURCES.get(cid) in files or before.get(cid) is not c]


def _load_file(path: Path) -> list[Claim]:
    before = dict(_REGISTRY)
    try:
        _module_of_file(path)
    except (KeyboardInterrupt, GeneratorExit):
        raise
    except BaseException:  # a claims file that raises, exits or skips is an error result
        room = re.sub(r"\W", "_", path.stem) or "file"
        room = room if room[0].isalpha() or room[0] == "_" else f"_{room}"
        return [_register_import_failure(room, str(path))]
    return _claims_of({str(path)}, before)


def _load_module(name: str) -> list[Claim]:
    before = dict(_REGISTRY)
    files: set[str] = set()
    try:
        mod = importlib.import_module(name)
        mods = [mod]
        if hasattr(mod, "__path__"):
            for sub in pkgutil.iter_modules(mod.__path__):
                if sub.name == "claims" or sub.name.startswith("claims_"):
                    mods.append(importlib.import_module(f"{name}.{sub.name}"))
        files = {str(Path(m.__file__).resolve()) for m in mods if getattr(m, "__file__", None)}
    except (KeyboardInterrupt, GeneratorExit):
        raise
    except BaseException:  # a claims file that raises, exits or skips is an error result
        room = name.split(".")[-1] if name.split(".")[0] != "dpverify" else name.split(".")[1]
        return [_register_import_failure(room, name)]
    return _claims_of(files, before)


def load_sources(specs: Iterable[str], patterns: Iterable[str] = CLAIM_FILE_PATTERNS) -> list[Claim]:
    """Import the claims of files, folders and dotted modules; return them sorted by id.

    A folder contributes its files matching ``patterns`` (recursively; hidden
    folders and ``__pycache__`` skipped).  A module contributes the claims its
    import registers (a package: also its ``claims`` / ``claims_*`` submodules).
    Only these are imported: the shipped rooms are not, unless named.  A file
    that fails to import becomes one ``error`` claim carrying the traceback.
    A path that does not exist and is no importable module raises
    :class:`SourceError`.
    """
    patterns = tuple(patterns)
    found: dict[str, Claim] = {}
    for spec in specs:
        p = Path(spec)
        if p.is_file():
            if p.suffix != ".py":
                raise SourceError(f"{spec}: not a Python file")
            claims = _load_file(p.resolve())
        elif p.is_dir():
            claims = []
            for f in _claim_files(p, patterns):
                claims += _load_file(f)
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


def _claim_files(folder: Path, patterns: tuple[str, ...]) -> list[Path]:
    out = []
    for f in sorted(folder.rglob("*.py")):
        rel = f.relative_to(folder).parts[:-1]
        if any(part.startswith(".") or part == "__pycache__" for part in rel):
            continue
        if is_claims_file(f, patterns):
            out.append(f.resolve())
    return out
