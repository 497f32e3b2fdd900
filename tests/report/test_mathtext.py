"""Statements set as MathML (``dpverify.report.mathtext.prose_html``) and quoted exactly beside.

The expected strings below were written out by hand from the rules in the module docstring
(base = the token before the mark, scripts tokenised into mi/mn/mo, braces group, ``^(…)``
drops its brackets), not pasted from a run.  Hostile inputs check that no text can inject
markup: the output holds only the code and MathML elements, without attributes, well nested,
and its text is the input with only grouping marks dropped.
"""

from __future__ import annotations

import html
import time
from html.parser import HTMLParser

import numpy as np
import pytest

from dpverify.report.entries import statement_html
from dpverify.report.mathtext import prose_html

M_SUB = ("<mrow><msup><mn>2</mn><mrow><mi>m</mi><mo>−</mo><mn>1</mn></mrow></msup>"
         "<mo>−</mo><mn>1</mn></mrow>")
M_MINUS_1 = "<mrow><mi>m</mi><mo>−</mo><mn>1</mn></mrow>"

CASES = [
    ("U_k and W_ij, but noisy_max and err_org stay",
     "<math><msub><mi>U</mi><mi>k</mi></msub></math> and <math><msub><mi>W</mi><mi>ij</mi></msub></math>, "
     "but noisy_max and err_org stay"),
    ("Sub-condition ① reads M_{2^{m−1}−1}ᵀ R⁽¹⁾ ≤ (1 − λ_{2^{m−1}})",
     f"Sub-condition ① reads <math><msub><mi>M</mi>{M_SUB}</msub></math>ᵀ R⁽¹⁾ ≤ (1 − "
     f"<math><msub><mi>λ</mi><msup><mn>2</mn>{M_MINUS_1}</msup></msub></math>)"),
    ("e^{ε|f(D) − f(D')|/Δf} ≤ e^ε",
     "<math><msup><mi>e</mi><mrow><mi>ε</mi><mo>|</mo><mi>f</mi><mrow><mo>(</mo><mi>D</mi><mo>)</mo></mrow>"
     "<mo>−</mo><mi>f</mi><mrow><mo>(</mo><mrow><mi>D</mi><mi>&#x27;</mi></mrow><mo>)</mo></mrow><mo>|</mo>"
     "<mo>/</mo><mi>Δf</mi></mrow></msup></math> ≤ <math><msup><mi>e</mi><mi>ε</mi></msup></math>"),
    ("2^(t−1) + 2^(t−1) = 2^t",
     "<math><msup><mn>2</mn><mrow><mi>t</mi><mo>−</mo><mn>1</mn></mrow></msup></math> + "
     "<math><msup><mn>2</mn><mrow><mi>t</mi><mo>−</mo><mn>1</mn></mrow></msup></math> = "
     "<math><msup><mn>2</mn><mi>t</mi></msup></math>"),
    ("Σ_{c=1}^{k−1} x_i^2",
     "<math><msubsup><mi>Σ</mi><mrow><mi>c</mi><mo>=</mo><mn>1</mn></mrow><mrow><mi>k</mi><mo>−</mo><mn>1</mn>"
     "</mrow></msubsup></math> <math><msubsup><mi>x</mi><mi>i</mi><mn>2</mn></msubsup></math>"),
    ("(1+x)^2, |x|^2, D'_1 and 1.5^-2",
     "<math><msup><mrow><mo>(</mo><mn>1</mn><mo>+</mo><mi>x</mi><mo>)</mo></mrow><mn>2</mn></msup></math>, "
     "<math><msup><mrow><mo>|</mo><mi>x</mi><mo>|</mo></mrow><mn>2</mn></msup></math>, "
     "<math><msub><mrow><mi>D</mi><mi>&#x27;</mi></mrow><mn>1</mn></msub></math> and "
     "<math><msup><mn>1.5</mn><mrow><mo>-</mo><mn>2</mn></mrow></msup></math>"),
    # a bracketed base takes in the math already set inside it
    ("U_k(Λ_k − σ²I)^{1/2}",
     "<math><msub><mi>U</mi><mi>k</mi></msub></math><math><msup><mrow><mo>(</mo><msub><mi>Λ</mi><mi>k</mi>"
     "</msub><mo>−</mo><mrow><mi>σ</mi><mi>²</mi></mrow><mi>I</mi><mo>)</mo></mrow><mrow><mn>1</mn><mo>/</mo>"
     "<mn>2</mn></mrow></msup></math>"),
    ("`x_1 < y` sets x_1 & y", "<code>x_1 &lt; y</code> sets <math><msub><mi>x</mi><mn>1</mn></msub></math> &amp; y"),
    ("plain text, 10 % < 1, snake_case_name", "plain text, 10 % &lt; 1, snake_case_name"),
]


@pytest.mark.parametrize("text, expected", CASES, ids=[c[0][:24] for c in CASES])
def test_statements_set_as_mathml(text, expected):
    assert prose_html(text) == expected


ALLOWED = {"code", "math", "mrow", "mi", "mn", "mo", "msub", "msup", "msubsup"}
DROPPABLE = set("_^{}()") | set(" \t\n\r\f\v")  # grouping marks and spaces inside math


class _Tags(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack, self.errors, self.data = [], [], []

    def handle_starttag(self, tag, attrs):
        if tag not in ALLOWED or attrs:
            self.errors.append(f"<{tag} {attrs}>")
        self.stack.append(tag)

    def handle_startendtag(self, tag, attrs):
        self.errors.append(f"self-closing <{tag}>")

    def handle_endtag(self, tag):
        if not self.stack or self.stack.pop() != tag:
            self.errors.append(f"</{tag}> out of order")

    def handle_data(self, data):
        self.data.append(data)

    def handle_comment(self, data):
        self.errors.append("comment")

    def handle_decl(self, decl):
        self.errors.append("declaration")

    def handle_pi(self, data):
        self.errors.append("processing instruction")


def _check_safe(text: str, out: str) -> None:
    """``out`` is only our markup, well nested, and its text is ``text`` less grouping marks."""
    p = _Tags()
    p.feed(out)
    p.close()
    assert not p.errors and not p.stack, (p.errors, p.stack, out[:500])
    data = "".join(p.data)
    k = 0
    for ch in text:  # greedy: a character of the input is either in the text shown, in order, or droppable
        if k < len(data) and data[k] == ch:
            k += 1
        else:
            assert ch in DROPPABLE or ch == "`", f"{ch!r} lost from {text[:80]!r}"
    assert k == len(data), f"text added: {data[k:k + 80]!r}"


HOSTILE = [
    "<script>alert(1)</script>_{x} and x_{</math><script>alert(2)</script>}",
    "M_{</msub></math><img src=x onerror=alert(3)>}^{\"'&amp;}",
    "a_{b_{c and }}}_{{{ and x^( and )^2 and |^2 and x_",
    "x_{" * 60 + "y" + "}" * 60,
    "x^" * 3000 + "(a_1)^2" * 500,
    "`code_{x}` then `unpaired x_1",
    "&lt;math&gt;_{&#60;}",
]


@pytest.mark.parametrize("text", HOSTILE, ids=range(len(HOSTILE)))
def test_hostile_statements_cannot_inject_markup(text):
    out = prose_html(text)
    _check_safe(text, out)
    assert "<script" not in out and "<img" not in out


def test_long_and_random_text_is_escaped_and_quick():
    rng = np.random.default_rng(29)
    alphabet = list("ab xyz_^{}()|[]<>&\"'`−12.ᵀ′*\\/") + ["</math>", "<script>"]
    texts = ["".join(rng.choice(alphabet, size=n)) for n in (50, 500, 5000)]
    texts.append("".join(rng.choice(alphabet, size=20_000))[:20_000])
    texts += ["a_{" * 6666 + "b", "x_1" * 6666, ("(x)^" * 5000)[:20_000]]
    start = time.process_time()
    for t in texts:
        _check_safe(t, prose_html(t))
    assert time.process_time() - start < 20, "setting 20,000 characters must stay fast (linear)"
    long = "x_1 <b>" * 3000  # longer than 20,000 characters: shown as written, escaped
    assert prose_html(long) == html.escape(long)


def test_prose_html_validates_its_input():
    with pytest.raises(TypeError, match="text must be a string"):
        prose_html(b"x_1")


@pytest.mark.parametrize("text", [c[0] for c in CASES] + HOSTILE[:3])
def test_statement_is_quoted_exactly_beside_the_set_form(text):
    out = statement_html(text)
    quote = f'<span class="exact"> (as written: <code>{html.escape(text)}</code>)</span>'
    if prose_html(text) == html.escape(text):  # nothing was set: the statement itself is the quote
        assert out == html.escape(text)
    else:
        assert out == prose_html(text) + quote and out.endswith(quote)
    _check_safe(text, prose_html(text))


def test_exact_quote_is_light_but_printed():
    from dpverify.report.style import CSS

    rules = [r for r in CSS.split("}") if ".exact" in r]
    assert rules and all("display: none" not in r and "visibility" not in r for r in rules)
    assert any("color: var(--muted)" in r for r in rules)
