"""One claim of the report as HTML: its article, its line in the findings, its one-line reason.

Example
-------
>>> c = {"id": "rr.x", "verdict": "refuted", "expected": "refuted", "method": "exact computation",
...      "summary": "", "evidence": {"tight_delta": 0.25, "n": 3}}
>>> reason(c)
'The exact computation check concluded refuted: tight δ = 0.25, n = 3.'
>>> is_self_test({"id": "audit.bug.x", "source_parts": {"paper": "dpverify self-test"}})
True
>>> is_self_test({"id": "audit.control.fda_release", "source_parts": {"paper": "004"}})
False
"""

from __future__ import annotations

import html
import math
import numbers
from typing import Any, Mapping

from dpverify.report.document import check_entry
from dpverify.report.figures import FigureImage
from dpverify.report.markdown import normpath
from dpverify.report.mathtext import prose_html
from dpverify.report.values import evidence_table, humanise

__all__ = ["is_self_test", "reason", "claim_html", "finding_html", "badge", "source_text", "status_line", "VERDICTS"]

VERDICTS = ("holds", "erratum", "refuted", "inconclusive", "error")

# Evidence whose HTML is longer than this is folded into <details> (closed: not printed).
_FOLD_CHARS = 1800
_FOLD_ROWS = 10


def _e(text: Any) -> str:
    return html.escape(str(text), quote=True)


def badge(verdict: str) -> str:
    """The coloured label of a verdict (an unknown verdict is shown as given, coloured as inconclusive)."""
    if not isinstance(verdict, str):
        raise TypeError(f"verdict must be text, got {verdict!r} of type {type(verdict).__name__}")
    cls = verdict if verdict in VERDICTS else "inconclusive"
    return f'<span class="badge {cls}">{_e(verdict)}</span>'


def _check_anchor(anchor) -> None:
    if not isinstance(anchor, str) or not anchor:
        raise TypeError(f"anchor must be a non-empty HTML id (str), got {anchor!r}")


def is_self_test(c: Mapping[str, Any]) -> bool:
    """A claim about dpverify itself, not a paper's statement.

    Its source seed is :data:`dpverify.claims.model.SELF_TEST` (the auditor's planted
    bugs and controls, the library's own mechanisms); a claim that checks a paper's
    statement on the library's implementation cites the paper and is not one.
    """
    check_entry(c, "c", require=())
    if "self_test" in c:
        return bool(c["self_test"])
    from dpverify.claims.model import SELF_TEST

    parts = c.get("source_parts") or {}
    return parts.get("paper", parts.get("seed", "")) == SELF_TEST  # "seed": results saved before 0.x


def source_text(c: Mapping[str, Any]) -> str:
    """Where the claim's statement is in its paper (section, equation); the paper's own name too
    when the report does not show it as a section title (a paper no room declares, a self-test).

    >>> source_text({"source_parts": {"paper": "004", "section": "§3", "equation": "eq. (2)"}})
    '§3, eq. (2)'
    >>> source_text({"source_parts": {"paper": "My paper", "section": "§1", "equation": ""}})
    'My paper, §1'
    """
    check_entry(c, "c", require=())
    from dpverify.report.papers import paper_for

    parts = c.get("source_parts") if isinstance(c.get("source_parts"), Mapping) else {}
    paper = str(parts.get("paper", parts.get("seed", "")) or "")
    where = [str(x) for x in (parts.get("section"), parts.get("equation")) if x]
    if paper and not paper_for(paper).known:
        where.insert(0, paper)
    return ", ".join(where) or str(c.get("source", "") or "")


def _short(v: Any) -> str | None:
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return f"{v:.4g}" if math.isfinite(v) else ("nan" if math.isnan(v) else ("∞" if v > 0 else "−∞"))
    if isinstance(v, str) and v in ("inf", "-inf"):  # to_jsonable's form of a non-finite float
        return "∞" if v == "inf" else "−∞"
    if isinstance(v, str) and len(v) <= 60 and "\n" not in v:
        return v
    if isinstance(v, Mapping) and set(v) == {"fraction", "float"}:
        return str(v["fraction"])
    return None


def reason(c: Mapping[str, Any]) -> str:
    """The claim's one-line reason: its ``Outcome.summary``, or a sentence made from the first scalar evidence."""
    check_entry(c, "c", require=())
    text = str(c.get("summary") or "").strip()
    if text:
        return text
    if c.get("verdict") == "error":
        err = str(c.get("error") or "").strip().splitlines()
        return f"The check raised {err[-1]}" if err else "The check did not finish."
    ev = c.get("evidence") if isinstance(c.get("evidence"), Mapping) else {}
    facts = []
    for k, v in ev.items():
        s = _short(v)
        if s is not None:
            facts.append(f"{humanise(str(k))[0].lower() + humanise(str(k))[1:]} = {s}")
        if len(facts) == 3:
            break
    head = f"The {c.get('method', '')} check concluded {c.get('verdict', '?')}".replace("The  check", "The check")
    return head + (": " + ", ".join(facts) if facts else "") + "."


def finding_html(c: Mapping[str, Any], anchor: str) -> str:
    """One line of the findings: verdict, claim, statement, reason, link to the evidence."""
    check_entry(c, "c")
    _check_anchor(anchor)
    generated = "" if str(c.get("summary") or "").strip() else ' <span class="muted">(generated from the evidence)</span>'
    differs = "" if c.get("as_expected", True) else f' <span class="differs">expected {_e(c.get("expected"))}</span>'
    return (f'<li class="finding">{badge(str(c.get("verdict")))} <a href="#{anchor}"><code>{_e(c["id"])}</code></a>'
            f'{differs} <span class="src">{_e(source_text(c))}</span>'
            f'<div class="stmt">{statement_html(str(c.get("statement", "")))}</div>'
            f'<div class="why"><strong>Why:</strong> {prose_html(reason(c))}{generated} '
            f'<a href="#{anchor}-evidence">evidence</a></div></li>')


def claim_html(
    c: Mapping[str, Any],
    anchor: str,
    raw_evidence: Mapping[str, Any] | None,
    figure: FigureImage | None,
    figure_number: int,
    proof_ids: Mapping[str, str],
) -> str:
    """The claim's article: statement, source, verdict, reason, evidence (folded when long), figure."""
    check_entry(c, "c")
    _check_anchor(anchor)
    if raw_evidence is not None and not isinstance(raw_evidence, Mapping):
        raise TypeError(f"raw_evidence must be a mapping or None, got {type(raw_evidence).__name__}")
    if figure is not None and not isinstance(figure, FigureImage):
        raise TypeError(f"figure must be a FigureImage or None, got {type(figure).__name__}")
    if isinstance(figure_number, bool) or not isinstance(figure_number, numbers.Integral) or figure_number < 0:
        raise TypeError(f"figure_number must be an integer >= 0, got {figure_number!r}")
    figure_number = int(figure_number)
    if not isinstance(proof_ids, Mapping):
        raise TypeError(f"proof_ids must be a mapping of proof names to HTML ids, got {type(proof_ids).__name__}")
    verdict = str(c.get("verdict", "?"))
    expected = str(c.get("expected", "?"))
    same = c.get("as_expected", verdict == expected)
    src = _e(source_text(c))
    out = [f'<article id="{anchor}" class="claim v-{_e(verdict)}">',
           f"<h3><code>{_e(c['id'])}</code> {badge(verdict)}"
           + ("" if same else f' <span class="differs">✗ expected {_e(expected)}</span>') + "</h3>",
           f'<blockquote class="statement">{statement_html(str(c.get("statement", "")))}</blockquote>']
    if verdict != "holds":
        out.append(f'<p class="why"><strong>Why:</strong> {prose_html(reason(c))}</p>')
    meta = [f"source {src}", f"method {_e(c.get('method', ''))}", f"expected {_e(expected)}",
            f"{float(c.get('seconds', 0.0)):.2f} s"]
    proof = c.get("proof")
    if proof:
        key = normpath(proof) if isinstance(proof, str) else None  # a saved file may hold anything
        if key in proof_ids:
            meta.append(f'proof <a href="#{proof_ids[key]}">{_e(proof)}</a>')
        else:
            meta.append(f'proof <span class="missing">{_e(proof)} (document not found)</span>')
    out.append(f'<p class="meta">{" · ".join(meta)}</p>')
    ev = raw_evidence if raw_evidence is not None else (c.get("evidence") or {})
    if isinstance(ev, Mapping):  # text extracted from a PDF reads garbled (lost sub-/superscripts): JSON only
        ev = {k: v for k, v in ev.items() if not (isinstance(k, str) and k.endswith("excerpt"))}
    table = evidence_table(ev) if isinstance(ev, Mapping) else f"<pre>{_e(ev)}</pre>"
    n = len(ev) if isinstance(ev, Mapping) else 1
    if len(table) > _FOLD_CHARS or n > _FOLD_ROWS or verdict == "holds":
        out.append(f'<details id="{anchor}-evidence" class="evidence"><summary>Evidence ({n} {"entry" if n == 1 else "entries"})</summary>'
                   f"{table}</details>")
    else:
        out.append(f'<div id="{anchor}-evidence" class="evidence"><p class="label">Evidence</p>{table}</div>')
    if figure is not None:
        cap = figure.caption or str(c.get("statement", ""))
        out.append(f'<figure><img src="{figure.data_uri}" width="{figure.width}" height="{figure.height}" '
                   f'alt="{_e(cap)}"><figcaption><strong>Figure {figure_number}.</strong> {_e(cap)} '
                   f'<span class="muted">(claim <code>{_e(c["id"])}</code>)</span></figcaption></figure>')
    elif c.get("figure_error"):
        out.append(f'<details class="missing"><summary>the figure could not be drawn</summary>'
                   f"<pre>{_e(c['figure_error'])}</pre></details>")
    if c.get("error"):
        out.append(f'<details><summary class="differs">check failed: traceback</summary><pre>{_e(c["error"])}</pre></details>')
    out.append("</article>")
    return "\n".join(out)


def status_line(claims: list[Mapping[str, Any]], provenance: Mapping[str, Any]) -> str:
    """The page's first line: green when every verdict is the expected one, red otherwise; counts, version, date.

    >>> status_line([{"id": "a", "verdict": "holds", "expected": "holds"}], {"dpverify_version": "1.0",
    ...             "started_utc": "2026-01-02T03:04:05+00:00"}).split("<strong>")[1].split("</strong>")[0]
    '✓ All 1 claim gave the expected verdict'
    """
    if not isinstance(claims, list) or not all(isinstance(c, Mapping) for c in claims):
        raise TypeError(f"claims must be a list of claim entries (mappings), got {type(claims).__name__}")
    if not isinstance(provenance, Mapping):
        raise TypeError(f"provenance must be a mapping, got {type(provenance).__name__}")
    n = len(claims)
    differ = [c for c in claims if not c.get("as_expected", c.get("verdict") == c.get("expected"))]
    errors = sum(1 for c in claims if c.get("verdict") == "error")
    counts = {v: sum(1 for c in claims if c.get("verdict") == v) for v in VERDICTS}
    if not differ:
        head = f"✓ All {n} {_plural(n, 'claim')} gave the expected verdict"
    else:
        head = (f"✗ {len(differ)} of {n} {_plural(n, 'claim')} differ from the expected verdict"
                + (f" ({errors} did not run to the end)" if errors else ""))
    when = str(provenance.get("started_utc", "?"))[:16].replace("T", " ")
    detail = ", ".join(f"{counts[v]} {v}" for v in VERDICTS if counts[v]) or "no claims"
    return (f'<p id="status" class="status {"bad" if differ else "ok"}" role="status"><strong>{_e(head)}</strong>'
            f' · {_e(detail)} · dpverify {_e(provenance.get("dpverify_version", "?"))} · {_e(when)} UTC</p>')


def _plural(n: int, word: str) -> str:
    return word if n == 1 else word + "s"


def statement_html(text: str) -> str:
    """A claim's statement as HTML: set with its math as MathML (:func:`~dpverify.report.mathtext.prose_html`),
    and, when setting it changed anything, the statement exactly as written beside it (a statement is
    always quoted exactly; the quote is set light, and is printed too).

    >>> statement_html("p < 1")
    'p &lt; 1'
    >>> statement_html("2^(m−1)")
    '<math><msup><mn>2</mn><mrow><mi>m</mi><mo>−</mo><mn>1</mn></mrow></msup></math><span class="exact"> (as written: <code>2^(m−1)</code>)</span>'
    """
    import html

    if not isinstance(text, str):
        raise TypeError(f"text must be a string, got {type(text).__name__}")
    exact = html.escape(text)
    shown = prose_html(text)
    return shown if shown == exact else f'{shown}<span class="exact"> (as written: <code>{exact}</code>)</span>'
