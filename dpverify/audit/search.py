"""Neighbouring relations and the candidate pairs the auditor screens.

:class:`Neighbours` describes the relation a privacy claim is made under, over inputs of a given
shape, and generates candidate pairs (d, d′):

- the StatDP patterns (Ding et al., CCS 2018, §5.1; reused by DP-Sniper, S&P 2021): from the base
  input of ones, *one above*, *one below* and, when every entry may change (``linf``), *one above
  and the rest below*, *one below and the rest above*, *half above, half below*, *all above*,
  *all below*, and the *x-shape* pair (ones then zeros against zeros then ones);
- the two one-against-the-rest patterns with the odd entry *last* (``linf``).  A mechanism that scans
  its input in order (the sparse vector family) is hit hardest when every query before the last moves
  one way and the last the other: for SVT1 at ε = 0.1 the exact ε of the pair is 0.0985 with the odd
  entry last, 0.040 with it first (``benchmarks/bench_audit_oracle.py``);
- random pairs (a random base in the input range, a random admissible change);
- hypothesis-style extreme pairs (base at the bounds of the range, change by ± the full bound).

Every candidate is admissible under the relation (:meth:`Neighbours.admits`), clipped to the
range when one is given; duplicates are removed.  An audit takes its candidates from the pairs or
relation it is given, or the mechanism's own ``relation`` (``_pairs``), and charges its budget to
their distinct inputs (``_distinct_inputs``).  The choice among candidates is made on
screening samples that the final test never reuses (``proofs/audit/selection.md``).

Example
-------
>>> rel = Neighbours(shape=(3,), kind="linf")
>>> pairs = rel.candidates(np.random.default_rng(0))
>>> [p[1].tolist() for p in pairs[:3]]
[[0.0, 1.0, 1.0], [2.0, 1.0, 1.0], [2.0, 0.0, 0.0]]
>>> all(rel.admits(a, b) for a, b in pairs)
True
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from dpverify.validation import as_generator, check_nonneg_int, check_real
from dpverify.audit.chunks import _readonly

__all__ = ["KINDS", "Neighbours"]

KINDS = ("linf", "l1", "add_remove", "replace")


@dataclass(frozen=True)
class Neighbours:
    """A neighbouring relation over inputs of shape ``shape``.

    ``kind``: ``"linf"`` (every entry may change by at most ``bound``), ``"l1"`` (the entries'
    changes sum to at most ``bound``; the patterns change one entry), ``"replace"`` (one entry
    replaced by any value of the range), ``"add_remove"`` (one record, a row, added or removed —
    the inputs then differ in length).  ``low``/``high`` bound the entries, ``integer`` keeps
    them integral; ``n_random`` random pairs are added to the patterns.

    Example
    -------
    >>> Neighbours(shape=(2,), kind="l1").admits([1, 1], [1, 2])
    True
    """

    shape: tuple = (1,)
    kind: str = "linf"
    bound: float = 1.0
    low: float | None = None
    high: float | None = None
    integer: bool = False
    n_random: int = 6

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ValueError(f"unknown neighbouring relation {self.kind!r}; valid: {', '.join(KINDS)}")
        shape = tuple(int(s) for s in np.atleast_1d(self.shape))
        if not shape or any(s < 1 for s in shape) or int(np.prod(shape)) > 10**6:
            raise ValueError(f"shape must be a tuple of positive sizes (at most 10^6 entries), got {self.shape!r}")
        object.__setattr__(self, "shape", shape)
        check_real(self.bound, "bound", positive=True)
        check_nonneg_int(self.n_random, "n_random")
        if self.low is not None and self.high is not None and not self.low < self.high:
            raise ValueError(f"low must be < high, got low={self.low!r}, high={self.high!r}")

    # ----------------------------------------------------------------- admissibility
    def admits(self, d, d_prime) -> bool:
        """True when (d, d′) are neighbours under this relation (and inside the range)."""
        a, b = np.asarray(d, dtype=float), np.asarray(d_prime, dtype=float)
        for x in (a, b):
            if (self.low is not None and (x < self.low).any()) or (self.high is not None and (x > self.high).any()):
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
        x = np.clip(x, self.low if self.low is not None else -np.inf, self.high if self.high is not None else np.inf)
        return np.round(x) if self.integer else x

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
            lo = self.low if self.low is not None else -10.0
            hi = self.high if self.high is not None else 10.0
            out += [(one, np.r_[lo, one[1:]]), (one, np.r_[hi, one[1:]])]
        if self.kind == "add_remove":
            return [(one, one[:-1]), (np.r_[one[:-1], 0.0], one[:-1])] if n > 1 else [(one, np.zeros(0))]
        return [(self._clip(a).reshape(self.shape), self._clip(b).reshape(self.shape)) for a, b in out]

    def random_pairs(self, rng) -> list[tuple[np.ndarray, np.ndarray]]:
        """Random and extreme ("hypothesis-style") admissible pairs."""
        g = as_generator(rng)
        n = int(np.prod(self.shape))
        lo = self.low if self.low is not None else -10.0
        hi = self.high if self.high is not None else 10.0
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
            else:
                out.append((base.reshape(-1), np.delete(base, g.integers(n))))
                continue
            a, b = self._clip(base), self._clip(b)
            if not np.array_equal(a, b):
                out.append((a.reshape(self.shape), b.reshape(self.shape)))
        return out

    def candidates(self, rng=None) -> list[tuple[np.ndarray, np.ndarray]]:
        """Patterns, then random pairs; each pair once (in either order), non-identical, admissible."""
        seen, out = set(), []
        for a, b in self.patterns() + self.random_pairs(rng):
            key = frozenset({a.tobytes() + bytes(str(a.shape), "ascii"), b.tobytes() + bytes(str(b.shape), "ascii")})
            if len(key) == 2 and key not in seen and self.admits(a, b):
                seen.add(key)
                out.append((a, b))
        return out


# ----------------------------------------------------------------------------- an audit's candidates

def _pairs(mechanism, pairs, g) -> list[tuple[Any, Any]]:
    """The candidate pairs of an audit: ``pairs`` as given (a list, or a relation's ``candidates(g)``), or
    the mechanism's own ``relation``; arrays made read-only (a mechanism cannot alter an input)."""
    if pairs is None:
        pairs = getattr(mechanism, "relation", None)
        if pairs is None:
            raise ValueError("pairs must be given (a list of (d, d_prime) or a relation with candidates()) "
                             "when the mechanism declares no .relation")
    if hasattr(pairs, "candidates"):
        try:
            pairs = pairs.candidates(g)
        except TypeError:  # a relation whose candidates() takes no generator
            pairs = pairs.candidates()
    pairs = list(pairs)
    if not pairs:
        raise ValueError("pairs is empty: no candidate pair to audit")
    for p in pairs:
        if not isinstance(p, (tuple, list)) or len(p) != 2:
            raise ValueError(f"pairs must hold (d, d_prime) pairs, got {p!r}")
    return [(_readonly(np.asarray(a)) if isinstance(a, (list, np.ndarray)) else a,
             _readonly(np.asarray(b)) if isinstance(b, (list, np.ndarray)) else b) for a, b in pairs]


def _input_key(x):
    """A key equal for equal inputs (arrays by dtype, shape and bytes; hashable values by type and value)."""
    if isinstance(x, np.ndarray):
        return ("ndarray", x.dtype.str, x.shape, x.tobytes())
    try:
        hash(x)
    except TypeError:
        return ("object", id(x))
    return ("value", type(x).__qualname__, x)


def _distinct_inputs(pairs) -> tuple[list, list[tuple[int, int]]]:
    """The distinct inputs of the candidate pairs, and each pair's two indices into them.

    >>> a, b = np.zeros(2), np.ones(2)
    >>> inputs, ix = _distinct_inputs([(a, b), (a, 2 * b), (b.copy(), a)])
    >>> len(inputs), ix
    (3, [(0, 1), (0, 2), (1, 0)])
    """
    index, inputs, ix = {}, [], []
    for pair in pairs:
        two = []
        for x in pair:
            k = _input_key(x)
            if k not in index:
                index[k] = len(inputs)
                inputs.append(x)
            two.append(index[k])
        ix.append((two[0], two[1]))
    return inputs, ix
