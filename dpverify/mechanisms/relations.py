"""Neighbouring relations: the input domain of a mechanism and the candidate pairs (d, d′).

A relation knows the **domain** of the inputs (:class:`Domain`: a shape — ``()`` for a scalar —,
bounds ``low``/``high`` or a finite set of ``values``, integer or real) and yields candidate pairs
with ``candidates(rng)``.  The domain is part of the mechanism: a mechanism that is private on
[0, 1] need not be on [−10, 10], so :class:`Neighbours` searches only a domain that is stated —
both bounds, or the values — and refuses to search otherwise (ValueError naming ``low``/``high``)
unless ``default_domain=True`` states that any entries are accepted where no bound is given; random
pairs are then drawn from the default range [−10, 10] there, and ``describe_domain()`` says so (the
audit report carries that text):

- :class:`Neighbours` — a relation by kind over a domain, generating the StatDP/DP-Sniper
  patterns (Ding et al., CCS 2018, §5.1; Bichsel et al., S&P 2021), random and extreme pairs;
- :class:`Pairs` — an explicit finite list of neighbouring pairs (for mechanisms whose
  neighbours are specific inputs: a score vector and its neighbours, two count streams).

:func:`as_relation` turns what users pass (a relation, a list of pairs, free text) into one.
**Free text** (``"|d - d'| <= 1"``) becomes a :class:`Neighbours` on the default scalar domain
(real, ``|d − d′| ≤ 1``, ``default_domain=True``) that keeps the text as its ``description``: the
words are the author's, the pairs are those of the default domain, and the domain text says so —
pass a relation object for anything else.

Example
-------
>>> rel = Neighbours(shape=(3,), kind="linf", low=0, high=2)
>>> pairs = rel.candidates(np.random.default_rng(0))
>>> [p[1].tolist() for p in pairs[:3]]
[[0.0, 1.0, 1.0], [2.0, 1.0, 1.0], [2.0, 0.0, 0.0]]
>>> all(rel.admits(a, b) for a, b in pairs), rel.describe_domain()
(True, '3 real entries in [0, 2]')
>>> Neighbours(shape=(3,), kind="linf").candidates(0)
Traceback (most recent call last):
...
ValueError: linf neighbours, bound 1, d in R^(3,) states no domain to search: give low and high (or values), the inputs the mechanism is defined on, or default_domain=True to accept any entries (random pairs then drawn from [-10, 10])
>>> scalar = as_relation("|d - d'| <= 1")
>>> scalar.domain.shape, str(scalar), scalar.candidates(0)[0][0].shape
((), "|d - d'| <= 1", ())
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from dpverify.mechanisms.domain import DEFAULT_DOMAIN, Domain, check_pairs, check_shape, number_text
from dpverify.mechanisms.sampling import describe_input
from dpverify.validation import as_generator, check_bool, check_elements, check_nonneg_int, check_real

__all__ = ["DEFAULT_DOMAIN", "KINDS", "Domain", "Neighbours", "Pairs", "as_relation"]

KINDS = ("linf", "l1", "add_remove", "replace")
@dataclass(frozen=True)
class Neighbours:
    """A neighbouring relation of kind ``kind`` over inputs of shape ``shape`` (``()``: scalars).

    The default ``shape`` is ``(1,)`` — one-entry vectors, the StatDP/DP-Sniper default — where a
    :class:`Domain`, and the free-text relation of :func:`as_relation`, default to the scalar
    ``()``; a scalar mechanism handed a one-entry vector receives a scalar (:meth:`Domain.coerce`).

    ``kind``: ``"linf"`` (every entry may change by at most ``bound``), ``"l1"`` (the entries'
    changes sum to at most ``bound``; the patterns change one entry), ``"replace"`` (one entry
    replaced by any value of the range), ``"add_remove"`` (one record, a row, added or removed —
    the inputs then differ in length; not for scalars).  ``low``/``high`` bound the entries,
    ``integer`` keeps them integral, ``values`` restricts them to a finite set; ``n_random``
    random pairs are added to the patterns.  ``description`` is the relation in words.

    The **domain searched** is the stated one: ``candidates`` refuses a relation with neither both
    bounds nor ``values`` (ValueError naming ``low`` and ``high``) unless ``default_domain=True``
    states that the mechanism takes any entries where no bound is given; random pairs are then drawn
    from :data:`DEFAULT_DOMAIN` [−10, 10] there (a pattern or a change of ± ``bound`` may step past
    it: inside the domain, which has no bound there); ``describe_domain()`` states which.

    Example
    -------
    >>> Neighbours(shape=(2,), kind="l1").admits([1, 1], [1, 2])
    True
    >>> Neighbours(shape=(), kind="l1", values=(0, 1, 2)).candidates(0)[:2]
    [(array(1.), array(0.)), (array(1.), array(2.))]
    >>> Neighbours(shape=(), kind="l1", default_domain=True).describe_domain()
    'a real scalar (unbounded): no domain stated, any entries accepted with default_domain=True; random pairs drawn from [-10, 10]'
    """

    shape: tuple = (1,)
    kind: str = "linf"
    bound: float = 1.0
    low: float | None = None
    high: float | None = None
    integer: bool = False
    n_random: int = 6
    values: tuple | None = None
    description: str = field(default="", compare=False)
    default_domain: bool = False

    def __post_init__(self):
        if not isinstance(self.default_domain, (bool, np.bool_)):
            raise TypeError(f"default_domain must be True or False, got {self.default_domain!r}")
        if not isinstance(self.kind, str) or self.kind not in KINDS:
            raise ValueError(f"unknown neighbouring relation kind={self.kind!r}; valid: {', '.join(KINDS)}")
        shape = check_shape(self.shape)
        if math.prod(shape) > 10**6:
            raise ValueError(f"shape must be a tuple of positive sizes (at most 10^6 entries), got {self.shape!r}")
        if shape == () and self.kind == "add_remove":
            raise ValueError("kind 'add_remove' needs a shape with records, got the scalar shape ()")
        object.__setattr__(self, "shape", shape)
        check_real(self.bound, "bound", positive=True)
        check_bool(self.integer, "integer")
        for side in ("low", "high"):
            if getattr(self, side) is not None:
                check_real(getattr(self, side), side)
        if self.integer and self.kind in ("linf", "l1") and self.bound < 1:
            raise ValueError(f"bound={self.bound!r} < 1 admits no pair of integer entries (kind {self.kind!r}): "
                             "integers that differ, differ by at least 1")
        check_nonneg_int(self.n_random, "n_random")
        if self.low is not None and self.high is not None and not self.low < self.high:
            raise ValueError(f"low must be < high, got low={self.low!r}, high={self.high!r}")
        if self.integer and self.values is None and self.low is not None and self.high is not None \
                and np.ceil(self.low) > np.floor(self.high):
            raise ValueError(f"integer=True with low={self.low!r}, high={self.high!r}: no integer lies in "
                             "[low, high], so the domain is empty")
        if self.default_domain and self.values is None and not (self.low if self.low is not None else DEFAULT_DOMAIN[0]) \
                < (self.high if self.high is not None else DEFAULT_DOMAIN[1]):
            raise ValueError(f"default_domain=True completes low={self.low!r}, high={self.high!r} with the default "
                             f"{list(DEFAULT_DOMAIN)} into an empty range; give both low and high")
        if self.values is not None:
            if isinstance(self.values, np.ndarray):
                check_elements(self.values, "values")
            if isinstance(self.values, (str, bytes)) or not hasattr(self.values, "__iter__") or (
                    isinstance(self.values, np.ndarray) and self.values.ndim == 0):
                raise TypeError(f"values must be a finite collection of numbers, got {describe_input(self.values)}")
            vals = tuple(sorted({float(check_real(v, "values")) for v in self.values}))
            if len(vals) < 2:
                raise ValueError(f"values must hold at least two distinct numbers, got {self.values!r}")
            object.__setattr__(self, "values", vals)
        if not isinstance(self.description, str):
            raise TypeError(f"description must be a string, got {type(self.description).__name__}")

    def __str__(self) -> str:
        if self.description:
            return self.description
        what = "d" if self.shape == () else f"d in R^{self.shape}"
        return f"{self.kind} neighbours, bound {self.bound:g}, {what}"

    @property
    def domain(self) -> Domain:
        """The inputs this relation is over."""
        return Domain(self.shape, self.low, self.high, self.integer, self.values)

    # ----------------------------------------------------------------- admissibility
    def admits(self, d, d_prime) -> bool:
        """True when (d, d′) are neighbours under this relation (and inside the range)."""
        a, b = np.asarray(d, dtype=float), np.asarray(d_prime, dtype=float)
        for x in (a, b):
            if (self.low is not None and (x < self.low).any()) or (self.high is not None and (x > self.high).any()):
                return False
            if self.values is not None and not np.isin(x, self.values).all():
                return False
        if self.kind == "add_remove":
            big, small = (a, b) if len(a) >= len(b) else (b, a)
            if len(big) != len(small) + 1:
                return False
            return any(np.array_equal(np.delete(big, i, axis=0), small) for i in range(len(big)))
        if a.shape != b.shape:
            return False
        diff = np.abs(a - b)
        if self.kind == "linf":
            return bool(diff.max() <= self.bound + 1e-12)
        if self.kind == "l1":
            return bool(diff.sum() <= self.bound + 1e-12)
        return int(np.count_nonzero(diff)) <= 1  # replace

    # ----------------------------------------------------------------- candidates
    def _clip(self, x: np.ndarray) -> np.ndarray:
        """``x`` snapped into the stated domain: the nearest of the values (inside the bounds, if any are
        there), else clipped to the bounds (to the integers inside them when ``integer``); never −0.0."""
        lo = self.low if self.low is not None else -np.inf
        hi = self.high if self.high is not None else np.inf
        x = np.asarray(x, dtype=float)
        if self.values is not None:
            vals = np.asarray(self.values)
            vals = vals[(vals >= lo) & (vals <= hi)] if ((vals >= lo) & (vals <= hi)).any() else vals
            return vals[np.abs(x.reshape(-1, 1) - vals).argmin(axis=1)].reshape(x.shape) + 0.0
        if self.integer:
            x, lo, hi = np.round(x), np.ceil(lo), np.floor(hi)
        return np.clip(x, lo, hi) + 0.0  # + 0.0: -0.0 and 0.0 are one input, not a pair

    @property
    def domain_stated(self) -> bool:
        """Whether the relation states the domain it is searched on: both bounds, or the values."""
        return self.values is not None or (self.low is not None and self.high is not None)

    def describe_domain(self) -> str:
        """The domain searched, in words; says when it is the default accepted with ``default_domain``."""
        if self.domain_stated or not self.default_domain:
            return self.domain.describe() + ("" if self.domain_stated else " (not stated: cannot be searched)")
        lo, hi = self._range()
        return (f"{self.domain.describe()}: no domain stated, any entries accepted with default_domain=True; "
                f"random pairs drawn from [{number_text(lo)}, {number_text(hi)}]")

    def _range(self) -> tuple[float, float]:
        """Where random bases are drawn: the values' extremes, the stated bounds, or the default range
        where ``default_domain`` accepts any entries."""
        if self.values is not None:
            return self.values[0], self.values[-1]
        if not self.domain_stated and not self.default_domain:
            raise ValueError(f"{self} states no domain to search: give low and high (or values), the inputs the "
                             f"mechanism is defined on, or default_domain=True to accept any entries (random "
                             f"pairs then drawn from [{number_text(DEFAULT_DOMAIN[0])}, {number_text(DEFAULT_DOMAIN[1])}])")
        return (self.low if self.low is not None else DEFAULT_DOMAIN[0],
                self.high if self.high is not None else DEFAULT_DOMAIN[1])

    def patterns(self) -> list[tuple[np.ndarray, np.ndarray]]:
        """The StatDP/DP-Sniper patterns around the base input of ones (step ``bound``)."""
        n = int(np.prod(self.shape))
        h, s = n // 2, self.bound
        one = np.ones(n)
        out = [(one, np.r_[1 - s, one[1:]]), (one, np.r_[1 + s, one[1:]])]  # one above / one below
        if self.kind == "linf" and n > 1:
            out += [(one, np.r_[1 + s, np.full(n - 1, 1 - s)]),  # one above, rest below
                    (one, np.r_[1 - s, np.full(n - 1, 1 + s)]),  # one below, rest above
                    (one, np.r_[np.full(n - 1, 1 - s), 1 + s]),  # the rest below, the last above
                    (one, np.r_[np.full(n - 1, 1 + s), 1 - s]),  # the rest above, the last below
                    (one, np.r_[np.full(h, 1 + s), np.full(n - h, 1 - s)]),  # half / half
                    (one, np.full(n, 1 + s)), (one, np.full(n, 1 - s)),  # all above / all below
                    (np.r_[np.ones(h), np.zeros(n - h)], np.r_[np.zeros(h), np.ones(n - h)] * s)]  # x-shape
        if self.kind == "replace":
            lo, hi = self._range()
            out += [(one, np.r_[lo, one[1:]]), (one, np.r_[hi, one[1:]])]
        if self.kind == "add_remove":  # snapped into the domain (a record of ones may lie outside it)
            pats = [(one, one[:-1]), (np.r_[one[:-1], 0.0], one[:-1])] if n > 1 else [(one, np.zeros(0))]
            return [(self._clip(a), self._clip(b)) for a, b in pats]
        return [(self._clip(a).reshape(self.shape), self._clip(b).reshape(self.shape)) for a, b in out]

    def random_pairs(self, rng) -> list[tuple[np.ndarray, np.ndarray]]:
        """Random and extreme ("hypothesis-style") admissible pairs."""
        g = as_generator(rng)
        n = int(np.prod(self.shape))
        lo, hi = self._range()
        out = []
        for r in range(self.n_random):
            base = g.uniform(lo, hi, n) if r % 3 else np.where(g.random(n) < 0.5, lo, hi)  # every third: extremes
            base = np.round(base) if self.integer else base
            b = base.copy()
            if self.kind == "linf":
                step = g.choice([-1.0, 0.0, 1.0], n) * self.bound
                b = base + step
            elif self.kind == "l1":
                b[g.integers(n)] += g.choice([-1.0, 1.0]) * self.bound
            elif self.kind == "replace":
                b[g.integers(n)] = g.uniform(lo, hi)
            else:  # add_remove: the records snapped into the domain, then one removed
                base = self._clip(base)
                out.append((base.reshape(-1), np.delete(base, g.integers(n))))
                continue
            a, b = self._clip(base), self._clip(b)
            if not np.array_equal(a, b):
                out.append((a.reshape(self.shape), b.reshape(self.shape)))
        return out

    def candidates(self, rng=None) -> list[tuple[np.ndarray, np.ndarray]]:
        """Patterns, then random pairs; each pair once (in either order), non-identical, admissible,
        inside the domain searched (ValueError when the relation states none: see the class, or when
        its domain holds no pair of neighbours, e.g. one point under ``linf``).

        >>> Neighbours(shape=(2,), kind="linf", integer=True, low=-0.4, high=0.4).candidates(0)
        Traceback (most recent call last):
        ...
        ValueError: linf neighbours, bound 1, d in R^(2,) has no pair of distinct neighbours in its domain, 2 integer entries in [-0.4, 0.4]
        """
        self._range()  # refuses an unstated domain before anything is generated
        seen, out = set(), []
        for a, b in self.patterns() + self.random_pairs(rng):
            key = frozenset({a.tobytes() + bytes(str(a.shape), "ascii"), b.tobytes() + bytes(str(b.shape), "ascii")})
            if len(key) == 2 and key not in seen and self.admits(a, b):
                seen.add(key)
                out.append((a, b))
        if not out:
            raise ValueError(f"{self} has no pair of distinct neighbours in its domain, {self.describe_domain()}")
        return out


@dataclass(frozen=True, eq=False)
class Pairs:
    """An explicit finite relation: the neighbouring pairs ((d, d′), ...) themselves.

    ``candidates(rng)`` returns them (the generator is not used); ``admits`` is membership (in
    either order); the ``domain`` is read from the inputs (their shape; the finite set of their
    values for scalar inputs).

    Example
    -------
    >>> rel = Pairs(((0, 1), (0, 2)), description="local: any two inputs in 0..2")
    >>> rel.candidates(), rel.admits(2, 0), rel.admits(1, 2), rel.domain.values
    ([(0, 1), (0, 2)], True, False, (0, 1, 2))
    """

    pairs: tuple
    description: str = ""

    def __post_init__(self):
        if isinstance(self.pairs, np.ndarray):
            check_elements(self.pairs, "pairs")
        if not isinstance(self.pairs, (str, bytes)) and (
                not hasattr(self.pairs, "__iter__") or isinstance(self.pairs, np.ndarray) and self.pairs.ndim == 0):
            raise TypeError(f"pairs must be a non-empty sequence of (d, d_prime) pairs, "
                            f"got {describe_input(self.pairs)} ({type(self.pairs).__name__})")
        if not isinstance(self.description, str):
            raise TypeError(f"description must be a string, got {type(self.description).__name__}")
        pairs = check_pairs(self.pairs, "pairs") if not isinstance(self.pairs, (str, bytes)) else None
        if not pairs:
            raise ValueError(f"pairs must be a non-empty sequence of (d, d_prime) pairs, got {self.pairs!r}")
        object.__setattr__(self, "pairs", pairs)

    def __str__(self) -> str:
        return self.description or f"{len(self.pairs)} explicit pair(s)"

    def __repr__(self) -> str:
        return f"Pairs(<{len(self.pairs)} pairs>, description={self.description!r})"

    def candidates(self, rng=None) -> list[tuple[Any, Any]]:
        """The pairs, in order (``rng`` is accepted for the relation interface and not used)."""
        return list(self.pairs)

    def admits(self, d, d_prime) -> bool:
        """True when (d, d′) or (d′, d) is one of the pairs."""
        def same(x, y):
            return np.shape(x) == np.shape(y) and bool(np.all(np.asarray(x) == np.asarray(y)))
        return any((same(a, d) and same(b, d_prime)) or (same(a, d_prime) and same(b, d)) for a, b in self.pairs)

    @property
    def domain(self) -> Domain:
        """The inputs of the pairs: their shape, and for scalars the finite set of their values."""
        xs = [x for p in self.pairs for x in p]
        shape = next((np.shape(x) for x in xs if 0 not in np.shape(x)), ())  # an empty record set has no shape
        if shape == () and all(isinstance(x, (int, float, np.integer, np.floating)) or np.ndim(x) == 0 for x in xs):
            vals = tuple(sorted({np.asarray(x).item() for x in xs}, key=lambda v: (str(type(v)), v)))
            numeric = all(isinstance(v, (int, float)) for v in vals)
            return Domain((), integer=numeric and all(float(v).is_integer() for v in vals), values=vals)
        return Domain(tuple(shape))


def as_relation(relation, *, name: str = "relation"):
    """A relation object from a relation, a sequence of (d, d′) pairs, or free text.

    Free text becomes ``Neighbours(shape=(), kind="l1", bound=1, description=text,
    default_domain=True)``: the default scalar domain with the author's words (module docstring).  Anything else raises TypeError
    naming ``name``.

    Example
    -------
    >>> as_relation([(0.0, 1.0)]).candidates()
    [(0.0, 1.0)]
    >>> as_relation(3, name="pairs")
    Traceback (most recent call last):
    ...
    TypeError: pairs must be a relation object (with candidates()), a list of (d, d_prime) pairs or text, got 3 (int)
    """
    if hasattr(relation, "candidates"):
        return relation
    if isinstance(relation, str):
        text = relation.strip()
        if not text:
            raise ValueError(f"{name} must not be empty text")
        return Neighbours(shape=(), kind="l1", bound=1.0, description=text, default_domain=True)
    if isinstance(relation, (list, tuple, np.ndarray)):
        pairs = check_pairs(relation, name)  # an array of shape (k, 2, ...): k pairs
        if not pairs:
            raise ValueError(f"{name} must hold at least one (d, d_prime) pair, got {describe_input(relation)}")
        return Pairs(pairs)
    raise TypeError(f"{name} must be a relation object (with candidates()), a list of (d, d_prime) pairs "
                    f"or text, got {describe_input(relation)} ({type(relation).__name__})")
