"""Closed-form laws of the catalogue's finite mechanisms, as :class:`~dpverify.mechanisms.protocol.SymbolicLaw`.

The rooms attach these to their mechanisms (``FunctionMechanism(..., symbolic=...)``) so that
:func:`dpverify.exact.prove_mechanism` decides them for every ε > 0. Each builder is a small frozen
(picklable) callable ``builder(epsilon_symbol) -> SymbolicLaw``; its formula is the one the room's
numeric law computes, written in ε (the catalogue test re-evaluates it at sampled ε and compares it with
the numeric law):

- :class:`KRRLaw` — k-ary randomized response: e^ε/(e^ε + k − 1) on the diagonal, 1/(e^ε + k − 1) off it;
- :class:`ExponentialLaw` — the exponential mechanism on finite score vectors:
  exp(ε q_o/(c Δ)) / Σ_r exp(ε q_r/(c Δ)), each float score read as its exact binary value;
- ``_rows_and_pairs`` — the distinct inputs of a list of neighbouring pairs and the ordered row pairs.

Example
-------
>>> import sympy as sp
>>> e = sp.Symbol("epsilon", positive=True)
>>> KRRLaw(3)(e).matrix[0, :]
Matrix([[exp(epsilon)/(exp(epsilon) + 2), 1/(exp(epsilon) + 2), 1/(exp(epsilon) + 2)]])
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import sympy as sp

from dpverify.mechanisms.protocol import SymbolicLaw
from dpverify.validation import check_positive_int, check_real

__all__ = ["ExponentialLaw", "KRRLaw"]


def _key(d):
    a = np.asarray(d)
    return (a.shape, tuple(a.ravel().tolist()))


def _rows_and_pairs(pairs) -> tuple[tuple, tuple]:
    """``(inputs, ordered row pairs)``: the distinct inputs of ``pairs`` (in first-seen order) and, for
    each pair (d, d′), the row pairs (i, j) and (j, i) (ε-DP bounds both ratios of a neighbouring pair).

    Example
    -------
    >>> _rows_and_pairs([(0, 1), (0, 2)])
    ((0, 1, 2), ((0, 1), (1, 0), (0, 2), (2, 0)))
    """
    if not isinstance(pairs, (list, tuple)) or not pairs:
        raise ValueError(f"pairs must be a non-empty list of (d, d') pairs, got {pairs!r:.80}")
    index: dict = {}
    inputs, out = [], []
    for p in pairs:
        if not isinstance(p, (list, tuple)) or len(p) != 2:
            raise ValueError(f"pairs must hold (d, d') pairs, got {p!r:.80}")
        ij = []
        for d in p:
            k = _key(d)
            if k not in index:
                index[k] = len(inputs)
                inputs.append(d)
            ij.append(index[k])
        i, j = ij
        if i != j:
            out += [(i, j), (j, i)]
    if not out:
        raise ValueError("pairs must hold at least one pair of different inputs")
    return tuple(inputs), tuple(dict.fromkeys(out))


@dataclass(frozen=True)
class KRRLaw:
    """k-ary randomized response (local model: every ordered pair of the k inputs).

    Example
    -------
    >>> import sympy as sp
    >>> e = sp.Symbol("epsilon", positive=True)
    >>> law = KRRLaw(2)(e)
    >>> law.pairs, sp.simplify(law.matrix[0, 0] + law.matrix[0, 1])
    (((0, 1), (1, 0)), 1)
    """

    k: int

    def __post_init__(self):
        object.__setattr__(self, "k", check_positive_int(self.k, "k", maximum=50))

    def __call__(self, epsilon) -> SymbolicLaw:
        k, E = self.k, sp.exp(epsilon)
        M = sp.Matrix(k, k, lambda i, o: (E if i == o else 1) / (E + k - 1))
        pairs = tuple((i, j) for i in range(k) for j in range(k) if i != j)
        return SymbolicLaw(epsilon, M, inputs=tuple(range(k)), pairs=pairs)


@dataclass(frozen=True)
class ExponentialLaw:
    """The exponential mechanism over a finite set of candidates, on the score vectors of ``pairs``.

    ``pairs`` is a tuple of (q, q′) score vectors (each a tuple of floats); ``sensitivity`` Δ > 0 and
    ``factor`` c > 0 (c = 2: the ε-DP mechanism). A float is read as its exact binary value, so the
    exponents are rationals with large denominators: :func:`dpverify.exact.prove` decides such laws
    by the partial-sum certificate (:mod:`dpverify.exact.expsums`).

    Example
    -------
    >>> import sympy as sp
    >>> e = sp.Symbol("epsilon", positive=True)
    >>> ExponentialLaw((((0.0, 1.0), (1.0, 1.0)),), 1.0)(e).matrix[0, 1]
    exp(epsilon/2)/(exp(epsilon/2) + 1)
    """

    pairs: tuple
    sensitivity: float
    factor: float = 2.0

    def __post_init__(self):
        check_real(self.sensitivity, "sensitivity", positive=True)
        check_real(self.factor, "factor", positive=True)
        bad = "pairs must be a non-empty tuple of at most 50 (q, q') pairs of finite score vectors of one length <= 50"
        if isinstance(self.pairs, np.ndarray) and self.pairs.ndim == 3 and self.pairs.shape[1] == 2 and self.pairs.size <= 5000:
            object.__setattr__(self, "pairs", tuple(map(tuple, self.pairs.tolist())))
        if not isinstance(self.pairs, (tuple, list)) or not 1 <= len(self.pairs) <= 50:
            raise TypeError(f"{bad}, got {type(self.pairs).__name__}")
        pairs = []
        for p in self.pairs:
            if not isinstance(p, (tuple, list)) or len(p) != 2:
                raise TypeError(f"{bad}, got the item {p!r:.80}")
            a, b = (np.asarray(v) for v in p)
            if a.dtype.kind not in "iuf" or b.dtype.kind not in "iuf" or not 1 <= a.size <= 50:
                raise TypeError(f"{bad}, got the item {p!r:.80}")
            pairs.append((tuple(float(x) for x in a.ravel()), tuple(float(x) for x in b.ravel())))
        if any(len(a) != len(pairs[0][0]) or len(b) != len(a) or not np.isfinite(a + b).all() for a, b in pairs):
            raise ValueError(bad)
        pairs = tuple(pairs)
        object.__setattr__(self, "pairs", pairs)

    def __call__(self, epsilon) -> SymbolicLaw:
        inputs, rpairs = _rows_and_pairs(list(self.pairs))
        scale = sp.Rational(self.factor) * sp.Rational(self.sensitivity)

        def row(q):
            w = [sp.exp(epsilon * sp.Rational(x) / scale) for x in q]
            Z = sum(w)
            return [v / Z for v in w]
        M = sp.Matrix([row(q) for q in inputs])
        return SymbolicLaw(epsilon, M, inputs=inputs, pairs=rpairs)
