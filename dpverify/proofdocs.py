"""Executable proof documents (``proofs/**/*.md``) and their ties to the code.

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
from dataclasses import dataclass
from pathlib import Path

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
    """The source tree root (the folder holding ``proofs/`` and ``dpverify/``)."""
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
    for raw in path.read_text(encoding="utf-8").splitlines():
        m = LABEL_RE.search(raw)
        if m and m.group(1) == label:
            lines.append(raw[: m.start()].strip())
    return lines


def _norm(code: str) -> list[str]:
    return [ln.strip() for ln in code.splitlines() if ln.strip()]


def check_quote(block: Block, root: Path | None = None) -> None:
    """Raise ``AssertionError`` if a quote block differs from the labelled code."""
    root = root or repo_root()
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
    text = Path(path).read_text(encoding="utf-8")
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
    root = root or repo_root()
    return sorted(p for p in (root / "proofs").rglob("*.md") if p.name != "README.md")
