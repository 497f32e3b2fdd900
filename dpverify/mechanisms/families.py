"""Families of mechanisms: a factory with a drawable parameter space, as rooms declare them.

A room lists its mechanisms in its own ``mechanisms.py`` as ``families() -> list[Family]``; the
catalogue (:mod:`dpverify.mechanisms.catalogue`) collects them.  A :class:`Family` holds a
``factory(**params)`` returning a :class:`~dpverify.mechanisms.Mechanism`, the allowed values of
each parameter (``space``, :class:`Param`: a property test draws them), the default parameters,
``pairs(**params)`` giving the neighbouring inputs to check (:class:`Pair`, with the statistic
to audit a vector output by), the per-input sample budget of a default statistical check and a
note.  :meth:`Family.make` builds the mechanism with its relation set to those pairs.

Also here: small picklable building blocks the rooms' factories share (:class:`Call`,
:class:`MatrixLaw`, :func:`finite_sampler`, :func:`family_name`).

Example
-------
>>> import numpy as np
>>> from dpverify.mechanisms import FunctionMechanism
>>> fam = Family("demo.coin", lambda *, epsilon: FunctionMechanism(lambda d, rng, n: rng.integers(0, 2, n), epsilon),
...              {"epsilon": Param("float", 0.1, 3.0)}, lambda *, epsilon: [Pair(0, 1)])
>>> fam.defaults, fam.make().relation.candidates()
({'epsilon': 1.0}, [(0, 1)])
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import partial
from typing import Any, Callable, Mapping

import numpy as np

from dpverify.mechanisms.protocol import FunctionMechanism
from dpverify.mechanisms.relations import Pairs
from dpverify.mechanisms.sampling import sample_finite
from dpverify.validation import check_positive_int, check_real, check_row_stochastic

__all__ = ["Call", "Family", "MatrixLaw", "Pair", "Param", "family_name", "finite_sampler"]


@dataclass(frozen=True)
class Param:
    """The allowed values of one factory parameter.

    kind ``"float"`` / ``"int"``: ``low <= x <= high``; ``"choice"``: one of ``choices``;
    ``"prior"``: a probability vector whose length is in ``low..high`` (all entries > 0).

    Example
    -------
    >>> Param("float", 0.1, 2.0).default, Param("prior", 2, 5).default
    (1.0, (0.5, 0.5))
    """

    kind: str
    low: float | None = None
    high: float | None = None
    choices: tuple = ()

    def __post_init__(self):
        if not isinstance(self.kind, str) or self.kind not in ("float", "int", "choice", "prior"):
            raise ValueError(f"kind must be 'float', 'int', 'choice' or 'prior', got {self.kind!r}")
        for name in ("low", "high"):
            if getattr(self, name) is not None:
                check_real(getattr(self, name), name)
        if not isinstance(self.choices, tuple):
            raise TypeError(f"choices must be a tuple, got {type(self.choices).__name__}")
        if self.kind == "choice" and not self.choices:
            raise ValueError("a 'choice' parameter needs choices")
        if self.kind != "choice" and not (self.low is not None and self.high is not None and self.low <= self.high):
            raise ValueError(f"parameter range must have low <= high, got {self.low!r}..{self.high!r}")

    @property
    def default(self) -> Any:
        """A value in the space: 1.0 for a float range holding it (else its low end), the low end of
        an int range, the first choice, the uniform prior of the shortest length."""
        if self.kind == "choice":
            return self.choices[0]
        if self.kind == "prior":
            k = int(self.low)
            return tuple([1.0 / k] * k)
        if self.kind == "float":
            return 1.0 if self.low <= 1.0 <= self.high else float(self.low)
        return int(self.low)


@dataclass(frozen=True)
class Pair:
    """Neighbouring inputs (d, d′) under the mechanism's relation, and the statistic to audit them by.

    Example
    -------
    >>> Pair(0.0, 1.0).statistic is None
    True
    """

    d: Any
    d_prime: Any
    statistic: Callable | None = None

    def __post_init__(self):
        for name in ("d", "d_prime"):
            v = getattr(self, name)
            if isinstance(v, (float, np.floating)) and not np.isfinite(v):
                raise ValueError(f"{name} must be finite, got {v!r}")
            if isinstance(v, np.ndarray) and v.dtype.kind in "fc" and not np.isfinite(v).all():
                raise ValueError(f"{name} must be finite, got an array with a NaN or infinite entry")
        if self.statistic is not None and not callable(self.statistic):
            raise TypeError(f"statistic must be callable or None, got {type(self.statistic).__name__}")


@dataclass(frozen=True)
class Family:
    """One family: ``factory(**params)`` -> a Mechanism; ``pairs(**params)`` -> [Pair].

    ``samples`` is the per-input budget of a default statistical check (sampling cost differs by
    three orders of magnitude between a vectorised primitive and a looped stream); ``default``
    overrides the parameters' defaults (:attr:`Param.default`).

    Example
    -------
    >>> from dpverify.mechanisms import catalogue
    >>> fam = catalogue().families["primitives.laplace_mechanism"]
    >>> fam.factory(epsilon=0.5, sensitivity=1.0).name
    'primitives.laplace_mechanism(epsilon=0.5, sensitivity=1.0)'
    """

    name: str
    factory: Callable[..., Any]
    space: Mapping[str, Param]
    pairs: Callable[..., list]
    samples: int = 40_000
    note: str = field(default="", compare=False)
    default: Mapping[str, Any] = field(default_factory=dict, compare=False)

    def __post_init__(self):
        if not callable(self.factory) or not callable(self.pairs):
            raise TypeError("factory and pairs must be callable")
        for name in ("space", "default"):
            if not isinstance(getattr(self, name), Mapping):
                raise TypeError(f"{name} must be a mapping of parameter names, got {type(getattr(self, name)).__name__}")
        check_positive_int(self.samples, "samples")
        if not isinstance(self.note, str):
            raise TypeError(f"note must be a str, got {type(self.note).__name__}")
        unknown = sorted(set(self.default) - set(self.space))
        if unknown:
            raise ValueError(f"family {self.name!r}: default names {unknown[0]!r}, which is not in its space")

    @property
    def defaults(self) -> dict:
        """The default parameters: ``default`` over each parameter's :attr:`Param.default`."""
        return {k: self.default.get(k, p.default) for k, p in self.space.items()}

    def make(self, **params):
        """The mechanism at ``params`` (the defaults for the rest), its relation the family's pairs."""
        kw = {**self.defaults, **params}
        mech = self.factory(**kw)
        pairs = Pairs(tuple((p.d, p.d_prime) for p in self.pairs(**kw)), description=str(mech.relation))
        if isinstance(mech, FunctionMechanism):
            return mech.with_relation(pairs)
        return mech


# ----------------------------------------------------------------------------- building blocks


def family_name(family: str, params: dict) -> str:
    """``family(k=v, ...)``: the name of a family's member.

    Example
    -------
    >>> family_name("rr.optimal_mechanism", {"epsilon": 1.0})
    'rr.optimal_mechanism(epsilon=1.0)'
    """
    if not isinstance(family, str):
        raise TypeError(f"family must be a str, got {type(family).__name__}")
    if not isinstance(params, Mapping):
        raise TypeError(f"params must be a mapping of parameter names to values, got {type(params).__name__}")
    return f"{family}(" + ", ".join(f"{k}={v!r}" for k, v in params.items()) + ")"


@dataclass(frozen=True)
class Call:
    """``fn(data, rng, n, **kw)`` as a picklable ``f(data, rng, n)`` (``kw`` as a tuple of items).

    Example
    -------
    >>> Call(lambda d, rng, n, k: [d * k] * n, (("k", 2),))(3, None, 2)
    [6, 6]
    """

    fn: Any
    kw: tuple = ()

    def __post_init__(self):
        if not callable(self.fn):
            raise TypeError(f"fn must be callable fn(data, rng, n, **kw), got {type(self.fn).__name__}")
        if not isinstance(self.kw, (tuple, list)) or not all(
                isinstance(item, tuple) and len(item) == 2 and isinstance(item[0], str) for item in self.kw):
            raise TypeError(f"kw must be a tuple of (name, value) pairs, got {self.kw!r:.80}")

    def __call__(self, data, rng, n):
        return self.fn(data, rng, n, **dict(self.kw))


@dataclass(frozen=True)
class MatrixLaw:
    """Row ``data`` of a row-stochastic matrix (the pmf of a local randomizer).

    Example
    -------
    >>> MatrixLaw(((0.75, 0.25), (0.25, 0.75)))(1)[1].tolist()
    [0.25, 0.75]
    """

    P: tuple

    def __post_init__(self):
        P = check_row_stochastic(self.P, "P")
        object.__setattr__(self, "P", tuple(map(tuple, P.tolist())))

    def __call__(self, data):
        row = np.asarray(self.P[int(data)], dtype=float)
        return np.arange(row.size), row


def _finite(law, data, rng, n):
    support, probs = law(data)
    return sample_finite(support, probs, rng, n)


def finite_sampler(law: Callable) -> Callable:
    """A picklable sampler ``f(data, rng, n)`` drawing from ``law(data) = (support, probs)``.

    Example
    -------
    >>> f = finite_sampler(MatrixLaw(((0.0, 1.0), (1.0, 0.0))))
    >>> f(0, np.random.default_rng(0), 3).tolist()
    [1, 1, 1]
    """
    if not callable(law):
        raise TypeError(f"law must be callable law(data) -> (support, probs), got {type(law).__name__}")
    return partial(_finite, law)
