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
- hypothesis-style extreme pairs (base at the bounds of the range, change by ± the full bound);
- on finite and integer domains, the pairs a local search finds from the best of these
  (:mod:`dpverify.audit.local_search`, run by :mod:`dpverify.audit.plan`).

Every candidate is admissible under the relation (:meth:`Neighbours.admits`) and inside its domain:
a relation searches only the domain it states, or the default it accepts (``default_domain=True``),
and :func:`domain_text` says which (the audit report carries it); duplicates are removed.  An audit takes its candidates from the pairs or
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
from dpverify.mechanisms.domain import check_pairs
from dpverify.mechanisms.relations import KINDS, Neighbours, as_relation  # the relations live in dpverify.mechanisms
from dpverify.mechanisms.sampling import describe_input

__all__ = ["KINDS", "Neighbours", "candidate_pairs", "distinct_inputs", "domain_text", "searched_relation"]


# ----------------------------------------------------------------------------- an audit's candidates

def searched_relation(mechanism, pairs):
    """What an audit's candidates come from: ``pairs`` as given (a list, or a relation), else the
    mechanism's own ``relation``; text becomes the default scalar relation (:func:`as_relation`).
    ``mechanism`` must be a mechanism (a callable, or an object with ``sample``): TypeError otherwise;
    a list of pairs is checked (:func:`~dpverify.mechanisms.domain.check_pairs`) and returned as given.

    >>> searched_relation(lambda d, rng, n: rng.random(n), "|d - d'| <= 1").describe_domain()[:46]
    'a real scalar (unbounded): no domain stated, a'
    """
    if not (callable(mechanism) or hasattr(mechanism, "sample")):
        raise TypeError(f"mechanism must be a mechanism (a callable or an object with sample()), "
                        f"got {describe_input(mechanism)} ({type(mechanism).__name__})")
    if isinstance(pairs, (list, tuple, np.ndarray)):
        check_pairs(pairs, "pairs")
    if pairs is None:
        pairs = getattr(mechanism, "relation", None)
        if pairs is None:
            raise ValueError("pairs must be given (a list of (d, d_prime) or a relation with candidates()) "
                             "when the mechanism declares no .relation")
    if isinstance(pairs, str) or not (hasattr(pairs, "candidates") or hasattr(pairs, "__iter__")):
        pairs = as_relation(pairs, name="pairs")  # text: the default scalar relation; no pairs: TypeError naming pairs
    return pairs


def domain_text(relation) -> str | None:
    """The domain an audit searched, in words (a relation's ``describe_domain()``); None for pairs
    given explicitly (a list, or :class:`~dpverify.mechanisms.Pairs`).

    >>> domain_text(Neighbours(shape=(2,), kind="l1", low=0, high=1)), domain_text([(0, 1)])
    ('2 real entries in [0, 1]', None)
    """
    if not hasattr(relation, "candidates") and (isinstance(relation, (str, bytes)) or not hasattr(relation, "__iter__")):
        raise TypeError(f"relation must be a relation (an object with candidates()) or a sequence of pairs, "
                        f"got {describe_input(relation)} ({type(relation).__name__})")
    describe = getattr(relation, "describe_domain", None)
    return describe() if callable(describe) else None


def candidate_pairs(mechanism, pairs, g) -> list[tuple[Any, Any]]:
    """The candidate pairs of an audit: ``pairs`` as given (a list, or a relation's ``candidates(g)``), or
    the mechanism's own ``relation`` (:func:`searched_relation`); arrays made read-only (a mechanism
    cannot alter an input).  A relation that states no domain is refused (ValueError naming ``low``
    and ``high``: :class:`~dpverify.mechanisms.Neighbours`).

    >>> pairs = candidate_pairs(lambda d, rng, n: rng.random(n), [([0, 1], [1, 1])], np.random.default_rng(0))
    >>> pairs[0][0].tolist(), pairs[0][0].flags.writeable
    ([0, 1], False)
    """
    if not isinstance(g, np.random.Generator):
        raise TypeError(f"g must be a numpy.random.Generator (the audit's), got {describe_input(g)} ({type(g).__name__})")
    pairs = searched_relation(mechanism, pairs)
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
    for pair in check_pairs(pairs, "pairs"):
        two = []
        for x in pair:
            k = _input_key(x)
            if k not in index:
                index[k] = len(inputs)
                inputs.append(x)
            two.append(index[k])
        ix.append((two[0], two[1]))
    return inputs, ix
