"""The pca room's mechanism, as a catalogue family (:func:`families`): CorrectedPPCADP with
public bounds [0, 1]^p, whose input is the data matrix (neighbours: one row replaced, n public).

Example
-------
>>> m = families()[0].make(epsilon=1.0, k=1, p=2, rows=5)
>>> X, Y = m.relation.candidates()[0]
>>> X.shape, int((X != Y).any(axis=1).sum())
((5, 2), 1)
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from dpverify.validation import check_budget, check_epsilon, check_nonneg_int, check_positive_int

from dpverify.mechanisms import Call, Family, FunctionMechanism, Pair, Pairs, Param, family_name

__all__ = ["FeatureSum", "corrected_ppca", "families"]

EPS = Param("float", 0.1, 3.0)


def _ppca(X, rng, n, k, epsilon):
    from dpverify.pca import CorrectedPPCADP

    p = X.shape[1]
    m = CorrectedPPCADP(k=k, epsilon=epsilon, bounds=(np.zeros(p), np.ones(p)))
    return m.publish_many(X, n, rng).reshape(n, -1)


@dataclass(frozen=True)
class FeatureSum:
    """Statistic: the sum over records of feature ``j`` of a flattened (records × p) release.

    Example
    -------
    >>> FeatureSum(0, 2)(np.array([[1.0, 5.0, 2.0, 7.0]])).tolist()
    [3.0]
    """

    j: int
    p: int

    def __post_init__(self):
        p = check_positive_int(self.p, "p")
        check_nonneg_int(self.j, "j", maximum=p - 1)

    def __call__(self, out):
        return out[:, self.j :: self.p].sum(axis=1)


def _check_family(epsilon, k, p, rows, seed) -> tuple:
    """ε > 0, 1 <= k <= p, rows >= 2 (a covariance), seed >= 0; rows × p within the memory budget."""
    epsilon = check_epsilon(epsilon)
    p = check_positive_int(p, "p")
    k = check_positive_int(k, "k", maximum=p)
    rows = check_positive_int(rows, "rows")
    if rows < 2:
        raise ValueError(f"rows must be >= 2, got {rows}")
    check_budget(64.0 * rows * p, f"rows × p = {rows} × {p}")
    return epsilon, k, p, rows, check_nonneg_int(seed, "seed")


def _pairs(*, epsilon, k, p, rows, seed=0) -> list[Pair]:
    epsilon, k, p, rows, seed = _check_family(epsilon, k, p, rows, seed)
    g = np.random.default_rng(seed)
    X = g.uniform(size=(rows, p))
    Y = X.copy()
    Y[0] = 1.0 - np.round(X[0])  # the farthest corner from the replaced row
    return [Pair(X, Y, FeatureSum(0, p))]


def corrected_ppca(*, epsilon, k, p, rows, seed=0):
    """CorrectedPPCADP with public bounds [0, 1]^p; the input is the data matrix.

    Example
    -------
    >>> m = corrected_ppca(epsilon=1.0, k=1, p=2, rows=5)
    >>> m.name, m.relation.domain.shape
    ('pca.CorrectedPPCADP(epsilon=1.0, k=1, p=2, rows=5)', (5, 2))
    """
    epsilon, k, p, rows, seed = _check_family(epsilon, k, p, rows, seed)
    rel = Pairs(tuple((q.d, q.d_prime) for q in _pairs(epsilon=epsilon, k=k, p=p, rows=rows, seed=seed)),
                description="replace one row (n public)")
    return FunctionMechanism(Call(_ppca, (("k", k), ("epsilon", epsilon))), epsilon, 0.0,
                             family_name("pca.CorrectedPPCADP", dict(epsilon=epsilon, k=k, p=p, rows=rows)), rel)


def families() -> list[Family]:
    """The room's mechanism family (read by :func:`dpverify.mechanisms.catalogue`).

    Example
    -------
    >>> [f.name for f in families()], families()[0].defaults["rows"]
    (['pca.CorrectedPPCADP'], 5)
    """
    return [Family("pca.CorrectedPPCADP", corrected_ppca,
                   {"epsilon": EPS, "k": Param("int", 1, 2), "p": Param("int", 2, 3), "rows": Param("int", 5, 20),
                    "seed": Param("int", 0, 2**31)}, _pairs, samples=20_000)]
