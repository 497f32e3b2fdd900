"""Statements set as MathML, as headless Chromium lays them out (screen and print).

A small page holds statements set by ``statement_html`` with the report's style sheet and a
probe script (the report itself has no JavaScript); ``--dump-dom`` returns the boxes the probe
measured.  Each ``<math>`` must be MathML with a non-zero box, at the size of the text around it;
its scripts must lie inside its box (nothing clipped or spilling onto the next line), and an index
of an index must stay legible (at least 0.65 of the text's size -- without the style sheet's rule
it is about half, so the check flips).  The exact quote beside the set form is on the page and in
print.

Without Chromium the test skips (in CI it fails), as in ``test_report_browser.py``.
"""

from __future__ import annotations

from chromium_helpers import chromium, dom_probe, print_rules

from dpverify.report.entries import statement_html
from dpverify.report.style import CSS

STATEMENTS = [
    "Sub-condition ① of (5.15) reads M_{2^{m−1}−1}ᵀ R⁽¹⁾ ≤ (1 − λ_{2^{m−1}}) I_{(2^m−1)×1}.",
    "M(D) = f(D) + Lap(Δf/ε): the density ratio is at most e^{ε|f(D) − f(D')|/Δf} ≤ e^ε",
    "α* = err_{m−1}^{1/3}/(err_{m−1}^{1/3}+2^{(m−1)/3}) and Σ_{c=1}^{k−1} x_i^2",
]

_PROBE = """
<script>
window.addEventListener('load', function () {
  var fs = function (el) { return parseFloat(getComputedStyle(el).fontSize); };
  var maths = [];
  document.querySelectorAll('math').forEach(function (m) {
    var r = m.getBoundingClientRect(), spill = 0;
    m.querySelectorAll('*').forEach(function (d) {
      var b = d.getBoundingClientRect();
      if (b.width > 0) spill = Math.max(spill, r.top - b.top, b.bottom - r.bottom, r.left - b.left, b.right - r.right);
    });
    maths.push({w: r.width, h: r.height, mathml: m instanceof MathMLElement, size: fs(m) / fs(m.parentElement),
                spill: spill});
  });
  var scripts = [];
  document.querySelectorAll('msub > :not(:first-child), msup > :not(:first-child), msubsup > :not(:first-child)')
    .forEach(function (s) { scripts.push(fs(s) / fs(s.closest('math'))); });
  var exact = [];
  document.querySelectorAll('.exact').forEach(function (e) {
    var b = e.getBoundingClientRect(); exact.push({w: b.width, h: b.height, text: e.textContent});
  });
  var pre = document.createElement('pre');
  pre.id = 'math-probe';
  pre.textContent = JSON.stringify({maths: maths, scripts: scripts, exact: exact});
  document.body.appendChild(pre);
});
</script>
"""


def _page(css: str) -> str:
    body = "".join(f'<blockquote class="statement">{statement_html(s)}</blockquote>' for s in STATEMENTS)
    return (f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><style>{css}</style></head>'
            f"<body>{body}{_PROBE}</body></html>\n")


def _probe(exe, tmp_path, css: str, name: str) -> dict:
    path = tmp_path / f"{name}.html"
    path.write_text(_page(css), encoding="utf-8")
    return dom_probe(exe, tmp_path, path, "math-probe")


def test_statement_math_renders_as_legible_mathml(tmp_path):
    exe = chromium()
    screen = _probe(exe, tmp_path, CSS, "screen")
    assert len(screen["maths"]) >= 8, screen["maths"]
    for m in screen["maths"]:
        assert m["mathml"], "the browser did not treat <math> as MathML"
        assert m["w"] > 3 and m["h"] > 8, f"a formula with no size: {m}"
        assert abs(m["size"] - 1) < 0.01, f"a formula not at the size of its text: {m}"
        assert m["spill"] <= 1, f"a script outside its formula's box: {m}"
    assert min(screen["scripts"]) >= 0.65, f"an index too small to read: {sorted(screen['scripts'])[:5]}"
    assert max(screen["scripts"]) < 1, "indices must be smaller than the text"
    exact = screen["exact"]
    assert len(exact) == len(STATEMENTS) and all(e["w"] > 10 and e["h"] > 5 for e in exact), exact
    assert [e["text"] for e in exact] == [f" (as written: {s})" for s in STATEMENTS]

    # the check flips: without the report's style sheet an index of an index is set at about half size
    bare = _probe(exe, tmp_path, "", "bare")
    assert min(bare["scripts"]) < 0.65, sorted(bare["scripts"])[:5]

    # in print the exact quote stays on the page, and the math keeps its size
    printed = _probe(exe, tmp_path, CSS + print_rules(CSS), "print")
    assert all(e["w"] > 10 and e["h"] > 5 for e in printed["exact"]), printed["exact"]
    assert all(m["w"] > 3 and m["h"] > 5 and abs(m["size"] - 1) < 0.01 for m in printed["maths"]), printed["maths"]
