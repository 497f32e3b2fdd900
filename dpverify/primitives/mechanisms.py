"""The primitives room's mechanisms, as catalogue families (:func:`families`).

Every sampler calls the room's own public function (nothing is re-implemented); the exact pmf of
a finite mechanism comes from the room's own formula (``krr_matrix``,
``exponential_probabilities``), and the catalogue's property test checks the sampler against it.
Samplers are module-level picklable callables.

Example
-------
>>> fams = {f.name: f for f in families()}
>>> m = fams["primitives.randomized_response"].make(k=3, epsilon=1.0)
>>> m.epsilon, hasattr(m, "output_distribution"), len(m.relation.candidates())
(1.0, True, 3)
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial

import numpy as np

from dpverify.mechanisms import Call, Family, FunctionMechanism, MatrixLaw, Pair, Pairs, Param, family_name
from dpverify.validation import check_budget, check_epsilon, check_nonneg_int, check_positive_int, check_real

__all__ = ["EPS", "ExponentialLaw", "all_pairs", "exponential_mechanism", "families", "krr", "score_pairs"]

#: the privacy parameter's drawable range, shared by the rooms' families
EPS = Param("float", 0.1, 3.0)


def _laplace(d, rng, n, sensitivity, epsilon):
    from dpverify.primitives import laplace_mechanism

    return laplace_mechanism(float(d), sensitivity, epsilon, rng, size=n)


def _geometric(d, rng, n, sensitivity, epsilon):
    from dpverify.primitives import geometric_mechanism

    return geometric_mechanism(int(d), sensitivity, epsilon, rng, size=n)


def _safe(d, rng, n, sensitivity, epsilon):
    from dpverify.primitives import safe_laplace_mechanism

    return safe_laplace_mechanism(float(d), sensitivity, epsilon, rng, size=n)


def _expmech(d, rng, n, sensitivity, epsilon):
    from dpverify.primitives import exponential_mechanism as sample

    return sample(d, sensitivity, epsilon, rng, size=n)


@dataclass(frozen=True)
class ExponentialLaw:
    """The exponential mechanism's exact pmf on a score vector (``exponential_probabilities``).

    Example
    -------
    >>> ExponentialLaw(1.0, 1.0)(np.zeros(2))[1].tolist()
    [0.5, 0.5]
    """

    sensitivity: float
    epsilon: float
    factor: float = 2.0

    def __post_init__(self):
        object.__setattr__(self, "sensitivity", check_real(self.sensitivity, "sensitivity", positive=True))
        object.__setattr__(self, "epsilon", check_epsilon(self.epsilon))
        object.__setattr__(self, "factor", check_real(self.factor, "factor", positive=True))

    def __call__(self, scores):
        from dpverify.primitives import exponential_probabilities

        p = exponential_probabilities(scores, self.sensitivity, self.epsilon, factor=self.factor)
        return np.arange(p.size), p


def _krr(d, rng, n, k, epsilon):
    from dpverify.primitives import randomized_response

    return randomized_response(np.full(n, int(d)), k, epsilon, rng)


def all_pairs(k: int) -> list[Pair]:
    """Every pair (i, j), i < j, of the values 0..k−1 (local DP: any two inputs).

    Example
    -------
    >>> [(p.d, p.d_prime) for p in all_pairs(3)]
    [(0, 1), (0, 2), (1, 2)]
    """
    k = check_positive_int(k, "k")
    check_budget(64.0 * k * (k - 1) / 2, f"k = {k} (k(k-1)/2 pairs)")
    return [Pair(i, j) for i in range(k) for j in range(i + 1, k)]


def _check_scores_family(epsilon, k, sensitivity, seed) -> tuple:
    """The parameters of the exponential-mechanism family: ε > 0, k ≥ 1 candidates, Δ > 0, a seed ≥ 0."""
    eps = check_epsilon(epsilon)
    k = check_positive_int(k, "k")
    check_budget(32.0 * k, f"k = {k}")
    d = check_real(sensitivity, "sensitivity", positive=True)
    if not 3.0 * d < np.inf:
        raise ValueError(f"sensitivity must be below 1e307 (scores are drawn on [0, 3·sensitivity]), got {sensitivity!r}")
    return eps, k, d, check_nonneg_int(seed, "seed")


def as_pairs(pairs: list[Pair], description: str) -> Pairs:
    """The relation holding exactly the family's pairs."""
    return Pairs(tuple((p.d, p.d_prime) for p in pairs), description=description)


def _scalar(family, fn, relation, pairs, *, epsilon, sensitivity=1.0):
    kw = (("sensitivity", sensitivity), ("epsilon", epsilon))
    rel = as_pairs(pairs(epsilon=epsilon, sensitivity=sensitivity), relation.format(s=sensitivity))
    symbolic = None
    if fn is _geometric:  # integer outputs: a finite law with its two tails lumped (dpverify.exact.lumped)
        from dpverify.exact.lumped import GeometricLaw

        symbolic = GeometricLaw(tuple((p.d, p.d_prime) for p in pairs(epsilon=epsilon, sensitivity=sensitivity)),
                                int(sensitivity))
    return FunctionMechanism(Call(fn, kw), epsilon, 0.0, family_name(family, dict(epsilon=epsilon, sensitivity=sensitivity)),
                             rel, sensitivity_value=sensitivity, symbolic=symbolic)


def score_pairs(*, epsilon, k, sensitivity=1.0, seed=0, factor=None):
    """Random scores q and three neighbours with ‖q − q′‖∞ ≤ Δ: random, one up, one up & rest down.

    Example
    -------
    >>> len(score_pairs(epsilon=1.0, k=3))
    3
    """
    epsilon, k, sensitivity, seed = _check_scores_family(epsilon, k, sensitivity, seed)
    if factor is not None:
        check_real(factor, "factor", positive=True)
    g = np.random.default_rng(seed)
    q = g.uniform(0.0, 3.0 * sensitivity, k)
    up = np.zeros(k)
    up[0] = sensitivity
    return [Pair(q, _within(q, q + d, sensitivity))
            for d in (g.uniform(-sensitivity, sensitivity, k), up, 2 * up - sensitivity)]


def _within(q: np.ndarray, moved: np.ndarray, sensitivity: float) -> np.ndarray:
    """``moved`` with each entry stepped one ulp at a time towards ``q`` until ``|moved − q| ≤ sensitivity``
    holds in floating point: ``q + Δ`` rounds, and ``(q + Δ) − q`` can exceed Δ by an ulp, which would make
    the pair break the relation it is stated under.

    >>> q = np.array([0.1]); bool(abs(_within(q, q + 0.2, 0.2)[0] - q[0]) <= 0.2)
    True
    """
    out = np.array(moved, dtype=float)
    for _ in range(8):  # one or two steps suffice: each step moves the difference by about one ulp
        over = np.abs(out - q) > sensitivity
        if not over.any():
            return out
        out[over] = np.nextafter(out[over], q[over])
    raise ArithmeticError(f"could not bring the neighbour within sensitivity={sensitivity!r} of the scores")


def exponential_mechanism(*, epsilon, k, sensitivity=1.0, seed=0):
    """The exponential mechanism on k candidates (score vectors are the inputs; exact pmf).

    Example
    -------
    >>> m = exponential_mechanism(epsilon=1.0, k=3)
    >>> support, probs = m.law(np.zeros(3))
    >>> support.tolist(), np.round(probs, 4).tolist()
    ([0, 1, 2], [0.3333, 0.3333, 0.3333])
    """
    from dpverify.exact.closed import ExponentialLaw as Symbolic

    epsilon, k, sensitivity, seed = _check_scores_family(epsilon, k, sensitivity, seed)
    law = ExponentialLaw(sensitivity, epsilon)
    pairs = score_pairs(epsilon=epsilon, k=k, sensitivity=sensitivity, seed=seed)
    rel = as_pairs(pairs, f"|q(D, r) - q(D', r)| <= {sensitivity} for every candidate r")
    return FunctionMechanism(Call(_expmech, (("sensitivity", sensitivity), ("epsilon", epsilon))), epsilon, 0.0,
                             family_name("primitives.exponential_mechanism", dict(epsilon=epsilon, k=k, sensitivity=sensitivity)),
                             rel, law=law, symbolic=Symbolic(tuple((p.d, p.d_prime) for p in pairs), sensitivity))


def krr(*, k, epsilon):
    """k-ary randomized response of one value (local DP: any two inputs; exact pmf ``krr_matrix``).

    Example
    -------
    >>> m = krr(k=2, epsilon=np.log(3))
    >>> np.round(m.law(0)[1], 4).tolist(), m.relation.candidates()
    ([0.75, 0.25], [(0, 1)])
    """
    from dpverify.exact.closed import KRRLaw
    from dpverify.primitives import krr_matrix

    law = MatrixLaw(tuple(map(tuple, krr_matrix(k, epsilon))))
    return FunctionMechanism(Call(_krr, (("k", k), ("epsilon", epsilon))), epsilon, 0.0,
                             family_name("primitives.randomized_response", dict(k=k, epsilon=epsilon)),
                             as_pairs(all_pairs(k), "local: any two inputs in 0..k-1"), law=law, symbolic=KRRLaw(k))


def families() -> list[Family]:
    """The room's mechanism families (read by :func:`dpverify.mechanisms.catalogue`).

    Example
    -------
    >>> [f.name for f in families()][:2]
    ['primitives.laplace_mechanism', 'primitives.geometric_mechanism']
    """
    lap = "|f(D) - f(D')| <= {s} (real-valued idealisation: float outputs leak, see audit.floating_point)"
    lap_pairs = lambda *, epsilon, sensitivity: [Pair(0.0, sensitivity)]  # noqa: E731
    geo_pairs = lambda *, epsilon, sensitivity: [Pair(0, sensitivity)]  # noqa: E731
    safe_pairs = lambda *, epsilon, sensitivity: [Pair(0.3, 0.3 + sensitivity)]  # noqa: E731
    return [
        Family("primitives.laplace_mechanism", partial(_scalar, "primitives.laplace_mechanism", _laplace, lap, lap_pairs),
               {"epsilon": EPS, "sensitivity": Param("float", 0.5, 4.0)}, lap_pairs),
        Family("primitives.geometric_mechanism",
               partial(_scalar, "primitives.geometric_mechanism", _geometric, "|f(D) - f(D')| <= {s}, integers", geo_pairs),
               {"epsilon": EPS, "sensitivity": Param("int", 1, 3)}, geo_pairs),
        Family("primitives.safe_laplace_mechanism",
               partial(_scalar, "primitives.safe_laplace_mechanism", _safe, "|f(D) - f(D')| <= {s}", safe_pairs),
               {"epsilon": EPS, "sensitivity": Param("float", 0.5, 4.0)}, safe_pairs),
        Family("primitives.exponential_mechanism", exponential_mechanism,
               {"epsilon": EPS, "k": Param("int", 2, 6), "sensitivity": Param("float", 0.5, 2.0),
                "seed": Param("int", 0, 2**31)}, score_pairs),
        Family("primitives.randomized_response", krr,
               {"k": Param("int", 2, 6), "epsilon": EPS}, lambda *, k, epsilon: all_pairs(k)),
    ]
