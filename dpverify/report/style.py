"""The report page's style sheet (screen and print).

In print every evidence table is open (``details.evidence::details-content``) and the claims
are set in two columns, so that the default report prints whole to at most 40 A4 pages
(``tests/report/test_report_print.py`` counts them in headless Chromium).

Statements' math is inline MathML (:mod:`dpverify.report.mathtext`) at the size of the text
around it; an index of an index is kept at the size of an index, so that it stays legible in
print (``tests/report/test_mathtext_browser.py``).  The exact quote beside a set statement is
set light (muted, smaller), on screen and in print.
"""

__all__ = ["CSS"]

CSS = """
:root { --holds:#1a7f37; --erratum:#9a6700; --refuted:#cf222e; --inconclusive:#0969da; --error:#8250df; --muted:#57606a; }
* { box-sizing: border-box; }
body { font: 15px/1.5 system-ui, -apple-system, "Segoe UI", "DejaVu Sans", "Noto Sans CJK SC", sans-serif; color:#1f2328;
       margin: 0 auto; max-width: 1180px; padding: 24px 32px 64px; background:#fff; }
h1 { font-size: 28px; margin: 0 0 4px; } h2 { border-bottom: 2px solid #d0d7de; padding-bottom: 4px; margin-top: 36px; }
h3 { margin: 0 0 6px; font-size: 17px; } code, pre { font-family: "DejaVu Sans Mono", monospace; font-size: 13px; }
pre { background:#f6f8fa; padding: 8px 10px; overflow-x: auto; white-space: pre-wrap; border-radius: 4px; }
a { color:#0969da; } .muted, .src, .meta { color: var(--muted); } .meta { font-size: 13px; margin: 4px 0; }
table { border-collapse: collapse; margin: 6px 0; }
th, td { border: 1px solid #d0d7de; padding: 3px 8px; text-align: left; vertical-align: top; }
thead th { background:#f6f8fa; }
.badge { display:inline-block; padding: 1px 9px; border-radius: 10px; color:#fff; font-weight:600; font-size: 13px; }
.badge.holds { background: var(--holds); } .badge.erratum { background: var(--erratum); }
.badge.refuted { background: var(--refuted); } .badge.inconclusive { background: var(--inconclusive); } .badge.error { background: var(--error); }
.counts td.n { font-size: 20px; font-weight: 700; text-align: right; min-width: 60px; }
.differs { color: var(--refuted); font-weight: 600; }
p.status { margin: 6px 0 10px; padding: 8px 14px; border-radius: 6px; font-size: 16px; color: #fff; }
p.status.ok { background: var(--holds); } p.status.bad { background: var(--refuted); }
ul.findings { list-style: none; padding: 0; } li.finding { margin: 0 0 10px; padding: 6px 10px; border-left: 4px solid #d0d7de; }
li.finding .stmt { margin: 2px 0; } li.finding .why { font-size: 14px; }
.claim { border: 1px solid #d0d7de; border-left: 6px solid #d0d7de; border-radius: 6px; padding: 10px 14px; margin: 12px 0; }
.claim.v-holds { border-left-color: var(--holds); } .claim.v-erratum { border-left-color: var(--erratum); }
.claim.v-refuted { border-left-color: var(--refuted); } .claim.v-inconclusive { border-left-color: var(--inconclusive); } .claim.v-error { border-left-color: var(--error); }
.statement { margin: 4px 0 6px; padding: 4px 12px; border-left: 3px solid #d0d7de; background:#fbfbfc; }
p.why { margin: 4px 0; } .evidence .label { font-weight: 600; margin: 4px 0 0; }
details > summary { cursor: pointer; color: #0969da; }
table.evidence th { font-weight: 600; background:#f6f8fa; }
table.evidence table.evidence { margin: 0; }
tr.cex > th, tr.cex > td { background:#fff1e5; } tr.conf > th, tr.conf > td { background:#eef6ff; }
tr.err > th, tr.err > td { background:#ffebe9; }
span.num { border-bottom: 1px dotted #8c959f; }
figure { margin: 8px 0; } figure img { max-width: 100%; height: auto; border: 1px solid #d0d7de; }
figcaption { color: #1f2328; font-size: 13px; }
math { font-size: 1em; } .formula math { font-size: 1.15em; math-style: normal; }
/* an index of an index is set no smaller than an index (legible in print) */
:is(msub, msup, msubsup) > :not(:first-child) :is(msub, msup, msubsup) > :not(:first-child),
:is(msub, msup, msubsup) > :is(msub, msup, msubsup):not(:first-child) > :not(:first-child) { math-depth: add(0); }
.exact { color: var(--muted); font-size: 0.85em; } .exact code { font-size: 0.95em; }
.proofdoc { border: 1px solid #d0d7de; border-radius: 6px; padding: 4px 18px; margin: 10px 0; }
.missing { color: var(--refuted); }
nav#contents ol { columns: 2; margin: 4px 0; }
@media print {
  @page { size: A4; margin: 12mm; }
  body { max-width: none; padding: 0; font-size: 10px; line-height: 1.35; }
  h1 { font-size: 20px; } h2 { font-size: 16px; margin-top: 16px; } h3 { font-size: 12px; }
  code, pre { font-size: 9px; } th, td { padding: 1px 5px; } .meta { font-size: 9px; margin: 2px 0; }
  li.finding .why { font-size: 9.5px; }
  .claim { padding: 4px 8px; margin: 6px 0; border-radius: 0; } .claim, figure, tr, li.finding { break-inside: avoid; }
  figure img { max-height: 80mm; width: auto; }
  details:not([open]) { break-inside: avoid; }
  /* every evidence table printed open (a closed <details> would print only its summary) */
  details.evidence::details-content { content-visibility: visible; display: block; }
  details.evidence > summary { list-style: none; color: inherit; font-weight: 600; }
  /* the claims in two columns: an article may break between columns, a table row may not */
  section.paper, #self-tests { column-count: 2; column-gap: 5mm; }
  section.paper > h2, section.paper > p.muted, #self-tests > h2, #self-tests > p { column-span: all; }
  .claim { break-inside: auto; } .claim h3, .claim .statement { break-after: avoid; }
  .claim table { max-width: 100%; } .claim th, .claim td { overflow-wrap: break-word; }
  p.status { font-size: 13px; -webkit-print-color-adjust: exact; print-color-adjust: exact; }
  a { color: inherit; text-decoration: none; } .badge { font-size: 9.5px; padding: 0 6px; }
}
"""
