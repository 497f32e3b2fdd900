"""The rooms' mechanisms as protocol objects: the entries of :mod:`dpverify.audit.produced`.

Every sampler below calls the room's own public function (nothing is re-implemented); the
exact pmf of a finite mechanism comes from the room's own formula (``krr_matrix``,
``exponential_probabilities``, the rr room's optimal matrix), and the registry's property test
checks the sampler against it.  Samplers are module-level picklable callables.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import Any

import numpy as np

from dpverify.audit.produced import Pair, Param, Produced, sample_finite
from dpverify.audit.protocol import FunctionMechanism

EPS = Param("float", 0.1, 3.0)


def _name(family: str, params: dict) -> str:
    return f"{family}(" + ", ".join(f"{k}={v!r}" for k, v in params.items()) + ")"


@dataclass(frozen=True)
class _Call:
    """``fn(data, rng, n, **kw)`` as a picklable ``f(data, rng, n)``."""

    fn: Any
    kw: tuple = ()

    def __call__(self, data, rng, n):
        return self.fn(data, rng, n, **dict(self.kw))


def _finite(support_probs, data, rng, n):
    support, probs = support_probs(data)
    return sample_finite(support, probs, rng, n)


# --------------------------------------------------------------------------- primitives


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
    from dpverify.primitives import exponential_mechanism

    return exponential_mechanism(d, sensitivity, epsilon, rng, size=n)


@dataclass(frozen=True)
class _ExpLaw:
    sensitivity: float
    epsilon: float
    factor: float = 2.0

    def __call__(self, scores):
        from dpverify.primitives import exponential_probabilities

        p = exponential_probabilities(scores, self.sensitivity, self.epsilon, factor=self.factor)
        return np.arange(p.size), p


def _krr(d, rng, n, k, epsilon):
    from dpverify.primitives import randomized_response

    return randomized_response(np.full(n, int(d)), k, epsilon, rng)


@dataclass(frozen=True)
class _MatrixLaw:
    """Row ``data`` of a row-stochastic matrix (the pmf of a local randomizer)."""

    P: tuple

    def __call__(self, data):
        row = np.asarray(self.P[int(data)], dtype=float)
        return np.arange(row.size), row


def _scalar(family, fn, relation, *, epsilon, sensitivity=1.0):
    kw = (("sensitivity", sensitivity), ("epsilon", epsilon))
    return FunctionMechanism(_Call(fn, kw), epsilon, 0.0, _name(family, dict(epsilon=epsilon, sensitivity=sensitivity)),
                             relation.format(s=sensitivity), sensitivity_value=sensitivity)


def _score_pairs(*, epsilon, k, sensitivity=1.0, seed=0, factor=None):
    """Random scores q and three neighbours with ‖q − q′‖∞ ≤ Δ: random, one up, one up & rest down."""
    g = np.random.default_rng(seed)
    q = g.uniform(0.0, 3.0 * sensitivity, k)
    up = np.zeros(k)
    up[0] = sensitivity
    return [Pair(q, q + g.uniform(-sensitivity, sensitivity, k)), Pair(q, q + up), Pair(q, q + 2 * up - sensitivity)]


def _all_pairs(k):
    return [Pair(i, j) for i in range(k) for j in range(i + 1, k)]


def primitive_entries() -> list[Produced]:
    lap = "|f(D) - f(D')| <= {s} (real-valued idealisation: float outputs leak, see audit.floating_point)"
    return [
        Produced("primitives.laplace_mechanism", partial(_scalar, "primitives.laplace_mechanism", _laplace, lap),
                 {"epsilon": EPS, "sensitivity": Param("float", 0.5, 4.0)},
                 lambda *, epsilon, sensitivity: [Pair(0.0, sensitivity)]),
        Produced("primitives.geometric_mechanism",
                 partial(_scalar, "primitives.geometric_mechanism", _geometric, "|f(D) - f(D')| <= {s}, integers"),
                 {"epsilon": EPS, "sensitivity": Param("int", 1, 3)},
                 lambda *, epsilon, sensitivity: [Pair(0, sensitivity)]),
        Produced("primitives.safe_laplace_mechanism",
                 partial(_scalar, "primitives.safe_laplace_mechanism", _safe, "|f(D) - f(D')| <= {s}"),
                 {"epsilon": EPS, "sensitivity": Param("float", 0.5, 4.0)},
                 lambda *, epsilon, sensitivity: [Pair(0.3, 0.3 + sensitivity)]),
        Produced("primitives.exponential_mechanism", exponential_mechanism,
                 {"epsilon": EPS, "k": Param("int", 2, 6), "sensitivity": Param("float", 0.5, 2.0),
                  "seed": Param("int", 0, 2**31)}, _score_pairs),
        Produced("primitives.randomized_response", krr,
                 {"k": Param("int", 2, 6), "epsilon": EPS}, lambda *, k, epsilon: _all_pairs(k)),
    ]


def exponential_mechanism(*, epsilon, k, sensitivity=1.0, seed=0):
    """The exponential mechanism on k candidates (score vectors are the inputs; exact pmf)."""
    law = _ExpLaw(sensitivity, epsilon)
    return FunctionMechanism(_Call(_expmech, (("sensitivity", sensitivity), ("epsilon", epsilon))), epsilon, 0.0,
                             _name("primitives.exponential_mechanism", dict(epsilon=epsilon, k=k, sensitivity=sensitivity)),
                             f"|q(D, r) - q(D', r)| <= {sensitivity} for every candidate r", law=law)


def krr(*, k, epsilon):
    """k-ary randomized response of one value (local DP: any two inputs; exact pmf ``krr_matrix``)."""
    from dpverify.primitives import krr_matrix

    law = _MatrixLaw(tuple(map(tuple, krr_matrix(k, epsilon))))
    return FunctionMechanism(_Call(_krr, (("k", k), ("epsilon", epsilon))), epsilon, 0.0,
                             _name("primitives.randomized_response", dict(k=k, epsilon=epsilon)),
                             "local: any two inputs in 0..k-1", law=law)


# --------------------------------------------------------------------------- rr room


def rr_optimal(*, pi, epsilon, delta=0.0):
    """The rr room's utility-optimal (ε, δ)-LDP matrix for prior ``pi`` (finite: exact pmf)."""
    from dpverify.rr import optimal_mechanism

    P, _ = optimal_mechanism(pi, epsilon, delta)
    law = _MatrixLaw(tuple(map(tuple, np.asarray(P, dtype=float))))
    return FunctionMechanism(partial(_finite, law), epsilon, delta,
                             _name("rr.optimal_mechanism", dict(pi=tuple(round(float(x), 4) for x in pi), epsilon=epsilon, delta=delta)),
                             "local: any two inputs in 0..len(pi)-1", law=law)


def rr_entries() -> list[Produced]:
    pairs = lambda *, pi, epsilon, delta=0.0: _all_pairs(len(pi))  # noqa: E731
    return [
        Produced("rr.optimal_mechanism", rr_optimal, {"pi": Param("prior", 2, 5), "epsilon": EPS}, pairs),
        Produced("rr.optimal_mechanism_delta", rr_optimal,
                 {"pi": Param("prior", 2, 5), "epsilon": EPS, "delta": Param("float", 0.0, 0.2)}, pairs),
    ]


# --------------------------------------------------------------------------- continual room


def _release(d, rng, n, method, noise, epsilon):
    from dpverify.continual import release

    return np.stack([release(d, epsilon, method, rng, noise=noise) for _ in range(n)])


def _stream(d, rng, n, method, noise, epsilon):
    from dpverify.continual import stream

    out = np.empty((n, len(d)), dtype=float)
    for i in range(n):
        s = stream(len(d), epsilon, method, rng, noise=noise)
        out[i] = [s.push(int(a)) for a in d]
    return out


def continual(*, epsilon, log2_steps, seed=0, method, noise, online):
    """One continual-release method as a mechanism on count streams (T = 2^log2_steps steps)."""
    fn = _stream if online else _release
    kind = "stream" if online else "release"
    return FunctionMechanism(_Call(fn, (("method", method), ("noise", noise), ("epsilon", epsilon))), epsilon, 0.0,
                             _name(f"continual.{kind}[{method}, {noise}]", dict(epsilon=epsilon, T=2**log2_steps)),
                             "one count a_t changes by 1 (add/remove one record)")


def _stream_pairs(*, epsilon, log2_steps, seed=0, **_):
    from dpverify.audit.mechanisms import SuffixSum

    g = np.random.default_rng(seed)
    a = g.integers(0, 3, 2**log2_steps)
    t = int(g.integers(0, a.size))
    b = a.copy()
    b[t] += 1
    return [Pair(a, b, SuffixSum(t))]


def _supports(method: str, noise: str) -> bool:
    from dpverify.continual import release

    try:
        release([0, 1], 1.0, method, 0, noise=noise)
    except ValueError:
        return False
    return True


def continual_entries() -> list[Produced]:
    from dpverify.continual import method_names
    from dpverify.continual.methods import get_method

    space = {"epsilon": EPS, "log2_steps": Param("int", 1, 3), "seed": Param("int", 0, 2**31)}
    out = []
    for method in method_names():
        m = get_method(method)
        for noise in ("laplace", "discrete"):
            if not _supports(method, noise):
                continue
            for online in (False, True) if m.stream is not None else (False,):
                kind = "stream" if online else "release"
                out.append(Produced(f"continual.{kind}[{method}, {noise}]",
                                    partial(continual, method=method, noise=noise, online=online),
                                    space, _stream_pairs, samples=2_000))
    return out


# --------------------------------------------------------------------------- pca room


def _ppca(X, rng, n, k, epsilon):
    from dpverify.pca import CorrectedPPCADP

    p = X.shape[1]
    m = CorrectedPPCADP(k=k, epsilon=epsilon, bounds=(np.zeros(p), np.ones(p)))
    return m.publish_many(X, n, rng).reshape(n, -1)


@dataclass(frozen=True)
class _FeatureSum:
    """Statistic: the sum over records of feature ``j`` of a flattened (records × p) release."""

    j: int
    p: int

    def __call__(self, out):
        return out[:, self.j :: self.p].sum(axis=1)


def corrected_ppca(*, epsilon, k, p, rows, seed=0):
    """CorrectedPPCADP with public bounds [0, 1]^p; the input is the data matrix."""
    return FunctionMechanism(_Call(_ppca, (("k", k), ("epsilon", epsilon))), epsilon, 0.0,
                             _name("pca.CorrectedPPCADP", dict(epsilon=epsilon, k=k, p=p, rows=rows)),
                             "replace one row (n public)")


def _ppca_pairs(*, epsilon, k, p, rows, seed=0):
    g = np.random.default_rng(seed)
    X = g.uniform(size=(rows, p))
    Y = X.copy()
    Y[0] = 1.0 - np.round(X[0])  # the farthest corner from the replaced row
    return [Pair(X, Y, _FeatureSum(0, p))]


def pca_entry() -> Produced:
    return Produced("pca.CorrectedPPCADP", corrected_ppca,
                    {"epsilon": EPS, "k": Param("int", 1, 2), "p": Param("int", 2, 3), "rows": Param("int", 5, 20),
                     "seed": Param("int", 0, 2**31)}, _ppca_pairs, samples=20_000)


# --------------------------------------------------------------------------- the auditor's controls


def control(*, cls: str, epsilon, **params):
    """A correct control of :mod:`dpverify.audit.mechanisms` (finite ones with their exact pmf)."""
    from dpverify.audit import mechanisms as M
    from dpverify.primitives import krr_matrix

    obj = getattr(M, cls)(epsilon=epsilon, **params)
    law = None
    if cls == "ExponentialMechanism":
        law = _ExpLaw(obj.sensitivity, epsilon, obj.factor)
    elif cls == "KRR":
        law = _MatrixLaw(tuple(map(tuple, krr_matrix(obj.k, epsilon))))
    relation = {"HistogramLaplace": "replace one record", "KRR": "local: any two inputs",
                "NoisyMax": "|q - q'|_inf <= 1", "SparseVector": "|q - q'|_inf <= 1",
                "ExponentialMechanism": "|q - q'|_inf <= sensitivity"}.get(cls, "|d - d'| <= 1")
    return FunctionMechanism(obj, epsilon, 0.0, _name(f"audit.mechanisms.{cls}", dict(epsilon=epsilon, **params)),
                             relation, law=law)


def _control_pairs(*, cls, epsilon, **params):
    from dpverify.audit.mechanisms import BinDifference
    from dpverify.audit.statistical import PatternCode

    k = params.get("k", params.get("bins", 3))
    if cls in ("LaplaceMechanism", "GeometricMechanism"):
        return [Pair(0, 1)]
    if cls == "KRR":
        return _all_pairs(k)
    if cls == "ExponentialMechanism":
        return _score_pairs(epsilon=epsilon, k=k, seed=params.get("seed", 0))
    if cls == "NoisyMax":
        return [Pair(np.zeros(k), np.r_[1.0, np.zeros(k - 1)]), Pair(np.ones(k), np.r_[0.0, np.full(k - 1, 2.0)])]
    if cls == "SparseVector":
        return [Pair(np.zeros(k), np.r_[1.0, np.zeros(k - 1)], PatternCode(-1, 1)),
                Pair(np.zeros(k), np.full(k, -1.0), PatternCode(-1, 1))]
    if cls == "HistogramLaplace":
        return [Pair(np.array([0, 1, 1]), np.array([1, 1, 1]), BinDifference(0, 1))]
    raise ValueError(f"unknown control {cls!r}")


def _control_entry(cls: str, space: dict, samples: int = 40_000) -> Produced:
    def factory(**params):
        params.pop("seed", None)
        return control(cls=cls, **params)

    return Produced(f"audit.mechanisms.{cls}", factory, {"epsilon": EPS, **space},
                    partial(_control_pairs, cls=cls), samples=samples)


def control_entries() -> list[Produced]:
    return [
        _control_entry("LaplaceMechanism", {}),
        _control_entry("GeometricMechanism", {}),
        _control_entry("ExponentialMechanism", {"seed": Param("int", 0, 2**31)}),
        _control_entry("KRR", {"k": Param("int", 2, 6)}),
        _control_entry("NoisyMax", {"noise": Param("choice", choices=("laplace", "exponential"))}),
        _control_entry("SparseVector", {}),
        _control_entry("HistogramLaplace", {"bins": Param("int", 2, 4)}),
    ]
