"""The report as a person sees it: rendered by headless Chromium, screenshot inspected.

Chromium renders a copy of the report to which the test appends a small probe
script (the report itself has no JavaScript); the probe writes the on-page
boxes of the summary, the figure and a formula into the DOM, which
``--dump-dom`` returns.  The screenshot must not be blank, and inside each of
those boxes it must show what belongs there: text in the summary, the plot's
line colour in the figure, ink in the formula.  The formula must be laid out
as MathML (a stacked fraction is taller than a line of text).

Without Chromium the test skips with a message -- except in CI (``CI=true``),
where it fails: ``.ci/run`` installs Debian's chromium.  Deterministic: no
randomness, so no false alarms beyond a broken browser installation.
"""

from __future__ import annotations

import json
import re

import numpy as np
import pytest
from chromium_helpers import chromium, run_chromium
from report_demo_claims import FIGURE_COLOR, PREFIX, register_demo, unregister_demo

from dpverify.report import make_report

_PROBE = """
<script>
window.addEventListener('load', function () {
  function box(el) {
    if (!el) return null;
    var r = el.getBoundingClientRect(), s = getComputedStyle(el);
    return {x: r.left + scrollX, y: r.top + scrollY, w: r.width, h: r.height,
            shown: s.visibility !== 'hidden' && s.display !== 'none' && +s.opacity > 0,
            natural: el.naturalWidth || 0,
            mathml: typeof MathMLElement !== 'undefined' && el instanceof MathMLElement};
  }
  var res = {summary: box(document.getElementById('summary')), img: box(document.querySelector('figure img')),
             math: box(document.querySelector('math')), frac: box(document.querySelector('math mfrac')),
             line: box(document.querySelector('#summary .badge')),
             height: document.documentElement.scrollHeight};
  var pre = document.createElement('pre');
  pre.id = 'visibility-probe';
  pre.textContent = JSON.stringify(res);
  document.body.appendChild(pre);
});
</script>
"""


def _crop(img: np.ndarray, b: dict) -> np.ndarray:
    x0, y0 = int(b["x"]), int(b["y"])
    return img[y0: y0 + int(b["h"]), x0: x0 + int(b["w"]), :3]


def _near(px: np.ndarray, hex_color: str, tol: int = 40) -> int:
    rgb = np.array([int(hex_color[i: i + 2], 16) for i in (1, 3, 5)])
    return int((np.abs(px.astype(int) - rgb).sum(axis=-1) < tol).sum())


def test_report_renders_in_chromium(tmp_path):
    exe = chromium()
    register_demo()
    try:
        rep = make_report(tmp_path / "out", only=PREFIX)
    finally:
        unregister_demo()
    page = rep.html.read_text(encoding="utf-8")
    assert page.rstrip().endswith("</body></html>")
    probe = tmp_path / "probe.html"
    probe.write_text(page.rstrip()[: -len("</body></html>")] + _PROBE + "</body></html>\n", encoding="utf-8")

    # 1. layout: where are the summary, the figure and the formula, and are they shown?
    dom = run_chromium(exe, tmp_path, "--window-size=1280,2000", "--dump-dom", probe.as_uri())
    m = re.search(r'<pre id="visibility-probe">(.*?)</pre>', dom.stdout, re.S)
    assert m, f"chromium did not render the page: rc={dom.returncode}\n{dom.stderr[-2000:]}"
    boxes = json.loads(m.group(1).replace("&quot;", '"').replace("&amp;", "&"))
    for name in ("summary", "img", "math", "frac"):
        b = boxes[name]
        assert b is not None, f"no {name} element in the rendered page"
        assert b["shown"] and b["w"] > 10 and b["h"] > 10, f"{name} is not visible: {b}"
    assert boxes["img"]["natural"] > 0, "the embedded figure did not decode"
    assert boxes["math"]["mathml"], "the browser did not treat <math> as MathML"
    # a stacked fraction is taller than a line of plain text: the formula is typeset, not shown as raw text
    assert boxes["frac"]["h"] > 1.3 * boxes["line"]["h"], (boxes["frac"], boxes["line"])

    # 2. the screenshot, tall enough to hold the three boxes
    bottom = max(boxes[k]["y"] + boxes[k]["h"] for k in ("summary", "img", "math"))
    height = int(min(bottom + 100, 12000))
    shot = tmp_path / "report.png"
    res = run_chromium(exe, tmp_path, f"--window-size=1280,{height}", f"--screenshot={shot}", probe.as_uri())
    assert shot.is_file(), f"no screenshot: rc={res.returncode}\n{res.stderr[-2000:]}"
    from PIL import Image

    img = np.asarray(Image.open(shot).convert("RGB"))
    assert img.shape[1] == 1280 and img.shape[0] == height, img.shape
    ink = (img.astype(int).sum(axis=-1) < 600)  # not (near) white
    assert ink.mean() > 0.02, f"the screenshot is (nearly) blank: {ink.mean():.4f} of pixels drawn"
    packed = (img[..., 0].astype(np.int32) << 16) | (img[..., 1].astype(np.int32) << 8) | img[..., 2]
    assert len(np.unique(packed)) > 50, "the screenshot has almost no colours"

    summary = _crop(img, boxes["summary"])
    assert (summary.astype(int).sum(axis=-1) < 250).mean() > 0.01, "no text visible in the summary"
    assert _near(summary, "#1a7f37") > 50 and _near(summary, "#cf222e") > 50, "verdict badges not visible"
    fig = _crop(img, boxes["img"])
    assert _near(fig, FIGURE_COLOR) > 200, "the figure's plotted line is not visible"
    formula = _crop(img, boxes["math"])
    assert (formula.astype(int).sum(axis=-1) < 300).mean() > 0.02, "the formula is not visible"


def _pdf_pages(pdf: bytes) -> int:
    """Pages of a PDF Chromium printed: its page objects (``/Type /Page``, not ``/Pages``)."""
    return len(re.findall(rb"/Type\s*/Page(?![a-zA-Z])", pdf))


def _check_layout(exe: str, tmp_path, html_path, max_pages: int) -> int:
    """Print the report to A4 PDF in Chromium; check its pages and its structure (as a reader meets it)."""
    page = html_path.read_text(encoding="utf-8")
    assert page.count("<h1") == 1, "the report must have exactly one <h1>"
    figures = re.findall(r"<figure>(.*?)</figure>", page, re.S)
    for f in figures:
        cap = re.search(r"<figcaption>(.*?)</figcaption>", f, re.S)
        assert cap and re.search(r"Figure \d+\.</strong> \S", cap.group(1)), f"a figure without a caption: {f[-300:]}"
        assert "Figure of" not in cap.group(1)
    sections = re.findall(r'<section id="([^"]+)"', page)
    assert sections[0] in ("errors", "findings") and "findings" in sections[:2], sections
    pdf = tmp_path / "report.pdf"
    res = run_chromium(exe, tmp_path, "--no-pdf-header-footer", f"--print-to-pdf={pdf}", html_path.as_uri())
    assert pdf.is_file(), f"chromium printed nothing: rc={res.returncode}\n{res.stderr[-2000:]}"
    n = _pdf_pages(pdf.read_bytes())
    assert 1 <= n <= max_pages, f"the report prints to {n} A4 pages (at most {max_pages})"
    return n


def test_demo_report_prints_compactly(tmp_path):
    exe = chromium()
    register_demo()
    try:
        rep = make_report(tmp_path / "out", only=PREFIX)
    finally:
        unregister_demo()
    n = _check_layout(exe, tmp_path, rep.html, max_pages=6)
    page = rep.html.read_text(encoding="utf-8")
    # errors come before everything, with their traceback
    assert re.findall(r'<section id="([^"]+)"', page)[0] == "errors"
    errors = page[page.index('<section id="errors"'): page.index("</section>", page.index('<section id="errors"'))]
    assert "zzreport.crash" in errors and "Traceback" in errors
    assert n >= 1


@pytest.mark.slow
def test_real_report_prints_to_at_most_40_pages(tmp_path):
    """The default report (every registered claim) on A4 from headless Chromium: at most 40 pages."""
    exe = chromium()
    rep = make_report(tmp_path / "out", jobs=2)
    n = _check_layout(exe, tmp_path, rep.html, max_pages=40)
    print(f"the default report prints to {n} A4 pages")
