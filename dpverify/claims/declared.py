"""The claims a file declares, read from its text with :mod:`ast` (the file is neither imported nor run).

When a claims file cannot be loaded (it calls ``os._exit``, is killed, blocks or raises while it
is imported), ``dpverify verify`` still owes a result for every claim the file declares.  This
module finds them without running the file: every call of :func:`dpverify.claims.claim` (as a
decorator, ``@claim("room.name", ...)``, or called, ``claim(id="room.name", ...)(check)``) and
every ``register(Claim(...))``, under any name the file imports them by (``from dpverify.claims
import claim as c``, ``import dpverify.claims as dc`` then ``@dc.claim(...)``, a star import).

An id is *named* when it is a literal: a string, an f-string without fields, or a module-level
name bound once to a string.  Any other id (an f-string with fields, a loop variable, a call) is
computed when the file runs; such a declaration is only counted, with its line, and never given
an invented id.  A declaration inside a function, a loop or a condition may register its claim
zero or several times when the file runs: each :class:`Declared` says where it stands.
The literal ``expected``, ``method``, ``statement`` and ``source`` of a declaration are read too.

:func:`source_files` finds the files of a source (a file, a folder, a dotted module) without
importing anything; :func:`dpverify.claims.execute.unloaded_results` turns what they declare into
``error`` results.

Example
-------
>>> d = declared_in_text('''
... from dpverify.claims import claim
... @claim("zz.one", source=("paper",), statement="1 = 1", method="property", expected="refuted")
... def _one(thorough=False): ...
... for k in range(3):
...     claim(f"zz.loop{k}", source=("p",), statement="s", method="property")(lambda thorough=False: None)
... ''')
>>> [(c.id, c.line, c.expected) for c in d.claims], d.unnamed
([('zz.one', 3, 'refuted')], (6,))
"""

from __future__ import annotations

import ast
import os
from dataclasses import dataclass
from pathlib import Path

import sys

import numpy as np

from dpverify.claims.model import Method, Verdict
from dpverify.claims.store import ID_RE
from dpverify.rooms import is_claims_file
from dpverify.budget import check_elements
from dpverify.validation import check_positive_int

__all__ = ["Declarations", "Declared", "declared_in_file", "declared_in_text", "source_files"]

_CLAIMS_MODULES = ("dpverify.claims", "dpverify.claims.registry", "dpverify.claims.store", "dpverify.claims.model")
_NAMES = ("claim", "register", "Claim")
_SCOPES = {ast.Lambda: "function",
           ast.For: "loop", ast.AsyncFor: "loop", ast.While: "loop", ast.ListComp: "loop", ast.SetComp: "loop",
           ast.DictComp: "loop", ast.GeneratorExp: "loop", ast.If: "condition", ast.IfExp: "condition",
           ast.Try: "condition", ast.With: "condition", ast.AsyncWith: "condition", ast.Match: "condition"}
_WHERE = {"function": "inside a function: registered only if it is called",
          "loop": "inside a loop", "condition": "inside a condition: registered only if it is reached"}


@dataclass(frozen=True)
class Declared:
    """One claim a file declares with a literal id.

    ``expected``, ``method``, ``statement`` and ``source`` (a tuple of strings) are the literal
    arguments, None where the file computes them; ``where`` is "" at module level, else why the
    declaration may not run exactly once.
    """

    id: str
    line: int
    expected: str | None = None
    method: str | None = None
    statement: str | None = None
    source: tuple[str, ...] | None = None
    where: str = ""

    @property
    def at_import(self) -> bool:
        """Whether importing the file reaches the declaration (it is not inside a function's body)."""
        return self.where != _WHERE["function"]

    def __post_init__(self) -> None:
        if not isinstance(self.id, str) or not ID_RE.match(self.id):
            raise (ValueError if isinstance(self.id, str) else TypeError)(
                f"id must be a claim id '<room>.<name>', got {self.id!r}")
        object.__setattr__(self, "line", check_positive_int(self.line, "line"))  # numpy integers too: an int
        for name in ("expected", "method", "statement", "where"):
            value = getattr(self, name)
            if not isinstance(value, str) and (value is not None or name == "where"):
                raise TypeError(f"{name} must be a string{'' if name == 'where' else ' or None'}, got {value!r}")
        if self.source is not None and (not isinstance(self.source, tuple) or not 1 <= len(self.source) <= 3
                                        or not all(isinstance(x, str) and x.strip() for x in self.source)):
            raise TypeError(f"source must be None or a tuple of 1 to 3 non-empty strings, got {self.source!r}")


@dataclass(frozen=True)
class Declarations:
    """What a file declares: the claims with literal ids (each id once, first line kept) and the
    lines of the declarations whose id is computed when the file runs."""

    claims: tuple[Declared, ...]
    unnamed: tuple[int, ...]

    def __post_init__(self) -> None:
        if not isinstance(self.claims, tuple) or not all(isinstance(c, Declared) for c in self.claims):
            bad = self.claims if not isinstance(self.claims, tuple) else next(
                c for c in self.claims if not isinstance(c, Declared))
            raise TypeError(f"claims must be a tuple of Declared, got {'a' if bad is self.claims else 'an item of type'} "
                            f"{type(bad).__name__}")
        u = self.unnamed
        if isinstance(u, np.ndarray):  # a 1-D integer array is read as the tuple of its entries
            check_elements(u, "unnamed")
            u = u.tolist() if u.ndim == 1 else None
        if not isinstance(u, (tuple, list)):
            raise TypeError(f"unnamed must be a tuple of line numbers (ints >= 1), got a {type(self.unnamed).__name__}")
        object.__setattr__(self, "unnamed", tuple(check_positive_int(n, "unnamed") for n in u))


def declared_in_file(path: str | os.PathLike) -> Declarations:
    """The claims a Python file declares, read without importing it.

    Parameters
    ----------
    path : str or path-like
        A Python file.

    Raises
    ------
    SyntaxError
        The file does not parse (then nothing can be said about its claims).
    ValueError
        The file nests an expression too deeply to be parsed or read (a RecursionError or
        MemoryError inside :mod:`ast`).
    OSError
        The file cannot be read.

    Example
    -------
    >>> import tempfile, pathlib
    >>> f = pathlib.Path(tempfile.mkdtemp()) / "claims_x.py"
    >>> _ = f.write_text("import dpverify.claims as dc\\n@dc.claim(id='zz.x', source=('p',), statement='s', "
    ...                  "method='property')\\ndef _x(thorough=False): ...\\n")
    >>> [c.id for c in declared_in_file(f).claims]
    ['zz.x']
    """
    if not isinstance(path, (str, os.PathLike)) or isinstance(path, str) and not path.strip():
        raise (ValueError if isinstance(path, str) else TypeError)(f"path must be a non-empty path, got {path!r}")
    p = Path(path)
    return declared_in_text(p.read_text(encoding="utf-8", errors="replace"), str(p))


def declared_in_text(text: str, filename: str = "<claims file>") -> Declarations:
    """The claims a file's text declares (see the module's docstring); SyntaxError if it does not parse,
    ValueError if it is nested too deeply to read."""
    if not isinstance(text, str):
        raise TypeError(f"text must be a string (a file's text), got {type(text).__name__}")
    if not isinstance(filename, str):
        raise TypeError(f"filename must be a string, got {type(filename).__name__}")
    try:
        tree = ast.parse(text, filename=filename)
        finder = _Finder(_bindings(tree), _constants(tree))
        finder.visit(tree)
    except (RecursionError, MemoryError) as exc:  # an expression nested too deep to read (or to parse)
        raise ValueError(f"{filename} is nested too deeply to be read without running it "
                         f"({type(exc).__name__})") from None
    return Declarations(tuple(finder.found.values()), tuple(sorted(set(finder.unnamed))))


def _bindings(tree: ast.Module) -> dict[str, str]:
    """Dotted names in the file -> "claim", "register", "Claim", or "module" (a claims module)."""
    out: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            for a in node.names:
                full = f"{node.module}.{a.name}"
                if node.module in _CLAIMS_MODULES and a.name == "*":
                    out.update({n: n for n in _NAMES})
                elif node.module in _CLAIMS_MODULES and a.name in _NAMES:
                    out[a.asname or a.name] = a.name
                elif full in _CLAIMS_MODULES:
                    out[a.asname or a.name] = "module"
        elif isinstance(node, ast.Import):
            for a in node.names:
                if a.name in _CLAIMS_MODULES:
                    out[a.asname or a.name] = "module"
                elif a.asname is None and any(m.startswith(a.name + ".") for m in _CLAIMS_MODULES):
                    for m in _CLAIMS_MODULES:  # "import dpverify": dpverify.claims.claim is reachable
                        out.setdefault(m, "module")
    return out


def _constants(tree: ast.Module) -> dict[str, ast.expr]:
    """Module-level names bound exactly once in the file (``NAME = value``), with their value's node."""
    count: dict[str, int] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            count[node.id] = count.get(node.id, 0) + 1
    out = {node.targets[0].id: node.value for node in tree.body
           if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)}
    return {k: v for k, v in out.items() if count.get(k) == 1}


def _dotted(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        inner = _dotted(node.value)
        return None if inner is None else f"{inner}.{node.attr}"
    return None


class _Finder(ast.NodeVisitor):
    """Walks the tree keeping the enclosing scopes; records each claim declaration."""

    def __init__(self, bindings: dict[str, str], constants: dict[str, ast.expr]) -> None:
        self.bindings, self.constants = bindings, constants
        self.scopes: list[str] = []
        self.found: dict[str, Declared] = {}
        self.unnamed: list[int] = []

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        """Decorators and defaults run where the function is defined; only its body is inside it."""
        for outer in (*node.decorator_list, *node.args.defaults, *node.args.kw_defaults):
            if outer is not None:
                self.visit(outer)
        self.scopes.append("function")
        for stmt in node.body:
            self.visit(stmt)
        self.scopes.pop()

    visit_AsyncFunctionDef = visit_FunctionDef

    def generic_visit(self, node: ast.AST) -> None:
        scope = _SCOPES.get(type(node))
        if scope is not None:
            self.scopes.append(scope)
        if isinstance(node, ast.Call):
            self._call(node)
        super().generic_visit(node)
        if scope is not None:
            self.scopes.pop()

    def _kind(self, func: ast.expr) -> str | None:
        name = _dotted(func)
        if name is None:
            return None
        if self.bindings.get(name) in _NAMES:
            return self.bindings[name]
        head, _, last = name.rpartition(".")
        return last if last in _NAMES and self.bindings.get(head) == "module" else None

    def _call(self, node: ast.Call) -> None:
        kind = self._kind(node.func)
        if kind == "claim":
            self._declare(node)
        elif kind == "register":  # register(Claim(...)); anything else passed is counted, unnamed
            arg = node.args[0] if node.args else next((k.value for k in node.keywords if k.arg == "c"), None)
            if not (isinstance(arg, ast.Call) and self._kind(arg.func) == "Claim"):
                self.unnamed.append(node.lineno)
            else:
                self._declare(arg)

    def _declare(self, node: ast.Call) -> None:
        kw = {k.arg: k.value for k in node.keywords if k.arg is not None}
        id_node = node.args[0] if node.args else kw.get("id")
        cid = self._text(id_node)
        if cid is None or not ID_RE.match(cid):
            self.unnamed.append(node.lineno)
            return
        where = next((_WHERE[s] for s in ("function", "loop", "condition") if s in self.scopes), "")
        expected = self._choice(kw.get("expected"), Verdict) if "expected" in kw else Verdict.HOLDS.value
        src = self._source(kw.get("source"))
        self.found.setdefault(cid, Declared(cid, node.lineno, expected, self._choice(kw.get("method"), Method),
                                            self._text(kw.get("statement")), src, where))

    def _resolve(self, node: ast.expr | None) -> ast.expr | None:
        if isinstance(node, ast.Name) and node.id in self.constants:
            return self.constants[node.id]
        return node

    def _text(self, node: ast.expr | None) -> str | None:
        node = self._resolve(node)
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return node.value
        if isinstance(node, ast.JoinedStr) and all(isinstance(v, ast.Constant) for v in node.values):
            return "".join(str(v.value) for v in node.values)
        return None

    def _choice(self, node: ast.expr | None, kind: type) -> str | None:
        node = self._resolve(node)
        text = self._text(node)
        if text is None and isinstance(node, ast.Attribute) and _dotted(node.value) in (kind.__name__,):
            return kind[node.attr].value if node.attr in kind.__members__ else None
        try:
            return kind(text).value if text is not None else None
        except ValueError:
            return None

    def _source(self, node: ast.expr | None) -> tuple[str, ...] | None:
        node = self._resolve(node)
        parts = (node.elts if isinstance(node, ast.Tuple) else
                 node.args if isinstance(node, ast.Call) and (_dotted(node.func) or "").rpartition(".")[2] == "Source"
                 and not node.keywords else None)
        if not parts or len(parts) > 3:
            return None
        texts = [self._text(p) for p in parts]
        return tuple(texts) if all(t is not None and t.strip() for t in texts) else None


def source_files(spec: str) -> list[Path]:
    """The Python files a source names (a file; a folder's claims files; a dotted module's file
    and, for a package, its claims modules), found without importing anything; [] if none.

    Example
    -------
    >>> source_files("no.such.module")
    []
    >>> any(f.name == "binary.py" for f in source_files("dpverify.rr"))
    True
    """
    from dpverify.claims.sources import claim_files

    if not isinstance(spec, str) or not spec.strip():
        raise ValueError(f"spec must be a non-empty path or module name, got {spec!r}")
    p = Path(spec)
    if p.is_file():
        return [p.resolve()]
    if p.is_dir():
        return claim_files(p)
    parts = spec.split(".")
    for root in sys.path:
        base = Path(root or ".").joinpath(*parts)
        if base.with_suffix(".py").is_file():
            return [base.with_suffix(".py").resolve()]
        if (base / "__init__.py").is_file():
            return [(base / "__init__.py").resolve()] + [
                f.resolve() for f in sorted(base.rglob("*.py")) if is_claims_file(f.relative_to(base))
                and not any(x.startswith((".", "_")) for x in f.relative_to(base).parts[:-1])]
    return []
