"""The shape of the source tree, read with ``ast``: imports between modules, sizes, private names.

Used by ``tests/test_architecture.py`` (which gates the numbers) and runnable as a script that
prints them: ``python3 tests/architecture.py``.

- a module's imports are every ``import``/``from ... import`` in it, at any depth (a function-level
  import still ties two modules together); ``from pkg import name`` where ``pkg.name`` is a module
  counts as an import of that module;
- an *import circle* is a strongly connected component of more than one module in that graph;
- a *private import* is ``from a.b import _name`` (or ``a.b._mod``) in a module other than ``a.b``
  itself; it *crosses* top-level subpackages when the importer and ``a.b`` sit under different
  ``dpverify.<x>``;
- a *room* is a subpackage with a ``room.py``; the *engine* is ``dpverify.audit``,
  ``dpverify.claims``, ``dpverify.report``, ``dpverify.mechanisms`` and ``dpverify.cli``.
"""

from __future__ import annotations

import ast
import sys
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "dpverify"
ENGINE = ("dpverify.audit", "dpverify.claims", "dpverify.report", "dpverify.mechanisms", "dpverify.cli",
          "dpverify.rooms", "dpverify.declarations", "dpverify.toolkit", "dpverify.pytest_plugin",
          "dpverify.proofdocs", "dpverify.validation", "dpverify.budget", "dpverify.atomic", "dpverify.progress",
          "dpverify.console")


def module_name(path: Path, root: Path | None = None) -> str:
    rel = path.relative_to(root or ROOT).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


@dataclass
class Tree:
    package: Path = PACKAGE
    modules: dict[str, Path] = field(default_factory=dict)
    imports: dict[str, set[str]] = field(default_factory=dict)
    private: list[tuple[str, str, str]] = field(default_factory=list)  # importer, module, name
    long_modules: list[tuple[str, int]] = field(default_factory=list)
    long_functions: list[tuple[str, str, int]] = field(default_factory=list)

    @property
    def rooms(self) -> set[str]:
        """Every room: a subpackage holding a ``room.py``."""
        return {module_name(p.parent, self.package.parent) for p in self.package.glob("*/room.py")}

    def circles(self) -> list[list[str]]:
        return [c for c in _scc(self.imports) if len(c) > 1]

    def engine_to_room(self) -> list[tuple[str, str]]:
        rooms = self.rooms
        out = []
        for a, targets in self.imports.items():
            if not _under(a, ENGINE):
                continue
            for b in targets:
                if _under(b, tuple(rooms)):
                    out.append((a, b))
        return sorted(out)

    def private_across(self) -> list[tuple[str, str, str]]:
        return [(a, m, n) for a, m, n in self.private if top(a) != top(m)]


def top(mod: str) -> str:
    return ".".join(mod.split(".")[:2])


def _under(mod: str, prefixes) -> bool:
    return any(mod == p or mod.startswith(p + ".") for p in prefixes)


def _resolve(importer: str, is_pkg: bool, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    base = importer.split(".")
    if not is_pkg:
        base = base[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def read_tree(package: Path = PACKAGE) -> Tree:
    t = Tree(package=package)
    for path in sorted(package.rglob("*.py")):
        if "__pycache__" in path.parts:
            continue
        t.modules[module_name(path, package.parent)] = path
    for name, path in t.modules.items():
        text = path.read_text(encoding="utf-8")
        lines = len(text.splitlines())
        if lines > 400:
            t.long_modules.append((name, lines))
        tree = ast.parse(text)
        deps: set[str] = set()
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                span = node.end_lineno - node.lineno + 1
                if span > 100:
                    t.long_functions.append((name, node.name, span))
            if isinstance(node, ast.Import):
                for a in node.names:
                    if a.name.startswith("dpverify"):
                        deps.add(_existing(t, a.name))
                        if a.name.rsplit(".", 1)[-1].startswith("_") and _existing(t, a.name) != name:
                            t.private.append((name, a.name.rsplit(".", 1)[0], a.name.rsplit(".", 1)[-1]))
            elif isinstance(node, ast.ImportFrom):
                src = _resolve(name, path.name == "__init__.py", node)
                if not src.startswith("dpverify"):
                    continue
                for a in node.names:
                    sub = f"{src}.{a.name}"
                    target = sub if sub in t.modules else _existing(t, src)
                    deps.add(target)
                    if a.name.startswith("_") and not a.name.startswith("__") and target != name:
                        t.private.append((name, src, a.name))
                if any(p.startswith("_") and not p.startswith("__") for p in src.split(".")[1:]):
                    if _existing(t, src) != name and top(src) != top(name):
                        t.private.append((name, src, "*"))
        deps.discard(name)
        t.imports[name] = {d for d in deps if d}
    return t


def _existing(t: Tree, mod: str) -> str:
    while mod and mod not in t.modules:
        mod = mod.rpartition(".")[0]
    return mod


def _scc(graph: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's strongly connected components (iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on: set[str] = set()
    stack: list[str] = []
    out: list[list[str]] = []
    counter = 0
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph.get(root, ()))))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            for w in it:
                if w not in graph:
                    continue
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(graph.get(w, ())))))
                    break
                if w in on:
                    low[v] = min(low[v], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    comp = []
                    while True:
                        w = stack.pop()
                        on.discard(w)
                        comp.append(w)
                        if w == v:
                            break
                    out.append(sorted(comp))
    return out


def summary(t: Tree) -> dict:
    return {
        "modules": len(t.modules),
        "import circles": len(t.circles()),
        "engine -> room imports": len(t.engine_to_room()),
        "private imports": len(t.private),
        "private imports across subpackages": len(t.private_across()),
        "modules over 400 lines": len(t.long_modules),
        "functions over 100 lines": len(t.long_functions),
    }


if __name__ == "__main__":
    tree = read_tree()
    for k, v in summary(tree).items():
        print(f"{k}: {v}")
    if "-v" in sys.argv:
        print("circles:", *tree.circles(), sep="\n  ")
        print("engine -> room:", *tree.engine_to_room(), sep="\n  ")
        print("private across:", *tree.private_across(), sep="\n  ")
        print("long modules:", *tree.long_modules, sep="\n  ")
        print("long functions:", *tree.long_functions, sep="\n  ")
