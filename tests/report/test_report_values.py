"""Evidence values in the page: formulas (MathML), numbers, long lists, embedded proofs."""

from __future__ import annotations

import pytest
import sympy as sp
from report_html_checks import check_report_html

from dpverify.claims import to_jsonable
from dpverify.report import render_html
from dpverify.report.values import _parse_sympy_text, evidence_table, sympy_to_mathml, value_html

N, g, eps = sp.symbols("N gamma epsilon")
EXPRS = [
    N * sp.log(N, 2) + g,
    sp.gamma(N) + sp.E,
    sp.Matrix([[N, 1], [0, eps]]),
    sp.Eq(N, 2),
    sp.Piecewise((1, N > 2), (0, True)),
    sp.Float(1.5e-7) * N,
    sp.Rational(1, 3),
    sp.sqrt(2) * sp.I + sp.cbrt(eps),
    sp.Sum(N**2, (N, 1, 10)),
    2 * sp.exp(eps) / (1 + sp.exp(eps)) ** 2,
]


@pytest.mark.parametrize("expr", EXPRS, ids=[str(e) for e in EXPRS])
def test_formula_survives_the_worker_round_trip(expr):
    """After a parallel run only str/latex arrive; the page must show the same formula as in-process."""
    assert _parse_sympy_text(str(expr)) == expr
    assert value_html(to_jsonable(expr)) == value_html(expr)
    assert "<math" in value_html(expr)


@pytest.mark.parametrize("text", ["exit()", "__import__('os').system('true')", "open('/etc/passwd')",
                                  "Symbol.mro()", "sympify('1')", "lambdify(x, x)", "preview(x)"])
def test_evidence_text_is_never_executed(text):
    """Parsing back uses sympy expression types only: no builtins, helpers or attribute access."""
    expr = _parse_sympy_text(text)
    assert expr is None or all(isinstance(f, sp.core.function.AppliedUndef) for f in expr.atoms(sp.Function))
    html = value_html({"sympy": text, "latex": text})
    assert "<script" not in html


def test_unparsable_formula_falls_back_to_latex():
    html = value_html(to_jsonable(sp.Symbol("lambda") + 1))
    assert 'class="latex"' in html and "\\lambda + 1" in html


def test_numbers_and_containers():
    assert value_html(float("nan")) == "nan" and value_html(float("-inf")) == "−∞"
    # "inf"/"-inf"/"nan" are to_jsonable's form of the floats (evidence of a supervised or saved run):
    # shown as the numbers, so the page does not depend on where the check ran
    assert value_html("inf") == value_html(float("inf")) == "∞" and value_html("-inf") == "−∞"
    assert value_html(to_jsonable({"b": float("inf")})) == value_html({"b": float("inf")})
    assert value_html("infinite") == "infinite"
    assert value_html(True) == "true" and value_html(None).endswith("none</span>")
    # rounded for reading; the float as computed on hover (and in report.json)
    assert value_html(0.1 + 0.2) == '<span class="num" title="0.30000000000000004">0.3</span>'
    assert value_html(0.25) == "0.25" and value_html(1.5e-7).endswith(">1.5×10<sup>−7</sup></span>")
    rows = value_html([{"eps": 0.1, "u_star": 2 / 3}, {"eps": 1.0, "u_star": 0.5}])
    assert "<th scope=\"col\">ε</th>" in rows and "<th scope=\"col\">u*</th>" in rows and rows.count("<tr>") == 3
    assert value_html({"fraction": "13/16", "float": 0.8125}).startswith("13/16")
    long = value_html(list(range(100)))
    assert "(100 items)" in long and "99" in long and ", 50," not in long
    assert value_html("a\nb").startswith("<pre>")
    assert value_html("<b>x</b>") == "&lt;b&gt;x&lt;/b&gt;"
    deep = {"a": {"b": {"c": {"d": {"e": {"f": 1}}}}}}
    assert "<table" in evidence_table(deep)
    assert 'class="cex"' in evidence_table({"counterexample": [1]})
    assert 'class="conf"' in evidence_table({"confidence": 0.99})
    assert 'class="none"' in evidence_table({})
    assert '<th scope="row" title="tight_delta">Tight δ</th>' in evidence_table({"tight_delta": 0.0})
    assert ">Run time (s)<" in evidence_table({"run_time_seconds": 1.0})
    many = {f"k{i}": i for i in range(100)}
    assert "k99" in evidence_table(many)  # a claim's own entries are all shown
    nested = evidence_table({"sweep": many})
    assert "k39" in nested and "k40" not in nested and "60 more entries" in nested
    assert sympy_to_mathml(N, display=True).count('display="block"') == 1
    with pytest.raises(TypeError, match="expr"):
        sympy_to_mathml("x")
    with pytest.raises(TypeError, match="evidence"):
        evidence_table([1])


def test_proof_documents_are_embedded_with_working_links(tmp_path):
    (tmp_path / "room").mkdir()
    (tmp_path / "room" / "a.md").write_text(
        "# A\n\n## Statement\nsee [the other](b.md), [a missing one](c.md), [the web](https://example.org) "
        "and [a section](#statement).\n\n![a plot](fig.png)\n\n<script>alert(1)</script>\n\n```python\nx = 1\n```\n",
        encoding="utf-8")
    (tmp_path / "room" / "b.md").write_text("# B\n\nback to [A](../room/a.md#statement)\n", encoding="utf-8")
    claims = [
        {"id": "zz.a", "verdict": "holds", "expected": "holds", "proof": "room/a.md", "statement": "s",
         "source_parts": {"paper": "004"}, "evidence": {}},
        {"id": "zz.b", "verdict": "holds", "expected": "holds", "proof": "room/b.md", "statement": "t",
         "source_parts": {"paper": "004"}, "evidence": {}},
    ]
    page = render_html({"claims": claims, "provenance": {}}, proofs_root=tmp_path)
    check_report_html(page)
    assert '<a href="#proof-room-b-md">the other</a>' in page
    assert '<a href="#proof-room-a-md">A</a>' in page
    assert "<span>a missing one</span>" in page and "<span>a section</span>" in page
    assert '<a href="https://example.org">the web</a>' in page
    assert "<script>" not in page and "&lt;script&gt;" in page  # raw HTML in a proof is shown, not run
    assert '<code class="language-python">x = 1' in page
    assert "[image: a plot]" in page and "fig.png" not in page


def test_room_words_come_from_the_rooms(monkeypatch):
    """The acronyms of evidence keys (``rr`` → RR, ``fda`` → FDA) are the rooms' declarations, not a list
    in the report: a new room's acronym or capital glossary word is shown so with no edit here."""
    import dpverify.report.values as V
    from dpverify import rooms as R

    assert V.humanise("rr_pca_ppca_fda_gap") == "RR PCA PPCA FDA gap"
    assert V.humanise("zzq_gap") == "Zzq gap"
    new = R.Room(name="zznew", glossary=(("ZZW-ZZQ", "a word"),), acronyms=("XYZ",))
    monkeypatch.setattr(V, "rooms", lambda **kw: (*R.rooms(), new))
    assert V.humanise("zzq_xyz_zzw") == "ZZQ XYZ ZZW"
    with pytest.raises(ValueError, match="acronyms"):
        R.Room(name="zzbad", acronyms=("rr",))
