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

from functools import partial

import numpy as np

from dpverify.mechanisms import Family, FunctionMechanism, MatrixLaw, Pair, Pairs, Param, family_name, finite_sampler

__all__ = ["families", "optimal"]

EPS = Param("float", 0.1, 3.0)


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
    return FunctionMechanism(finite_sampler(law), epsilon, delta, name, rel, law=law)


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
