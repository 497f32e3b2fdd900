"""The selftest room's mechanisms: the auditor's correct controls (:mod:`dpverify.audit.controls`)
as catalogue families (:func:`families`), finite ones with their exact pmf.

Example
-------
>>> fams = {f.name: f for f in families()}
>>> m = fams["audit.mechanisms.KRR"].make(epsilon=1.0, k=3)
>>> m.name, hasattr(m, "output_distribution"), len(m.relation.candidates())
('audit.mechanisms.KRR(epsilon=1.0, k=3)', True, 3)
"""

from __future__ import annotations

from functools import partial

import numpy as np

from dpverify.mechanisms import Family, FunctionMechanism, MatrixLaw, Pair, Pairs, Param, family_name
from dpverify.validation import check_epsilon

__all__ = ["control", "control_pairs", "families"]

EPS = Param("float", 0.1, 3.0)
_RELATIONS = {"HistogramLaplace": "replace one record", "KRR": "local: any two inputs",
              "NoisyMax": "|q - q'|_inf <= 1", "SparseVector": "|q - q'|_inf <= 1",
              "ExponentialMechanism": "|q - q'|_inf <= sensitivity"}
#: The controls :func:`control` builds (the ones :func:`control_pairs` has neighbouring inputs for).
_CONTROLS = ("LaplaceMechanism", "GeometricMechanism", "KRR", "ExponentialMechanism", "NoisyMax", "SparseVector",
             "HistogramLaplace")


def _check_cls(cls) -> str:
    """The control's class name: one of :data:`_CONTROLS` (TypeError for a non-string, ValueError otherwise)."""
    if not isinstance(cls, str):
        raise TypeError(f"cls must be the name of a control (a str), got {cls!r} of type {type(cls).__name__}")
    if cls not in _CONTROLS:
        raise ValueError(f"cls must be one of {', '.join(_CONTROLS)}, got {cls!r}")
    return cls


def control_pairs(*, cls, epsilon, **params) -> list[Pair]:
    """The neighbouring inputs each control is checked on (with the statistic for vector outputs).

    Example
    -------
    >>> [(p.d, p.d_prime) for p in control_pairs(cls="KRR", epsilon=1.0, k=3)]
    [(0, 1), (0, 2), (1, 2)]
    """
    from dpverify.audit import PatternCode
    from dpverify.audit.controls import BinDifference
    from dpverify.primitives.mechanisms import all_pairs, score_pairs

    cls = _check_cls(cls)
    check_epsilon(epsilon)
    k = params.get("k", params.get("bins", 3))
    if cls in ("LaplaceMechanism", "GeometricMechanism"):  # the farthest neighbour the relation allows
        return [Pair(0, params.get("sensitivity", 1))]
    if cls == "KRR":
        return all_pairs(k)
    if cls == "ExponentialMechanism":
        return score_pairs(epsilon=epsilon, k=k, seed=params.get("seed", 0))
    if cls == "NoisyMax":
        return [Pair(np.zeros(k), np.r_[1.0, np.zeros(k - 1)]), Pair(np.ones(k), np.r_[0.0, np.full(k - 1, 2.0)])]
    if cls == "SparseVector":
        return [Pair(np.zeros(k), np.r_[1.0, np.zeros(k - 1)], PatternCode(-1, 1)),
                Pair(np.zeros(k), np.full(k, -1.0), PatternCode(-1, 1))]
    if cls == "HistogramLaplace":
        return [Pair(np.array([0, 1, 1]), np.array([1, 1, 1]), BinDifference(0, 1))]
    raise ValueError(f"cls must be one of {', '.join(_CONTROLS)}, got {cls!r}")


def control(*, cls: str, epsilon, **params):
    """A correct control of :mod:`dpverify.audit.controls` (finite ones with their exact pmf).

    Example
    -------
    >>> m = control(cls="GeometricMechanism", epsilon=1.0)
    >>> m.name, str(m.relation), m.relation.candidates()
    ('audit.mechanisms.GeometricMechanism(epsilon=1.0)', "|d - d'| <= 1", [(0, 1)])
    """
    from dpverify.audit import controls as engine_controls
    from dpverify.selftest import controls as room_controls
    from dpverify.primitives import krr_matrix
    from dpverify.primitives.mechanisms import ExponentialLaw

    cls = _check_cls(cls)
    seed = params.pop("seed", 0)
    kind = getattr(engine_controls, cls, None) or getattr(room_controls, cls)
    obj = kind(epsilon=epsilon, **params)
    from dpverify.exact.closed import ExponentialLaw as SymbolicExp, KRRLaw

    law = symbolic = None
    pairs = control_pairs(cls=cls, epsilon=epsilon, seed=seed, **params)
    if cls == "ExponentialMechanism":
        law = ExponentialLaw(obj.sensitivity, epsilon, obj.factor)
        symbolic = SymbolicExp(tuple((p.d, p.d_prime) for p in pairs), obj.sensitivity, obj.factor)
    elif cls == "KRR":
        law = MatrixLaw(tuple(map(tuple, krr_matrix(obj.k, epsilon))))
        symbolic = KRRLaw(obj.k)
    elif cls == "NoisyMax" and obj.noise == "exponential" and obj.returns == "index":  # rational in e^(ε/2)
        from dpverify.exact.argmax import ArgmaxExpLaw

        symbolic = ArgmaxExpLaw(tuple((p.d, p.d_prime) for p in pairs), 2)
    elif cls == "GeometricMechanism":  # integer outputs: a finite law with its two tails lumped
        from fractions import Fraction

        from dpverify.exact.lumped import GeometricLaw

        symbolic = GeometricLaw(tuple((p.d, p.d_prime) for p in pairs),
                                Fraction(obj.scale_factor) * obj.sensitivity)
    rel = Pairs(tuple((p.d, p.d_prime) for p in pairs),
                description=_RELATIONS.get(cls, f"|d - d'| <= {params.get('sensitivity', 1)}"))
    return FunctionMechanism(obj, epsilon, 0.0, family_name(f"audit.mechanisms.{cls}", dict(epsilon=epsilon, **params)),
                             rel, law=law, symbolic=symbolic)


def _family(cls: str, space: dict, samples: int = 40_000) -> Family:
    return Family(f"audit.mechanisms.{cls}", partial(control, cls=cls), {"epsilon": EPS, **space},
                  partial(control_pairs, cls=cls), samples=samples)


def families() -> list[Family]:
    """The room's mechanism families (read by :func:`dpverify.mechanisms.catalogue`).

    Example
    -------
    >>> [f.name for f in families()][:2]
    ['audit.mechanisms.LaplaceMechanism', 'audit.mechanisms.GeometricMechanism']
    """
    return [
        _family("LaplaceMechanism", {}),
        _family("GeometricMechanism", {}),
        _family("ExponentialMechanism", {"seed": Param("int", 0, 2**31)}),
        _family("KRR", {"k": Param("int", 2, 6)}),
        _family("NoisyMax", {"noise": Param("choice", choices=("laplace", "exponential"))}),
        _family("SparseVector", {}),
        _family("HistogramLaplace", {"bins": Param("int", 2, 4)}),
    ]
