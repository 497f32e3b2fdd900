"""Symbolic equality under assumptions, and "derive, then compare with what the paper printed".

Equality is *proven* when ``lhs − rhs`` simplifies to 0 (after refining with
the assumptions); it is *refuted* by a numeric counterexample, a point that
satisfies the symbols' assumptions and the given relations where the two
sides differ when evaluated with 30 significant digits; otherwise it is
undecided.  A proof is never inferred from numbers.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import sympy as sp

from dpverify.validation import as_generator, check_positive_int
from dpverify.claims.model import Outcome, Verdict

__all__ = ["Equality", "check_equal", "derive_and_compare", "expression", "symbolic_equal"]


@dataclass(frozen=True)
class Equality:
    """The result of :func:`symbolic_equal`.

    ``equal`` is True (proven: the difference simplifies to 0), False (a
    counterexample was found) or None (undecided).  ``difference`` is the
    simplified ``lhs − rhs``; ``counterexample`` maps symbols to the point
    (as strings) and holds both sides' values there.
    """

    equal: bool | None
    difference: Any
    counterexample: dict | None = None


def _assumption_list(assumptions: Any) -> list:
    if assumptions is None or isinstance(assumptions, (bool, np.bool_)) and bool(assumptions):
        return []
    items = list(assumptions) if isinstance(assumptions, (list, tuple, set)) else [assumptions]
    out = []
    for a in items:
        c = a if isinstance(a, sp.Basic) else sp.true if a is True else None
        if not isinstance(c, sp.logic.boolalg.Boolean):
            raise TypeError(f"assumptions must be True, a sympy relation (e.g. eps < 1) or a list of them, got {a!r}")
        out.append(c)
    return out


def expression(x: Any, name: str) -> sp.Expr:
    """``x`` as a sympy expression: a sympy object, a finite number or text sympy parses; never
    None, a bool, NaN or an infinity (TypeError/ValueError naming ``name``).

    Example
    -------
    >>> expression(0.5, "lhs"), expression("x + 1", "rhs")
    (0.500000000000000, x + 1)
    """
    if x is None or isinstance(x, (bool, np.bool_)):
        raise TypeError(f"{name} must be a sympy expression or a number, got {x!r}")
    try:
        e = sp.sympify(x, strict=not isinstance(x, str))
    except (sp.SympifyError, TypeError, ValueError, SyntaxError) as exc:
        raise TypeError(f"{name} must be a sympy expression or a number, got {x!r}: {exc}") from None
    if not isinstance(e, sp.Expr):
        raise TypeError(f"{name} must be a sympy expression (not a {type(e).__name__}), got {x!r}")
    if e.has(sp.nan, sp.zoo, sp.oo, -sp.oo):
        raise ValueError(f"{name} must be finite (no NaN or infinity), got {x!r}")
    return e


def _sample(sym: sp.Symbol, g: np.random.Generator) -> sp.Expr:
    """A random value consistent with a symbol's own assumptions (a rational, so evaluation is exact)."""
    if sym.is_integer:
        v = int(g.integers(1, 12))
        v = v if sym.is_nonnegative or sym.is_positive else int(g.choice([-1, 1])) * v
        return sp.Integer(v)
    v = float(np.exp(g.normal(0.0, 1.2)))  # positive, spread over a few orders of magnitude
    if not (sym.is_positive or sym.is_nonnegative) and g.random() < 0.5:
        v = -v
    return sp.Rational(round(v, 6)).limit_denominator(10**6) or sp.Rational(1, 7)


def _zero(d: sp.Expr, assumptions: list) -> bool:
    cands = [d]
    try:
        cands.append(sp.simplify(d))
    except Exception:  # simplify can fail on exotic expressions; other routes remain
        pass
    for a in assumptions:
        try:
            cands.append(sp.simplify(sp.refine(cands[-1], a)))
        except Exception:
            pass
    for rewrite in (lambda e: sp.simplify(sp.expand_log(e, force=False)), lambda e: sp.simplify(e.rewrite(sp.exp))):
        try:
            cands.append(rewrite(cands[1] if len(cands) > 1 else d))
        except Exception:
            pass
    return any(c == 0 for c in cands)


def symbolic_equal(lhs: Any, rhs: Any, *, assumptions: Any = True, trials: int = 40, rng: Any = 0) -> Equality:
    """Decide ``lhs == rhs`` for every value allowed by the symbols' assumptions and ``assumptions``.

    Parameters
    ----------
    lhs, rhs : sympy expressions (or anything :func:`sympy.sympify` accepts)
    assumptions : True, a relation (``eps < 1``) or a list of relations
        Extra conditions on the symbols (their own assumptions, e.g.
        ``positive=True``, always apply).
    trials : int
        Random points tried when simplification does not prove equality.
    rng : numpy Generator or int seed
        The points' source (seeded: the answer is reproducible).

    Example
    -------
    >>> import sympy as sp
    >>> x = sp.Symbol("x", positive=True)
    >>> symbolic_equal(sp.sqrt(x**2), x).equal
    True
    >>> y = sp.Symbol("y", real=True)
    >>> r = symbolic_equal(sp.sqrt(y**2), y)
    >>> r.equal, sorted(r.counterexample) == ["lhs", "point", "rhs"]
    (False, True)
    """
    trials = check_positive_int(trials, "trials", maximum=100_000)
    g = as_generator(rng)
    a, b = expression(lhs, "lhs"), expression(rhs, "rhs")
    conds = _assumption_list(assumptions)
    d = a - b
    if _zero(d, conds):
        return Equality(True, sp.Integer(0))
    syms = sorted(a.free_symbols | b.free_symbols | set().union(*(c.free_symbols for c in conds)), key=str)
    for _ in range(trials):
        pt = {s: _sample(s, g) for s in syms}
        if not all(bool(c.subs(pt)) for c in conds):
            continue
        va, vb = sp.N(a.subs(pt), 30), sp.N(b.subs(pt), 30)
        if not (va.is_number and vb.is_number) or va.has(sp.nan) or vb.has(sp.nan):
            continue
        if abs(complex(va - vb)) > 1e-20 * (1 + abs(complex(va)) + abs(complex(vb))):
            return Equality(False, d, {"point": {str(k): str(v) for k, v in pt.items()},
                                       "lhs": str(va), "rhs": str(vb)})
    return Equality(None, d)


def check_equal(lhs: Any, rhs: Any, *, assumptions: Any = True, what: str = "the two sides") -> Outcome:
    """An :class:`Outcome` for "``lhs == rhs``": holds (proven), refuted (counterexample) or inconclusive.

    Example
    -------
    >>> import sympy as sp
    >>> n = sp.Symbol("n", positive=True, integer=True)
    >>> check_equal(sp.summation(sp.Symbol("k"), (sp.Symbol("k"), 1, n)), n * (n + 1) / 2).verdict.value
    'holds'
    """
    lhs, rhs = expression(lhs, "lhs"), expression(rhs, "rhs")
    r = symbolic_equal(lhs, rhs, assumptions=assumptions)
    ev = {"lhs": lhs, "rhs": rhs, "difference": r.difference}
    if r.equal:
        return Outcome(Verdict.HOLDS, ev, summary=f"{what} simplify to the same expression")
    if r.equal is False:
        return Outcome(Verdict.REFUTED, {**ev, "counterexample": r.counterexample},
                       summary=f"{what} differ at {r.counterexample['point']}")
    return Outcome(Verdict.INCONCLUSIVE, ev,
                   summary=f"{what} neither simplify to one expression nor differ at any point tried")


def derive_and_compare(derived: Any, printed: Any, *, assumptions: Any = True, what: str = "the printed formula") -> Outcome:
    """Compare a derived formula with the one the paper printed.

    ``holds`` when they are equal (proven); ``erratum`` when a counterexample
    shows the printed one is wrong — the evidence then carries ``corrected``
    (the derived formula) beside ``printed``; ``inconclusive`` when undecided.

    Example
    -------
    >>> import sympy as sp
    >>> b, eps = sp.symbols("b epsilon", positive=True)
    >>> out = derive_and_compare(sp.log(2) / eps, sp.log(2) * eps)   # a median of Exp(ε): printed upside down
    >>> out.verdict.value, str(out.evidence["corrected"])
    ('erratum', 'log(2)/epsilon')
    """
    derived, printed = expression(derived, "derived"), expression(printed, "printed")
    r = symbolic_equal(derived, printed, assumptions=assumptions)
    ev = {"printed": printed, "derived": derived}
    if r.equal:
        return Outcome(Verdict.HOLDS, ev, summary=f"{what} equals the derivation")
    if r.equal is False:
        return Outcome(Verdict.ERRATUM, {**ev, "corrected": derived, "counterexample": r.counterexample},
                       summary=f"{what} differs from the derivation at {r.counterexample['point']}; "
                               "the corrected formula is the derived one")
    return Outcome(Verdict.INCONCLUSIVE, {**ev, "difference": r.difference},
                   summary=f"{what} and the derivation could neither be shown equal nor told apart")
