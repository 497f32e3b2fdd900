"""The rr room's mechanisms, as catalogue families (:func:`families`): the utility-optimal
(ε, δ)-LDP matrices of :func:`dpverify.rr.optimal_mechanism`, with their exact pmf.

Example
-------
>>> fam = families()[0]
>>> m = fam.make(pi=(0.5, 0.3, 0.2), epsilon=1.0)
>>> m.name, len(m.relation.candidates())
('rr.optimal_mechanism(pi=(0.5, 0.3, 0.2), epsilon=1.0, delta=0.0)', 3)
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial

import numpy as np

from dpverify.mechanisms import Family, FunctionMechanism, MatrixLaw, Pair, Pairs, Param, family_name, finite_sampler

__all__ = ["OptimumLaw", "families", "optimal"]

EPS = Param("float", 0.1, 3.0)


@dataclass(frozen=True)
class OptimumLaw:
    """The optimum of :func:`dpverify.rr.optimal_mechanism` as a symbolic law in ε, piece by piece.

    For the prior π (floats read exactly) and E = e^ε, the support is the k most likely inputs
    (ties by index) where k attains M* = max_k E Π_k/(E + k − 1) (ties: the smallest k). Piece k is
    δ I + (1 − δ) P_k (``rr/nary.py``'s formula) on the ε-set where M_k ≥ M_j for every j: each
    comparison is linear in E, so the set is an interval with endpoints log of rationals.

    Example
    -------
    >>> import sympy as sp
    >>> e = sp.Symbol("epsilon", positive=True)
    >>> law = OptimumLaw((0.5, 0.5))(e)
    >>> [str(w) for w, _ in law.pieces], law.matrix[0, 0]
    (['Interval.open(0, oo)'], exp(epsilon)/(exp(epsilon) + 1))
    >>> [str(w) for w, _ in OptimumLaw((0.75, 0.125, 0.125))(e).pieces]   # supports {0}, {0, 1}, {0, 1, 2}
    ['Interval.Lopen(0, log(6))', '{log(6)}', 'Interval(log(6), oo)']
    """

    pi: tuple
    delta: float = 0.0

    def __post_init__(self):
        from dpverify.validation import check_delta, check_probability_vector

        if isinstance(self.pi, np.ndarray) and self.pi.ndim == 1 and self.pi.size <= 50:
            object.__setattr__(self, "pi", tuple(self.pi.tolist()))
        if not isinstance(self.pi, (tuple, list)) or not 2 <= len(self.pi) <= 50:
            raise TypeError(f"pi must be a tuple of 2 to 50 probabilities, got {self.pi!r:.80}")
        object.__setattr__(self, "pi", tuple(float(x) for x in check_probability_vector(self.pi, "pi")))
        object.__setattr__(self, "delta", check_delta(self.delta))

    def _where(self, k: int, prefix, sp):
        lo, hi, lo_in, hi_in = sp.Integer(1), sp.oo, False, False
        for j in range(1, len(prefix) + 1):
            a = prefix[k - 1] - prefix[j - 1]
            c = prefix[j - 1] * (k - 1) - prefix[k - 1] * (j - 1)
            if a > 0 and c / a >= lo:
                lo, lo_in = c / a, True
            elif a < 0 and c / a <= hi:
                hi, hi_in = c / a, True
            elif a == 0 and c > 0:
                return sp.EmptySet
        if hi <= 1 or lo > hi:
            return sp.EmptySet
        return sp.Interval(sp.log(lo), sp.log(hi) if hi != sp.oo else sp.oo, not lo_in or lo == 1, not hi_in)

    def _matrix(self, k: int, S, epsilon, sp):
        n, E, d = len(self.pi), sp.exp(epsilon), sp.Rational(self.delta)
        P0 = sp.zeros(n, n)
        for i in range(n):
            for o in S:
                P0[i, o] = (E if i == o else 1) / (E + k - 1) if i in S else sp.Rational(1, k)
        return d * sp.eye(n) + (1 - d) * P0

    def __call__(self, epsilon):
        import sympy as sp

        from dpverify.mechanisms.protocol import SymbolicLaw

        p = [sp.Rational(float(x)) for x in self.pi]
        order = sorted(range(len(p)), key=lambda i: -p[i])  # stable: ties by index, as np.argsort(kind="stable")
        prefix = [sum(p[i] for i in order[:k]) for k in range(1, len(p) + 1)]
        pieces = tuple((w, self._matrix(k, set(order[:k]), epsilon, sp))
                       for k, w in ((k, self._where(k, prefix, sp)) for k in range(1, len(p) + 1)) if w != sp.EmptySet)
        n = len(p)
        return SymbolicLaw(epsilon, pieces=pieces, inputs=tuple(range(n)), delta=sp.Rational(self.delta),
                           pairs=tuple((i, j) for i in range(n) for j in range(n) if i != j))


def _pairs(*, pi, epsilon, delta=0.0) -> list[Pair]:
    k = len(pi)
    return [Pair(i, j) for i in range(k) for j in range(i + 1, k)]


def optimal(*, pi, epsilon, delta=0.0, family: str = "rr.optimal_mechanism"):
    """The rr room's utility-optimal (ε, δ)-LDP matrix for prior ``pi`` (finite: exact pmf), named
    as a member of ``family`` (a mechanism's name starts with its family's).

    Example
    -------
    >>> m = optimal(pi=(0.5, 0.5), epsilon=float(np.log(3)))
    >>> np.round(m.law(0)[1], 4).tolist(), m.relation.candidates()
    ([0.75, 0.25], [(0, 1)])
    >>> optimal(pi=(0.5, 0.5), epsilon=1.0, delta=0.05, family="rr.optimal_mechanism_delta").name
    'rr.optimal_mechanism_delta(pi=(0.5, 0.5), epsilon=1.0, delta=0.05)'
    """
    from dpverify.rr import optimal_mechanism

    P, _ = optimal_mechanism(pi, epsilon, delta)
    law = MatrixLaw(tuple(map(tuple, np.asarray(P, dtype=float))))
    rel = Pairs(tuple((p.d, p.d_prime) for p in _pairs(pi=pi, epsilon=epsilon)),
                description="local: any two inputs in 0..len(pi)-1")
    name = family_name(family,
                       dict(pi=tuple(round(float(x), 4) for x in pi), epsilon=epsilon, delta=delta))
    symbolic = OptimumLaw(tuple(float(x) for x in pi), float(delta))
    return FunctionMechanism(finite_sampler(law), epsilon, delta, name, rel, law=law, symbolic=symbolic)


def families() -> list[Family]:
    """The room's mechanism families (read by :func:`dpverify.mechanisms.catalogue`): pure ε, and
    (ε, δ) with δ > 0 by default.

    Example
    -------
    >>> [(f.name, f.make().name) for f in families()][1]
    ('rr.optimal_mechanism_delta', 'rr.optimal_mechanism_delta(pi=(0.5, 0.5), epsilon=1.0, delta=0.05)')
    """
    return [
        Family("rr.optimal_mechanism", optimal, {"pi": Param("prior", 2, 5), "epsilon": EPS}, _pairs),
        Family("rr.optimal_mechanism_delta", partial(optimal, family="rr.optimal_mechanism_delta"),
               {"pi": Param("prior", 2, 5), "epsilon": EPS, "delta": Param("float", 0.0, 0.2)}, _pairs,
               default={"delta": 0.05}),
    ]
