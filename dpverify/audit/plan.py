"""The plan of one :func:`~dpverify.audit.audit`: its candidate pairs, how the budget is shared among
screening, the quick check and the final audit, and the seed stream of every kind of draw.

The budget is per input: no input is drawn more than ``samples`` times.  Screening spends
``SCREEN_SHARE`` of it over all pairs and rounds; the quick check ``QUICK_SHARE``; the winner's inputs
then get the rest of their budget for the final audit (planned here as the screening scores'
yardstick, settled after screening from the draws actually made).

On a finite or integer domain the plan first runs a local search for pairs beyond the relation's
base candidates (:mod:`dpverify.audit.local_search`) with ``LOCAL_SHARE`` of the budget taken from the
screening share: its draws, ``2·LOCAL_SHARE·samples`` at most over all inputs (so at most
``LOCAL_SHARE·samples`` at any one), are in ``drawn_before`` (per distinct input), and the pairs it
finds join the candidates, which screening scores again on fresh draws.  ``domain`` is the domain
searched, in words (None for pairs given explicitly).

A screening round holds its draws in memory, so its draws per input are capped at
:func:`~dpverify.audit.chunks.held_bound` (3.7·10^7 scalar draws under the default 4 GiB budget; a
job with wider output rows caps itself lower): ``screen_cap`` is that cap when a round reached it (0
when none did), and the draws it saves go to the final audit, which draws in chunks.

Every draw of an audit comes from ``SeedSequence(entropy, spawn_key=key)``; the first entry of
``key`` names the stream (``SEED_*`` below), so no two kinds of draws ever share a seed.

Example
-------
>>> from dpverify.audit.suite import Laplace
>>> p = make_plan(Laplace(1.0), None, samples=100_000, rng=0, statistic="auto", stop_early=True)
>>> len(p.pairs) > 1, p.n_quick, p.per_round[0] == p.n_screen, p.domain
(True, 1000, True, '1 real entry (unbounded): no domain stated, any entries accepted with default_domain=True; random pairs drawn from [-10, 10]')
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from dpverify.validation import as_generator
from dpverify.audit.chunks import held_bound
from dpverify.audit.local_search import local_search, searchable
from dpverify.audit.screening import elimination_schedule
from dpverify.audit.search import candidate_pairs, distinct_inputs, domain_text, searched_relation

__all__ = ["Plan", "make_plan"]

SCREEN_SHARE = 0.35  # of the budget, over all candidate pairs and rounds (≈ equal cost per round)
LOCAL_SHARE = 0.15  # of the budget, out of SCREEN_SHARE: the local search on a finite or integer domain
QUICK_SHARE = 0.01  # the quick check's sample, as a share of the budget
SEL_SHARE = 0.3  # of the final pair's budget, for training and selection

# seed streams: the first entry of every spawn key of an audit's draws
SEED_SCREEN = 10  # screening: (SEED_SCREEN, round, pair, input)
SEED_QUICK = 11  # the quick check's estimation draws
SEED_LOCAL = 12  # the local search: (SEED_LOCAL, 0) its moves' order, (SEED_LOCAL, 1, j, input) scored pair j
SEED_PROBE = 20  # the final audit's probe (which statistics to offer)
SEED_TRAIN = 21  # the final audit's training draws: (SEED_TRAIN, option, input)
SEED_HOLDOUT = 22  # held-out draws choosing among trained models
SEED_SELECT = 23  # the final audit's selection draws
SEED_STAGE = 30  # estimation stage k: (SEED_STAGE + k, ...)


@dataclass(frozen=True)
class Plan:
    """What an audit will do before it draws: the candidates, their distinct inputs (``ix``: each
    pair's two indices into them), the screening rounds' sizes and the planned final sizes.

    ``screening`` is False when one pair with a given statistic leaves nothing to choose.  ``domain``
    is the domain searched in words (None for explicit pairs); ``searched`` the local search's result
    (:class:`~dpverify.audit.local_search.LocalSearch`, None when none ran) and ``drawn_before`` its
    draws at each distinct input (an audit's count of draws per input starts there).
    """

    pairs: tuple
    ix: tuple
    n_inputs: int
    schedule: tuple
    screening: bool
    n_screen: int
    n_small: int
    n_quick: int
    per_round: tuple
    n_final: int
    samples: int
    seed: Any
    entropy: int
    generator: Any
    domain: str | None = None
    searched: Any = None
    drawn_before: tuple = ()
    share: float = SCREEN_SHARE  # the screening rounds' share of the budget (less the local search's)
    screen_cap: int = 0  # the draws per input a screening round was capped at by the memory budget (0: none was)

    @property
    def n_est(self) -> int:
        """The final audit's planned estimation draws (the screening scores' yardstick)."""
        return self.n_final - max(500, int(SEL_SHARE * self.n_final))

    @property
    def total(self) -> int:
        """The draws planned over both inputs (for the progress callback)."""
        screen = sum(k * n for k, n in zip(self.schedule, self.per_round)) if self.screening else 0
        return 2 * screen + 2 * (self.n_quick + self.n_final)

    def round_size(self, alive: int) -> int:
        """Draws per input of each of ``alive`` pairs in a later screening round (equal cost per round)."""
        return min(held_bound(), max(500, int(self.share * self.samples / len(self.schedule) / alive)))


def make_plan(mechanism, pairs, *, samples: int, rng, statistic, stop_early: bool, alpha: float = 0.01,
              delta: float = 0.0) -> Plan:
    """Seed the audit (``entropy`` first, then the pairs a relation generates), list its candidates —
    with a local search's on a finite or integer domain — and share its budget (module docstring).
    ``alpha`` and ``delta`` only rank the local search's pairs (its scores are screening scores).

    >>> p = make_plan(lambda d, rng, n: rng.laplace(d, 1.0, n), [(0.0, 1.0)], samples=10_000, rng=0,
    ...               statistic="pattern", stop_early=True)
    >>> p.screening, p.n_screen, p.n_quick, p.n_final, p.domain
    (False, 0, 0, 10000, None)
    """
    from dpverify.audit.screening import STATISTICS
    from dpverify.audit.selection import check_alpha
    from dpverify.validation import check_bool, check_delta, check_elements, check_positive_int

    if not (callable(mechanism) or hasattr(mechanism, "sample")):
        raise TypeError(f"mechanism must be callable mechanism(data, rng, n) or have .sample, got "
                        f"{type(mechanism).__name__}")
    if isinstance(pairs, np.ndarray):
        check_elements(pairs, "pairs")
    if isinstance(pairs, np.ndarray) and pairs.ndim >= 2 and pairs.shape[1] == 2:
        pairs = [tuple(p) for p in pairs.tolist()] if pairs.ndim == 2 else [(p[0], p[1]) for p in pairs]
    samples = check_positive_int(samples, "samples")
    if not (callable(statistic) or isinstance(statistic, str) and statistic in STATISTICS):
        raise ValueError(f"unknown statistic {statistic!r}; valid: {', '.join(STATISTICS)} or a callable")
    stop_early = check_bool(stop_early, "stop_early")
    alpha, delta = check_alpha(alpha), check_delta(delta)
    seed = rng if isinstance(rng, (int, np.integer)) else None
    g = as_generator(rng)
    entropy = int(g.integers(0, 2**63 - 1))
    relation = searched_relation(mechanism, pairs)
    cand = candidate_pairs(mechanism, relation, g)
    screening = len(cand) > 1 or statistic == "auto"
    n_small = max(500, int(QUICK_SHARE * samples))
    # a screened event must promise ≥ 100 draws in a sample of n_small (the quick check's size, kept
    # as the yardstick when no quick check is made): tiny events that were lucky on a fold are not chosen
    n_quick = n_small if screening and stop_early else 0
    found = _local(mechanism, relation, cand, samples, entropy, statistic, alpha, delta, n_quick, n_small) \
        if screening else None
    if found is not None:
        cand = cand + list(found.pairs)
    share = SCREEN_SHARE - (LOCAL_SHARE if found is not None else 0.0)
    schedule = elimination_schedule(len(cand))
    rounds = len(schedule)
    n_screen = max(500, int(share * samples / len(cand) / rounds)) if screening else 0
    inputs, ix = distinct_inputs(cand)
    per_round = [n_screen] + [max(500, int(share * samples / rounds / k)) for k in schedule[1:]]
    cap = held_bound()  # a round holds its draws: at most what fits the memory budget
    capped = cap if any(n > cap for n in per_round) else 0
    n_screen, per_round = min(n_screen, cap), [min(n, cap) for n in per_round]
    n_final = max(2000, samples - (sum(per_round) if screening else 0) - n_quick)
    before = [0] * len(inputs)
    if found is not None:
        index = {x.tobytes(): i for i, x in enumerate(inputs) if isinstance(x, np.ndarray)}
        for x, count in found.drawn:
            if x.tobytes() in index:
                before[index[x.tobytes()]] = count
        n_final = max(2000, n_final - LOCAL_SHARE * samples)
    return Plan(tuple(cand), tuple(ix), len(inputs), tuple(schedule), screening, n_screen, n_small, n_quick,
                tuple(per_round), int(n_final), samples, seed, entropy, g, domain_text(relation), found,
                tuple(before), share, capped)


def _local(mechanism, relation, cand, samples, entropy, statistic, alpha, delta, n_quick, n_small):
    """The local search's result when it applies (a finite or integer domain, a budget that pays for
    scoring the base candidates and a step), else None."""
    if not searchable(relation):
        return None
    n_eval = int(min(20_000, max(1000, samples // 1000)))
    budget = int(2 * LOCAL_SHARE * samples)
    if budget < 2 * n_eval * (len(cand) + 8):
        return None
    n_est = samples - int(SCREEN_SHARE * samples) - n_quick
    n_est -= max(500, int(SEL_SHARE * n_est))
    return local_search(mechanism, relation, cand, budget=budget, n_eval=n_eval, entropy=entropy, key=(SEED_LOCAL,),
                        statistic=statistic, alpha=alpha, delta=delta, n_est=max(n_est, 1000), n_quick=max(n_quick, 1),
                        n_small=n_small)
