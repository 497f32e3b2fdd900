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

__all__ = ["render_markdown", "normpath"]


def _e(text: Any) -> str:
    return html.escape(str(text), quote=True)


def render_markdown(text: str, link_map: Mapping[str, str], doc_path: str, *, shift: int = 0) -> str:
    """Markdown → HTML (raw HTML in the source is escaped); relative links become in-page links or text.

    ``shift`` moves headings down (``shift=3``: ``#`` becomes ``<h4>``), so a document
    embedded in a page keeps the page's single ``<h1>``.
    """
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


