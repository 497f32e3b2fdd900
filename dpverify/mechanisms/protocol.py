"""The mechanism protocol and its basic form.

A mechanism (:class:`Mechanism`) has

- ``name`` (str);
- ``sample(data, rng, n)``: n independent outputs for the input ``data``, shape (n,) or (n, k);
- ``relation``: ALWAYS a relation object (:mod:`dpverify.mechanisms.relations`) that knows the
  input domain and yields candidate pairs with ``candidates(rng)``;
- ``claim``: the privacy its author states (:mod:`dpverify.mechanisms.privacy`);
- ``epsilon`` and ``delta``: read-only conveniences derived from ``claim`` (the auditor reads them).

Optional members, used by the auditors when present: ``law(data) -> (support, probs)`` (finite
output spaces: the exact pmf; ``output_distribution`` is the same), ``delta_curve(eps)`` (a
claimed δ(ε) curve), ``sensitivity`` with ``noise`` (linear mechanisms).

:class:`Claimed` is a mixin giving ``epsilon``/``delta``/``delta_curve`` from ``claim``;
:class:`FunctionMechanism` is a plain callable ``f(data, rng, n)`` with its claim and relation.

Example
-------
>>> import numpy as np
>>> m = FunctionMechanism(lambda d, rng, n: d + rng.laplace(0.0, 1.0, n), epsilon=1.0, name="lap")
>>> isinstance(m, Mechanism), m.claim, m.relation.domain.shape
(True, PureDP(epsilon=1.0), ())
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Protocol, runtime_checkable

import numpy as np

from dpverify.mechanisms.privacy import CLAIM_TYPES, claim_of
from dpverify.mechanisms.relations import Neighbours, as_relation
from dpverify.mechanisms.sampling import checked_sample
from dpverify.validation import check_bool

__all__ = ["CLAIMS", "Claimed", "FunctionMechanism", "Mechanism", "SCALAR"]

#: the claim keywords :func:`~dpverify.mechanisms.as_mechanism` understands (everything else goes to a
#: class's constructor)
CLAIMS = ("name", "epsilon", "delta", "relation", "delta_curve", "output_distribution", "law", "sensitivity",
          "noise", "claim", "ideal_arithmetic")

#: the default relation: real scalars, |d − d′| ≤ 1
SCALAR = Neighbours(shape=(), kind="l1", bound=1.0, description="|d - d'| <= 1")


@runtime_checkable
class Mechanism(Protocol):
    """The protocol: ``name``, ``sample``, ``relation`` (an object), ``claim``, and ``epsilon``/``delta``.

    Example
    -------
    >>> from dpverify.audit.controls import LaplaceMechanism
    >>> isinstance(LaplaceMechanism(1.0), Mechanism)
    True
    >>> isinstance(lambda d, rng, n: d, Mechanism)   # a bare callable: wrap it with as_mechanism
    False
    """

    name: str
    relation: Any
    claim: Any
    epsilon: float
    delta: float

    def sample(self, data: Any, rng: np.random.Generator, n: int) -> np.ndarray:
        """n independent outputs for ``data``: shape (n,) or (n, k)."""
        ...  # pragma: no cover


class Claimed:
    """Mixin: ``epsilon``, ``delta`` (and ``delta_curve`` for a curve) read from ``self.claim``.

    Example
    -------
    >>> from dpverify.mechanisms.privacy import ApproxDP
    >>> class M(Claimed):
    ...     claim = ApproxDP(1.0, 1e-6)
    >>> M().epsilon, M().delta
    (1.0, 1e-06)
    """

    @property
    def epsilon(self) -> float:
        """The claimed ε (``inf`` for a claim that is not one (ε, δ) point)."""
        return self.claim.epsilon

    @property
    def delta(self) -> float:
        """The claimed δ."""
        return self.claim.delta


@dataclass(frozen=True, init=False)
class FunctionMechanism:
    """A plain callable ``function(data, rng, n)`` with its claim: the protocol's basic form.

    The claim is given as ``claim`` (a :mod:`~dpverify.mechanisms.privacy` object) or by the
    keywords ``epsilon``, ``delta``, ``curve`` (δ(ε)).  ``relation`` is a relation object, a list
    of pairs or free text (:func:`~dpverify.mechanisms.relations.as_relation`; default: real
    scalars with |d − d′| ≤ 1).  ``law`` (data -> (support, probs)), ``curve`` and
    ``sensitivity_value`` are optional; the members ``law``/``output_distribution``,
    ``delta_curve`` and ``sensitivity`` exist (``hasattr`` is True) only when they are given.
    Calling the object samples through :func:`~dpverify.mechanisms.sampling.checked_sample`.
    ``relation_stated=False`` marks the default relation of a callable that stated none: its
    inputs then reach the function unchanged (no scalar coercion).

    Example
    -------
    >>> m = FunctionMechanism(lambda d, rng, n: rng.integers(0, 2, n), epsilon=1.0, name="coin")
    >>> m.sample(0, np.random.default_rng(0), 4).shape, hasattr(m, "output_distribution")
    ((4,), False)
    """

    function: Callable
    epsilon: float | None = None
    delta: float = 0.0
    name: str = ""
    relation: Any = SCALAR
    law_function: Callable | None = None
    curve: Callable | None = None
    sensitivity_value: float | None = None
    noise: str = ""
    claim: Any = None
    source: Any = None
    relation_stated: bool = True
    ideal_arithmetic: bool = False  # True: stands for the mechanism over the reals (no float artefacts audited)

    def __init__(self, function, epsilon=None, delta=0.0, name="", relation=SCALAR, law=None, curve=None,
                 sensitivity_value=None, noise="", *, claim=None, source=None, relation_stated=True,
                 ideal_arithmetic=False):
        if not callable(function):
            raise TypeError(f"function must be callable function(data, rng, n), got {type(function).__name__}")
        if claim is None:
            claim = claim_of(epsilon=epsilon, delta=delta, delta_curve=curve)
        elif not isinstance(claim, CLAIM_TYPES):
            raise TypeError(f"claim must be one of {[c.__name__ for c in CLAIM_TYPES]}, got {type(claim).__name__}")
        if not isinstance(name, str):
            raise TypeError(f"name must be a string, got {type(name).__name__}")
        if law is not None and not callable(law):
            raise TypeError(f"law must be callable data -> (support, probs), got {type(law).__name__}")
        if not isinstance(noise, str):
            raise TypeError(f"noise must be a string (the noise's name, or ''), got {type(noise).__name__}")
        check_bool(relation_stated, "relation_stated")
        check_bool(ideal_arithmetic, "ideal_arithmetic")
        values = dict(function=function, epsilon=claim.epsilon, delta=claim.delta,
                      name=name or getattr(function, "__name__", type(function).__name__),
                      relation=as_relation(relation), law_function=law, curve=claim.delta_curve,
                      sensitivity_value=sensitivity_value, noise=noise, claim=claim, source=source,
                      relation_stated=bool(relation_stated), ideal_arithmetic=bool(ideal_arithmetic))
        for k, v in values.items():
            object.__setattr__(self, k, v)

    def __getattr__(self, name):
        # the white-box hook of a wrapped object (``log_density``) stays reachable through the wrapper
        source = self.__dict__.get("source")
        if name == "log_density" and source is not None and hasattr(source, name):
            return getattr(source, name)
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def sample(self, data, rng, n):
        """n outputs of the wrapped function (unchecked; :func:`checked_sample` checks them)."""
        return self.function(data, rng, n)

    def __call__(self, data, rng, n):
        return checked_sample(self, data, rng, n)

    @property
    def law(self) -> Callable:
        """The exact pmf ``data -> (support, probs)`` (AttributeError when not known)."""
        if self.law_function is None:
            raise AttributeError(f"{self.name!r} has no exact output distribution")
        return self.law_function

    output_distribution = law

    @property
    def delta_curve(self) -> Callable:
        """The claimed δ(ε) (AttributeError when only a fixed (ε, δ) is claimed)."""
        if self.curve is None:
            raise AttributeError(f"{self.name!r} claims no delta curve")
        return self.curve

    @property
    def sensitivity(self) -> float:
        """The sensitivity of a linear mechanism (AttributeError when not known)."""
        if self.sensitivity_value is None:
            raise AttributeError(f"{self.name!r} has no stated sensitivity")
        return self.sensitivity_value

    def with_relation(self, relation) -> "FunctionMechanism":
        """The same mechanism under another relation (object, pairs or text).

        Example
        -------
        >>> m = FunctionMechanism(lambda d, rng, n: rng.random(n), epsilon=1.0)
        >>> m.with_relation([(0, 1)]).relation.candidates()
        [(0, 1)]
        """
        return FunctionMechanism(self.function, name=self.name, relation=relation, law=self.law_function,
                                 sensitivity_value=self.sensitivity_value, noise=self.noise, claim=self.claim,
                                 source=self.source)  # a relation given here is stated

