"""Statements and reasons as HTML: inline code and the plain-text math authors write, set as MathML.

Claim statements are plain text written by people: ``M_{2^{m−1}−1}ᵀ R⁽¹⁾ ≤ …``,
``e^{ε|f(D) − f(D')|/Δf}``, ``2^(m−1)``, and code in backticks (```while pt < N```).
:func:`prose_html` escapes the text and sets

- text in backticks as ``<code>`` (nothing inside it is read as math);
- each indexed expression as an inline ``<math>`` element (MathML Core, which browsers render
  without scripts): ``X_{…}`` and ``X^{…}`` (braces nest) become ``msub`` and ``msup``, both
  together ``msubsup``, and ``X^(…)`` a superscript of the bracketed text (the brackets dropped,
  as a typeset power has none);
- the base ``X`` is the token just before the mark: a run of letters (``err_m``), a number
  (``2^10``) or a bracketed group (``(1+x)^2``, ``|x|^2``), with any primes or marks written
  after it (``D'_1``);
- an index without braces is one token: a number (``2^10``, ``e^-1``), one letter (``U_k``,
  ``e^ε``) or, after a one-letter name, two letters (``W_ij``) -- so an identifier such as
  ``noisy_max`` or ``err_org`` is left alone;
- inside an index, letters become ``<mi>`` (a run of letters is one identifier), numbers
  ``<mn>``, every other character ``<mo>``, ``{…}`` a group, and indices nest.

Prose outside the math stays prose.  Only these marks are read, and every character of the
input is escaped, so no text can inject markup.

Example
-------
>>> prose_html("`while pt < N` sets M_{2^{m−1}−1}")
'<code>while pt &lt; N</code> sets <math><msub><mi>M</mi><mrow><msup><mn>2</mn><mrow><mi>m</mi><mo>−</mo><mn>1</mn></mrow></msup><mo>−</mo><mn>1</mn></mrow></msub></math>'
>>> prose_html("U_k and x_i^2, but noisy_max stays")
'<math><msub><mi>U</mi><mi>k</mi></msub></math> and <math><msubsup><mi>x</mi><mi>i</mi><mn>2</mn></msubsup></math>, but noisy_max stays'
"""

from __future__ import annotations

import html
import re

__all__ = ["prose_html"]

# an index without braces: an optional sign, then one or two letters (any script) not followed by
# a word character, or a number
_UNBRACED = re.compile(r"([-−]?)(?:([^\W\d_]{1,2})(?!\w)|(\d+(?:\.\d+)?)(?![\w.]))")
# one token inside math: a run of letters, a number, or any other single character
_TOKEN = re.compile(r"([^\W\d_]+)|(\d+(?:\.\d+)?)|(.)", re.S)
_MARKS = "'′″‴*ᵀ⁻¹²³⁽⁾"  # written after a base, they stay with it: D'_1, R⁽¹⁾_k
_PAIRS = {"(": ")", "[": "]", "{": "}"}
_MAX_TEXT = 20_000
_MAX_DEPTH = 8
_MAX_GROUP = 80  # a bracketed base longer than this is prose, not math


def _e(text: str) -> str:
    return html.escape(text, quote=True)


def prose_html(text: str) -> str:
    """Escaped HTML of a statement: backticks as ``<code>``, ``_``/``^`` indices as inline MathML.

    Parameters
    ----------
    text : str
        Plain text as a person wrote it (any length; above 20,000 characters it is only escaped).

    Returns
    -------
    str
        An HTML fragment whose only elements are ``code`` and MathML (``math``, ``mrow``, ``mi``,
        ``mn``, ``mo``, ``msub``, ``msup``, ``msubsup``), none with attributes.

    Examples
    --------
    >>> prose_html("2^(m−1) < e^-1")
    '<math><msup><mn>2</mn><mrow><mi>m</mi><mo>−</mo><mn>1</mn></mrow></msup></math> &lt; <math><msup><mi>e</mi><mrow><mo>-</mo><mn>1</mn></mrow></msup></math>'
    >>> prose_html("p < 1 & q")
    'p &lt; 1 &amp; q'
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be a string, got {text!r} of type {type(text).__name__}")
    if len(text) > _MAX_TEXT:  # a saved file may hold anything: long text is shown as written
        return _e(text)
    parts = text.split("`")
    if len(parts) % 2 == 0:  # an unpaired backtick: no code spans
        return _Setter(text).prose()
    return "".join(f"<code>{_e(p)}</code>" if i % 2 else _Setter(p).prose() for i, p in enumerate(parts))


def _pairs(text: str) -> tuple[dict[int, int], dict[int, int]]:
    """The matching brackets of each kind: opening index -> closing index, and back."""
    close: dict[int, int] = {}
    stacks: dict[str, list[int]] = {o: [] for o in _PAIRS}
    shut = {c: o for o, c in _PAIRS.items()}
    for i, ch in enumerate(text):
        if ch in _PAIRS:
            stacks[ch].append(i)
        elif ch in shut and stacks[shut[ch]]:
            close[stacks[shut[ch]].pop()] = i
    return close, {c: o for o, c in close.items()}


class _Setter:
    """Sets one stretch of text (no code spans in it) as prose with inline MathML."""

    def __init__(self, text: str):
        self.text = text
        self.close, self.open = _pairs(text)

    def prose(self) -> str:
        text = self.text
        spans: list[tuple[int, int, str]] = []  # the math set so far: (start, end, MathML), in order
        i = 0
        while i < len(text):
            done = spans[-1][1] if spans else 0  # text[done:i] is prose
            if text[i] in "_^" and i > done:
                found = self._base(i, done, spans)
                r = None if found is None else self._scripted(found[1], i, len(text), 0, found[2])
                if r is not None:
                    while spans and spans[-1][0] >= found[0]:  # a bracketed base takes in the math inside it
                        spans.pop()
                    spans.append((found[0], r[1], f"<math>{r[0]}</math>"))
                    i = r[1]
                    continue
            i += 1
        out, done = [], 0
        for a, b, xml in spans:
            out.append(_e(text[done:a]) + xml)
            done = b
        return "".join(out) + _e(text[done:])

    def _base(self, i: int, done: int, spans: list[tuple[int, int, str]]) -> tuple[int, str, int] | None:
        """The base before the mark at ``i``: its start, its MathML, and the length of its run of
        letters (0 when it is not letters).  A token starts at ``done`` or later (the end of the math
        set so far); a bracketed group may hold math set before, but may not start inside it."""
        text = self.text
        j = i
        while j > done and text[j - 1] in _MARKS:
            j -= 1
        if j <= done:
            return None
        ch, k, word = text[j - 1], j - 1, 0
        if ch.isalpha():
            while k > done and text[k - 1].isalpha():
                k -= 1
            xml, word = f"<mi>{_e(text[k:j])}</mi>", j - k
        elif ch.isdigit():
            while k > done and text[k - 1].isdigit():
                k -= 1
            if k - 1 > done and text[k - 1] == "." and text[k - 2].isdigit():  # a decimal: 1.5^2
                k -= 1
                while k > done and text[k - 1].isdigit():
                    k -= 1
            xml = f"<mn>{_e(text[k:j])}</mn>"
        elif ch in ")]}|":
            k = self.open.get(j - 1, -1) if ch != "|" else text.rfind("|", max(0, j - _MAX_GROUP), j - 1)
            if k < 0 or j - k > _MAX_GROUP or any(a < k < b for a, b, _ in reversed(spans[-_MAX_GROUP:])):
                return None
            xml = self._group(k, j - 1, 1)
        else:
            return None
        return k, self._marked(xml, j, i), word

    def _marked(self, xml: str, a: int, b: int) -> str:
        """A base with the marks ``text[a:b]`` written after it (primes, ᵀ, ...)."""
        if a == b:
            return xml
        return f"<mrow>{xml}{''.join(f'<mi>{_e(c)}</mi>' for c in self.text[a:b])}</mrow>"  # no operator space

    def _group(self, a: int, b: int, depth: int) -> str:
        """The bracketed group ``text[a..b]`` (brackets included) as one MathML item; braces are
        grouping only and are dropped."""
        inner = self._items(a + 1, b, depth)
        if self.text[a] == "{":
            return inner[0] if len(inner) == 1 else f"<mrow>{''.join(inner)}</mrow>"
        return f"<mrow><mo>{_e(self.text[a])}</mo>{''.join(inner)}<mo>{_e(self.text[b])}</mo></mrow>"

    def _scripted(self, base: str, i: int, limit: int, depth: int, word: int | None) -> tuple[str, int] | None:
        """``base`` with the index at ``text[i]`` (and one of the other kind right after it, which
        makes an ``msubsup``): (MathML, end), or None when no index is read there.

        ``word`` is the length of the base's run of letters in prose (an index without braces
        after a long word is not read: ``noisy_max``), or None inside math."""
        text = self.text
        first = self._script(i, limit, depth, word)
        if first is None:
            return None
        index, j = first
        if j < limit and text[j] in "_^" and text[j] != text[i]:
            second = self._script(j, limit, depth, word)
            if second is not None:
                sub, sup = (index, second[0]) if text[i] == "_" else (second[0], index)
                return f"<msubsup>{base}{sub}{sup}</msubsup>", second[1]
        tag = "msub" if text[i] == "_" else "msup"
        return f"<{tag}>{base}{index}</{tag}>", j

    def _script(self, i: int, limit: int, depth: int, word: int | None) -> tuple[str, int] | None:
        """One index at ``text[i]`` (``_`` or ``^``): (its MathML, end), or None."""
        text = self.text
        if i + 1 >= limit or depth >= _MAX_DEPTH:
            return None
        nxt = text[i + 1]
        if nxt == "{" or (nxt == "(" and text[i] == "^"):
            end = self.close.get(i + 1, limit)
            if end < limit:
                inner = self._items(i + 2, end, depth + 1)
                return (inner[0] if len(inner) == 1 else f"<mrow>{''.join(inner)}</mrow>"), end + 1
        m = _UNBRACED.match(text, i + 1, limit)
        if m is None:
            return None
        if word is not None and not (m.group(3) or len(m.group(2)) == 1 and word <= 3 or word <= 1):
            return None
        token = f"<mi>{_e(m.group(2))}</mi>" if m.group(2) else f"<mn>{_e(m.group(3))}</mn>"
        return (f"<mrow><mo>{_e(m.group(1))}</mo>{token}</mrow>" if m.group(1) else token), m.end()

    def _items(self, a: int, b: int, depth: int) -> list[str]:
        """``text[a:b]`` inside math, as a list of MathML items (spaces dropped)."""
        text, items = self.text, []
        i = a
        while i < b:
            ch = text[i]
            if ch.isspace():
                i += 1
                continue
            if ch in "_^" and items:
                r = self._scripted(items[-1], i, b, depth, None)
                if r is not None:
                    items[-1], i = r
                    continue
            end = self.close.get(i, b) if ch in _PAIRS and depth < _MAX_DEPTH else b
            if end < b:
                items.append(self._group(i, end, depth + 1))
                i = end + 1
                continue
            m = _TOKEN.match(text, i, b)
            tag = "mi" if m.group(1) else "mn" if m.group(2) else "mo"
            j = i + 1 if tag == "mi" else m.end()
            while tag == "mi" and j < b and text[j].isalpha():  # letters only: σ²I is σ, ², I
                j += 1
            token, i = text[i:j], j
            while tag != "mo" and j < b and text[j] in _MARKS:
                j += 1
            items.append(self._marked(f"<{tag}>{_e(token)}</{tag}>", i, j))
            i = j
        return items
