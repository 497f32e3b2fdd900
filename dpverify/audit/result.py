"""The result of :func:`dpverify.audit.epsilon_lower_bound` (one pair, one event).

Example
-------
>>> from dpverify.audit import epsilon_lower_bound
>>> from dpverify.audit.mechanisms import LaplaceMechanism
>>> epsilon_lower_bound(LaplaceMechanism(1.0), 0.0, 1.0, samples=20_000, rng=0).direction
'both'
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from dpverify.validation import check_epsilon
from dpverify.audit.events import Event
from dpverify.claims.model import Verdict

__all__ = ["AuditResult"]


@dataclass(frozen=True)
class AuditResult:
    """What an audit found: ε_lb with the event and the numbers it rests on.

    ``epsilon`` is a lower bound on the mechanism's ε at the given δ, valid with
    probability ≥ ``confidence``.  ``direction`` is ``"d>d_prime"`` when the event is
    likelier under ``d`` (P is the law of M(d)), ``"d_prime>d"`` for the reverse, and
    ``"both"`` when both orders are pooled: S1 = ``event`` (likelier under d) and
    S2 = ``event_reverse`` (likelier under d'), P = (P_d(S1) + P_d'(S2))/2 and
    Q = (P_d'(S1) + P_d(S2))/2, every estimation draw counted once in each.
    ``count_p`` / ``count_q`` are the estimation counts out of ``n_trials`` trials
    (``n_estimation`` draws per input; 2·n_estimation trials when pooled);
    ``p_interval`` = (P_lower, 1) and ``q_interval`` = (0, Q_upper) are the one-sided
    Clopper–Pearson intervals, each at level α/2 (1 − e^{−α/2} when pooled).

    Example
    -------
    >>> from dpverify.audit import epsilon_lower_bound
    >>> from dpverify.audit.mechanisms import LaplaceMechanism
    >>> r = epsilon_lower_bound(LaplaceMechanism(1.0, scale_factor=0.5), 0.0, 1.0, samples=200_000, rng=0)
    >>> r.epsilon > 1.0, r.verdict(1.0).value   # half the noise: claim ε = 1 refuted
    (True, 'refuted')
    """

    epsilon: float
    event: Event
    direction: str
    count_p: int
    count_q: int
    n_estimation: int
    n_selection: int
    p_interval: tuple[float, float]
    q_interval: tuple[float, float]
    confidence: float
    delta: float
    seed_entropy: int
    selection_score: float
    n_trials: int = 0
    event_reverse: Event | None = None

    def __post_init__(self):
        if not self.n_trials:
            object.__setattr__(self, "n_trials", self.n_estimation)

    @property
    def p_hat(self) -> float:
        return self.count_p / self.n_trials

    @property
    def q_hat(self) -> float:
        return self.count_q / self.n_trials

    def refutes(self, claimed_epsilon: float) -> bool:
        """True when ε_lb > claimed ε (a refutation at the result's confidence)."""
        return self.epsilon > check_epsilon(claimed_epsilon, "claimed_epsilon")

    def verdict(self, claimed_epsilon: float) -> Verdict:
        """``refuted`` when ε_lb > claimed ε, else ``inconclusive`` (an audit never says "holds")."""
        return Verdict.REFUTED if self.refutes(claimed_epsilon) else Verdict.INCONCLUSIVE

    def as_dict(self) -> dict[str, Any]:
        return {
            "epsilon_lb": self.epsilon,
            "event": self.event.description,
            "event_reverse": None if self.event_reverse is None else self.event_reverse.description,
            "event_form": self.event.to_json(),  # the set in machine form (values, intervals, threshold)
            "event_reverse_form": None if self.event_reverse is None else self.event_reverse.to_json(),
            "direction": self.direction,
            "count_p": self.count_p,
            "count_q": self.count_q,
            "n_estimation": self.n_estimation,
            "n_trials": self.n_trials,
            "n_selection": self.n_selection,
            "p_lower": self.p_interval[0],
            "q_upper": self.q_interval[1],
            "confidence": self.confidence,
            "delta": self.delta,
            "seed_entropy": self.seed_entropy,
        }
