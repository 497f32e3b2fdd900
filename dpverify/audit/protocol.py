"""One mechanism protocol for every audit: what a mechanism claims and how it is sampled.

A mechanism is anything with

- ``name`` (str), the claimed ``epsilon`` and ``delta`` (``epsilon = math.inf`` only together
  with a claimed curve ``delta_curve``), and the neighbouring ``relation`` it claims under
  (plain words, e.g. ``"add/remove one record"``, ``"|d - d'|_inf <= 1"``);
- ``sample(data, rng, n)``: n independent outputs for the input ``data``, shape (n,) or (n, k).

Optional members, used by the auditors when present: ``delta_curve(eps) -> float`` (the claimed
δ(ε)), ``output_distribution(data) -> (support, probs)`` (finite mechanisms: the exact pmf),
``sensitivity`` (float) with ``noise`` (a description) for linear mechanisms.

The rules every sample must obey live in ONE place, :func:`checked_sample`: n rows, shape (n,)
or (n, k), numeric, finite; a mechanism that raises or breaks a rule gives :class:`MechanismError`
naming the mechanism, the input and the call.  :func:`as_mechanism` turns protocol objects,
plain callables ``f(data, rng, n)`` and classes (instantiated with parameters) into protocol
objects.

Example
-------
>>> import numpy as np
>>> m = as_mechanism(lambda d, rng, n: d + rng.laplace(0.0, 1.0, n), epsilon=1.0, name="lap")
>>> isinstance(m, Mechanism), checked_sample(m, 0.0, np.random.default_rng(0), 3).shape
(True, (3,))
"""

from __future__ import annotations

import inspect
import math
import reprlib
from dataclasses import dataclass
from typing import Any, Callable, Protocol, runtime_checkable

import numpy as np

from dpverify.validation import check_delta, check_epsilon, check_positive_int

from dpverify.audit.errors import MechanismError  # one class for every mechanism failure


__all__ = ["FunctionMechanism", "Mechanism", "MechanismError", "as_mechanism", "checked_sample", "describe_input"]

#: the claim keywords :func:`as_mechanism` understands (everything else goes to a class's constructor)
CLAIMS = ("name", "epsilon", "delta", "relation", "delta_curve", "output_distribution", "sensitivity", "noise")

_SHORT = reprlib.Repr()
_SHORT.maxstring = 60
_SHORT.maxother = 60
_SHORT.maxlist = _SHORT.maxtuple = 8


@runtime_checkable
class Mechanism(Protocol):
    """The protocol: a name, the claimed (ε, δ), the neighbouring relation, and ``sample``.

    Example
    -------
    >>> from dpverify.audit.produced import produced_mechanisms
    >>> isinstance(produced_mechanisms()["primitives.randomized_response"].factory(k=2, epsilon=1.0), Mechanism)
    True
    >>> isinstance(lambda d, rng, n: d, Mechanism)   # a bare callable: wrap it with as_mechanism
    False
    """

    name: str
    epsilon: float
    delta: float
    relation: str

    def sample(self, data: Any, rng: np.random.Generator, n: int) -> np.ndarray:
        """n independent outputs for ``data``: shape (n,) or (n, k)."""
        ...  # pragma: no cover


def describe_input(data: Any) -> str:
    """A short, one-line description of a mechanism's input for error messages.

    Example
    -------
    >>> describe_input(np.arange(3))
    'array([0, 1, 2]) (shape (3,))'
    """
    if isinstance(data, np.ndarray):
        body = np.array2string(data.ravel()[:8], separator=", ", threshold=8).replace("\n", "")
        more = ", ..." if data.size > 8 else ""
        return f"array({body[:-1]}{more}]) (shape {data.shape})"
    return _SHORT.repr(data)


def _check_claims(epsilon, delta, curve) -> tuple[float, float]:
    if curve is not None and not callable(curve):
        raise TypeError(f"delta_curve must be callable eps -> delta, got {type(curve).__name__}")
    if isinstance(epsilon, (int, float)) and not isinstance(epsilon, bool) and epsilon == math.inf:
        if curve is None:
            raise ValueError("epsilon must be finite unless a delta_curve is claimed, got inf")
        eps = math.inf
    else:
        eps = check_epsilon(epsilon)
    return eps, check_delta(delta)


@dataclass(frozen=True)
class FunctionMechanism:
    """A plain callable ``function(data, rng, n)`` with its claims: the protocol's basic form.

    ``law`` (data -> (support, probs)), ``curve`` (eps -> δ) and ``sensitivity_value`` are
    optional; the protocol members ``output_distribution``, ``delta_curve`` and ``sensitivity``
    exist (``hasattr`` is True) only when they are given.  Calling the object samples through
    :func:`checked_sample`, so it can be handed to :func:`dpverify.audit.epsilon_lower_bound`.

    Example
    -------
    >>> m = FunctionMechanism(lambda d, rng, n: rng.integers(0, 2, n), epsilon=1.0, name="coin")
    >>> m.sample(0, np.random.default_rng(0), 4).shape, hasattr(m, "output_distribution")
    ((4,), False)
    """

    function: Callable
    epsilon: float
    delta: float = 0.0
    name: str = ""
    relation: str = "unspecified"
    law: Callable | None = None
    curve: Callable | None = None
    sensitivity_value: float | None = None
    noise: str = ""

    def __post_init__(self):
        if not callable(self.function):
            raise TypeError(f"function must be callable function(data, rng, n), got {type(self.function).__name__}")
        eps, delta = _check_claims(self.epsilon, self.delta, self.curve)
        object.__setattr__(self, "epsilon", eps)
        object.__setattr__(self, "delta", delta)
        if not isinstance(self.name, str) or not isinstance(self.relation, str):
            raise TypeError("name and relation must be strings")
        if not self.name:
            object.__setattr__(self, "name", getattr(self.function, "__name__", type(self.function).__name__))
        if self.law is not None and not callable(self.law):
            raise TypeError(f"law must be callable data -> (support, probs), got {type(self.law).__name__}")

    def sample(self, data, rng, n):
        """n outputs of the wrapped function (unchecked; :func:`checked_sample` checks them)."""
        return self.function(data, rng, n)

    def __call__(self, data, rng, n):
        return checked_sample(self, data, rng, n)

    @property
    def output_distribution(self) -> Callable:
        """The exact pmf ``data -> (support, probs)`` (AttributeError when not known)."""
        if self.law is None:
            raise AttributeError(f"{self.name!r} has no exact output distribution")
        return self.law

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


def _name_of(mech) -> str:
    return str(getattr(mech, "name", None) or getattr(mech, "__name__", None) or type(mech).__name__)


def checked_sample(mech, data: Any, rng: np.random.Generator, n: int) -> np.ndarray:
    """``mech.sample(data, rng, n)`` (or ``mech(data, rng, n)``) with the protocol's rules enforced.

    Returns the outputs as a numpy array of shape (n,) or (n, k), numeric and finite.  Raises
    :class:`MechanismError` naming the mechanism, the input and n when the mechanism raises,
    returns another shape, non-numeric values, NaN or ±inf.

    Example
    -------
    >>> bad = FunctionMechanism(lambda d, rng, n: np.full(n, np.nan), epsilon=1.0, name="nan")
    >>> try:
    ...     checked_sample(bad, 3, np.random.default_rng(0), 2)
    ... except MechanismError as e:
    ...     print(e)
    mechanism 'nan' returned NaN or inf in sample(data=3, rng, n=2)
    """
    n = check_positive_int(n, "n")
    if not isinstance(rng, np.random.Generator):
        raise TypeError(f"rng must be a numpy.random.Generator, got {type(rng).__name__}")
    fn = getattr(mech, "sample", None)
    if fn is None:
        if not callable(mech):
            raise TypeError(f"mechanism must have sample(data, rng, n) or be callable, got {type(mech).__name__}")
        fn = mech
    call = f"sample(data={describe_input(data)}, rng, n={n})"
    name = _name_of(mech)
    try:
        out = fn(data, rng, n)
    except Exception as exc:  # any failure of user code, re-raised with the call that caused it
        raise MechanismError(f"mechanism {name!r} raised {type(exc).__name__}: {exc} in {call}") from exc
    try:
        out = np.asarray(out)
    except Exception as exc:
        raise MechanismError(f"mechanism {name!r} returned {type(out).__name__}, not an array, in {call}") from exc
    if out.ndim not in (1, 2) or out.shape[0] != n:
        raise MechanismError(f"mechanism {name!r} returned shape {out.shape}, expected ({n},) or ({n}, k), in {call}")
    if out.dtype.kind not in "biuf":
        raise MechanismError(f"mechanism {name!r} returned non-numeric outputs of dtype {out.dtype} in {call}")
    if out.dtype.kind == "f" and not np.isfinite(out).all():
        raise MechanismError(f"mechanism {name!r} returned NaN or inf in {call}")
    return out


def _claims_from(obj, claims: dict) -> dict:
    """The claims of a callable: given keywords first, then the object's own attributes."""
    out = {}
    for key, attr in (("epsilon", "epsilon"), ("delta", "delta"), ("relation", "relation"), ("name", "name")):
        if key in claims:
            out[key] = claims[key]
        elif hasattr(obj, attr) and not callable(getattr(obj, attr)):
            out[key] = getattr(obj, attr)
    if "epsilon" not in out:
        raise ValueError(f"epsilon must be given: {_name_of(obj)} does not state a claimed epsilon")
    out["name"] = out.get("name") or _name_of(obj)
    for key, field in (("delta_curve", "curve"), ("output_distribution", "law"), ("sensitivity", "sensitivity_value")):
        if claims.get(key) is not None:
            out[field] = claims[key]
    if "noise" in claims:
        out["noise"] = claims["noise"]
    return out


def as_mechanism(obj: Any, /, **params) -> Any:
    """A protocol object from a protocol object, a callable ``f(data, rng, n)`` or a class.

    Parameters
    ----------
    obj : a :class:`Mechanism` (returned as is; claims given must agree with its own), a
        callable ``f(data, rng, n)`` (wrapped in :class:`FunctionMechanism`), or a class
        (instantiated with the keywords its constructor accepts, then converted).
    **params : claims (``epsilon``, ``delta``, ``relation``, ``name``, ``delta_curve``,
        ``output_distribution``, ``sensitivity``, ``noise``) and constructor parameters.
        A claim the constructor also accepts (e.g. ``epsilon``) goes to both.

    Example
    -------
    >>> from dpverify.audit.mechanisms import LaplaceMechanism
    >>> m = as_mechanism(LaplaceMechanism, epsilon=0.5, relation="|d - d'| <= 1")
    >>> m.name, m.epsilon, m.relation
    ('LaplaceMechanism(epsilon=0.5)', 0.5, "|d - d'| <= 1")
    """
    if inspect.isclass(obj):
        try:
            sig = inspect.signature(obj)
            takes_any = any(p.kind is p.VAR_KEYWORD for p in sig.parameters.values())
            accepted = {k for k, p in sig.parameters.items() if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)}
        except (TypeError, ValueError):
            takes_any, accepted = True, set()
        ctor = {k: v for k, v in params.items() if takes_any or k in accepted}
        unknown = sorted(set(params) - set(ctor) - set(CLAIMS))
        if unknown:
            raise TypeError(
                f"{obj.__name__} takes no parameter {unknown[0]!r}; it accepts {sorted(accepted)} "
                f"and the claims {list(CLAIMS)}"
            )
        instance = obj(**ctor)
        claims = {k: v for k, v in params.items() if k in CLAIMS}
        if "name" not in claims and not isinstance(instance, Mechanism):
            shown = ", ".join(f"{k}={v!r}" for k, v in ctor.items())
            claims["name"] = f"{obj.__name__}({shown})"
        return as_mechanism(instance, **claims)
    unknown = sorted(set(params) - set(CLAIMS))
    if unknown:
        raise TypeError(f"unknown claim {unknown[0]!r}; claims are {list(CLAIMS)} (constructor parameters need a class)")
    if isinstance(obj, Mechanism):
        _check_claims(obj.epsilon, obj.delta, getattr(obj, "delta_curve", None))
        for key in ("epsilon", "delta", "relation", "name"):
            if key in params and params[key] != getattr(obj, key):
                raise ValueError(
                    f"{key}={params[key]!r} contradicts the mechanism's own claim {key}={getattr(obj, key)!r}; "
                    "audit it against another claim with audit(..., epsilon=...) instead"
                )
        return obj
    if callable(obj):
        return FunctionMechanism(obj, **_claims_from(obj, params))
    raise TypeError(
        f"mechanism must be a Mechanism (name, epsilon, delta, relation, sample), a callable "
        f"f(data, rng, n) or a class, got {type(obj).__name__}"
    )
