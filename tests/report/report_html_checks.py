"""A strict check of the report's HTML: well nested, unique ids, no broken in-page links, nothing external."""

from __future__ import annotations

import base64
import re
import struct
from html.parser import HTMLParser

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}
# elements whose end tag HTML lets one omit; the report closes them anyway, so they are checked too
EXTERNAL = re.compile(r"^\s*(https?:|//|ftp:|file:)", re.I)


class StrictHTML(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.errors: list[str] = []
        self.stack: list[str] = []
        self.ids: dict[str, int] = {}
        self.hrefs: list[str] = []
        self.tags: dict[str, int] = {}
        self.images: list[dict] = []
        self.doctype = None

    def handle_decl(self, decl):
        self.doctype = decl

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.tags[tag] = self.tags.get(tag, 0) + 1
        if "id" in a:
            self.ids[a["id"]] = self.ids.get(a["id"], 0) + 1
        if tag == "a" and "href" in a:
            self.hrefs.append(a["href"])
        # a hyperlink may point outside; nothing may be *loaded* from outside
        for key in ("src", "data", "action", "srcset", "poster") + (("href",) if tag != "a" else ()):
            if key in a and a[key] and EXTERNAL.match(a[key]):
                self.errors.append(f"external resource {key}={a[key]!r} on <{tag}>")
        if tag in ("iframe", "object", "embed"):
            self.errors.append(f"the report must not embed <{tag}>")
        if tag == "script":
            self.errors.append("the report must not contain <script>")
        if tag == "link":
            self.errors.append("the report must not link stylesheets or other files")
        if tag == "img":
            self.images.append(a)
        if tag not in VOID:
            self.stack.append(tag)

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
        if tag not in VOID and self.stack and self.stack[-1] == tag:
            self.stack.pop()

    def handle_endtag(self, tag):
        if tag in VOID:
            return
        if not self.stack or self.stack[-1] != tag:
            self.errors.append(f"end tag </{tag}> does not close <{self.stack[-1] if self.stack else None}> "
                               f"at {self.getpos()}")
            if tag in self.stack:
                while self.stack and self.stack.pop() != tag:
                    pass
        else:
            self.stack.pop()


def check_report_html(page: str) -> StrictHTML:
    """Parse the page; raise AssertionError listing every problem found."""
    p = StrictHTML()
    p.feed(page)
    p.close()
    problems = list(p.errors)
    if p.stack:
        problems.append(f"unclosed elements at end: {p.stack}")
    if (p.doctype or "").lower() != "doctype html":
        problems.append(f"missing <!DOCTYPE html>, got {p.doctype!r}")
    problems += [f"id {i!r} used {n} times" for i, n in p.ids.items() if n > 1]
    for href in p.hrefs:
        if href.startswith("#") and href[1:] not in p.ids:
            problems.append(f"broken in-page link {href!r}")
        elif not href.startswith("#") and not EXTERNAL.match(href):
            problems.append(f"relative link {href!r} would break when the report is moved")
    for img in p.images:
        src = img.get("src", "")
        if not src.startswith("data:image/png;base64,"):
            problems.append(f"image not embedded as PNG: {src[:40]!r}")
            continue
        png = base64.b64decode(src.split(",", 1)[1], validate=True)
        if png[:8] != b"\x89PNG\r\n\x1a\n":
            problems.append("embedded image is not a PNG")
            continue
        w, h = struct.unpack(">II", png[16:24])
        if (str(w), str(h)) != (img.get("width"), img.get("height")):
            problems.append(f"img width/height {img.get('width')}x{img.get('height')} != PNG size {w}x{h}")
        if not img.get("alt"):
            problems.append("img without alt text")
    assert not problems, "HTML problems:\n" + "\n".join(problems)
    return p
