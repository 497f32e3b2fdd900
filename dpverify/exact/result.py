"""The result of :func:`dpverify.exact.prove`: a verdict, a reason, an exact counterexample, a certificate.

- :class:`Counterexample` — the pair of rows, the output set, the exact smallest ε′ that pair and
  output set need (a sympy expression in ε), and the exact set of ε where the claim fails (a sympy
  ``Set``, a union of intervals with algebraic endpoints), rendered with decimal values beside it;
- :class:`ProofResult` — ``verdict`` in ``{"proved", "refuted", "unknown"}``, ``reason``,
  ``counterexample`` (``None`` unless refuted), ``certificate`` (a JSON-ready dict: the second-route
  checks), and :meth:`ProofResult.to_json`.

Example
-------
>>> import sympy as sp
>>> eps = sp.Symbol("epsilon", positive=True)
>>> c = Counterexample((0, 1), (0,), eps + sp.log(2), sp.Interval.open(0, sp.oo))
>>> c.describe()
'rows (0, 1), outputs (0,): needs epsilon + log(2); fails for epsilon in Interval.open(0, oo) [(0, oo)]'
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import sympy as sp

__all__ = ["VERDICTS", "Counterexample", "ProofResult", "render_set"]

#: the three verdicts of :func:`dpverify.exact.prove`
VERDICTS = ("proved", "refuted", "unknown")


def _dec(x: Any, digits: int = 12) -> str:
    """A decimal rendering of an exact real number (``oo`` and ``-oo`` as they are)."""
    if x in (sp.oo, -sp.oo):
        return str(x)
    return str(sp.N(x, digits))


def render_set(s: sp.Set, digits: int = 12) -> str:
    """The decimal rendering of a union of intervals / finite set of reals, e.g. ``(0, 1.09861228867]``.

    Example
    -------
    >>> render_set(sp.Interval.Lopen(0, sp.log(3)))
    '(0, 1.09861228867]'
    """
    if not isinstance(s, sp.Set):
        raise TypeError(f"s must be a sympy Set, got {s!r} of type {type(s).__name__}")
    if isinstance(digits, bool) or not isinstance(digits, int) and not hasattr(digits, "__index__") or not 1 <= digits <= 100:
        raise ValueError(f"digits must be an integer in [1, 100], got {digits!r}")
    digits = int(digits)
    if s is sp.S.EmptySet:
        return "{}"
    parts = s.args if isinstance(s, sp.Union) else (s,)
    out = []
    for p in parts:
        if isinstance(p, sp.Interval):
            out.append(("(" if p.left_open else "[") + _dec(p.start, digits) + ", " + _dec(p.end, digits)
                       + (")" if p.right_open else "]"))
        elif isinstance(p, sp.FiniteSet):
            out.append("{" + ", ".join(_dec(v, digits) for v in p.args) + "}")
        else:
            out.append(str(p))
    return " U ".join(out)


@dataclass(frozen=True)
class Counterexample:
    """An exact counterexample to a privacy claim.

    Attributes
    ----------
    pair : tuple of two int
        The ordered pair of rows (inputs) ``(i, j)``: the claim ``P[i, S] <= e^ε P[j, S] + δ`` fails.
    outputs : tuple of int
        The output set ``S`` (column indices).
    epsilon_needed : sympy expression
        The exact smallest ε′ for which this pair and output set satisfy the claim at the given ε:
        at δ = 0, ``max_{o in S} log(P[i, o] / P[j, o])`` (every subset of S then satisfies ε′-DP);
        at δ > 0, ``log((P[i, S] - δ) / P[j, S])``. ``oo`` when ``P[j, o]`` is identically 0 where
        ``P[i, o]`` is not.
    epsilon_fails : sympy Set
        The exact set of ε (in the domain) where the claim fails for this pair and output set.
    """

    pair: tuple[int, int]
    outputs: tuple[int, ...]
    epsilon_needed: Any
    epsilon_fails: Any

    def describe(self) -> str:
        """One line: the pair, the outputs, ε′ needed, and the failing ε set exactly and in decimals."""
        return (f"rows {self.pair}, outputs {self.outputs}: needs {self.epsilon_needed}; "
                f"fails for epsilon in {self.epsilon_fails} [{render_set(self.epsilon_fails)}]")

    def to_dict(self) -> dict:
        """JSON-ready: exact values as sympy strings (``srepr``-free), decimals beside them."""
        need = self.epsilon_needed
        return {"pair": list(self.pair), "outputs": list(self.outputs),
                "epsilon_needed": str(need),
                "epsilon_needed_decimal": _dec(need) if not getattr(need, "free_symbols", set()) else None,
                "epsilon_fails": str(self.epsilon_fails),
                "epsilon_fails_decimal": render_set(self.epsilon_fails)}


@dataclass(frozen=True)
class ProofResult:
    """The verdict of :func:`dpverify.exact.prove`.

    Attributes
    ----------
    verdict : str
        ``"proved"`` (the claim holds on the whole domain, exactly), ``"refuted"`` (with
        ``counterexample``) or ``"unknown"`` (``reason`` says why: not rational in e^ε, ...).
    reason : str
        One sentence.
    counterexample : Counterexample or None
    certificate : dict
        JSON-ready evidence of the second route (exact rational spot checks, re-verified sign conditions).
    """

    verdict: str
    reason: str
    counterexample: Counterexample | None = None
    certificate: dict = field(default_factory=dict)

    def __post_init__(self):
        if self.verdict not in VERDICTS:
            raise ValueError(f"verdict must be one of {VERDICTS}, got {self.verdict!r}")

    @property
    def proved(self) -> bool:
        """True iff the verdict is ``"proved"``."""
        return self.verdict == "proved"

    def to_dict(self) -> dict:
        """JSON-ready dict of the whole result."""
        return {"verdict": self.verdict, "reason": self.reason,
                "counterexample": None if self.counterexample is None else self.counterexample.to_dict(),
                "certificate": self.certificate}

    def to_json(self, indent: int | None = 2) -> str:
        """The result as JSON text (exact values as strings, decimals beside them)."""
        return json.dumps(self.to_dict(), indent=indent, sort_keys=True, default=str)
