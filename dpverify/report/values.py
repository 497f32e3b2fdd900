"""Evidence values as HTML: numbers, counterexamples, and formulas as MathML.

sympy expressions are shown as presentation MathML (rendered natively by the
browser, no JavaScript).  The report draws every page from the JSON form of the
evidence (:func:`dpverify.claims.to_jsonable`), so a supervised run, a run in
this process and saved results look the same: an expression arrives as
``{"sympy": str, "latex": latex}`` and is parsed back from its ``str`` form with
a namespace of sympy expression types only (no code can run), and shown as LaTeX
source when that fails; the strings ``"inf"``, ``"-inf"`` and ``"nan"`` are the
non-finite floats and are shown as ∞, −∞ and nan.

Example
-------
>>> import sympy as sp
>>> sympy_to_mathml(sp.Rational(1, 2)).startswith('<math xmlns="http://www.w3.org/1998/Math/MathML"')
True
>>> value_html(0.1), value_html([1, 2, 3])
('0.1', '[1, 2, 3]')
>>> value_html(float("inf")), value_html("inf"), value_html({"fraction": "1/0", "float": "-inf"})
('∞', '∞', '1/0 <span class="approx">≈ −∞</span>')
>>> value_html(2 / 3)
'<span class="num" title="0.6666666666666666">0.6667</span>'
>>> humanise("u_star_lp"), humanise("run_seconds")
('u* LP', 'Run (s)')
"""

from __future__ import annotations

import dataclasses
import functools
import html
import math
import re
from fractions import Fraction
from typing import Any, Mapping

import numpy as np

from dpverify.rooms import Room, rooms

__all__ = ["sympy_to_mathml", "value_html", "evidence_table", "humanise", "number_html"]

#: significant digits shown in the page (the JSON and the hover title keep every digit)
DIGITS = 4

# words of evidence keys shown as their symbol or acronym (the rooms' own acronyms: _words())
_WORDS = {"eps": "ε", "epsilon": "ε", "delta": "δ", "pi": "π", "lam": "λ", "lambda": "λ", "sigma": "σ",
          "alpha": "α", "beta": "β", "mse": "MSE", "lp": "LP", "ldp": "LDP", "dp": "DP", "svm": "SVM",
          "cex": "counterexample", "lb": "lower bound",
          "ub": "upper bound", "max": "max", "min": "min", "rel": "relative", "abs": "absolute", "err": "error",
          "num": "number of", "n": "n", "k": "k", "u": "u", "p": "p", "q": "q", "id": "id", "ids": "ids",
          "thm": "Thm", "eq": "eq.", "lap": "Lap", "sd": "sd", "std": "sd", "ci": "CI"}
# trailing words that are units: shown in parentheses after the name
_UNITS = {"seconds": "s", "secs": "s", "sec": "s", "s": "s", "ms": "ms", "bytes": "bytes", "mb": "MB",
          "pct": "%", "percent": "%", "bits": "bits", "nats": "nats"}

_MATHML_NS = "http://www.w3.org/1998/Math/MathML"
_ENTITY_RE = re.compile(r"&([A-Za-z][A-Za-z0-9]*);")
_XML_ENTITIES = {"lt", "gt", "amp", "quot", "apos"}
# what str() of a sympy expression may contain; anything else is not parsed back
_SAFE_EXPR_RE = re.compile(r"^[\w\s+\-*/^().,\[\]{}:<>=!|&~']*$")
_ATTR_RE = re.compile(r"\.\s*[A-Za-z_]")
_NAME_RE = re.compile(r"\b([A-Za-z_]\w*)\b(?!\s*\()")
_CONSTANTS = {"E", "I", "pi", "oo", "zoo", "nan", "true", "false", "True", "False"}
# the strings dpverify.claims.to_jsonable writes for non-finite floats, shown as the number they stand for
_NON_FINITE = {"inf": "∞", "-inf": "−∞", "nan": "nan"}
_MAX_ITEMS = 12
_MAX_ROWS = 40
_MAX_DEPTH = 4


def _e(text: Any) -> str:
    return html.escape(str(text), quote=True)


def sympy_to_mathml(expr: Any, *, display: bool = False) -> str:
    """A ``<math>`` element (presentation MathML) for a sympy expression or matrix.

    Named entities of the printer (``&ExponentialE;``) become characters, so
    the markup is also valid XML.
    """
    import sympy
    from sympy.printing.mathml import mathml

    if not isinstance(expr, (sympy.Basic, sympy.MatrixBase)):
        raise TypeError(f"expr must be a sympy expression, got {type(expr).__name__}")
    if not isinstance(display, (bool, np.bool_)):
        raise TypeError(f"display must be True or False, got {display!r}")
    body = mathml(expr, printer="presentation")
    body = _ENTITY_RE.sub(lambda m: m.group(0) if m.group(1) in _XML_ENTITIES else html.unescape(m.group(0)), body)
    mode = "block" if display else "inline"
    return f'<math xmlns="{_MATHML_NS}" display="{mode}">{body}</math>'


def _expr_html(value: Mapping[str, Any]) -> str:
    """``{"sympy": str, "latex": latex}`` as MathML, or as LaTeX source if it cannot be parsed back."""
    text = str(value.get("sympy", ""))
    latex = str(value.get("latex", text))
    expr = _parse_sympy_text(text)
    if expr is not None:
        try:
            return _formula(expr, latex)
        except Exception:
            pass
    return f'<code class="latex" title="LaTeX">{_e(latex)}</code>'


_NAMESPACE: dict[str, Any] | None = None


def _sympy_namespace() -> dict[str, Any]:
    """Only sympy's expression classes, functions and constants -- no builtins, modules or helpers
    (``sympify``, ``lambdify``, ``preview`` ... are absent), so parsing text cannot run code."""
    global _NAMESPACE
    if _NAMESPACE is None:
        import sympy
        from sympy.core.function import FunctionClass

        ns: dict[str, Any] = {"__builtins__": {}}
        for name in dir(sympy):
            if name.startswith("_"):
                continue
            v = getattr(sympy, name)
            if isinstance(v, (sympy.Basic, FunctionClass)) or (
                isinstance(v, type) and issubclass(v, (sympy.Basic, sympy.MatrixBase))
            ):
                ns[name] = v
        for name in ("sqrt", "root", "cbrt", "real_root"):  # plain functions that build powers
            ns[name] = getattr(sympy, name)
        _NAMESPACE = ns
    return _NAMESPACE


def _parse_sympy_text(text: str) -> Any:
    """Parse ``str(expr)`` back into a sympy expression, safely; ``None`` when that is not possible.

    The text must consist of expression characters only (no attribute access,
    no dunder names) and is evaluated with a namespace of sympy expression
    types only.  A bare name is a symbol (N, S, gamma, ...); a name before
    "(" a function.
    """
    if not text or len(text) > 5000 or "__" in text or _ATTR_RE.search(text) or not _SAFE_EXPR_RE.match(text):
        return None
    try:
        from sympy.parsing.sympy_parser import parse_expr

        names = {m.group(1) for m in _NAME_RE.finditer(text)} - _CONSTANTS
        local = {n: __import__("sympy").Symbol(n) for n in names}
        expr = parse_expr(text, local_dict=local, global_dict=dict(_sympy_namespace()))
    except Exception:
        return None
    import sympy

    return expr if isinstance(expr, (sympy.Basic, sympy.MatrixBase)) else None


def _formula(expr: Any, latex: str) -> str:
    return f'<span class="formula" title="{_e(latex)}">{sympy_to_mathml(expr)}</span>'


def _number(v: float) -> str:
    if math.isnan(v):
        return "nan"
    if math.isinf(v):
        return "∞" if v > 0 else "−∞"
    return repr(float(v))


def number_html(v: float) -> str:
    """A float rounded to :data:`DIGITS` significant digits; the full ``repr`` in a hover title.

    >>> number_html(0.1 + 0.2)
    '<span class="num" title="0.30000000000000004">0.3</span>'
    """
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, float, np.integer, np.floating)):
        raise TypeError(f"v must be a real number, got {v!r} of type {type(v).__name__}")
    try:
        v = float(v)
    except OverflowError:
        raise ValueError(f"v = {v} is beyond the float64 range") from None
    full = _number(v)
    if not math.isfinite(v):
        return full
    short = f"{v:.{DIGITS}g}"
    if "e" in short:  # 1.5e-07 reads as 1.5×10⁻⁷: the power set as a superscript
        mant, exp = short.split("e")
        short = f"{mant}×10<sup>{int(exp)}</sup>".replace("<sup>-", "<sup>−")
    return short if short == full else f'<span class="num" title="{full}">{short}</span>'


@functools.lru_cache(maxsize=4)
def _words_of(found: tuple[Room, ...]) -> dict[str, str]:
    rooms_words = {w.lower(): w for r in found for w in r.capital_words}
    return {**rooms_words, **_WORDS}


def _words() -> dict[str, str]:
    """The words shown as symbols or acronyms: the library's, and those the rooms declare
    (:attr:`dpverify.rooms.Room.capital_words`: ``rr`` → ``RR``, ``fda`` → ``FDA``)."""
    return _words_of(rooms())


def humanise(key: str) -> str:
    """An evidence key for people: snake_case to words, symbols for ε/δ/..., a unit suffix in parentheses.

    A word a room declares in capitals (its ``acronyms``, its glossary words) is shown in capitals.

    >>> humanise("tight_delta"), humanise("eps"), humanise("lp_u_star"), humanise("rr_fda_mse")
    ('Tight δ', 'ε', 'LP u*', 'RR FDA MSE')
    >>> humanise("naive_noise_is_lap(1/eps)_gap"), humanise("noise_scale_is_1/eps")
    ('Naive noise is Lap(1/ε) gap', 'Noise scale is 1/ε')

    """
    if not isinstance(key, str):
        raise TypeError(f"key must be text (an evidence key), got {key!r} of type {type(key).__name__}")
    words_shown = _words()
    text = key
    if re.fullmatch(r"[A-Za-z0-9_]*\([A-Za-z0-9_+\-*/.,^ ]*\)[A-Za-z0-9_]*", text) and "((" not in text:
        # one bracketed argument, as in naive_noise_is_lap(1/eps)_gap: words outside it humanised,
        # names inside it shown as symbols
        before, rest = text.split("(", 1)
        inner, after = rest.split(")", 1)
        inner = re.sub(r"[A-Za-z]+", lambda m: words_shown.get(m.group(0).lower(), m.group(0)), inner)
        head = humanise(before.rstrip("_")) if before.strip("_") else ""
        tail = humanise(after.strip("_")) if after.strip("_") else ""
        tail = tail[0].lower() + tail[1:] if tail and tail[0].isupper() and tail[1:2].islower() else tail
        return " ".join(x for x in (f"{head}({inner})", tail) if x)
    if not re.fullmatch(r"[A-Za-z0-9_]+", text):
        if " " in text or "_" not in text or not re.fullmatch(r"[\w.,=/+\-*<>|\[\]()]+", text):
            return text  # written for people already, or not a name
        # snake_case around other characters (citations_of_alg_5.4, noise_scale_is_1/eps):
        # words apart, each known word shown as its symbol or acronym
        shown = " ".join(re.sub(r"[A-Za-z]+", lambda m: words_shown.get(m.group(0).lower(), m.group(0)), w)
                         for w in text.split("_") if w)
        return shown[0].upper() + shown[1:] if shown[:1].isascii() and shown[:1].islower() else shown
    words = [w for w in text.split("_") if w]
    if not words:
        return text
    unit = None
    if len(words) > 1 and words[-1].lower() in _UNITS:
        unit = _UNITS[words.pop().lower()]
    elif len(words) == 1 and words[0].lower() in ("seconds", "secs"):
        return "Time (s)"
    out: list[str] = []
    for w in words:
        lw = w.lower()
        if lw == "star" and out:
            out[-1] += "*"
            continue
        out.append(words_shown.get(lw, w))
    name = " ".join(out)
    if name and name[0].isascii() and name[0].islower() and words[0].lower() not in words_shown:
        name = name[0].upper() + name[1:]
    return f"{name} ({unit})" if unit else name


def value_html(value: Any, _depth: int = 0) -> str:
    """One evidence value as an HTML fragment (long lists shortened; the JSON keeps them whole)."""
    try:
        import sympy
    except ImportError:  # pragma: no cover
        sympy = None
    if value is None:
        return '<span class="none">none</span>'
    if isinstance(value, (bool, np.bool_)):
        return "true" if value else "false"
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    if isinstance(value, (float, np.floating)):
        return number_html(float(value))
    if isinstance(value, str):
        if value in _NON_FINITE:  # to_jsonable's form of a non-finite float (evidence after a supervised run)
            return _NON_FINITE[value]
        if "\n" in value:  # a traceback, a table printed as text: as written
            return f"<pre>{_e(value)}</pre>"
        from dpverify.report.mathtext import prose_html

        return prose_html(value)
    if isinstance(value, Fraction):
        return f'{value.numerator}/{value.denominator} <span class="approx">≈ {number_html(float(value))}</span>'
    if sympy is not None and isinstance(value, (sympy.Basic, sympy.MatrixBase)):
        try:
            return _formula(value, sympy.latex(value))
        except Exception:
            return f"<code>{_e(value)}</code>"
    if isinstance(value, np.ndarray):
        return value_html(value.tolist() if value.ndim else value.item(), _depth)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return value_html({f.name: getattr(value, f.name) for f in dataclasses.fields(value)}, _depth)
    if isinstance(value, Mapping):
        if set(value) == {"sympy", "latex"}:
            return _expr_html(value)
        if set(value) == {"fraction", "float"}:
            return f'{_e(value["fraction"])} <span class="approx">≈ {value_html(value["float"])}</span>'
        if _depth >= _MAX_DEPTH:
            return f"<code>{_e(_shorten(repr(value)))}</code>"
        return evidence_table(value, _depth + 1)
    if isinstance(value, (list, tuple, set, frozenset)):
        items = list(value)
        if _depth >= _MAX_DEPTH:
            return f"<code>{_e(_shorten(repr(items)))}</code>"
        n = len(items)
        if 1 < n <= _MAX_ROWS and all(isinstance(v, Mapping) for v in items):
            cols = list(dict.fromkeys(k for v in items for k in v))
            if len(cols) <= 8 and all(not isinstance(x, (Mapping, list, tuple)) or _is_expr(x)
                                      for v in items for x in v.values()):
                head = "".join(f'<th scope="col">{_e(humanise(str(k)))}</th>' for k in cols)
                body = "".join("<tr>" + "".join(f"<td>{value_html(v.get(k), _depth + 1)}</td>" for k in cols)
                               + "</tr>" for v in items)
                return f'<table class="evidence rows"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'
        shown = items if n <= _MAX_ITEMS else items[: _MAX_ITEMS - 3] + items[-2:]
        parts = [value_html(v, _depth + 1) for v in shown]
        if n > _MAX_ITEMS:
            parts.insert(_MAX_ITEMS - 3, f'<span class="more">… {n - len(shown)} more …</span>')
        inner = ", ".join(parts)
        note = f' <span class="count">({n} items)</span>' if n > _MAX_ITEMS else ""
        return f"[{inner}]{note}"
    return _e(_shorten(str(value)))


def _is_expr(x: Any) -> bool:
    return isinstance(x, Mapping) and set(x) in ({"sympy", "latex"}, {"fraction", "float"})


def _shorten(text: str, width: int = 300) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def _row_class(key: str) -> str:
    k = key.lower()
    if "counterexample" in k or k.startswith("cex") or "witness" in k:
        return ' class="cex"'
    if "confidence" in k or "p_value" in k or "pvalue" in k or "alpha" == k:
        return ' class="conf"'
    if k == "error":
        return ' class="err"'
    return ""


def evidence_table(evidence: Mapping[str, Any], _depth: int = 0) -> str:
    """A two-column table key → value; counterexample and confidence rows are marked."""
    if not isinstance(evidence, Mapping):
        raise TypeError(f"evidence must be a mapping, got {type(evidence).__name__}")
    if not evidence:
        return '<p class="none">no evidence recorded</p>'
    items = list(evidence.items())
    limit = len(items) if _depth == 0 else _MAX_ROWS  # the claim's own entries are all shown
    rows = "".join(
        f"<tr{_row_class(str(k))}><th scope=\"row\" title=\"{_e(k)}\">{_e(humanise(str(k)))}</th>"
        f"<td>{value_html(v, _depth)}</td></tr>"
        for k, v in items[:limit]
    )
    if len(items) > limit:
        rows += f'<tr><td colspan="2" class="more">… {len(items) - limit} more entries (in report.json)</td></tr>'
    return f'<table class="evidence">{rows}</table>'
