"""Local search for the audited pair on finite and integer domains: hill-climbing over single-coordinate
changes from the best screened candidates (the input search of DP-Opt, Niu et al., CCS 2022, §4, and
of DP-Sniper, Bichsel et al., S&P 2021, §6; StatDP's patterns are its starting points).

The base candidates of a relation (:meth:`~dpverify.mechanisms.Neighbours.candidates`) vary the input
of ones; a violation that needs the records split around a median, or a count on one side of a
threshold, lies on pairs that no pattern reaches.  On a finite domain (``values``, or integer entries
with both bounds) the search:

1. scores every base candidate on ``n_eval`` draws per input with the screening's own job
   (:class:`~dpverify.audit.screening.ScreenJob`: the statistic and event chosen on one half of the
   draws and scored on the other — a ranking, never a bound);
2. from each of the ``starts`` best, moves to the best of up to ``per_step`` admissible neighbours
   that change one coordinate (of both inputs, or of one input where the relation admits it) while
   that improves the score; the neighbours are drawn in a seeded random order.  The best of a step
   is scored again on fresh draws before the move is taken, and so is each start: the best of many
   noisy scores is lucky, and a move judged on the draws that chose it would follow the noise;
3. stops when the draws it may make (``budget``, over all inputs and both sides) are spent.

It returns the ``keep`` best pairs it visited that are not base candidates.  They join the candidates
of the audit's screening, which scores them again on fresh draws: the local search only proposes
pairs, the audit's choice and its bound rest on draws the search never saw
(``dpverify/audit/proofs/selection.md``), so the search costs no confidence.  Its draws are charged to
the screening share of the budget (:mod:`dpverify.audit.plan`).

Example
-------
>>> from dpverify.audit.suite import ExponentialMedian
>>> m = ExponentialMedian(1.0, halved=False)   # true ε 1.77 against a claim of 1
>>> base = m.relation.candidates(np.random.default_rng(0))
>>> found = local_search(m, m.relation, base, budget=300_000, n_eval=1000, entropy=1)
>>> exact = lambda pairs: max(m.pair_epsilon(*p) for p in pairs)   # the pairs' largest exact ε
>>> exact(found.pairs) > max(1.0, exact(base))   # past the claim, where no base candidate reaches
True
>>> found.draws <= 300_000, all(m.relation.admits(*p) for p in found.pairs)
(True, True)
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from dpverify.audit.chunks import readonly
from dpverify.audit.screening import ScreenJob
from dpverify.mechanisms.domain import check_pairs
from dpverify.validation import (as_generator, check_confidence, check_delta, check_finite_array, check_nonneg_int,
                                 check_positive_int)

__all__ = ["LocalSearch", "domain_values", "local_search", "moves", "searchable"]

_ALL_VALUES = 16  # a coordinate of a domain with at most this many values may move to any of them
_MAX_CANDIDATES = 10**5  # base pairs a local search starts from (an audit screens at most 10^4)
_FEW_VALUES = 6  # else: its neighbours ± the bound, the domain's ends and this many random values


@dataclass(frozen=True)
class LocalSearch:
    """What a local search found: ``pairs`` (the best new pairs, best first), ``visited`` (every pair
    scored: (pair, score, step), step 0 for the base candidates), ``draws`` (all draws made, both
    inputs of every pair) and ``drawn`` (draws per input: (input, count))."""

    pairs: tuple
    visited: tuple
    draws: int
    drawn: tuple


def _check_relation(relation) -> None:
    """A relation (``candidates()``) or explicit pairs (a sequence); TypeError naming ``relation`` otherwise."""
    if not hasattr(relation, "candidates") and (isinstance(relation, (str, bytes)) or not hasattr(relation, "__iter__")):
        raise TypeError(f"relation must be a relation (an object with candidates()) or a sequence of pairs, "
                        f"got {relation!r} ({type(relation).__name__})")


def domain_values(relation) -> tuple | None:
    """The values an entry may take when the relation's domain is finite (its ``values``, or integer
    entries with both bounds), else None.

    >>> from dpverify.mechanisms import Neighbours
    >>> domain_values(Neighbours(shape=(2,), kind="replace", low=0, high=3, integer=True))
    (0.0, 1.0, 2.0, 3.0)
    >>> domain_values(Neighbours(shape=(2,), kind="replace", low=0, high=3)) is None
    True
    """
    _check_relation(relation)
    dom = getattr(relation, "domain", None)
    if dom is None or not hasattr(relation, "admits"):
        return None
    if dom.values is not None:
        vals = dom.values
        return tuple(float(v) for v in vals) if all(isinstance(v, (int, float, np.number)) for v in vals) else None
    if dom.integer and dom.low is not None and dom.high is not None and dom.high - dom.low <= 10**6:
        return tuple(float(v) for v in np.arange(np.ceil(dom.low), np.floor(dom.high) + 1))
    return None


def searchable(relation) -> bool:
    """Whether a local search applies: a finite domain of inputs with at least two entries (records),
    pairs of equal shape (kinds ``linf``, ``l1``, ``replace``).

    A one-entry input is left to the base candidates: there a move replaces the whole input, and
    measured at 10^6 draws (seeds 0–2, ``--full``) the search doubled the audit's time on the suite's
    RAPPOR cases (Rappor 6 s → 13 s, mean bound 0.270 → 0.279; OneTimeRappor 7 s → 15 s, 0.654 →
    0.710) for little gain, while the violations it is for need records split around a median or a
    threshold.

    >>> from dpverify.mechanisms import Neighbours
    >>> searchable(Neighbours(shape=(5,), kind="replace", low=0, high=5, integer=True))
    True
    >>> searchable(Neighbours(shape=(5,), kind="add_remove", low=0, high=5, integer=True))
    False
    >>> searchable(Neighbours(shape=(1,), kind="replace", low=0, high=5, integer=True))
    False
    """
    _check_relation(relation)
    size = int(np.prod(getattr(relation, "shape", ()) or (1,)))
    return (getattr(relation, "kind", None) in ("linf", "l1", "replace") and size >= 2
            and domain_values(relation) is not None and len(domain_values(relation)) >= 2)


def _coordinate_values(x: float, vals: tuple, bound: float, g) -> list[float]:
    if len(vals) <= _ALL_VALUES:
        return [v for v in vals if v != x]
    near = {v for v in (x - bound, x + bound, x - 1, x + 1, vals[0], vals[-1])}
    near |= set(g.choice(vals, size=_FEW_VALUES, replace=False).tolist())
    allowed = set(vals)
    return sorted(v for v in near if v in allowed and v != x)


def moves(relation, pair, rng=None) -> list[tuple[np.ndarray, np.ndarray]]:
    """The admissible pairs one coordinate away from ``pair``: a coordinate of both inputs set to
    another value of the domain, or a coordinate of one input (kept when the relation admits it).

    >>> from dpverify.mechanisms import Neighbours
    >>> rel = Neighbours(shape=(2,), kind="replace", low=0, high=2, integer=True)
    >>> for a, b in moves(rel, (np.array([1., 1.]), np.array([0., 1.]))):   # replace: one entry differs
    ...     print(a.tolist(), b.tolist())
    [2.0, 1.0] [0.0, 1.0]
    [1.0, 1.0] [2.0, 1.0]
    [1.0, 0.0] [0.0, 0.0]
    [1.0, 2.0] [0.0, 2.0]
    """
    vals = domain_values(relation)
    if vals is None:
        raise ValueError(f"relation {relation} has no finite domain to search locally (values, or integer "
                         "entries with both low and high)")
    g = as_generator(rng, "rng")
    ((a0, b0),) = check_pairs((pair,), "pair")
    a0, b0 = check_finite_array(a0, "pair"), check_finite_array(b0, "pair")
    if a0.shape != b0.shape:
        raise ValueError(f"pair must hold two inputs of one shape, got shapes {a0.shape} and {b0.shape}")
    bound = float(getattr(relation, "bound", 1.0))
    seen, out = set(), []

    def add(a, b):
        key = (a.tobytes(), b.tobytes())
        if key not in seen and not np.array_equal(a, b) and relation.admits(a, b):
            seen.add(key)
            out.append((a, b))

    flat_a, flat_b = a0.reshape(-1), b0.reshape(-1)
    for k in range(flat_a.size):
        shared = flat_a[k] == flat_b[k]
        for v in _coordinate_values(flat_a[k], vals, bound, g):
            if shared:  # both inputs: the difference is kept
                a, b = flat_a.copy(), flat_b.copy()
                a[k] = b[k] = v
                add(a.reshape(a0.shape), b.reshape(b0.shape))
            a = flat_a.copy()
            a[k] = v
            add(a.reshape(a0.shape), b0)
        for v in _coordinate_values(flat_b[k], vals, bound, g):
            b = flat_b.copy()
            b[k] = v
            add(a0, b.reshape(b0.shape))
    return out


def _key(pair) -> tuple:
    """One key for a pair in either order."""
    a, b = (np.asarray(x, dtype=float).tobytes() for x in pair)
    return (a, b) if a <= b else (b, a)


def _check_search(mechanism, candidates, entropy, key, alpha, delta) -> list:
    """The arguments of :func:`local_search` that name no count (TypeError/ValueError naming each);
    returns the candidates as a list (at most ``_MAX_CANDIDATES``)."""
    if not (callable(mechanism) or hasattr(mechanism, "sample")):
        raise TypeError(f"mechanism must be a mechanism (a callable or an object with sample()), got {mechanism!r}")
    if hasattr(candidates, "__len__") and not isinstance(candidates, (str, bytes, np.ndarray)) \
            and len(candidates) > _MAX_CANDIDATES:
        raise ValueError(f"candidates holds {len(candidates)} pairs, more than the {_MAX_CANDIDATES} a local "
                         "search starts from (an audit screens at most 10^4 pairs)")
    pairs = check_pairs(candidates, "candidates")
    if len(pairs) > _MAX_CANDIDATES:
        raise ValueError(f"candidates holds {len(pairs)} pairs, more than the {_MAX_CANDIDATES} a local search "
                         "starts from (an audit screens at most 10^4 pairs)")
    for a, b in pairs:
        check_finite_array(a, "candidates"), check_finite_array(b, "candidates")
    check_nonneg_int(entropy, "entropy")
    if isinstance(key, np.ndarray) and key.ndim == 1 and key.dtype.kind in "iu" and key.size <= 32:
        key = tuple(key.tolist())
    if not isinstance(key, tuple) or not 1 <= len(key) <= 32:
        raise TypeError(f"key must be a tuple of 1 to 32 integers >= 0 (a seed's spawn key), got {key!r}")
    for k in key:
        check_nonneg_int(k, "key")
    check_confidence(alpha, "alpha"), check_delta(delta, "delta")
    return list(pairs)


def local_search(mechanism, relation, candidates, *, budget: int, n_eval: int, entropy: int, key: tuple = (12,),
                 statistic="auto", alpha: float = 0.01, delta: float = 0.0, n_est: int = 10**6,
                 n_quick: int = 10_000, n_small: int = 10_000, starts: int = 3, per_step: int = 24,
                 keep: int = 3) -> LocalSearch:
    """Hill-climb from the best of ``candidates`` over single-coordinate changes (module docstring).

    Parameters
    ----------
    mechanism : the audited mechanism (``sample(data, rng, n)`` or callable)
    relation : a relation with a finite domain (:func:`searchable`)
    candidates : the base candidate pairs, the starting points
    budget : the draws the search may make, over all inputs (each scored pair costs ``2 * n_eval``)
    n_eval : draws per input of each scored pair
    entropy, key : the seed: every scored pair draws from ``SeedSequence(entropy, key + (1, j))``, the
        order of the moves from ``key + (0,)``
    statistic, alpha, delta, n_est, n_quick, n_small : as in :class:`~dpverify.audit.screening.ScreenJob`
        (the score is a ranking at the final audit's size ``n_est``)
    starts, per_step, keep : climbs started, moves scored per step, pairs returned

    Example
    -------
    >>> from dpverify.audit.suite import ExponentialMedian
    >>> m = ExponentialMedian(1.0, halved=False)
    >>> base = m.relation.candidates(np.random.default_rng(0))
    >>> found = local_search(m, m.relation, base, budget=60_000, n_eval=1000, entropy=2, keep=2)
    >>> found.draws <= 60_000, len(found.pairs) <= 2, all(m.relation.admits(*p) for p in found.pairs)
    (True, True, True)
    """
    budget, n_eval = check_positive_int(budget, "budget"), check_positive_int(n_eval, "n_eval")
    for name, v in (("starts", starts), ("per_step", per_step), ("keep", keep), ("n_est", n_est),
                    ("n_quick", n_quick), ("n_small", n_small)):
        check_positive_int(v, name, maximum=2**63 - 1)
    candidates = _check_search(mechanism, candidates, entropy, key, alpha, delta)
    if not searchable(relation):
        raise ValueError(f"relation {relation} has no finite domain to search locally (values, or integer "
                         "entries with both low and high; kinds linf, l1, replace)")
    g = np.random.default_rng(np.random.SeedSequence(entropy, spawn_key=(*key, 0)))
    state = {"j": 0, "draws": 0}
    drawn: dict = {}
    visited: list = []
    scores: dict = {}

    def score(pair, step, fresh=False):
        """The pair's screening score on its own draws (cached), or on fresh draws (``fresh``)."""
        k = _key(pair)
        if k in scores and not fresh:
            return scores[k]
        if state["draws"] + 2 * n_eval > budget:
            return None
        pair = (readonly(np.asarray(pair[0], dtype=float)), readonly(np.asarray(pair[1], dtype=float)))
        job = ScreenJob(mechanism, statistic, pair, n_eval, entropy, (*key, 1, state["j"]), n_est=n_est,
                        n_quick=n_quick, alpha=alpha, delta=delta, n_small=n_small)
        res = job()
        s, m = res.score, res.n or n_eval  # m: the draws made (fewer where the memory budget capped the job)
        state["j"] += 1
        state["draws"] += 2 * m
        for x in pair:
            drawn[x.tobytes()] = (x, drawn.get(x.tobytes(), (x, 0))[1] + m)
        scores[k] = s  # a fresh score replaces the one it re-measures (the best of a step was lucky too)
        visited.append((pair, s, step))
        return s

    base = [p for p in candidates if score(p, 0) is not None]
    ranked = sorted(base, key=lambda p: -scores[_key(p)])
    base_keys = {_key(p) for p in candidates}
    for start in ranked[:starts]:
        current, step = start, 0
        s_cur = score(start, 0, fresh=True)  # the best of the base candidates is scored again: its pilot
        if s_cur is None:  # score was the luckiest of many
            break
        while state["draws"] + 2 * n_eval <= budget:
            step += 1
            options = moves(relation, current, g)
            g.shuffle(options)
            scored = [(s, p) for p in options[:per_step] if (s := score(p, step)) is not None]
            if not scored:
                break
            _, p_best = max(scored, key=lambda t: t[0])
            s_new = score(p_best, step, fresh=True)  # the move is taken on draws that did not choose it
            if s_new is None or s_new <= s_cur:
                break
            current, s_cur = p_best, s_new
    best: dict = {}
    for pair, _, _ in visited:  # each new pair once, by its latest score
        best.setdefault(_key(pair), pair)
    new = sorted((k for k in best if k not in base_keys), key=lambda k: -scores[k])
    return LocalSearch(tuple(best[k] for k in new[:keep]), tuple(visited), state["draws"],
                       tuple((x, c) for x, c in drawn.values()))
