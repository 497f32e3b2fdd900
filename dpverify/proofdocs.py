"""Executable proof documents and their ties to the code.

A proof document lives in its room's ``proofs/`` folder (``dpverify/<room>/proofs/<file>.md``;
the auditor's in ``dpverify/audit/proofs/``) and is named one way everywhere:
``"<room>/<file>.md"`` (``claim(proof=...)``, ``@proven(...)``, the report), resolved by
:func:`dpverify.rooms.proof_path`.

Format of a proof document (Markdown):

- sections, in this order: ``## Statement``, ``## Assumptions``,
  ``## Derivation``, ``## What the code relies on``;
- every fenced ````` ```python ````` block is executed, in order, in one
  namespace per document; sympy steps ``assert`` what they claim;
- a fenced ````` ```quote dpverify/room/module.py:label ````` block quotes the
  lines of the library that carry the trailing comment ``# proof: label``.
  The quoted lines must equal those code lines (label comment removed,
  surrounding whitespace ignored), so code and proof cannot drift apart.

Example
-------
>>> doc = "## Statement\\nx\\n## Assumptions\\n## Derivation\\n```python\\nassert 1 + 1 == 2\\n```\\n## What the code relies on\\n"
>>> [b.kind for b in parse_blocks(doc)]
['python']
"""

from __future__ import annotations

import re
from typing import Any, Callable, TypeVar
from dataclasses import dataclass
from pathlib import Path

from dpverify.plain_checks import check_path
from dpverify.rooms import proof_name

REQUIRED_SECTIONS = ("## Statement", "## Assumptions", "## Derivation", "## What the code relies on")
LABEL_RE = re.compile(r"#\s*proof:\s*([A-Za-z0-9_.\-]+)\s*$")
_FENCE_RE = re.compile(r"^```([^\n`]*)\n(.*?)^```\s*$", re.S | re.M)


@dataclass(frozen=True)
class Block:
    kind: str  # "python" or "quote" (others are ignored)
    arg: str  # for quote: "path:label"
    code: str
    line: int  # 1-based line of the opening fence


def repo_root() -> Path:
    """The folder holding ``dpverify/`` (a source tree's root, or site-packages): quotes are relative to it."""
    return Path(__file__).resolve().parent.parent


def parse_blocks(text: str) -> list[Block]:
    out = []
    for m in _FENCE_RE.finditer(text):
        info = m.group(1).strip().split(None, 1)
        kind = info[0] if info else ""
        arg = info[1] if len(info) > 1 else ""
        line = text.count("\n", 0, m.start()) + 1
        if kind in ("python", "quote"):
            out.append(Block(kind, arg.strip(), m.group(2), line))
    return out


def check_sections(text: str, name: str = "<doc>") -> None:
    """Raise ``AssertionError`` unless the four sections appear, in order."""
    pos = -1
    for s in REQUIRED_SECTIONS:
        m = re.search(rf"^{re.escape(s)}\s*$", text, re.M)
        assert m is not None, f"{name}: missing section {s!r}"
        assert m.start() > pos, f"{name}: section {s!r} out of order"
        pos = m.start()


def labelled_lines(path: Path, label: str) -> list[str]:
    """The code lines of ``path`` carrying ``# proof: label``, comment removed, stripped."""
    lines = []
    for raw in check_path(path, "path").read_text(encoding="utf-8").splitlines():
        m = LABEL_RE.search(raw)
        if m and m.group(1) == label:
            lines.append(raw[: m.start()].strip())
    return lines


def _norm(code: str) -> list[str]:
    return [ln.strip() for ln in code.splitlines() if ln.strip()]


def check_quote(block: Block, root: Path | None = None) -> None:
    """Raise ``AssertionError`` if a quote block differs from the labelled code."""
    root = repo_root() if root is None else check_path(root, "root")  # '' is no root, not the current folder
    path_s, sep, label = block.arg.rpartition(":")
    assert sep and path_s and label, f"quote block at line {block.line} needs 'path:label', got {block.arg!r}"
    path = root / path_s
    assert path.is_file(), f"quote block at line {block.line}: no file {path_s}"
    code = labelled_lines(path, label)
    assert code, f"quote block at line {block.line}: no line labelled '# proof: {label}' in {path_s}"
    quoted = _norm(block.code)
    assert quoted == code, (
        f"proof quote {path_s}:{label} (line {block.line}) drifted from the code:\n"
        f"quoted: {quoted}\ncode:   {code}"
    )


def run_document(path: Path, root: Path | None = None) -> dict:
    """Check sections, execute python blocks in order, verify quotes; return the namespace."""
    path = check_path(path, "path")
    if root is not None:
        check_path(root, "root")
    text = path.read_text(encoding="utf-8")
    check_sections(text, str(path))
    ns: dict = {"__name__": f"proof:{Path(path).stem}"}
    for b in parse_blocks(text):
        if b.kind == "python":
            code = compile(b.code, f"{path}:{b.line}", "exec")
            exec(code, ns)
        else:
            check_quote(b, root)
    return ns


def all_documents(root: Path | None = None) -> list[Path]:
    """Every proof document: the ``proofs/*.md`` of every room (and of the auditor).

    With ``root`` (a source tree), those under ``root/dpverify/*/proofs``; without, those of
    :func:`dpverify.rooms.proof_rooms` (installed rooms included).
    """
    if root is not None:
        folders = sorted(check_path(root, "root").glob("dpverify/*/proofs"))
    else:
        from dpverify.rooms import proof_rooms

        folders = list(proof_rooms().values())
    return sorted(p for f in folders for p in f.glob("*.md") if p.name != "README.md")


def document_name(path: Path) -> str:
    """The name ``"<room>/<file>.md"`` of a proof document found at ``<room folder>/proofs/<file>.md``."""
    path = check_path(path, "path")
    return f"{path.parent.parent.name}/{path.name}"


# ----------------------------------------------------------------- proof ↔ code links

PROVEN_ATTR = "__proofs__"


_F = TypeVar("_F", bound=Callable[..., Any])


def proven(*documents: str) -> Callable[[_F], _F]:
    """Mark a function as justified by proof documents (``"<room>/<file>.md"``).

    The marker changes nothing at run time: it records the documents on the
    function (attribute ``__proofs__``) so that readers, reports and
    ``tests/test_proofs.py`` can follow the link; the test checks that every
    document named exists and that every proof document is cited by a claim
    or by a marked function.

    Example
    -------
    >>> @proven("survey/laplace_dp.md")
    ... def f(x):
    ...     return x
    >>> f.__proofs__, f(2)
    (('survey/laplace_dp.md',), 2)
    """
    if not documents:
        raise ValueError("proven() needs at least one proof document path")
    names = tuple(proof_name(d) for d in documents)

    def deco(fn: _F) -> _F:
        setattr(fn, PROVEN_ATTR, tuple(getattr(fn, PROVEN_ATTR, ())) + names)
        return fn

    return deco


def proven_references(root: Path | None = None) -> list[tuple[str, str, str]]:
    """Every ``@proven(...)`` marker in the package source: ``(file, function, "<room>/<file>.md")``.

    Read from the source text (nothing is imported), relative to ``root``.
    """
    import ast

    root = repo_root() if root is None else check_path(root, "root")
    out = []
    for path in sorted((root / "dpverify").rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        if "proven(" not in text:
            continue
        for node in ast.walk(ast.parse(text)):
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                continue
            for dec in node.decorator_list:
                if isinstance(dec, ast.Call) and getattr(dec.func, "id", getattr(dec.func, "attr", None)) == "proven":
                    for arg in dec.args:
                        if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                            out.append((str(path.relative_to(root)), node.name, proof_name(arg.value)))
    return out


def labelled_lines_all(root: Path | None = None) -> list[tuple[str, str]]:
    """Every ``# proof: label`` in the package source: ``(file, label)``."""
    root = repo_root() if root is None else check_path(root, "root")
    out = set()
    for path in sorted((root / "dpverify").rglob("*.py")):
        for raw in path.read_text(encoding="utf-8").splitlines():
            m = LABEL_RE.search(raw)
            if m:
                out.add((str(path.relative_to(root)), m.group(1)))
    return sorted(out)
