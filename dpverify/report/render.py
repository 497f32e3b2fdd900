"""The self-contained HTML page of a report: one file, no network, no JavaScript.

Written for the person it is handed to.  In order: the checks that failed to
run (with tracebacks), what the papers got wrong (every non-``holds`` claim of
a paper with its one-line reason and a link to its evidence), the summary
(counts per paper: papers' statements only), the changes since a baseline, one
section per paper, the library's self-tests on their own, provenance, and the
proof documents.  Figures are embedded as base64 PNG with numbered captions,
formulas as MathML, long evidence folded into ``<details>`` (closed on screen,
open in print), proof documents as rendered Markdown in an appendix (a link from a
claim to its proof is an in-page link that never breaks when the report is
moved).  The page opens with a status line (green or red, the counts, the version
and the date).  The print style keeps the default report, every evidence table
open, under 40 A4 pages.

Example
-------
>>> page = render_html({"claims": [], "provenance": {}, "summary": {}})
>>> page.startswith("<!DOCTYPE html>") and 'id="summary"' in page
True
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

from dpverify.report.document import check_document
from dpverify.report.figures import FigureImage
from dpverify.report.style import CSS as _CSS
from dpverify.report.papers import Paper, paper_for_seed
from dpverify.report.entries import VERDICTS, badge, claim_html, finding_html, is_self_test, reason, status_line
from dpverify.report.markdown import normpath, render_markdown
from dpverify.report.mathtext import prose_html
from dpverify.report.values import value_html
from dpverify.validation import check_path

__all__ = ["render_html", "anchor_ids", "VERDICTS"]





def _e(text: Any) -> str:
    return html.escape(str(text), quote=True)


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_-]+", "-", text).strip("-") or "x"


def anchor_ids(prefix: str, keys: list[str]) -> dict[str, str]:
    """Unique HTML ids ``prefix-<slug>`` for distinct keys (a clash of slugs gets a counter)."""
    if not isinstance(prefix, str) or not prefix:
        raise TypeError(f"prefix must be non-empty text, got {prefix!r}")
    if isinstance(keys, (str, bytes)) or not isinstance(keys, (list, tuple)) or not all(isinstance(k, str) for k in keys):
        raise TypeError(f"keys must be a list of text keys, got {type(keys).__name__}")
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


@dataclass
class _Page:
    """What the page is made of: the claims sorted into papers and self-tests, with their anchors."""

    doc: Mapping[str, Any]
    claims: list[Mapping[str, Any]]
    selftests: list[Mapping[str, Any]]
    stated: list[Mapping[str, Any]]
    papers: dict[str, Paper]
    by_paper: dict[str, list[Mapping[str, Any]]]
    order: list[str]
    paper_ids: dict[str, str]
    claim_ids: dict[str, str]
    errors: list[Mapping[str, Any]]
    findings: list[Mapping[str, Any]]
    differ: list[Mapping[str, Any]]
    proof_texts: dict[str, str]
    proof_ids: dict[str, str]


def _plan(doc: Mapping[str, Any], proofs_root: Path | None) -> _Page:
    """Sort the claims: papers' statements by paper, in seed order (unknown seeds last); self-tests apart."""
    claims = list(doc.get("claims", []))
    selftests = [c for c in claims if is_self_test(c)]
    stated = [c for c in claims if not is_self_test(c)]
    papers: dict[str, Paper] = {}
    by_paper: dict[str, list[Mapping[str, Any]]] = {}
    for c in stated:
        parts = c.get("source_parts", {})
        p = paper_for_seed(str(parts.get("paper", parts.get("seed", c.get("source", "")))))
        papers.setdefault(p.key, p)
        by_paper.setdefault(p.key, []).append(c)
    order = sorted(papers, key=lambda k: (not papers[k].known, k))
    texts = _proof_texts(claims, proofs_root)
    return _Page(
        doc=doc, claims=claims, selftests=selftests, stated=stated, papers=papers, by_paper=by_paper,
        order=order, paper_ids=anchor_ids("paper", order), claim_ids=anchor_ids("claim", [c["id"] for c in claims]),
        errors=[c for c in claims if c.get("verdict") == "error"],
        findings=[c for c in stated if c.get("verdict") not in ("holds", "error")],
        differ=[c for c in claims if not c.get("as_expected", c.get("verdict") == c.get("expected"))],
        proof_texts=texts, proof_ids=anchor_ids("proof", list(texts)),
    )


def _proof_texts(claims: list[Mapping[str, Any]], proofs_root: Path | None) -> dict[str, str]:
    """The proof documents the claims name (``"<room>/<file>.md"``), found by :func:`dpverify.rooms.proof_path`
    (in the rooms' ``proofs/`` folders, or under ``proofs_root``).  A name of another spelling (a saved
    results file may say anything) or a missing document is left out (the claim flags it): no other
    file is ever read."""
    from dpverify.rooms import proof_path

    out: dict[str, str] = {}
    for name in sorted({c["proof"] for c in claims if isinstance(c.get("proof"), str) and c.get("proof")}):
        try:
            f = proof_path(name, root=proofs_root)
        except ValueError:
            f = None
        if f is not None:
            out[normpath(name)] = f.read_text(encoding="utf-8")
    return out


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
        A folder holding the proof documents as ``<room>/<file>.md``; by default
        each is found in its room's ``proofs/`` (:func:`dpverify.rooms.proof_path`).
        Proof documents found are embedded; a missing one is flagged, never linked.
    """
    doc = check_document(doc)
    for name, m in (("evidence", evidence), ("figures", figures)):
        if m is not None and not isinstance(m, Mapping):
            raise TypeError(f"{name} must be a mapping of claim ids or None, got {type(m).__name__}")
    page = _plan(doc, None if proofs_root is None else check_path(proofs_root, "proofs_root"))
    out: list[str] = _header(page) + _contents(page) + _errors_section(page) + _findings_section(page)
    out += _summary_section(page)
    if doc.get("comparison") is not None:
        out.append(_changes_html(doc["comparison"], page.claim_ids))
    out += _claim_sections(page, evidence or {}, figures or {})
    out += _provenance_section(page) + _proofs_section(page)
    out.append("</body></html>")
    return "\n".join(out) + "\n"


def _header(page: _Page) -> list[str]:
    prov = page.doc.get("provenance", {}) or {}
    return [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        "<title>dpverify audit report</title>",
        f"<style>{_CSS}</style></head><body>",
        "<header><h1>dpverify audit report</h1>",
        status_line(page.claims, prov),
        f'<p class="muted">{len(page.claims)} {"claim" if len(page.claims) == 1 else "claims"}: '
        f'{len(page.stated)} {"statement" if len(page.stated) == 1 else "statements"} of {len(page.order)} '
        f'{"paper" if len(page.order) == 1 else "papers"} and '
        f'{len(page.selftests)} {"self-test" if len(page.selftests) == 1 else "self-tests"} of the library · dpverify {_e(prov.get("dpverify_version", "?"))}, '
        f'git {_e(str(prov.get("git_revision", "unknown"))[:12])} · started {_e(prov.get("started_utc", "?"))} · '
        f'<code>{_e(prov.get("command", ""))}</code></p></header>',
    ]


def _contents(page: _Page) -> list[str]:
    toc = []
    if page.errors:
        toc.append(("errors", f"Checks that did not run ({len(page.errors)})"))
    toc.append(("findings", f"What the papers got wrong ({len(page.findings)})"))
    toc.append(("summary", "Summary"))
    if page.doc.get("comparison") is not None:
        toc.append(("changes", "Changes since the baseline"))
    toc += [(page.paper_ids[k], f"{page.papers[k].title} ({len(page.by_paper[k])} claims)") for k in page.order]
    if page.selftests:
        toc.append(("self-tests", f"The library's self-tests ({len(page.selftests)})"))
    toc.append(("provenance", "Provenance"))
    if page.proof_texts:
        toc.append(("proofs", f"Proof documents ({len(page.proof_texts)})"))
    return ['<nav id="contents"><h2>Contents</h2><ol>'
            + "".join(f'<li><a href="#{a}">{_e(t)}</a></li>' for a, t in toc) + "</ol></nav>"]


def _errors_section(page: _Page) -> list[str]:
    """Errors first: a check that crashed or timed out says nothing about the paper."""
    if not page.errors:
        return []
    out = ['<section id="errors"><h2 class="differs">Checks that did not run to the end</h2>'
           "<p>These checks raised an exception or ran out of time: their claims are neither "
           "confirmed nor refuted.</p>"]
    for c in page.errors:
        out.append(f'<div class="claim v-error"><h3><a href="#{page.claim_ids[c["id"]]}"><code>{_e(c["id"])}</code></a> '
                   f'{_badge("error")}</h3><p class="why">{prose_html(reason(c))}</p>'
                   f'<pre>{_e(c.get("error") or "")}</pre></div>')
    out.append("</section>")
    return out


def _findings_section(page: _Page) -> list[str]:
    """What the papers got wrong, by paper, each with its reason and a link to its evidence."""
    out = ['<section id="findings"><h2>What the papers got wrong</h2>']
    if not page.findings:
        return out + ["<p>Every checked statement of the papers holds.</p>", "</section>"]
    out.append(f"<p>{len(page.findings)} of the papers' {len(page.stated)} checked statements did not hold as printed "
               "(<strong>erratum</strong>: wrong as printed, the corrected statement holds; "
               "<strong>refuted</strong>: false; <strong>inconclusive</strong>: not reproduced). "
               "Each line gives the reason; the link leads to the evidence.</p>")
    for k in page.order:
        fk = [c for c in page.by_paper[k] if c in page.findings]
        if fk:
            out.append(f'<h3><a href="#{page.paper_ids[k]}">{_e(page.papers[k].title)}</a></h3><ul class="findings">')
            out += [finding_html(c, page.claim_ids[c["id"]]) for c in fk]
            out.append("</ul>")
    out.append("</section>")
    return out


def _summary_section(page: _Page) -> list[str]:
    claims, differ = page.claims, page.differ
    counts = _counts(claims)
    out = ['<section id="summary"><h2>Summary</h2>',
           f'<p><strong>{len(claims)} claims</strong> checked; '
           + ", ".join(f"{counts[v]} {v}" for v in VERDICTS)
           + f'; <strong class="{"differs" if differ else ""}">{len(differ)} differ from the expected verdict</strong>.'
           + f' Total time {float(page.doc.get("total_seconds", 0.0)):.2f} s.</p>',
           '<table class="counts"><thead><tr><th></th>'
           + "".join(f"<th>{_badge(v)}</th>" for v in VERDICTS) + "<th>differ from expected</th></tr></thead><tbody>"]

    def row(label: str, group: list[Mapping[str, Any]], link: str) -> str:
        pc = _counts(group)
        nd = sum(1 for c in group if c in differ)
        return (f'<tr><th><a href="#{link}">{_e(label)}</a></th>'
                + "".join(f'<td class="n">{pc[v]}</td>' for v in VERDICTS) + f'<td class="n">{nd}</td></tr>')

    out += [row(page.papers[k].title, page.by_paper[k], page.paper_ids[k]) for k in page.order]
    if page.selftests:
        out.append(row("dpverify's self-tests (not a paper's statement)", page.selftests, "self-tests"))
    out.append("</tbody></table>")
    if differ:
        out.append('<h3 class="differs">Verdicts that differ from the expected one</h3><table><thead><tr>'
                   "<th>claim</th><th>expected</th><th>verdict</th><th>reason</th></tr></thead><tbody>")
        for c in differ:
            out.append(f'<tr><td><a href="#{page.claim_ids[c["id"]]}">{_e(c["id"])}</a></td>'
                       f'<td>{_badge(c.get("expected", "?"))}</td>'
                       f'<td>{_badge(c.get("verdict", "?"))}</td><td>{prose_html(reason(c))}</td></tr>')
        out.append("</tbody></table>")
    out.append("</section>")
    return out


def _claim_sections(page: _Page, evidence: Mapping[str, Mapping[str, Any]],
                    figures: Mapping[str, FigureImage]) -> list[str]:
    """One section per paper, then the self-tests; figures numbered in page order."""
    fig_no = [0]

    def article(c: Mapping[str, Any]) -> str:
        img = figures.get(c["id"])
        if img is not None:
            fig_no[0] += 1
        return claim_html(c, page.claim_ids[c["id"]], evidence.get(c["id"]), img, fig_no[0], page.proof_ids)

    out = []
    for k in page.order:
        p = page.papers[k]
        out.append(f'<section id="{page.paper_ids[k]}" class="paper"><h2>{_e(p.title)}</h2>')
        pc = _counts(page.by_paper[k])
        meta = [", ".join(f"{pc[v]} {v}" for v in VERDICTS if pc[v])]
        out.append(f'<p class="muted">{" · ".join(meta)}</p>')
        out += [article(c) for c in page.by_paper[k]]
        out.append("</section>")
    if page.selftests:
        out.append('<section id="self-tests"><h2>The library\'s self-tests</h2>'
                   "<p>Claims about dpverify itself: planted bugs the auditor must catch, controls it must not "
                   "flag, and the tightness of its own bounds. They test the tools, not any paper, and are "
                   "not counted in any paper's line of the summary.</p>")
        out += [article(c) for c in page.selftests]
        out.append("</section>")
    return out


def _provenance_section(page: _Page) -> list[str]:
    doc, claims, ids = page.doc, page.claims, page.claim_ids
    prov = doc.get("provenance", {}) or {}
    out = ['<section id="provenance"><h2>Provenance</h2><table><tbody>']
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
                   + "".join(f'<tr><td><a href="#{ids[c["id"]]}">{_e(c["id"])}</a></td>'
                             f"<td>{value_html(c['seeds'])}</td></tr>" for c in seeded)
                   + "</tbody></table>")
    else:
        out.append('<p class="muted">no claim reported a seed in its evidence.</p>')
    out.append("</details>")
    out.append("<details><summary>Run time per claim</summary><table><thead><tr><th>claim</th><th>seconds</th>"
               "<th>verdict</th></tr></thead><tbody>")
    for c in sorted(claims, key=lambda c: -float(c.get("seconds", 0.0))):
        out.append(f'<tr><td><a href="#{ids[c["id"]]}">{_e(c["id"])}</a></td>'
                   f'<td>{float(c.get("seconds", 0.0)):.3f}</td><td>{_badge(c.get("verdict", "?"))}</td></tr>')
    out.append("</tbody></table></details></section>")
    return out


def _proofs_section(page: _Page) -> list[str]:
    """The proof documents, folded (they are long; a link to one opens it)."""
    if not page.proof_texts:
        return []
    out = ['<section id="proofs"><h2>Proof documents</h2>']
    for p, text in page.proof_texts.items():
        first = next((ln.lstrip("# ").strip() for ln in text.splitlines() if ln.startswith("#")), p)
        out.append(f'<details id="{page.proof_ids[p]}" class="proofdoc"><summary>{_e(first)} '
                   f'<span class="muted">{_e(p)}</span></summary>'
                   f"{render_markdown(text, page.proof_ids, p, shift=3)}</details>")
    out.append("</section>")
    return out


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
