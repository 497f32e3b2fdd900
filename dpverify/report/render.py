"""The self-contained HTML page of a report: one file, no network, no JavaScript.

Figures are embedded as base64 PNG, formulas as MathML, proof documents as
rendered Markdown in an appendix (so a link from a claim to its proof is an
in-page link and never breaks when the report is moved).

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
from dpverify.report.values import evidence_table, value_html

__all__ = ["render_html", "anchor_ids", "VERDICTS"]

VERDICTS = ("holds", "erratum", "refuted", "inconclusive", "error")

_CSS = """
:root { --holds:#1a7f37; --erratum:#9a6700; --refuted:#cf222e; --inconclusive:#0969da; --error:#8250df; --muted:#57606a; }
* { box-sizing: border-box; }
body { font: 15px/1.5 system-ui, -apple-system, "Segoe UI", "DejaVu Sans", "Noto Sans CJK SC", "Source Han Sans SC",
       "PingFang SC", "Microsoft YaHei", sans-serif; color:#1f2328;
       margin: 0 auto; max-width: 1180px; padding: 24px 32px 64px; background:#fff; }
h1 { font-size: 28px; margin: 0 0 4px; } h2 { border-bottom: 2px solid #d0d7de; padding-bottom: 4px; margin-top: 40px; }
h3 { margin: 0 0 6px; font-size: 17px; } code, pre { font-family: "DejaVu Sans Mono", monospace; font-size: 13px; }
pre { background:#f6f8fa; padding: 8px 10px; overflow-x: auto; white-space: pre-wrap; border-radius: 4px; }
a { color:#0969da; } .muted { color: var(--muted); }
table { border-collapse: collapse; margin: 8px 0; }
th, td { border: 1px solid #d0d7de; padding: 4px 8px; text-align: left; vertical-align: top; }
thead th { background:#f6f8fa; }
.badge { display:inline-block; padding: 1px 9px; border-radius: 10px; color:#fff; font-weight:600; font-size: 13px; }
.badge.holds { background: var(--holds); } .badge.erratum { background: var(--erratum); }
.badge.refuted { background: var(--refuted); } .badge.inconclusive { background: var(--inconclusive); } .badge.error { background: var(--error); }
.counts td.n { font-size: 22px; font-weight: 700; text-align: right; min-width: 64px; }
.differs { color: var(--refuted); font-weight: 600; }
.claim { border: 1px solid #d0d7de; border-left: 6px solid #d0d7de; border-radius: 6px; padding: 12px 16px; margin: 16px 0; }
.claim.v-holds { border-left-color: var(--holds); } .claim.v-erratum { border-left-color: var(--erratum); }
.claim.v-refuted { border-left-color: var(--refuted); } .claim.v-inconclusive { border-left-color: var(--inconclusive); } .claim.v-error { border-left-color: var(--error); }
.statement { margin: 6px 0 10px; padding: 6px 12px; border-left: 3px solid #d0d7de; background:#fbfbfc; }
dl.meta { display:grid; grid-template-columns: max-content 1fr max-content 1fr max-content 1fr; gap: 2px 14px; margin: 6px 0; }
dl.meta dt { color: var(--muted); } dl.meta dd { margin: 0; }
table.evidence th { font-weight: 600; background:#f6f8fa; white-space: nowrap; }
table.evidence table.evidence { margin: 0; }
tr.cex > th, tr.cex > td { background:#fff1e5; } tr.conf > th, tr.conf > td { background:#eef6ff; }
tr.err > th, tr.err > td { background:#ffebe9; }
figure { margin: 10px 0; } figure img { max-width: 100%; height: auto; border: 1px solid #d0d7de; }
figcaption { color: var(--muted); font-size: 13px; }
math { font-size: 1.15em; } .formula math { math-style: normal; }
.proofdoc h1 { font-size: 21px; } .proofdoc h2 { font-size: 18px; margin-top: 18px; }
.proofdoc { border: 1px solid #d0d7de; border-radius: 6px; padding: 4px 18px; margin: 16px 0; }
.missing { color: var(--refuted); }
nav ol { columns: 2; }
@media print { body { max-width: none; padding: 0; font-size: 12px; } .claim, figure, tr { break-inside: avoid; }
               a { color: inherit; text-decoration: none; } }
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


def _badge(verdict: str) -> str:
    cls = verdict if verdict in VERDICTS else "inconclusive"
    return f'<span class="badge {cls}">{_e(verdict)}</span>'


def _counts(entries: list[Mapping[str, Any]]) -> dict[str, int]:
    return {v: sum(1 for c in entries if c.get("verdict") == v) for v in VERDICTS}


def _render_markdown(text: str, link_map: Mapping[str, str], doc_path: str) -> str:
    """Markdown → HTML (raw HTML in the source is escaped); relative links become in-page links or text."""
    try:
        from markdown_it import MarkdownIt
    except ImportError:  # pragma: no cover - rich depends on markdown-it-py
        return f"<pre>{_e(text)}</pre>"
    md = MarkdownIt("commonmark", {"html": False}).enable("table")
    tokens = md.parse(text)
    base = Path(doc_path).parent
    for tok in tokens:
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
                target = _normpath(target)
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


def _normpath(p: str) -> str:
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

    # --- papers, in seed order; unknown seeds after the known ones
    papers: dict[str, Paper] = {}
    by_paper: dict[str, list[Mapping[str, Any]]] = {}
    for c in claims:
        p = paper_for_seed(str(c.get("source_parts", {}).get("seed", c.get("source", ""))))
        papers.setdefault(p.key, p)
        by_paper.setdefault(p.key, []).append(c)
    order = sorted(papers, key=lambda k: (not papers[k].known, k))
    paper_ids = anchor_ids("paper", order)
    claim_ids = anchor_ids("claim", [c["id"] for c in claims])

    # --- proof documents referenced by the claims
    proof_paths = sorted({c["proof"] for c in claims if c.get("proof")})
    proof_texts: dict[str, str] = {}
    for p in proof_paths:
        f = proofs_root / p
        if f.is_file():
            proof_texts[_normpath(p)] = f.read_text(encoding="utf-8")
    proof_ids = anchor_ids("proof", list(proof_texts))

    out: list[str] = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        "<title>dpverify audit report</title>",
        f"<style>{_CSS}</style></head><body>",
        "<header><h1>dpverify audit report</h1>",
        f'<p class="muted">dpverify {_e(prov.get("dpverify_version", "?"))}, git {_e(prov.get("git_revision", "unknown"))}'
        f' · started {_e(prov.get("started_utc", "?"))} · <code>{_e(prov.get("command", ""))}</code></p></header>',
    ]

    # --- contents
    out.append('<nav id="contents"><h2>Contents</h2><ol><li><a href="#summary">Summary</a></li>')
    for k in order:
        out.append(f'<li><a href="#{paper_ids[k]}">{_e(papers[k].title)}</a> '
                   f'<span class="muted">({len(by_paper[k])} claims)</span></li>')
    if doc.get("comparison") is not None:
        out.append('<li><a href="#changes">Changes since the earlier run</a></li>')
    out.append('<li><a href="#provenance">Provenance</a></li>')
    if proof_texts:
        out.append('<li><a href="#proofs">Proof documents</a></li>')
    out.append("</ol></nav>")

    # --- summary
    counts = _counts(claims)
    differ = [c for c in claims if not c.get("as_expected", c.get("verdict") == c.get("expected"))]
    out.append('<section id="summary"><h2>Summary</h2>')
    out.append(f'<p><strong>{len(claims)} claims</strong> checked; '
               + ", ".join(f"{counts[v]} {v}" for v in VERDICTS)
               + f'; <strong class="{"differs" if differ else ""}">{len(differ)} differ from the expected verdict</strong>.'
               + f' Total time {float(doc.get("total_seconds", 0.0)):.2f} s.</p>')
    out.append('<table class="counts"><thead><tr>'
               + "".join(f"<th>{_badge(v)}</th>" for v in VERDICTS) + "<th>differ from expected</th></tr></thead><tbody><tr>"
               + "".join(f'<td class="n">{counts[v]}</td>' for v in VERDICTS)
               + f'<td class="n">{len(differ)}</td></tr></tbody></table>')
    if claims:
        out.append("<h3>By paper</h3><table><thead><tr><th>paper</th>"
                   + "".join(f"<th>{v}</th>" for v in VERDICTS) + "<th>differ</th></tr></thead><tbody>")
        for k in order:
            pc = _counts(by_paper[k])
            nd = sum(1 for c in by_paper[k] if c in differ)
            out.append(f'<tr><td><a href="#{paper_ids[k]}">{_e(papers[k].title)}</a></td>'
                       + "".join(f"<td>{pc[v]}</td>" for v in VERDICTS) + f"<td>{nd}</td></tr>")
        out.append("</tbody></table>")
    if differ:
        out.append('<h3 class="differs">Verdicts that differ from the expected one</h3><table><thead><tr>'
                   "<th>claim</th><th>expected</th><th>verdict</th><th>note</th></tr></thead><tbody>")
        for c in differ:
            note = (c.get("evidence") or {}).get("error", "") if isinstance(c.get("evidence"), Mapping) else ""
            out.append(f'<tr><td><a href="#{claim_ids[c["id"]]}">{_e(c["id"])}</a></td><td>{_badge(c.get("expected", "?"))}</td>'
                       f'<td>{_badge(c.get("verdict", "?"))}</td><td>{_e(note)}</td></tr>')
        out.append("</tbody></table>")
    out.append("</section>")

    if doc.get("comparison") is not None:
        out.append(_changes_html(doc["comparison"], claim_ids))

    # --- one section per paper
    for k in order:
        p = papers[k]
        out.append(f'<section id="{paper_ids[k]}" class="paper"><h2>{_e(p.title)}</h2>')
        meta = [f"seed file <code>{_e(p.seed_file)}</code>" if p.seed_file else f"seed <code>{_e(p.key)}</code>"]
        if p.room:
            meta.append(f"room <code>{_e(p.room)}</code>")
        pc = _counts(by_paper[k])
        meta.append(", ".join(f"{pc[v]} {v}" for v in VERDICTS if pc[v]))
        out.append(f'<p class="muted">{" · ".join(meta)}</p>')
        for c in by_paper[k]:
            out.append(_claim_html(c, claim_ids[c["id"]], evidence.get(c["id"]), figures.get(c["id"]),
                                   proof_ids))
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
        out.append("<h3>Package versions</h3><table><tbody>"
                   + "".join(f"<tr><th>{_e(n)}</th><td>{_e(v)}</td></tr>" for n, v in prov["packages"].items())
                   + "</tbody></table>")
    seeded = [c for c in claims if c.get("seeds")]
    out.append("<h3>Seeds</h3>")
    if seeded:
        out.append("<table><thead><tr><th>claim</th><th>seeds</th></tr></thead><tbody>"
                   + "".join(f'<tr><td><a href="#{claim_ids[c["id"]]}">{_e(c["id"])}</a></td>'
                             f"<td>{value_html(c['seeds'])}</td></tr>" for c in seeded)
                   + "</tbody></table>")
    else:
        out.append('<p class="muted">no claim reported a seed in its evidence.</p>')
    out.append("<h3>Run time per claim</h3><table><thead><tr><th>claim</th><th>seconds</th><th>verdict</th></tr></thead><tbody>")
    for c in sorted(claims, key=lambda c: -float(c.get("seconds", 0.0))):
        out.append(f'<tr><td><a href="#{claim_ids[c["id"]]}">{_e(c["id"])}</a></td>'
                   f'<td>{float(c.get("seconds", 0.0)):.3f}</td><td>{_badge(c.get("verdict", "?"))}</td></tr>')
    out.append("</tbody></table></section>")

    # --- proof documents
    if proof_texts:
        out.append('<section id="proofs"><h2>Proof documents</h2>')
        for p, text in proof_texts.items():
            out.append(f'<article id="{proof_ids[p]}" class="proofdoc"><p class="muted">proofs/{_e(p)}</p>'
                       f"{_render_markdown(text, proof_ids, p)}</article>")
        out.append("</section>")
    out.append("</body></html>")
    return "\n".join(out) + "\n"


def _changes_html(cmp: Mapping[str, Any], claim_ids: Mapping[str, str]) -> str:
    old = cmp.get("old") or {}
    changes = list(cmp.get("changes") or [])
    out = ['<section id="changes"><h2>Changes since the earlier run</h2>',
           f'<p class="muted">earlier run: started {_e(old.get("started_utc", "?"))}, git '
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


def _claim_html(
    c: Mapping[str, Any],
    anchor: str,
    raw_evidence: Mapping[str, Any] | None,
    figure: FigureImage | None,
    proof_ids: Mapping[str, str],
) -> str:
    verdict = str(c.get("verdict", "?"))
    expected = str(c.get("expected", "?"))
    same = c.get("as_expected", verdict == expected)
    parts = c.get("source_parts") or {}
    src = ", ".join(_e(x) for x in (parts.get("seed"), parts.get("section"), parts.get("equation")) if x) or _e(
        c.get("source", ""))
    out = [f'<article id="{anchor}" class="claim v-{_e(verdict)}">',
           f"<h3><code>{_e(c['id'])}</code> {_badge(verdict)}"
           + ("" if same else f' <span class="differs">✗ expected {_e(expected)}</span>') + "</h3>",
           f'<blockquote class="statement">{_e(c.get("statement", ""))}</blockquote>',
           '<dl class="meta">',
           f"<dt>source</dt><dd>{src}</dd>",
           f"<dt>method</dt><dd>{_e(c.get('method', ''))}</dd>",
           f"<dt>expected</dt><dd>{_badge(expected)}</dd>",
           f"<dt>verdict</dt><dd>{_badge(verdict)}" + ("" if same else ' <span class="differs">differs</span>') + "</dd>",
           f"<dt>run time</dt><dd>{float(c.get('seconds', 0.0)):.3f} s</dd>"]
    proof = c.get("proof")
    if proof:
        key = _normpath(proof)
        if key in proof_ids:
            out.append(f'<dt>proof</dt><dd><a href="#{proof_ids[key]}">proofs/{_e(proof)}</a></dd>')
        else:
            out.append(f'<dt>proof</dt><dd><span class="missing">proofs/{_e(proof)} (document not found)</span></dd>')
    out.append("</dl>")
    ev = raw_evidence if raw_evidence is not None else (c.get("evidence") or {})
    out.append("<h4>Evidence</h4>" + evidence_table(ev))
    if figure is not None:
        out.append(f'<figure><img src="{figure.data_uri}" width="{figure.width}" height="{figure.height}" '
                   f'alt="figure of claim {_e(c["id"])}"><figcaption>Figure of <code>{_e(c["id"])}</code>'
                   "</figcaption></figure>")
    elif c.get("figure_error"):
        out.append(f'<details class="missing"><summary>the figure could not be drawn</summary>'
                   f"<pre>{_e(c['figure_error'])}</pre></details>")
    if c.get("error"):
        out.append(f'<details open><summary class="differs">check failed: traceback</summary><pre>{_e(c["error"])}</pre></details>')
    out.append("</article>")
    return "\n".join(out)
