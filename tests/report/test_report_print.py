"""The report in print and on its first screen, in headless Chromium.

* Print: every evidence table is printed open.  Chromium cannot be switched to print media from
  the command line, so the test lays out the page with the report's own ``@media print`` rules
  applied to the screen and measures each folded evidence table: it must take space.  The same
  page without the rule that opens them shows them closed (the check can flip).
* First screen: the status line (green or red, counts, version, date) is inside the first
  1280×800 screen.

Without Chromium the tests skip (in CI they fail: ``.ci/run`` installs it), as in
``test_report_browser.py``.  The page count of the default report (≤ 40 A4 pages, evidence
open) is ``test_report_browser.py::test_real_report_prints_to_at_most_40_pages`` (slow).
"""

from __future__ import annotations

from chromium_helpers import chromium, dom_probe, print_rules
from report_demo_claims import PREFIX, register_demo, unregister_demo

from dpverify.report import make_report
from dpverify.report.style import CSS

_PROBE = """
<script>
window.addEventListener('load', function () {
  var out = [];
  document.querySelectorAll('details.evidence').forEach(function (d) {
    var sum = d.querySelector('summary');  // the space the folded part takes: the details minus its summary
    out.push(d.getBoundingClientRect().height - (sum ? sum.getBoundingClientRect().height : 0));
  });
  var s = document.getElementById('status'), b = s ? s.getBoundingClientRect() : null;
  var pre = document.createElement('pre');
  pre.id = 'print-probe';
  pre.textContent = JSON.stringify({tables: out, status: b ? {y: b.top, h: b.height} : null});
  document.body.appendChild(pre);
});
</script>
"""


def _probe(exe, tmp_path, page: str, extra_css: str, name: str) -> dict:
    html_path = tmp_path / f"{name}.html"
    body_end = page.rstrip()[: -len("</body></html>")]
    html_path.write_text(body_end.replace("</head>", f"<style>{extra_css}</style></head>", 1) + _PROBE
                         + "</body></html>\n", encoding="utf-8")
    return dom_probe(exe, tmp_path, html_path, "print-probe")


def test_print_opens_every_evidence_table_and_status_is_on_the_first_screen(tmp_path):
    exe = chromium()
    register_demo()
    try:
        rep = make_report(tmp_path / "out", only=PREFIX)
    finally:
        unregister_demo()
    page = rep.html.read_text(encoding="utf-8")
    assert page.count('<details id=') and 'class="evidence"' in page
    printed = print_rules(CSS)
    assert "details.evidence::details-content" in printed

    screen = _probe(exe, tmp_path, page, "", "screen")
    assert screen["tables"] and all(h < 5 for h in screen["tables"]), screen  # folded on screen
    st = screen["status"]
    assert st is not None and st["h"] > 10 and st["y"] + st["h"] < 800, f"status line not on the first screen: {st}"

    as_printed = _probe(exe, tmp_path, page, printed, "print")
    assert all(h > 10 for h in as_printed["tables"]), f"evidence tables closed in print: {as_printed['tables']}"

    without = "\n".join(ln for ln in printed.splitlines() if "details-content" not in ln)
    closed = _probe(exe, tmp_path, page, without, "print-without-rule")
    assert all(h < 5 for h in closed["tables"]), closed  # the check flips without the rule
