"""Statements and reasons as HTML: inline code and the plain-text math authors write.

Claim statements are plain text written by people: ``M_{2^{m−1}−1}ᵀ R⁽¹⁾ ≤ …``,
``e^{ε|f(D) − f(D')|/Δf}``, ``2^(m−1)``, and code in backticks (```while pt < N```).
:func:`prose_html` escapes the text and sets

- text in backticks as ``<code>`` (nothing inside it is read as math);
- ``X_{…}`` and ``X^{…}`` (braces nest) as subscript and superscript, and ``X^(…)`` as a
  superscript of the bracketed text (the brackets dropped, as a typeset power has none);
- ``X_k`` and ``X^k`` with a number (``2^10``, ``e^-1``), one letter (``U_k``, ``err_m``, ``e^ε``)
  or, after a one-letter name, two letters (``W_ij``) as the index, where ``X`` is a letter, digit
  or closing bracket -- an identifier such as ``noisy_max`` or ``err_org`` is left alone.

Everything else stays as written: only these marks are read, and every character of the
input is escaped, so no text can inject markup.

Example
-------
>>> prose_html("`while pt < N` sets M_{2^{m−1}−1}")
'<code>while pt &lt; N</code> sets M<sub>2<sup>m−1</sup>−1</sub>'
>>> prose_html("e^ε and 2^(m−1), U_k, W_ij, e^-1, but noisy_max stays")
'e<sup>ε</sup> and 2<sup>m−1</sup>, U<sub>k</sub>, W<sub>ij</sub>, e<sup>-1</sup>, but noisy_max stays'
"""

from __future__ import annotations

import html
import re

__all__ = ["prose_html"]

# a one-token index: one letter (any script) not followed by a word character, or a number
_TOKEN = re.compile(r"([^\W\d_]{1,2})(?!\w)|([-−]?\d+(?:\.\d+)?)(?![\w.])")
_BASE = re.compile(r"[\w)\]}′'ᵀ⁻¹²³⁽⁾*]")
_MAX_TEXT = 20_000
_MAX_DEPTH = 8


def prose_html(text: str) -> str:
    """Escaped HTML of a statement: backticks as code, ``_``/``^`` indices as sub-/superscripts."""
    if not isinstance(text, str):
        raise TypeError(f"text must be a string, got {text!r} of type {type(text).__name__}")
    if len(text) > _MAX_TEXT:  # a saved file may hold anything: long text is shown as written
        return html.escape(text, quote=True)
    parts = text.split("`")
    if len(parts) % 2 == 0:  # an unpaired backtick: no code spans
        return _math(text, 0)
    return "".join(f"<code>{html.escape(p, quote=True)}</code>" if i % 2 else _math(p, 0)
                   for i, p in enumerate(parts))


def _closing(text: str, i: int, open_: str, close: str) -> int:
    """The index of the bracket closing the one at ``text[i]``, or -1."""
    depth = 0
    for j in range(i, len(text)):
        if text[j] == open_:
            depth += 1
        elif text[j] == close:
            depth -= 1
            if depth == 0:
                return j
    return -1


def _math(text: str, depth: int) -> str:
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch in "_^" and i > 0 and _BASE.match(text[i - 1]) and i + 1 < n and depth < _MAX_DEPTH:
            tag = "sub" if ch == "_" else "sup"
            nxt = text[i + 1]
            if nxt == "{" or (nxt == "(" and ch == "^"):
                end = _closing(text, i + 1, nxt, "}" if nxt == "{" else ")")
                if end > i + 1:
                    out.append(f"<{tag}>{_math(text[i + 2:end], depth + 1)}</{tag}>")
                    i = end + 1
                    continue
            m = _TOKEN.match(text, i + 1)
            word = _word_before(text, i)
            if m and (m.group(2) or len(m.group(1)) == 1 and word <= 3 or word <= 1):
                out.append(f"<{tag}>{html.escape(m.group(0), quote=True)}</{tag}>")
                i = m.end()
                continue
        out.append(html.escape(ch, quote=True))
        i += 1
    return "".join(out)


def _word_before(text: str, i: int) -> int:
    """The length of the run of letters that ends just before ``text[i]``."""
    j = i
    while j > 0 and text[j - 1].isalpha():
        j -= 1
    return i - j
