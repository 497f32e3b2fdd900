"""The result of :func:`dpverify.audit.audit`: the bound, the pair, the event and every test made, and
what the number means — why the audit stopped (``stop_reason``; ``early_stop`` when the bound comes
from a test on part of the budget, so a full audit may give a larger one), the event in words
(``event_text``), every candidate pair with its screening score (``candidates``) and the relation's
domain (``domain``).  :meth:`AuditReport.to_json` carries all of it.

Example
-------
>>> from dpverify.audit.suite import Laplace
>>> from dpverify.audit import audit
>>> r = audit(Laplace(1.0), epsilon=0.5, samples=100_000, rng=0, confidence=0.9)
>>> r.verdict(0.5).value, r.samples_used < r.samples  # refuted at the quick check
('refuted', True)
>>> r.early_stop, r.stop_reason
(True, 'refuted at the quick check (1,000 draws per input, 1 % of the budget)')
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from dpverify.validation import check_epsilon
from dpverify.audit.words import event_words
from dpverify.claims.model import Verdict

__all__ = ["AuditReport", "Candidate", "Stage"]


@dataclass(frozen=True)
class Stage:
    """One test on fresh samples: the event(s), the draws, the level and the bound it gave.

    Example
    -------
    >>> Stage("stage 1", "identity", (), "d>d_prime", 10, 0.01, 5, 1, 10, 0.2, 0.5, 0.0).bound
    0.0
    """

    kind: str
    statistic: str
    events: tuple
    direction: str
    n: int
    level: float
    count_p: int
    count_q: int
    trials: int
    p_lower: float
    q_upper: float
    bound: float
    test: str = "binomial"  # "binomial" (two Clopper–Pearson bounds) or "poisson" (conditional ratio test)
    trials_q: int = 0  # draws behind count_q (0: the same as ``trials``)
    subject: str = ""  # what the statistic T is, in words (dpverify.audit.words.statistic_subject)


def _jsonable(x):
    """``x`` as JSON-ready values: numpy arrays and scalars as lists and numbers, tuples as lists,
    objects with ``to_json()`` through it, anything else unknown as its text."""
    if isinstance(x, (np.ndarray, np.generic)):
        return x.tolist()
    if x is None or isinstance(x, (bool, int, float, str)):
        return x
    if isinstance(x, (list, tuple)):
        return [_jsonable(v) for v in x]
    if isinstance(x, dict):
        return {str(k): _jsonable(v) for k, v in x.items()}
    if callable(getattr(x, "to_json", None)):
        return _jsonable(x.to_json())
    return str(x)


@dataclass(frozen=True)
class Candidate:
    """One candidate pair of an audit and how screening scored it: ``score`` is its last round's
    cross-fitted score (a predicted bound, for ranking only; None when no event promised one or the
    pair was not screened), ``statistic`` that round's statistic, ``rounds`` how many rounds it ran.
    """

    index: int
    d: Any
    d_prime: Any
    score: float | None
    statistic: str | None
    rounds: int

    def to_json(self) -> dict:
        return {"index": self.index, "d": _jsonable(self.d), "d_prime": _jsonable(self.d_prime), "score": self.score,
                "statistic": self.statistic, "rounds": self.rounds}


def candidates_of(pairs, screened) -> tuple:
    """Every candidate pair with its screening score, from the screening log ``(round, pair, name,
    score)``.

    >>> c = candidates_of([(0, 1), (0, 2)], [(0, 0, "identity", 0.5), (0, 1, "identity", -1e9)])
    >>> [(x.index, x.score, x.rounds) for x in c]
    [(0, 0.5, 1), (1, None, 1)]
    """
    last: dict = {}
    rounds: dict = {}
    for r, p, name, score in screened:
        last[p] = (name, float(score) if score > -1e8 else None)
        rounds[p] = rounds.get(p, 0) + 1
    return tuple(Candidate(i, d, dp, last.get(i, (None, None))[1], last.get(i, (None, None))[0], rounds.get(i, 0))
                 for i, (d, dp) in enumerate(pairs))


def _event_text(stage: Stage) -> str:
    subject = stage.subject or "T"
    if stage.direction == "both" and len(stage.events) == 2:
        return (f"S1: {event_words(stage.events[0], subject)} (likelier under d); "
                f"S2: {event_words(stage.events[1], subject)} (likelier under d')")
    return event_words(stage.events[0], subject)


@dataclass(frozen=True)
class AuditReport:
    """What :func:`~dpverify.audit.audit` found.

    ``epsilon`` is the largest bound over the tests made (each on fresh samples at its own level,
    the levels summing to 1 − ``confidence``), so ε_true ≥ ``epsilon`` with probability ≥
    ``confidence``.  ``stage`` is the test that gave it; ``event``, ``statistic``, the counts
    and intervals are that test's.  ``test`` says how it bounded ε: ``"binomial"`` —
    ε_lb = ln((P_lower − δ)/Q_upper), two Clopper–Pearson bounds on ``trials`` draws each; or
    ``"poisson"`` (δ = 0) — Poisson-distributed draw counts ``trials``, ``trials_q``, and
    ε_lb = logit of the Clopper–Pearson lower bound on π from ``count_p`` of
    ``count_p + count_q`` (the intervals on P and Q are then for information).

    Example
    -------
    >>> from dpverify.audit import audit
    >>> geo = lambda d, rng, n: d + rng.geometric(0.6, n) - rng.geometric(0.6, n)  # two-sided geometric: ln 2.5-DP
    >>> r = audit(geo, epsilon=1, pairs=[(0.0, 1.0)], samples=50_000, rng=0)
    >>> r.pair, r.statistic
    ((0.0, 1.0), 'identity')
    """

    epsilon: float
    pair: tuple
    event: Any
    statistic: str
    direction: str
    count_p: int
    count_q: int
    trials: int
    p_interval: tuple
    q_interval: tuple
    samples: int
    samples_used: int
    confidence: float
    delta: float
    claimed: float
    seed: int | None
    seed_entropy: int
    seconds: float
    stages: tuple
    screened: tuple
    pairs: tuple
    test: str = "binomial"
    trials_q: int = 0
    stop_reason: str = ""
    early_stop: bool = False
    candidates: tuple = ()
    domain: Any = None
    event_text: str = ""
    subject: str = ""

    @classmethod
    def from_stages(cls, stages, *, pair, claimed, delta, confidence, samples, samples_used, seed, entropy,
                    seconds, screened, pairs, stop_reason="", early_stop=False, domain=None) -> "AuditReport":
        best = max(stages, key=lambda s: s.bound)  # proof: max-over-stages
        return cls(epsilon=best.bound, pair=pair, event=best.events[0], statistic=best.statistic,
                   direction=best.direction, count_p=best.count_p, count_q=best.count_q, trials=best.trials,
                   p_interval=(best.p_lower, 1.0), q_interval=(0.0, best.q_upper), samples=samples,
                   samples_used=samples_used, confidence=confidence, delta=delta, claimed=claimed, seed=seed,
                   seed_entropy=entropy, seconds=seconds, stages=tuple(stages), screened=screened, pairs=pairs,
                   test=best.test, trials_q=best.trials_q or best.trials, stop_reason=stop_reason,
                   early_stop=early_stop, candidates=candidates_of(pairs, screened), domain=domain,
                   event_text=_event_text(best), subject=best.subject)

    @property
    def best_stage(self) -> Stage:
        """The test that gave the bound (the first of the largest)."""
        return max(self.stages, key=lambda s: s.bound)

    def refutes(self, claimed_epsilon: float) -> bool:
        """True when the bound exceeds ``claimed_epsilon`` (a refutation at the stated confidence)."""
        return self.epsilon > check_epsilon(claimed_epsilon, "claimed_epsilon")

    def verdict(self, claimed_epsilon: float | None = None) -> Verdict:
        """``refuted`` when ε_lb > the claim (default: the audited claim), else ``inconclusive``."""
        c = self.claimed if claimed_epsilon is None else claimed_epsilon
        return Verdict.REFUTED if self.refutes(c) else Verdict.INCONCLUSIVE

    def to_json(self) -> dict[str, Any]:
        """Everything a reader needs to recheck the bound and read it right (JSON-ready): the numbers,
        the stop (``stop_reason``, ``early_stop``), the event in words (``event_text``) and in machine form
        (``events``: :meth:`~dpverify.audit.events.Event.to_json` of each event of the best test), the
        domain, and every candidate pair with its screening score."""
        from dpverify import __version__

        return {
            "epsilon_lb": self.epsilon,
            "claimed_epsilon": self.claimed,
            "verdict": self.verdict().value,
            "pair": [_jsonable(self.pair[0]), _jsonable(self.pair[1])],
            "event": self.event.description,
            "event_text": self.event_text,
            "events": [e.to_json() for e in self.best_stage.events] if self.stages else [],
            "statistic": self.statistic,
            "statistic_text": self.subject,
            "stop_reason": self.stop_reason,
            "early_stop": self.early_stop,
            "domain": _jsonable(self.domain),
            "direction": self.direction,
            "count_p": self.count_p,
            "count_q": self.count_q,
            "trials": self.trials,
            "trials_q": self.trials_q or self.trials,
            "test": self.test,
            "p_interval": list(self.p_interval),
            "q_interval": list(self.q_interval),
            "confidence": self.confidence,
            "delta": self.delta,
            "samples": self.samples,
            "samples_used": self.samples_used,
            "seconds": self.seconds,
            "seed": self.seed,
            "seed_entropy": self.seed_entropy,
            "version": __version__,
            "stages": [{"kind": s.kind, "statistic": s.statistic, "n": s.n, "level": s.level, "count_p": s.count_p,
                        "count_q": s.count_q, "trials": s.trials, "trials_q": s.trials_q or s.trials, "test": s.test,
                        "p_lower": s.p_lower, "q_upper": s.q_upper,
                        "bound": s.bound if math.isfinite(s.bound) else None} for s in self.stages],
            "candidate_pairs": len(self.pairs),
            "candidates": [c.to_json() for c in self.candidates],
            # the screening log: per round, each pair's index among the candidates, its statistic and
            # its cross-fitted score (a predicted bound, for ranking only; None when no event promised one)
            "screened": [{"round": r, "pair": p, "statistic": name, "score": score if score > -1e8 else None}
                         for r, p, name, score in self.screened],
        }

    as_dict = to_json  # the name earlier releases used
