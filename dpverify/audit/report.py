"""The result of :func:`dpverify.audit.audit`: the bound, the pair, the event and every test made.

Example
-------
>>> from dpverify.audit.suite import Laplace
>>> from dpverify.audit import audit
>>> r = audit(Laplace(1.0), epsilon=0.5, samples=100_000, rng=0, confidence=0.9)
>>> r.verdict(0.5).value, r.samples_used < r.samples  # refuted at the quick check
('refuted', True)
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from dpverify.validation import check_epsilon
from dpverify.claims.model import Verdict

__all__ = ["AuditReport", "Stage"]


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


def _jsonable(x: Any):
    if isinstance(x, np.ndarray):
        return x.tolist()
    if isinstance(x, (np.integer, np.floating)):
        return x.item()
    return x


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
    >>> r = audit(lambda d, rng, n: rng.laplace(d, 1.0, n), epsilon=1, pairs=[(0.0, 1.0)], samples=50_000, rng=0)
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

    @classmethod
    def from_stages(cls, stages, *, pair, claimed, delta, confidence, samples, samples_used, seed, entropy,
                    seconds, screened, pairs) -> "AuditReport":
        best = max(stages, key=lambda s: s.bound)  # proof: max-over-stages
        return cls(epsilon=best.bound, pair=pair, event=best.events[0], statistic=best.statistic,
                   direction=best.direction, count_p=best.count_p, count_q=best.count_q, trials=best.trials,
                   p_interval=(best.p_lower, 1.0), q_interval=(0.0, best.q_upper), samples=samples,
                   samples_used=samples_used, confidence=confidence, delta=delta, claimed=claimed, seed=seed,
                   seed_entropy=entropy, seconds=seconds, stages=tuple(stages), screened=screened, pairs=pairs,
                   test=best.test, trials_q=best.trials_q or best.trials)

    def refutes(self, claimed_epsilon: float) -> bool:
        """True when the bound exceeds ``claimed_epsilon`` (a refutation at the stated confidence)."""
        return self.epsilon > check_epsilon(claimed_epsilon, "claimed_epsilon")

    def verdict(self, claimed_epsilon: float | None = None) -> Verdict:
        """``refuted`` when ε_lb > the claim (default: the audited claim), else ``inconclusive``."""
        c = self.claimed if claimed_epsilon is None else claimed_epsilon
        return Verdict.REFUTED if self.refutes(c) else Verdict.INCONCLUSIVE

    def as_dict(self) -> dict[str, Any]:
        """Everything a reader needs to recheck the bound (JSON-serialisable)."""
        from dpverify import __version__

        return {
            "epsilon_lb": self.epsilon,
            "claimed_epsilon": self.claimed,
            "verdict": self.verdict().value,
            "pair": [_jsonable(self.pair[0]), _jsonable(self.pair[1])],
            "event": self.event.description,
            "statistic": self.statistic,
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
            # the screening log: per round, each pair's index among the candidates, its statistic and
            # its cross-fitted score (a predicted bound, for ranking only; None when no event promised one)
            "screened": [{"round": r, "pair": p, "statistic": name, "score": score if score > -1e8 else None}
                         for r, p, name, score in self.screened],
        }
