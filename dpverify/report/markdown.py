"""Proof documents (Markdown) as HTML for the report's appendix, links made in-page.

Example
-------
>>> render_markdown("# T\\n\\nsee [b](b.md)", {"b.md": "proof-b"}, "a.md")
'<h1>T</h1>\\n<p>see <a href="#proof-b">b</a></p>\\n'
"""

from __future__ import annotations

import html
import re
from pathlib import Path
from typing import Any, Mapping

from dpverify.validation import check_nonneg_int

__all__ = ["render_markdown", "normpath"]


def _e(text: Any) -> str:
    return html.escape(str(text), quote=True)


def render_markdown(text: str, link_map: Mapping[str, str], doc_path: str, *, shift: int = 0) -> str:
    """Markdown → HTML (raw HTML in the source is escaped); relative links become in-page links or text.

    ``shift`` moves headings down (``shift=3``: ``#`` becomes ``<h4>``), so a document
    embedded in a page keeps the page's single ``<h1>``; it is an integer in 0..5.
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be a str (Markdown), got {type(text).__name__}")
    if not isinstance(link_map, Mapping) or not all(isinstance(k, str) and isinstance(v, str) for k, v in link_map.items()):
        raise TypeError(f"link_map must map document paths to HTML ids (text to text), got {type(link_map).__name__}")
    if not isinstance(doc_path, str) or not doc_path.strip():
        raise TypeError(f"doc_path must be the document's path (non-empty text), got {doc_path!r}")
    shift = check_nonneg_int(shift, "shift", maximum=5)
    try:
        from markdown_it import MarkdownIt
    except ImportError:  # pragma: no cover - rich depends on markdown-it-py
        return f"<pre>{_e(text)}</pre>"
    md = MarkdownIt("commonmark", {"html": False}).enable("table")
    tokens = md.parse(text)
    base = Path(doc_path).parent
    for tok in tokens:
        if shift and tok.type in ("heading_open", "heading_close"):
            tok.tag = f"h{min(6, int(tok.tag[1]) + shift)}"
        for child in tok.children or []:
            if child.type == "image" and not str(child.attrGet("src") or "").startswith("data:"):
                # an image file is not beside the report: show its description instead
                alt = "".join(c.content for c in child.children or []) or str(child.attrGet("src"))
                child.type, child.tag, child.content, child.children = "text", "", f"[image: {alt}]", None
                continue
            if child.type == "link_open":
                href = str(child.attrGet("href") or "")
                if re.match(r"^[a-z][a-z0-9+.-]*:", href, re.I) or href.startswith("#"):
                    if href.startswith("#"):  # anchors of the proof itself are not in the report
                        child.attrs.pop("href", None)
                        child.tag = "span"
                    continue
                target = str((base / href.split("#")[0]).as_posix())
                target = normpath(target)
                if target in link_map:
                    child.attrSet("href", "#" + link_map[target])
                else:
                    child.attrs.pop("href", None)
                    child.tag = "span"
        # pair link_close tags with their (possibly renamed) openers
        stack = []
        for child in tok.children or []:
            if child.type == "link_open":
                stack.append(child)
            elif child.type == "link_close" and stack:
                child.tag = stack.pop().tag
    return md.renderer.render(tokens, md.options, {})


def normpath(p: str) -> str:
    """A '/'-separated relative path with ``.`` and ``..`` resolved textually (never above its start).

    >>> normpath("rr/../rr/./a.md")
    'rr/a.md'
    """
    if not isinstance(p, str):
        raise TypeError(f"p must be a path as text, got {type(p).__name__}")
    parts: list[str] = []
    for part in p.split("/"):
        if part in ("", "."):
            continue
        if part == "..":
            if parts:
                parts.pop()
            continue
        parts.append(part)
    return "/".join(parts)


