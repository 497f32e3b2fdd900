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
relation it is given, or the mechanism's own ``relation`` (``candidate_pairs``), and charges its budget to
their distinct inputs (``distinct_inputs``).  The choice among candidates is made on
screening samples that the final test never reuses (``dpverify/audit/proofs/selection.md``).

Example
-------
>>> pairs = [(np.zeros(2), np.ones(2)), (np.ones(2), np.zeros(2)), (np.zeros(2), np.full(2, 2.0))]
>>> inputs, index = distinct_inputs(pairs)          # the budget is charged to distinct inputs
>>> len(inputs), index
(3, [(0, 1), (1, 0), (0, 2)])
"""

from __future__ import annotations

from typing import Any

import numpy as np

from dpverify.audit.chunks import readonly
from dpverify.mechanisms.relations import KINDS, Neighbours, as_relation  # the relations live in dpverify.mechanisms

__all__ = ["KINDS", "Neighbours", "candidate_pairs", "distinct_inputs"]


# ----------------------------------------------------------------------------- an audit's candidates

def candidate_pairs(mechanism, pairs, g) -> list[tuple[Any, Any]]:
    """The candidate pairs of an audit: ``pairs`` as given (a list, or a relation's ``candidates(g)``), or
    the mechanism's own ``relation``; arrays made read-only (a mechanism cannot alter an input).

    >>> pairs = candidate_pairs(None, [([0, 1], [1, 1])], np.random.default_rng(0))
    >>> pairs[0][0].tolist(), pairs[0][0].flags.writeable
    ([0, 1], False)
    """
    if pairs is None:
        pairs = getattr(mechanism, "relation", None)
        if pairs is None:
            raise ValueError("pairs must be given (a list of (d, d_prime) or a relation with candidates()) "
                             "when the mechanism declares no .relation")
    if isinstance(pairs, str) or not (hasattr(pairs, "candidates") or hasattr(pairs, "__iter__")):
        pairs = as_relation(pairs, name="pairs")  # text: the default scalar relation; no pairs: TypeError naming pairs
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
    return [(readonly(np.asarray(a)) if isinstance(a, (list, np.ndarray)) else a,
             readonly(np.asarray(b)) if isinstance(b, (list, np.ndarray)) else b) for a, b in pairs]


def _input_key(x):
    """A key equal for equal inputs (arrays by dtype, shape and bytes; hashable values by type and value)."""
    if isinstance(x, np.ndarray):
        return ("ndarray", x.dtype.str, x.shape, x.tobytes())
    try:
        hash(x)
    except TypeError:
        return ("object", id(x))
    return ("value", type(x).__qualname__, x)


def distinct_inputs(pairs) -> tuple[list, list[tuple[int, int]]]:
    """The distinct inputs of the candidate pairs, and each pair's two indices into them.

    >>> a, b = np.zeros(2), np.ones(2)
    >>> inputs, ix = distinct_inputs([(a, b), (a, 2 * b), (b.copy(), a)])
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
