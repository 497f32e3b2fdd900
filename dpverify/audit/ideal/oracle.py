"""What an ideal auditor could show about a pair whose exact output laws are known.

- :func:`exact_epsilon` — max_o |ln(p_o / q_o)|, the pair's exact ε (both orders).
- :func:`best_event_bound` — the largest ε lower bound an auditor that knew the laws could report
  with n draws per input when the counts come out at their expected values k = round(n·P(S)):
  events are unions of outcomes ordered by likelihood ratio, in either order of the pair, bounded
  as :mod:`dpverify.audit.statistical` bounds them (one-sided Clopper–Pearson at α/2 for P and
  for Q, ε_lb = ln(P_lower / Q_upper)); with ``pooled=True`` also its pooled "both orders" event
  (2n trials at level 1 − e^{−α/2}); with ``test="poisson"`` as :func:`dpverify.audit.audit` bounds
  an event at δ = 0 (Poisson(n) draws, the conditional test on the ratio at level α), and with
  ``test="best"`` the better of the two.  No budget is spent on search or selection, so this is the
  ceiling of any event-based auditor of the pair at that budget (at typical counts).
- :func:`reach_probability` — the chance that a fixed event's bound reaches a target by luck
  (:mod:`dpverify.audit.ideal.reach`).
- :func:`sampler_pvalue` — an exact test of a law against a mechanism's own sampler.

Derivations and checks: ``dpverify/audit/proofs/suite_exact.md``.

Example
-------
>>> p, q = [0.5, 0.3, 0.2], [0.3, 0.3, 0.4]
>>> round(exact_epsilon(p, q), 6), round(float(np.log(0.5 / 0.3)), 6)
(0.693147, 0.510826)
>>> b = best_event_bound(p, q, n=10**6, confidence=0.9)
>>> b.direction, b.event, 0.67 < b.epsilon < 0.6932
('q>p', (2,), True)
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import stats

from dpverify.validation import (as_generator, check_confidence, check_finite_array, check_nonneg_int,
                                  check_bool, check_counts, check_positive_int, check_probability, check_probability_vector, check_real,
                                  check_work)
from dpverify.audit.exact.divergence import max_privacy_loss
from dpverify.audit.intervals import wilson, clopper_pearson_lower, clopper_pearson_upper, poisson_log_ratio_lower
from dpverify.audit.ideal.reach import reach_probability
from dpverify.proofdocs import proven

__all__ = ["EventBound", "best_event_bound", "exact_epsilon", "reach_probability", "sampler_pvalue"]

_MAX_N = 2**62
_POOLED_GRID = 1024  # prefixes per order tried for the pooled event (all when fewer)
_POOLED_EXACT = 64  # pooled candidates bounded exactly, the best by the Wilson ranking
_CHUNK = 1 << 18


@dataclass(frozen=True)
class EventBound:
    """The ideal auditor's bound: ``epsilon`` from counts ``k_p``, ``k_q`` of ``trials`` draws of
    the event ``event`` (outcome indices; with ``event2`` for the pooled ``direction="both"``),
    whose exact probabilities are ``p_event``, ``q_event``.

    Example
    -------
    >>> EventBound(0.5, "p>q", (0,), (), 0.6, 0.3, 600, 300, 1000, 0.05).trials
    1000
    """

    epsilon: float
    direction: str
    event: tuple
    event2: tuple
    p_event: float
    q_event: float
    k_p: int
    k_q: int
    trials: int
    level: float

    def __post_init__(self):
        check_real(self.epsilon, "epsilon", nonneg=True)
        if self.direction not in ("p>q", "q>p", "both", "none"):
            raise ValueError(f"direction must be 'p>q', 'q>p', 'both' or 'none', got {self.direction!r}")
        for name in ("event", "event2"):  # outcome indices, stored as a tuple of ints
            object.__setattr__(self, name, tuple(check_counts(getattr(self, name), name).tolist()))
        for name in ("p_event", "q_event"):
            check_probability(getattr(self, name), name)
        trials = check_positive_int(self.trials, "trials")
        for name in ("k_p", "k_q"):
            check_nonneg_int(getattr(self, name), name, maximum=trials)
        if not 0 < check_real(self.level, "level") < 1:
            raise ValueError(f"level must be in (0, 1), got {self.level!r}")


def _pair(p, q):
    p = check_probability_vector(p, "p")
    q = check_probability_vector(q, "q")
    if p.shape != q.shape:
        raise ValueError(f"p and q must have the same length, got {p.size} and {q.size}")
    return p, q


def exact_epsilon(p, q) -> float:
    """max over outcomes of |ln(p_o / q_o)| (``inf`` when one law has an outcome the other has not).

    Example
    -------
    >>> round(exact_epsilon([0.75, 0.25], [0.25, 0.75]), 12) == round(math.log(3), 12)
    True
    """
    p, q = _pair(p, q)
    return max(max_privacy_loss(p, q), max_privacy_loss(q, p))


def _prefixes(a, b):
    """Outcomes with a > 0 sorted by ln a − ln b (descending) and the cumulative masses."""
    keep = np.flatnonzero(a > 0)
    with np.errstate(divide="ignore"):
        ratio = np.log(a[keep]) - np.log(b[keep])
    order = keep[np.argsort(-ratio, kind="stable")]  # proof: ratio-order
    return order, np.cumsum(a[order]), np.cumsum(b[order])


def _bound(pa, qb, trials, level):
    """ln(P_lower / Q_upper) at the expected counts round(trials · P), round(trials · Q)."""
    k_p = np.clip(np.round(trials * pa), 0, trials)  # proof: expected-counts
    k_q = np.clip(np.round(trials * qb), 0, trials)
    lo = clopper_pearson_lower(k_p, trials, level)
    hi = clopper_pearson_upper(k_q, trials, level)
    with np.errstate(divide="ignore"):
        return np.where(lo > 0, np.log(np.maximum(lo, 1e-300)) - np.log(hi), -np.inf), k_p, k_q  # proof: ideal-eps


def _bound_poisson(pa, qb, n, level):
    """logit of the conditional lower bound on π at the expected counts round(n · P), round(n · Q)."""
    k_p, k_q = np.round(n * pa), np.round(n * qb)  # proof: expected-counts-poisson
    eps = np.full(np.shape(k_p), -np.inf)
    ok = k_p > 0
    if ok.any():
        eps[ok] = poisson_log_ratio_lower(k_p[ok], k_q[ok], level)
    return eps, k_p, k_q


@proven("audit/suite_exact.md")
def best_event_bound(p, q, *, n: int, confidence: float, pooled: bool = False, test: str = "binomial") -> EventBound:
    """The largest ε lower bound an auditor knowing the laws p, q reports with n draws per input.

    Parameters
    ----------
    p, q : the exact laws of M(d), M(d′) on the same outcomes (probability vectors)
    n : draws per input, all spent on estimation
    confidence : 1 − α; P is bounded below and Q above at level α/2 each (binomial test)
    pooled : also try the pooled event of both orders (as ``dpverify.audit`` may choose; binomial)
    test : ``"binomial"`` (two Clopper–Pearson bounds), ``"poisson"`` (the conditional test of
        Poisson(n) draw counts at level α, as ``audit`` at δ = 0) or ``"best"`` (the larger)

    Returns
    -------
    EventBound (``epsilon`` ≥ 0; 0 with an empty event when no event gives a positive bound).

    Example
    -------
    >>> b = best_event_bound([0.6, 0.4], [0.4, 0.6], n=10**5, confidence=0.9)
    >>> b.event, round(b.p_event, 2), 0.38 < b.epsilon < math.log(1.5)
    ((0,), 0.6, True)
    """
    p, q = _pair(p, q)
    n = check_positive_int(n, "n", maximum=_MAX_N)
    alpha = 1.0 - check_confidence(confidence)
    pooled = check_bool(pooled, "pooled")
    if test not in ("binomial", "poisson", "best"):
        raise ValueError(f"test must be 'binomial', 'poisson' or 'best', got {test!r}")
    best = EventBound(0.0, "none", (), (), 0.0, 0.0, 0, 0, n, alpha / 2)
    orders = {}
    for direction, (a, b) in (("p>q", (p, q)), ("q>p", (q, p))):
        order, ca, cb = orders[direction] = _prefixes(a, b)
        if order.size == 0:
            continue
        ways = ([(_bound, alpha / 2)] if test != "poisson" else []) + \
            ([(_bound_poisson, alpha)] if test != "binomial" else [])
        for way, level in ways:
            eps, k_a, k_b = way(ca, cb, n, level)
            j = int(np.argmax(eps))
            if eps[j] > best.epsilon:
                best = EventBound(float(eps[j]), direction, tuple(sorted(order[: j + 1].tolist())), (), float(ca[j]),
                                  float(cb[j]), int(k_a[j]), int(k_b[j]), n, level)
    if pooled and all(orders[d][0].size for d in orders):
        best = max(best, _pooled(orders, n, alpha), key=lambda e: e.epsilon)
    return best


def _pooled(orders, n, alpha) -> EventBound:
    """Pooled events: S1 a prefix of the order p>q, S2 of q>p; P̄ = (P(S1) + Q(S2))/2,
    Q̄ = (Q(S1) + P(S2))/2 on 2n trials at level 1 − e^{−α/2} (``statistical.estimate``)."""
    (o1, a1, b1), (o2, a2, b2) = orders["p>q"], orders["q>p"]
    j1 = np.unique(np.linspace(0, o1.size - 1, min(o1.size, _POOLED_GRID)).round().astype(int))
    j2 = np.unique(np.linspace(0, o2.size - 1, min(o2.size, _POOLED_GRID)).round().astype(int))
    pbar = (a1[j1][:, None] + a2[j2][None, :]) / 2  # proof: pooled-mass
    qbar = (b1[j1][:, None] + b2[j2][None, :]) / 2
    trials, level = 2 * n, 1.0 - math.exp(-alpha / 2)
    z = stats.norm.ppf(1.0 - level)
    with np.errstate(divide="ignore", invalid="ignore"):
        rank = np.log(np.maximum(wilson(pbar, trials, z, upper=False), 1e-300)) - np.log(wilson(qbar, trials, z, upper=True))
    top = np.argsort(-rank, axis=None)[:_POOLED_EXACT]
    r, c = np.unravel_index(top, rank.shape)
    eps, k_p, k_q = _bound(pbar[r, c], qbar[r, c], trials, level)
    i = int(np.argmax(eps))
    if not eps[i] > 0:
        return EventBound(0.0, "none", (), (), 0.0, 0.0, 0, 0, n, alpha / 2)
    s1, s2 = o1[: j1[r[i]] + 1], o2[: j2[c[i]] + 1]
    return EventBound(float(eps[i]), "both", tuple(sorted(s1.tolist())), tuple(sorted(s2.tolist())),
                      float(pbar[r[i], c[i]]), float(qbar[r[i], c[i]]), int(k_p[i]), int(k_q[i]), trials, level)


def _indices(outcomes: np.ndarray, draws: np.ndarray) -> np.ndarray:
    """Index of each draw among ``outcomes`` (rows or scalars); −1 for a draw not listed."""
    o = outcomes.reshape(len(outcomes), -1).astype(np.int64)
    d = np.asarray(draws).reshape(len(draws), -1)
    if d.shape[1] != o.shape[1] or (d != np.round(d)).any():
        return np.full(len(draws), -1)
    lo, hi = int(o.min()), int(o.max())
    inside = ((d >= lo) & (d <= hi)).all(axis=1)
    base = hi - lo + 1
    if base ** o.shape[1] >= 2**62:  # codes would overflow: match rows directly
        both = np.concatenate([o, d.astype(np.int64)])
        _, inv = np.unique(both, axis=0, return_inverse=True)
        inv = inv.reshape(-1)
        lookup = np.full(inv.max() + 1, -1)
        lookup[inv[: len(o)]] = np.arange(len(o))
        return np.where(inside, lookup[inv[len(o):]], -1)
    weights = base ** np.arange(o.shape[1], dtype=np.int64)
    code_o = (o - lo) @ weights
    code_d = (np.clip(d, lo, hi).astype(np.int64) - lo) @ weights
    order = np.argsort(code_o)
    pos = np.clip(np.searchsorted(code_o[order], code_d), 0, len(o) - 1)
    found = inside & (code_o[order][pos] == code_d)
    return np.where(found, order[pos], -1)


@proven("audit/suite_exact.md")
def sampler_pvalue(mechanism, data, outcomes, probabilities, *, samples: int, rng=None) -> float:
    """p-value of "``mechanism.sample(data, …)`` has law (outcomes, probabilities)".

    Each outcome's count among ``samples`` draws is tested by an exact two-sided binomial test
    (twice the smaller tail); the p-value is their minimum times the number of outcomes
    (Bonferroni), so under the law ``Pr[pvalue ≤ a] ≤ a`` for every a, exactly — no asymptotic
    chi-square approximation.  A draw outside ``outcomes`` gives 0.

    Example
    -------
    >>> from dpverify.audit.suite import TruncatedGeometric
    >>> from dpverify.audit.ideal.laws import exact_law
    >>> m = TruncatedGeometric(0.1)
    >>> out, p = exact_law(m, [2])
    >>> sampler_pvalue(m, [2], out, p, samples=100_000, rng=0) > 1e-6
    True
    """
    samples = check_positive_int(samples, "samples")
    probs = check_probability_vector(probabilities, "probabilities")
    out = np.asarray(outcomes)
    if out.dtype.kind not in "iu" or out.ndim not in (1, 2) or len(out) != probs.size:
        raise ValueError(f"outcomes must be {probs.size} integer codes or rows, got shape {out.shape} "
                         f"of dtype {out.dtype}")
    if not hasattr(mechanism, "sample"):
        raise TypeError(f"mechanism must have .sample(data, rng, n), got {type(mechanism).__name__}")
    x = check_finite_array(data, "data")
    check_work(samples, f"samples = {samples}")
    g = as_generator(rng)
    counts = np.zeros(probs.size, dtype=np.int64)
    for start in range(0, samples, _CHUNK):  # bounded memory: count chunk by chunk
        idx = _indices(out, mechanism.sample(x, g, min(_CHUNK, samples - start)))
        if (idx < 0).any():
            return 0.0
        counts += np.bincount(idx, minlength=probs.size)
    lower = stats.binom.cdf(counts, samples, probs)
    upper = stats.binom.sf(counts - 1, samples, probs)
    per = np.minimum(1.0, 2.0 * np.minimum(lower, upper))  # proof: binomial-two-sided
    return float(min(1.0, per.min() * probs.size))  # proof: bonferroni
