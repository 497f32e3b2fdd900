"""``as_mechanism``: one door into the protocol for callables, classes, adapters and benchmarks.

Every entry point (``audit()``, ``epsilon_lower_bound`` given a mechanism, the audit CLI, the
catalogue, ``toolkit.audit_epsilon``) starts here, so a mechanism has one shape wherever it is
used:

- a :class:`~dpverify.mechanisms.Mechanism` (a benchmark, a control, an adapter's result, a
  catalogue entry) is returned as is (claims given must agree with its own);
- a class is instantiated with the keywords its constructor accepts, then converted;
- an OpenDP ``Measurement`` or a diffprivlib mechanism (instance or class) goes through its
  adapter (:mod:`dpverify.mechanisms.adapters`);
- a catalogue :class:`~dpverify.mechanisms.Family` or a suite ``Case`` (an object with
  ``make()``) gives its default mechanism (a family's parameters given go to ``make``);
- an object with ``sample(data, rng, n)`` or a callable ``f(data, rng, n)`` becomes a
  :class:`~dpverify.mechanisms.FunctionMechanism` with the claims given (or the object's own);
  its signature must bind ``(data, rng, n)`` positionally (:func:`check_signature`), so a
  function of another shape is refused here rather than at its first sample.

The relation is always an object: free text becomes the default scalar relation with the text as
its description, a list of pairs becomes :class:`~dpverify.mechanisms.Pairs`
(:func:`~dpverify.mechanisms.relations.as_relation`).

Example
-------
>>> import numpy as np
>>> m = as_mechanism(lambda d, rng, n: d + rng.laplace(0.0, 1.0, n), epsilon=1.0, relation="|d-d'|<=1", name="lap")
>>> m.name, str(m.relation), m.relation.candidates(0)[0]
('lap', "|d-d'|<=1", (array(1.), array(0.)))
"""

from __future__ import annotations

import inspect
import math
from collections.abc import Mapping
from typing import Any

from dpverify.mechanisms.privacy import CLAIM_TYPES
from dpverify.mechanisms.protocol import CLAIMS, SCALAR, FunctionMechanism, Mechanism
from dpverify.mechanisms.relations import as_relation
from dpverify.mechanisms.sampling import name_of

__all__ = ["CLAIMS", "as_mechanism", "audited", "check_signature", "sampler"]



def _library(obj) -> str | None:
    module = (obj if inspect.isclass(obj) else type(obj)).__module__ or ""
    for lib in ("opendp", "diffprivlib"):
        if module == lib or module.startswith(lib + "."):
            return lib
    return None


def _from_library(lib: str, obj, params: dict):
    if lib == "opendp":
        from dpverify.mechanisms.adapters.opendp_adapter import from_opendp

        return from_opendp(obj, **params)
    from dpverify.mechanisms.adapters.diffprivlib_adapter import from_diffprivlib

    return from_diffprivlib(obj, **params)


def _from_class(cls, params: dict):
    try:
        sig = inspect.signature(cls)
        takes_any = any(p.kind is p.VAR_KEYWORD for p in sig.parameters.values())
        accepted = {k for k, p in sig.parameters.items() if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)}
    except (TypeError, ValueError):
        takes_any, accepted = True, set()
    ctor = {k: v for k, v in params.items() if takes_any or k in accepted}
    unknown = sorted(set(params) - set(ctor) - set(CLAIMS))
    if unknown:
        raise TypeError(f"{cls.__name__} takes no parameter {unknown[0]!r}; it accepts {sorted(accepted)} "
                        f"and the claims {list(CLAIMS)}")
    instance = cls(**ctor)
    claims = {k: v for k, v in params.items() if k in CLAIMS}
    if isinstance(instance, Mechanism):
        own = {k: v for k, v in claims.items() if k in ("epsilon", "delta") and v == getattr(instance, k)}
        if len(own) == len(claims):  # nothing beyond what the instance states: the instance itself
            return instance
    if "name" not in claims:
        shown = ", ".join(f"{k}={v!r}" for k, v in ctor.items())
        claims["name"] = f"{cls.__name__}({shown})"
    return _wrap(instance, claims) if isinstance(instance, Mechanism) else as_mechanism(instance, **claims)


def _is_factory(obj) -> bool:
    """A catalogue Family or a suite Case: not itself a mechanism, with a ``make()`` building one."""
    return (callable(getattr(obj, "make", None)) and not callable(obj) and not callable(getattr(obj, "sample", None))
            and not isinstance(obj, Mechanism))


def _agree(obj, params: dict):
    for key in ("epsilon", "delta", "name", "claim"):
        if key in params and params[key] != getattr(obj, key):
            raise ValueError(f"{key}={params[key]!r} contradicts the mechanism's own claim {key}={getattr(obj, key)!r}; "
                             "audit it against another claim with audit(..., epsilon=...) instead")
    if "relation" in params and as_relation(params["relation"]) != obj.relation:
        raise ValueError(f"relation={params['relation']!r} contradicts the mechanism's own relation {obj.relation}")
    return obj


_GENERATOR_NAMES = ("rng", "random_state", "generator", "prng")


def check_signature(function, what: Any = None) -> None:
    """Raise TypeError unless ``function`` can be called as ``function(data, rng, n)`` (positionally).

    Read with :func:`inspect.signature` (a builtin without a signature passes): the three
    arguments must bind, and a parameter named like a generator (``rng``, ``random_state``,
    ``generator``, ``prng``) must be the one receiving the second.  ``what`` is the object named
    in the message (default: ``function``).

    Example
    -------
    >>> check_signature(lambda data, rng, n, scale=1.0: data)
    >>> def laplace(value, sensitivity, epsilon, rng=None, size=None): ...
    >>> check_signature(laplace)
    Traceback (most recent call last):
    ...
    TypeError: mechanism 'laplace' must take (data, rng, n) positionally, but its signature is laplace(value, sensitivity, epsilon, rng=None, size=None) (its 'rng' would not receive the generator); wrap it, e.g. lambda data, rng, n: laplace(...) (a mechanism is `mechanism(data, rng, n)`: the input, a numpy Generator and the number of draws, returning n outputs)
    """
    if not callable(function):
        raise TypeError(f"function must be callable f(data, rng, n), got {type(function).__name__}")
    try:
        sig = inspect.signature(function)
    except (TypeError, ValueError):  # a builtin or extension callable without a readable signature
        return
    try:
        bound = list(sig.bind(None, None, None).arguments)
        params = sig.parameters
        second = bound[1] if len(bound) > 1 and params[bound[1]].kind is not params[bound[1]].VAR_POSITIONAL else None
        named = [k for k in params if k in _GENERATOR_NAMES and params[k].kind is not params[k].KEYWORD_ONLY]
        if second is not None and named and second not in named:
            raise TypeError(f"its {named[0]!r} would not receive the generator")
    except TypeError as exc:
        name = name_of(what if what is not None else function)
        short = name.split("(")[0] or "f"
        hint = "" if short.startswith("<") else f", e.g. lambda data, rng, n: {short}(...)"
        method = ".sample" if getattr(function, "__name__", "") == "sample" and inspect.ismethod(function) else ""
        raise TypeError(f"mechanism {name!r} must take (data, rng, n) positionally, but its signature is "
                        f"{short}{method}{sig} ({exc}); wrap it{hint} (a mechanism is `mechanism(data, rng, n)`: "
                        "the input, a numpy Generator and the number of draws, returning n outputs)") from None


def _from_factory(obj, params: dict):
    """A catalogue :class:`~dpverify.mechanisms.Family` or a suite ``Case``: its (default) mechanism.

    A family's own parameters (its ``space``) go to ``make``; the rest are claims for the result.
    """
    space = getattr(obj, "space", None)
    made = {k: v for k, v in params.items() if isinstance(space, Mapping) and k in space}
    built = obj.make(**made)
    return as_mechanism(built, **{k: v for k, v in params.items() if k not in made})


def _wrap(obj, params: dict) -> FunctionMechanism:
    """A FunctionMechanism from a callable or an object with ``sample``: given claims first, then its own."""
    def own(attr):
        value = getattr(obj, attr, None)
        return None if value is None or (callable(value) and attr not in ("output_distribution", "delta_curve")) else value

    get = lambda key, attr=None: params[key] if key in params else own(attr or key)  # noqa: E731
    claim = get("claim")
    if claim is not None and not isinstance(claim, CLAIM_TYPES):
        raise TypeError(f"claim must be one of {[c.__name__ for c in CLAIM_TYPES]}, got {type(claim).__name__}")
    epsilon = get("epsilon")
    if claim is None and epsilon is None and get("delta_curve") is None:
        raise ValueError(f"epsilon must be given: {name_of(obj)} does not state a claimed epsilon")
    relation = get("relation")
    law = params.get("law", params.get("output_distribution", own("output_distribution")))
    sens = params.get("sensitivity", own("sensitivity"))
    function = obj if callable(obj) else obj.sample
    check_signature(function, obj)
    return FunctionMechanism(function, epsilon, get("delta") or 0.0, get("name") or name_of(obj),
                             as_relation(relation) if relation is not None else SCALAR,
                             law=law, curve=get("delta_curve"), sensitivity_value=sens,
                             noise=params.get("noise", own("noise") or ""), claim=claim,
                             source=obj if hasattr(obj, "log_density") else None,
                             relation_stated=relation is not None,
                             ideal_arithmetic=bool(params.get("ideal_arithmetic",
                                                              getattr(obj, "ideal_arithmetic", False))))


def as_mechanism(obj: Any, /, **params) -> Any:
    """A :class:`~dpverify.mechanisms.Mechanism` from a mechanism, callable, class or library object.

    Parameters
    ----------
    obj : a Mechanism (returned as is; claims given must agree with its own), a class
        (instantiated with the keywords its constructor accepts), an OpenDP ``Measurement`` or a
        diffprivlib mechanism (through the adapters), a catalogue ``Family`` or a suite ``Case``
        (its ``make()``: the default mechanism), an object with ``sample(data, rng, n)`` or
        a callable ``f(data, rng, n)`` (wrapped in :class:`~dpverify.mechanisms.FunctionMechanism`;
        the signature is checked: TypeError naming the object and its signature otherwise)
    **params : claims (``epsilon``, ``delta``, ``delta_curve``, ``claim``, ``relation``, ``name``,
        ``law``/``output_distribution``, ``sensitivity``, ``noise``, ``ideal_arithmetic`` — True when
        the sampler stands for a mechanism over the reals, so the audit leaves its float artefacts
        alone) and constructor parameters.
        ``relation`` may be an object, a list of (d, d′) or free text (the default scalar
        domain, keeping the text as its description).

    Example
    -------
    >>> from dpverify.audit.controls import LaplaceMechanism
    >>> m = as_mechanism(LaplaceMechanism, epsilon=0.5)     # the instance itself: a Mechanism
    >>> m.name, m.epsilon, m.relation.domain.scalar
    ('LaplaceMechanism(epsilon=0.5, sensitivity=1.0, scale_factor=1.0)', 0.5, True)
    >>> as_mechanism(LaplaceMechanism, epsilon=0.5, relation="|f(D) - f(D')| <= 1").name   # restated: wrapped
    'LaplaceMechanism(epsilon=0.5)'
    >>> from dpverify.mechanisms import catalogue
    >>> as_mechanism(catalogue().families["rr.optimal_mechanism"], epsilon=0.5).name   # a family: make(epsilon=0.5)
    'rr.optimal_mechanism(pi=(0.5, 0.5), epsilon=0.5, delta=0.0)'
    >>> from dpverify.audit.suite import CASES
    >>> as_mechanism(CASES[0]).name                                                    # a suite case: make()
    'Laplace'
    >>> as_mechanism(3.0, epsilon=1.0)
    Traceback (most recent call last):
    ...
    TypeError: mechanism must be a Mechanism (name, sample, relation, claim), a callable f(data, rng, n), a class or an OpenDP/diffprivlib mechanism, got float
    """
    lib = _library(obj)
    if lib is not None:
        return _from_library(lib, obj, params)
    if inspect.isclass(obj):
        return _from_class(obj, params)
    if _is_factory(obj):
        return _from_factory(obj, params)
    unknown = sorted(set(params) - set(CLAIMS))
    if unknown:
        raise TypeError(f"unknown claim {unknown[0]!r}; claims are {list(CLAIMS)} (constructor parameters need a class)")
    if isinstance(obj, Mechanism) and hasattr(obj.relation, "candidates") and isinstance(obj.claim, CLAIM_TYPES):
        return _agree(obj, params)
    if callable(obj) or callable(getattr(obj, "sample", None)):
        return _wrap(obj, params)
    raise TypeError("mechanism must be a Mechanism (name, sample, relation, claim), a callable f(data, rng, n), "
                    f"a class or an OpenDP/diffprivlib mechanism, got {type(obj).__name__}")


def audited(obj: Any, /, *, epsilon: float, delta: float = 0.0) -> Any:
    """The mechanism an audit of the claim (ε, δ) samples: :func:`as_mechanism` of ``obj``, whose
    own claim is kept when it states one (the audit checks ``epsilon`` against it regardless).

    Example
    -------
    >>> m = audited(lambda d, rng, n: rng.random(n), epsilon=2.0)
    >>> m.epsilon, m.relation.domain.shape
    (2.0, ())
    """
    if delta is None:
        raise TypeError("delta must be a real number in [0, 1), got None")
    if isinstance(obj, Mechanism) and hasattr(obj.relation, "candidates") and isinstance(obj.claim, CLAIM_TYPES):
        return obj
    own = getattr(obj, "epsilon", None)
    stated = own is not None and not callable(own) or getattr(obj, "claim", None) is not None
    if stated and not _infinite_epsilon_only(obj):
        return as_mechanism(obj)  # its own claim; a bad own ε, δ or relation is reported here
    return as_mechanism(obj, epsilon=epsilon, delta=delta)


def _infinite_epsilon_only(obj) -> bool:
    """The one own claim :func:`audited` replaces by the audited one: ε = ∞ stated with no δ(ε) curve
    and no claim object (``claim_of`` cannot read it: "no finite ε claimed", e.g. a broken benchmark
    whose ``epsilon`` is its true, infinite ε)."""
    own = getattr(obj, "epsilon", None)
    return (isinstance(own, (int, float)) and not isinstance(own, bool) and own == math.inf
            and getattr(obj, "claim", None) is None and not callable(getattr(obj, "delta_curve", None)))


def sampler(obj: Any, /) -> Any:
    """A callable ``f(data, rng, n)`` for the samplers that take one (``epsilon_lower_bound``): a
    Mechanism through :func:`as_mechanism` (made callable when it is not), anything else as is.

    Example
    -------
    >>> import numpy as np
    >>> class Coin:
    ...     name, epsilon, delta = "coin", 1.0, 0.0
    ...     def sample(self, d, rng, n):
    ...         return rng.integers(0, 2, n)
    >>> callable(Coin()), callable(sampler(Coin()))
    (False, True)
    """
    if isinstance(obj, Mechanism) or (not callable(obj) and callable(getattr(obj, "sample", None))):
        m = as_mechanism(obj)
        if callable(m):
            return m
        return FunctionMechanism(m.sample, name=m.name, relation=m.relation, claim=m.claim,
                                 law=getattr(m, "law", None), source=m if hasattr(m, "log_density") else None)
    if not callable(obj):
        raise TypeError(f"mechanism must be a Mechanism, have sample(data, rng, n) or be callable f(data, rng, n), "
                        f"got {type(obj).__name__}")
    return obj
