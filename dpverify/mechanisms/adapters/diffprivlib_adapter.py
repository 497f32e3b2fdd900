"""diffprivlib mechanisms as auditable mechanisms (:func:`from_diffprivlib`).

IBM's diffprivlib (Holohan et al., "Diffprivlib: the IBM differential privacy library", 2019)
releases one value per ``randomise`` call and draws from ``random_state``.  The adapter builds
the mechanism once per ``sample`` call with ``random_state = numpy.random.RandomState(s)``, s
drawn from the audit's Generator — so an audit is reproducible from its seed — and calls
``randomise`` n times (about 6·10⁴ Laplace releases per second on one core; diffprivlib has no
vectorised path, and re-implementing its arithmetic would audit something else).

Inputs (``data``):

- value mechanisms (Laplace*, Geometric*, Gaussian*, Snapping, Staircase): the true answer;
- utility mechanisms (Exponential, PermuteAndFlip): the utility vector (the mechanism is built
  with ``utility=data``); outputs are candidate indices;
- Binary: ``value0``/``value1`` (or 0/1); ExponentialCategorical: a category.  Categorical
  outputs are returned as indices (Binary: value0 -> 0; ExponentialCategorical: sorted labels).

The claim is the mechanism's own ``epsilon``/``delta`` (:class:`~dpverify.mechanisms.privacy.PureDP`
or :class:`~dpverify.mechanisms.privacy.ApproxDP`, measure ``"epsilon"`` or ``"(epsilon, delta)"``,
with the release in ``library``); Binary carries its exact pmf (keep with probability
e^ε/(1 + e^ε)).  diffprivlib 0.6.6 imports ``sklearn.tree._tree.DOUBLE``, removed in
scikit-learn 1.9: the ``diffprivlib`` extra pins ``scikit-learn<1.9`` (checked with 1.6.1, 1.7.2,
1.8.0 in fresh environments).
"""

from __future__ import annotations

import inspect
import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from dpverify.validation import check_delta, check_epsilon, check_real
from dpverify.mechanisms.adapters.common import coerce_all, missing_package
from dpverify.mechanisms.adapters.stated import StatedMechanism, library_version
from dpverify.mechanisms.protocol import CLAIMS
from dpverify.mechanisms.relations import Neighbours, Pairs, as_relation

__all__ = ["DIFFPRIVLIB_MECHANISMS", "from_diffprivlib"]

_VALUE = ("Gaussian", "GaussianAnalytic", "GaussianDiscrete", "Geometric", "GeometricFolded", "GeometricTruncated",
          "Laplace", "LaplaceBoundedDomain", "LaplaceBoundedNoise", "LaplaceFolded", "LaplaceTruncated", "Snapping",
          "Staircase")
_UTILITY = ("Exponential", "PermuteAndFlip")
_CATEGORICAL = ("Binary", "ExponentialCategorical")
#: the mechanisms available by class name
DIFFPRIVLIB_MECHANISMS = tuple(sorted(_VALUE + _UTILITY + _CATEGORICAL))


def _mechanisms():
    try:
        import diffprivlib.mechanisms as mechanisms
    except ImportError as exc:
        raise missing_package("diffprivlib (with scikit-learn<1.9)", "diffprivlib", exc) from exc
    return mechanisms


@dataclass(frozen=True)
class _Sampler:
    """Build ``cls(**params, random_state=RandomState(s))`` and call ``randomise`` n times."""

    cls_name: str
    params: tuple

    def build(self, data, seed):
        cls = getattr(_mechanisms(), self.cls_name)
        kw = dict(self.params)
        if self.cls_name in _UTILITY:
            kw["utility"] = [float(u) for u in np.ravel(data)]
        return cls(**kw, random_state=np.random.RandomState(seed))

    def labels(self) -> list:
        kw = dict(self.params)
        if self.cls_name == "Binary":
            return [kw["value0"], kw["value1"]]
        if self.cls_name == "ExponentialCategorical":
            return sorted({str(x) for row in kw["utility_list"] for x in row[:2]})
        return []

    def __call__(self, data, rng, n):
        seed = int(rng.integers(0, 2**32))
        mech = self.build(data, seed)
        if self.cls_name in _UTILITY:
            return np.fromiter((mech.randomise() for _ in range(n)), dtype=np.int64, count=n)
        if self.cls_name in _CATEGORICAL:
            labels = self.labels()
            value = data
            if value not in labels and isinstance(value, (int, np.integer)) and 0 <= value < len(labels):
                value = labels[int(value)]
            index = {str(c): i for i, c in enumerate(labels)}
            return np.fromiter((index[str(mech.randomise(value))] for _ in range(n)), dtype=np.int64, count=n)
        integer = self.cls_name.startswith("Geometric") or self.cls_name == "GaussianDiscrete"
        value = int(data) if integer else float(data)
        return np.fromiter((mech.randomise(value) for _ in range(n)), dtype=np.int64 if integer else float, count=n)


@dataclass(frozen=True)
class _BinaryLaw:
    epsilon: float

    def __call__(self, data):
        keep = math.exp(self.epsilon) / (1.0 + math.exp(self.epsilon))
        p = np.array([keep, 1 - keep]) if int(data) == 0 else np.array([1 - keep, keep])
        return np.arange(2), p


def _params_of(instance) -> tuple[str, dict]:
    cls = type(instance)
    if cls.__name__ not in DIFFPRIVLIB_MECHANISMS or not cls.__module__.startswith("diffprivlib"):
        raise TypeError(f"not a supported diffprivlib mechanism: {cls.__module__}.{cls.__name__}")
    names = [p for p in inspect.signature(cls).parameters if p != "random_state"]
    params = {p: getattr(instance, p) for p in names if hasattr(instance, p)}
    if cls.__name__ in _UTILITY:
        params.pop("utility", None)
    return cls.__name__, params


def _relation(name: str, params: dict, labels: list):
    """The relation of the claim, over the mechanism's input domain."""
    if name in _UTILITY:
        k = len(params["candidates"]) if params.get("candidates") else 3
        return Neighbours(shape=(k,), kind="linf", bound=float(params.get("sensitivity", 1.0)),
                          default_domain=True,  # utilities are any reals: the default search range is a subset
                          description=f"|u(D, r) - u(D', r)| <= {params.get('sensitivity')} for every candidate r")
    if name in _CATEGORICAL:
        return Pairs(tuple((a, b) for i, a in enumerate(labels) for b in labels[i + 1:]),
                     description="local: any two inputs")
    s = params.get("sensitivity", 1)
    integer = name.startswith("Geometric") or name == "GaussianDiscrete"
    low, high = params.get("lower"), params.get("upper")
    bounded = low is not None and high is not None and low < high
    return Neighbours(shape=(), kind="l1", bound=float(s), integer=integer, low=low if bounded else None,
                      high=high if bounded else None, default_domain=not bounded,
                      description=f"|f(D) - f(D')| <= {s}")


def from_diffprivlib(mechanism, /, **params) -> StatedMechanism:
    """A diffprivlib mechanism (class name, class, or instance) as a protocol object.

    Parameters
    ----------
    mechanism : a name in :data:`DIFFPRIVLIB_MECHANISMS`, a diffprivlib mechanism class, or an
        instance (its parameters are read back from it; its own random_state is not used)
    **params : the class's constructor parameters (``epsilon``, ``delta``, ``sensitivity``,
        ``lower``, ``upper``, ``value0``/``value1``, ``candidates``, ``utility_list``, ...;
        strings from the command line are read as numbers/lists), plus ``relation``/``name``
        to override the stated claim's wording. Exponential/PermuteAndFlip take their
        ``utility`` as the audited input, not as a parameter.

    Example
    -------
    >>> from_diffprivlib("Laplace", epsilon=0)
    Traceback (most recent call last):
    ...
    ValueError: epsilon must be > 0, got 0
    """
    params = coerce_all(params)
    relation, name = params.pop("relation", None), params.pop("name", None)
    if isinstance(mechanism, str):
        if mechanism not in DIFFPRIVLIB_MECHANISMS:
            raise ValueError(f"mechanism must be one of {DIFFPRIVLIB_MECHANISMS} or a diffprivlib mechanism, "
                             f"got {mechanism!r}")
        cls_name = mechanism
    elif inspect.isclass(mechanism):
        cls_name = mechanism.__name__
        if cls_name not in DIFFPRIVLIB_MECHANISMS or not mechanism.__module__.startswith("diffprivlib"):
            raise TypeError(f"not a supported diffprivlib mechanism class: {mechanism!r}")
    else:
        if not type(mechanism).__module__.startswith("diffprivlib"):
            raise TypeError(f"mechanism {mechanism!r:.80} of type {type(mechanism).__name__} is not a supported diffprivlib "
                            "mechanism (a name in DIFFPRIVLIB_MECHANISMS, a diffprivlib mechanism class or an instance)")
        if params:
            raise TypeError(f"an instance takes no parameters, got {sorted(params)}")
        cls_name, params = _params_of(mechanism)
    if "epsilon" not in params:
        raise ValueError(f"{cls_name} needs epsilon=")
    eps = check_epsilon(params["epsilon"])
    delta = check_delta(params.get("delta", 0.0))
    if "sensitivity" in params:  # without a relation given, the relation's bound: then > 0 (diffprivlib allows 0)
        check_real(params["sensitivity"], "sensitivity", positive=relation is None, nonneg=True)
    if cls_name in _UTILITY and "utility" in params:
        raise TypeError(f"{cls_name}'s utility is the audited input (data), not a parameter")
    unknown = [k for k in params if k in CLAIMS and k not in ("epsilon", "delta", "sensitivity")]
    if unknown:
        raise TypeError(f"{cls_name} takes no parameter {unknown[0]!r}")
    sampler = _Sampler(cls_name, tuple(sorted(params.items(), key=lambda kv: kv[0])))
    probe = dict(params)
    if cls_name in _UTILITY:
        probe["utility"] = [0.0, 0.0]
    try:  # diffprivlib validates its parameters here: fail now, not in the middle of an audit
        getattr(_mechanisms(), cls_name)(**probe)
    except (TypeError, ValueError) as exc:
        raise type(exc)(f"diffprivlib {cls_name}: {exc}") from None
    shown = ", ".join(f"{k}={v!r}" for k, v in params.items())
    return StatedMechanism(sampler, eps, delta, name or f"diffprivlib:{cls_name}({shown})",
                             as_relation(relation) if relation is not None else _relation(cls_name, params, sampler.labels()),
                             law=_BinaryLaw(eps) if cls_name == "Binary" and delta == 0 else None,
                             sensitivity_value=float(params["sensitivity"]) if cls_name in _VALUE and "sensitivity" in params else None,
                             noise=f"diffprivlib {cls_name}", measure="epsilon" if delta == 0 else "(epsilon, delta)",
                             d_in=params.get("sensitivity"), library=library_version("diffprivlib"))
