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
claimed δ(ε) curve), ``sensitivity`` with ``noise`` (linear mechanisms), ``symbolic_law(epsilon)``
(a finite mechanism whose output probabilities are closed forms in ε: a :class:`SymbolicLaw`, which
:func:`dpverify.exact.prove` decides for every ε > 0).

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

__all__ = ["CLAIMS", "Claimed", "FunctionMechanism", "Mechanism", "SCALAR", "SymbolicLaw"]

#: the claim keywords :func:`~dpverify.mechanisms.as_mechanism` understands (everything else goes to a
#: class's constructor)
CLAIMS = ("name", "epsilon", "delta", "relation", "delta_curve", "output_distribution", "law", "sensitivity",
          "noise", "claim", "ideal_arithmetic")

#: the default relation: real scalars, |d − d′| ≤ 1
SCALAR = Neighbours(shape=(), kind="l1", bound=1.0, description="|d - d'| <= 1")


@dataclass(frozen=True)
class SymbolicLaw:
    """A finite mechanism's exact law in a positive sympy symbol ε, with its neighbouring rows.

    ``pieces`` is a tuple of ``(where, matrix)``: on the ε-set ``where`` (a sympy ``Set``; the pieces
    cover ε > 0) the law is ``matrix`` (a sympy Matrix, rows the ``inputs``, columns the ``outputs``,
    entries expressions in ``epsilon``). Most laws have one piece, ``Interval.open(0, oo)``; a law
    that switches form with ε (the rr room's optimum changes its support) has one per form.
    ``pairs`` are ordered pairs of row indices (both orders of every neighbouring pair); ``delta``
    is the claimed δ as an exact sympy number (0: pure ε-DP).

    Example
    -------
    >>> import sympy as sp
    >>> e = sp.Symbol("epsilon", positive=True)
    >>> q = sp.exp(e) / (1 + sp.exp(e))
    >>> law = SymbolicLaw(e, sp.Matrix([[q, 1 - q], [1 - q, q]]), inputs=(0, 1), pairs=((0, 1), (1, 0)))
    >>> law.matrix.shape, law.pieces[0][0]
    ((2, 2), Interval.open(0, oo))
    """

    epsilon: Any
    pieces: tuple
    inputs: tuple
    outputs: tuple
    pairs: tuple
    delta: Any

    def __init__(self, epsilon, matrix=None, *, inputs, pairs, outputs=None, pieces=None, delta=0):
        import sympy as sp

        if not isinstance(epsilon, sp.Symbol) or not epsilon.is_positive:
            raise TypeError(f"epsilon must be a positive sympy Symbol, got {epsilon!r}")
        if (matrix is None) == (pieces is None):
            raise ValueError("give exactly one of matrix (one piece for every epsilon > 0) and pieces")
        if pieces is None:
            pieces = ((sp.Interval.open(0, sp.oo), matrix),)
        pieces = tuple(pieces)
        if not pieces or not all(isinstance(w, sp.Set) and isinstance(M, sp.MatrixBase) for w, M in pieces):
            raise TypeError("pieces must be a non-empty sequence of (sympy Set, sympy Matrix)")
        shape = pieces[0][1].shape
        if any(M.shape != shape for _, M in pieces):
            raise ValueError(f"every piece must have the shape {shape}")
        outputs = tuple(range(shape[1])) if outputs is None else outputs
        inputs, outputs, pairs = (list(v) if isinstance(v, np.ndarray) and v.ndim >= 1 and v.size <= 10 ** 5 else v
                                  for v in (inputs, outputs, pairs))
        pairs = [p.tolist() if isinstance(p, np.ndarray) else p for p in pairs] if isinstance(pairs, list) else pairs
        pairs = [[int(k) if isinstance(k, np.integer) else k for k in p] if isinstance(p, (list, tuple)) else p
                 for p in pairs] if isinstance(pairs, (list, tuple)) else pairs
        for name, v, n in (("inputs", inputs, shape[0]), ("outputs", outputs, shape[1])):
            if not isinstance(v, (tuple, list)):
                raise TypeError(f"{name} must be a tuple (one item per {'row' if name == 'inputs' else 'column'}), "
                                f"got {type(v).__name__}")
            if len(v) != n:
                raise ValueError(f"{name} must have {n} items to match the shape {shape}, got {len(v)}")
        inputs, outputs = tuple(inputs), tuple(outputs)
        for d in inputs:
            a = np.asarray(d) if isinstance(d, (float, np.floating, np.ndarray, list, tuple)) else None
            if a is not None and a.dtype.kind in "fc" and not np.isfinite(a).all():
                raise ValueError(f"inputs must be finite, got the row label {d!r:.80}")
        if not isinstance(pairs, (tuple, list)) or not pairs or len(pairs) > shape[0] ** 2 or not all(
                isinstance(p, (tuple, list)) and len(p) == 2 and all(
                    isinstance(k, int) and not isinstance(k, bool) and 0 <= k < shape[0] for k in p) and p[0] != p[1]
                for p in pairs):
            raise ValueError(f"pairs must be a non-empty tuple of (i, j) distinct row indices in 0..{shape[0] - 1}, "
                             f"got {pairs!r:.80}")
        pairs = tuple((int(i), int(j)) for i, j in pairs)
        if isinstance(delta, (bool, str, bytes)) or delta is None:
            raise TypeError(f"delta must be an exact number in [0, 1], got {delta!r}")
        d = sp.sympify(delta)
        if not (d.is_number and d.is_real and 0 <= d <= 1):
            raise ValueError(f"delta must be an exact number in [0, 1], got {delta!r}")
        for k, v in dict(epsilon=epsilon, pieces=tuple((w, sp.ImmutableMatrix(M)) for w, M in pieces),
                         inputs=inputs, outputs=outputs, pairs=pairs, delta=d).items():
            object.__setattr__(self, k, v)

    @property
    def matrix(self):
        """The law of a one-piece law (ValueError when it has several pieces)."""
        if len(self.pieces) != 1:
            raise ValueError(f"this law has {len(self.pieces)} pieces: read .pieces")
        return self.pieces[0][1]

    def at(self, epsilon: float):
        """The numeric law at one float ε > 0: the piece holding ε, evaluated (float64 array).

        Example
        -------
        >>> import sympy as sp
        >>> e = sp.Symbol("epsilon", positive=True)
        >>> SymbolicLaw(e, sp.Matrix([[1 / (1 + sp.exp(-e)), 1 - 1 / (1 + sp.exp(-e))], [0.5, 0.5]]),
        ...             inputs=(0, 1), pairs=((0, 1),)).at(0.0001).round(3).tolist()
        [[0.5, 0.5], [0.5, 0.5]]
        """
        import sympy as sp

        x = sp.Float(float(epsilon), 30)
        for where, M in self.pieces:
            if where.contains(x) is sp.true:
                return np.array(M.subs(self.epsilon, x).evalf(30).tolist(), dtype=float)
        raise ValueError(f"no piece of the law holds epsilon = {epsilon!r}")


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
    symbolic: Callable | None = None  # epsilon symbol -> SymbolicLaw (``symbolic_law``)

    def __init__(self, function, epsilon=None, delta=0.0, name="", relation=SCALAR, law=None, curve=None,
                 sensitivity_value=None, noise="", *, claim=None, source=None, relation_stated=True,
                 ideal_arithmetic=False, symbolic=None):
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
        if symbolic is not None and not callable(symbolic):
            raise TypeError(f"symbolic must be callable epsilon -> SymbolicLaw, got {type(symbolic).__name__}")
        values = dict(function=function, epsilon=claim.epsilon, delta=claim.delta,
                      name=name or getattr(function, "__name__", type(function).__name__),
                      relation=as_relation(relation), law_function=law, curve=claim.delta_curve,
                      sensitivity_value=sensitivity_value, noise=noise, claim=claim, source=source,
                      relation_stated=bool(relation_stated), ideal_arithmetic=bool(ideal_arithmetic),
                      symbolic=symbolic)
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
    def symbolic_law(self) -> Callable:
        """``epsilon -> SymbolicLaw``: the exact law in a positive sympy symbol (AttributeError when not known)."""
        if self.symbolic is None:
            raise AttributeError(f"{self.name!r} has no symbolic law")
        return self.symbolic

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
                                 source=self.source, symbolic=self.symbolic)  # a relation given here is stated

