"""The self-contained HTML page of a report: one file, no network, no JavaScript.

Written for the person it is handed to.  In order: the checks that failed to
run (with tracebacks), what the papers got wrong (every non-``holds`` claim of
a paper with its one-line reason and a link to its evidence), the summary
(counts per paper: papers' statements only), the changes since a baseline, one
section per paper, the library's self-tests on their own, provenance, and the
proof documents.  Figures are embedded as base64 PNG with numbered captions,
formulas as MathML, long evidence folded into ``<details>`` (closed, so not
printed), proof documents as rendered Markdown in an appendix (a link from a
claim to its proof is an in-page link that never breaks when the report is
moved).  The print style keeps the default report under 40 A4 pages.

Example
-------
>>> page = render_html({"claims": [], "provenance": {}, "summary": {}})
>>> page.startswith("<!DOCTYPE html>") and 'id="summary"' in page
True
"""

from __future__ import annotations

import html
import re
from pathlib import Path
from typing import Any, Mapping

from dpverify.report.figures import FigureImage
from dpverify.report.papers import Paper, paper_for_seed
from dpverify.report.entries import VERDICTS, badge, claim_html, finding_html, is_self_test, reason
from dpverify.report.markdown import normpath, render_markdown
from dpverify.report.values import value_html

__all__ = ["render_html", "anchor_ids", "VERDICTS"]



_CSS = """
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
math { font-size: 1.15em; } .formula math { math-style: normal; }
.proofdoc { border: 1px solid #d0d7de; border-radius: 6px; padding: 4px 18px; margin: 10px 0; }
.missing { color: var(--refuted); }
nav#contents ol { columns: 2; margin: 4px 0; }
@media print {
  @page { size: A4; margin: 12mm; }
  body { max-width: none; padding: 0; font-size: 10.5px; line-height: 1.35; }
  h1 { font-size: 20px; } h2 { font-size: 16px; margin-top: 16px; } h3 { font-size: 12px; }
  code, pre { font-size: 9.5px; } th, td { padding: 1px 5px; }
  .claim { padding: 4px 8px; margin: 6px 0; border-radius: 0; } .claim, figure, tr, li.finding { break-inside: avoid; }
  figure img { max-height: 80mm; width: auto; }
  details:not([open]) { break-inside: avoid; }
  a { color: inherit; text-decoration: none; } .badge { font-size: 9.5px; padding: 0 6px; }
}
"""


def _e(text: Any) -> str:
    return html.escape(str(text), quote=True)


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_-]+", "-", text).strip("-") or "x"


def anchor_ids(prefix: str, keys: list[str]) -> dict[str, str]:
    """Unique HTML ids ``prefix-<slug>`` for distinct keys (a clash of slugs gets a counter)."""
    out: dict[str, str] = {}
    used: set[str] = set()
    for k in keys:
        if k in out:
            continue
        base = f"{prefix}-{_slug(k)}"
        cand, i = base, 2
        while cand in used:
            cand, i = f"{base}-{i}", i + 1
        used.add(cand)
        out[k] = cand
    return out


_badge = badge


def _counts(entries: list[Mapping[str, Any]]) -> dict[str, int]:
    return {v: sum(1 for c in entries if c.get("verdict") == v) for v in VERDICTS}


def render_html(
    doc: Mapping[str, Any],
    *,
    evidence: Mapping[str, Mapping[str, Any]] | None = None,
    figures: Mapping[str, FigureImage] | None = None,
    proofs_root: str | Path | None = None,
) -> str:
    """The report page for a report document (the ``report.json`` content).

    Parameters
    ----------
    doc : mapping
        ``{"provenance", "summary", "claims", ...}`` as made by
        :func:`dpverify.report.build_document`.
    evidence : mapping, optional
        Claim id → the evidence as the check returned it (sympy objects,
        arrays); defaults to the JSON evidence in ``doc``.
    figures : mapping, optional
        Claim id → :class:`FigureImage` to embed.
    proofs_root : path, optional
        The ``proofs/`` folder the claims' proof paths are relative to
        (default: the one of this source tree).  Proof documents found there
        are embedded; a missing one is flagged, never linked.
    """
    if not isinstance(doc, Mapping):
        raise TypeError(f"doc must be a mapping, got {type(doc).__name__}")
    claims = list(doc.get("claims", []))
    evidence = evidence or {}
    figures = figures or {}
    if proofs_root is None:
        from dpverify.proofdocs import proofs_root as _shipped_proofs

        proofs_root = _shipped_proofs()  # the source tree's proofs/, or the copy inside an installed wheel
    proofs_root = Path(proofs_root)
    prov = doc.get("provenance", {}) or {}

    # --- papers' statements by paper, in seed order (unknown seeds last); self-tests apart
    selftests = [c for c in claims if is_self_test(c)]
    stated = [c for c in claims if not is_self_test(c)]
    papers: dict[str, Paper] = {}
    by_paper: dict[str, list[Mapping[str, Any]]] = {}
    for c in stated:
        p = paper_for_seed(str(c.get("source_parts", {}).get("seed", c.get("source", ""))))
        papers.setdefault(p.key, p)
        by_paper.setdefault(p.key, []).append(c)
    order = sorted(papers, key=lambda k: (not papers[k].known, k))
    paper_ids = anchor_ids("paper", order)
    claim_ids = anchor_ids("claim", [c["id"] for c in claims])
    errors = [c for c in claims if c.get("verdict") == "error"]
    findings = [c for c in stated if c.get("verdict") not in ("holds", "error")]
    differ = [c for c in claims if not c.get("as_expected", c.get("verdict") == c.get("expected"))]

    # --- proof documents referenced by the claims
    proof_paths = sorted({c["proof"] for c in claims if c.get("proof")})
    proof_texts: dict[str, str] = {}
    for p in proof_paths:
        f = proofs_root / p
        if f.is_file():
            proof_texts[normpath(p)] = f.read_text(encoding="utf-8")
    proof_ids = anchor_ids("proof", list(proof_texts))

    out: list[str] = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        "<title>dpverify audit report</title>",
        f"<style>{_CSS}</style></head><body>",
        "<header><h1>dpverify audit report</h1>",
        f'<p class="muted">{len(claims)} claims: {len(stated)} statements of {len(order)} papers and '
        f'{len(selftests)} self-tests of the library · dpverify {_e(prov.get("dpverify_version", "?"))}, '
        f'git {_e(str(prov.get("git_revision", "unknown"))[:12])} · started {_e(prov.get("started_utc", "?"))} · '
        f'<code>{_e(prov.get("command", ""))}</code></p></header>',
    ]

    # --- contents
    toc = []
    if errors:
        toc.append(("errors", f"Checks that did not run ({len(errors)})"))
    toc.append(("findings", f"What the papers got wrong ({len(findings)})"))
    toc.append(("summary", "Summary"))
    if doc.get("comparison") is not None:
        toc.append(("changes", "Changes since the baseline"))
    toc += [(paper_ids[k], f"{papers[k].title} ({len(by_paper[k])} claims)") for k in order]
    if selftests:
        toc.append(("self-tests", f"The library's self-tests ({len(selftests)})"))
    toc.append(("provenance", "Provenance"))
    if proof_texts:
        toc.append(("proofs", f"Proof documents ({len(proof_texts)})"))
    out.append('<nav id="contents"><h2>Contents</h2><ol>'
               + "".join(f'<li><a href="#{a}">{_e(t)}</a></li>' for a, t in toc) + "</ol></nav>")

    # --- errors first: a check that crashed or timed out says nothing about the paper
    if errors:
        out.append('<section id="errors"><h2 class="differs">Checks that did not run to the end</h2>'
                   "<p>These checks raised an exception or ran out of time: their claims are neither "
                   "confirmed nor refuted.</p>")
        for c in errors:
            out.append(f'<div class="claim v-error"><h3><a href="#{claim_ids[c["id"]]}"><code>{_e(c["id"])}</code></a> '
                       f'{_badge("error")}</h3><p class="why">{_e(reason(c))}</p>'
                       f'<pre>{_e(c.get("error") or "")}</pre></div>')
        out.append("</section>")

    # --- what the papers got wrong
    out.append('<section id="findings"><h2>What the papers got wrong</h2>')
    if findings:
        out.append(f"<p>{len(findings)} of the papers' {len(stated)} checked statements did not hold as printed "
                   "(<strong>erratum</strong>: wrong as printed, the corrected statement holds; "
                   "<strong>refuted</strong>: false; <strong>inconclusive</strong>: not reproduced). "
                   "Each line gives the reason; the link leads to the evidence.</p>")
        for k in order:
            fk = [c for c in by_paper[k] if c in findings]
            if not fk:
                continue
            out.append(f'<h3><a href="#{paper_ids[k]}">{_e(papers[k].title)}</a></h3><ul class="findings">')
            out += [finding_html(c, claim_ids[c["id"]]) for c in fk]
            out.append("</ul>")
    else:
        out.append("<p>Every checked statement of the papers holds.</p>")
    out.append("</section>")

    # --- summary
    counts = _counts(claims)
    out.append('<section id="summary"><h2>Summary</h2>')
    out.append(f'<p><strong>{len(claims)} claims</strong> checked; '
               + ", ".join(f"{counts[v]} {v}" for v in VERDICTS)
               + f'; <strong class="{"differs" if differ else ""}">{len(differ)} differ from the expected verdict</strong>.'
               + f' Total time {float(doc.get("total_seconds", 0.0)):.2f} s.</p>')
    out.append('<table class="counts"><thead><tr><th></th>'
               + "".join(f"<th>{_badge(v)}</th>" for v in VERDICTS) + "<th>differ from expected</th></tr></thead><tbody>")

    def row(label: str, group: list[Mapping[str, Any]], link: str | None = None) -> str:
        pc = _counts(group)
        nd = sum(1 for c in group if c in differ)
        name = f'<a href="#{link}">{_e(label)}</a>' if link else _e(label)
        return f"<tr><th>{name}</th>" + "".join(f'<td class="n">{pc[v]}</td>' for v in VERDICTS) + f'<td class="n">{nd}</td></tr>'

    out += [row(papers[k].title, by_paper[k], paper_ids[k]) for k in order]
    if selftests:
        out.append(row("dpverify's self-tests (not a paper's statement)", selftests, "self-tests"))
    out.append("</tbody></table>")
    if differ:
        out.append('<h3 class="differs">Verdicts that differ from the expected one</h3><table><thead><tr>'
                   "<th>claim</th><th>expected</th><th>verdict</th><th>reason</th></tr></thead><tbody>")
        for c in differ:
            out.append(f'<tr><td><a href="#{claim_ids[c["id"]]}">{_e(c["id"])}</a></td><td>{_badge(c.get("expected", "?"))}</td>'
                       f'<td>{_badge(c.get("verdict", "?"))}</td><td>{_e(reason(c))}</td></tr>')
        out.append("</tbody></table>")
    out.append("</section>")

    if doc.get("comparison") is not None:
        out.append(_changes_html(doc["comparison"], claim_ids))

    # --- one section per paper, then the self-tests
    fig_no = [0]

    def article(c: Mapping[str, Any]) -> str:
        img = figures.get(c["id"])
        if img is not None:
            fig_no[0] += 1
        return claim_html(c, claim_ids[c["id"]], evidence.get(c["id"]), img, fig_no[0], proof_ids)

    for k in order:
        p = papers[k]
        out.append(f'<section id="{paper_ids[k]}" class="paper"><h2>{_e(p.title)}</h2>')
        meta = [f"paper file <code>{_e(p.seed_file)}</code>" if p.seed_file else f"source <code>{_e(p.key)}</code>"]
        if p.room:
            meta.append(f"room <code>{_e(p.room)}</code>")
        pc = _counts(by_paper[k])
        meta.append(", ".join(f"{pc[v]} {v}" for v in VERDICTS if pc[v]))
        out.append(f'<p class="muted">{" · ".join(meta)}</p>')
        out += [article(c) for c in by_paper[k]]
        out.append("</section>")
    if selftests:
        out.append('<section id="self-tests"><h2>The library\'s self-tests</h2>'
                   "<p>Claims about dpverify itself: planted bugs the auditor must catch, controls it must not "
                   "flag, and the tightness of its own bounds. They test the tools, not any paper, and are "
                   "not counted in any paper's line of the summary.</p>")
        out += [article(c) for c in selftests]
        out.append("</section>")

    # --- provenance
    out.append('<section id="provenance"><h2>Provenance</h2><table><tbody>')
    for key in ("dpverify_version", "git_revision", "git_dirty", "python", "python_implementation", "platform",
                "machine", "cpu_count", "command", "started_utc"):
        if key in prov:
            out.append(f"<tr><th>{_e(key)}</th><td>{_e(prov[key])}</td></tr>")
    for key in ("jobs", "timeout", "thorough", "only", "total_seconds"):
        if key in doc:
            out.append(f"<tr><th>{_e(key)}</th><td>{_e(doc[key])}</td></tr>")
    out.append("</tbody></table>")
    if prov.get("packages"):
        out.append("<details><summary>Package versions</summary><table><tbody>"
                   + "".join(f"<tr><th>{_e(n)}</th><td>{_e(v)}</td></tr>" for n, v in prov["packages"].items())
                   + "</tbody></table></details>")
    seeded = [c for c in claims if c.get("seeds")]
    out.append("<details><summary>Random seeds used by the checks</summary>")
    if seeded:
        out.append("<table><thead><tr><th>claim</th><th>seeds</th></tr></thead><tbody>"
                   + "".join(f'<tr><td><a href="#{claim_ids[c["id"]]}">{_e(c["id"])}</a></td>'
                             f"<td>{value_html(c['seeds'])}</td></tr>" for c in seeded)
                   + "</tbody></table>")
    else:
        out.append('<p class="muted">no claim reported a seed in its evidence.</p>')
    out.append("</details>")
    out.append("<details><summary>Run time per claim</summary><table><thead><tr><th>claim</th><th>seconds</th>"
               "<th>verdict</th></tr></thead><tbody>")
    for c in sorted(claims, key=lambda c: -float(c.get("seconds", 0.0))):
        out.append(f'<tr><td><a href="#{claim_ids[c["id"]]}">{_e(c["id"])}</a></td>'
                   f'<td>{float(c.get("seconds", 0.0)):.3f}</td><td>{_badge(c.get("verdict", "?"))}</td></tr>')
    out.append("</tbody></table></details></section>")

    # --- proof documents (folded: they are long; a link to one opens it)
    if proof_texts:
        out.append('<section id="proofs"><h2>Proof documents</h2>')
        for p, text in proof_texts.items():
            first = next((ln.lstrip("# ").strip() for ln in text.splitlines() if ln.startswith("#")), p)
            out.append(f'<details id="{proof_ids[p]}" class="proofdoc"><summary>{_e(first)} '
                       f'<span class="muted">proofs/{_e(p)}</span></summary>'
                       f"{render_markdown(text, proof_ids, p, shift=3)}</details>")
        out.append("</section>")
    out.append("</body></html>")
    return "\n".join(out) + "\n"


def _changes_html(cmp: Mapping[str, Any], claim_ids: Mapping[str, str]) -> str:
    old = cmp.get("old") or {}
    changes = list(cmp.get("changes") or [])
    out = ['<section id="changes"><h2>Changes since the baseline</h2>',
           f'<p class="muted">baseline: started {_e(old.get("started_utc", "?"))}, git '
           f'{_e(old.get("git_revision", "unknown"))}, <code>{_e(old.get("command", ""))}</code>; '
           f'{int(cmp.get("compared", 0))} claims in both runs.</p>']
    if not changes:
        out.append("<p>No verdict changed, no claim was added or removed, no evidence number moved.</p></section>")
        return "\n".join(out)
    out.append("<table><thead><tr><th>change</th><th>claim</th><th>field</th><th>earlier</th><th>now</th>"
               "<th>rel. change</th></tr></thead><tbody>")
    for ch in changes:
        cid = str(ch.get("claim", ""))
        name = f'<a href="#{claim_ids[cid]}">{_e(cid)}</a>' if cid in claim_ids else _e(cid)
        cls = ' class="differs"' if ch.get("kind") in ("verdict", "removed", "expected") else ""
        rel = ch.get("rel_change")
        out.append(f"<tr><td{cls}>{_e(ch.get('kind', ''))}</td><td>{name}</td><td>{_e(ch.get('field', ''))}</td>"
                   f"<td>{value_html(ch.get('old'))}</td><td>{value_html(ch.get('new'))}</td>"
                   f"<td>{'' if rel is None else f'{float(rel):.3g}'}</td></tr>")
    out.append("</tbody></table></section>")
    return "\n".join(out)
