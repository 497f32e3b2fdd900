"""The selection phase of the statistical auditor: count a selection sample into bins of a statistic
and choose the event(s) whose bound promises to be largest (:func:`select_event`).

Events are thresholds ``T ≤ t`` / ``T > t`` or unions of bins ordered by their observed likelihood
ratio, in either direction, or one event per direction pooled; events whose selection count is below
a minimum are never chosen (robust selection, ``dpverify/audit/proofs/selection.md``).  Ranking only: the
validity of a bound never depends on how its event was chosen, since the estimation draws are fresh
(:mod:`dpverify.audit.statistical`).

Example
-------
>>> from dpverify.audit.suite import Laplace
>>> binner, counts = count_selection(Laplace(1.0), (0.0, 1.0), 20_000, 7, None)
>>> sel = select_event(binner, counts, n_est=20_000, alpha=0.01, delta=0.0)
>>> sel.choice, sel.test, 0.5 < sel.score < 1.0
('both', 'binomial', True)
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import special

from dpverify.audit.chunks import DEFAULT_CHUNK, ChunkJob, CountBins, Progress, chunk_sizes, run_tasks
from dpverify.audit.events import Binner, Event, candidate_events, make_event
from dpverify.audit.intervals import wilson, wilson_log_ratio
from dpverify.validation import (check_bool, check_delta, check_elements, check_nonneg_int, check_positive_int, check_real,
                                 check_work)

__all__ = ["MIN_COUNT_CAP", "MIN_EVENT_COUNT", "TESTS", "Selection", "available_tests", "count_selection", "minimum_count",
           "select_event", "structural_minimum"]

_SEL_PENALTY = 1.0  # weight of the selection counts' own variance when ranking events
MIN_COUNT_CAP = 400  # the most draws a screened event must hold (as the final selection's, stages.MIN_COUNT_CAP)
MIN_EVENT_COUNT = 30  # robust selection: an event must hold ≥ this many selection draws of D
SEED_SELECTION = 1  # the seed stream of epsilon_lower_bound's selection draws: (SEED_SELECTION, input, chunk)


@dataclass(frozen=True, eq=False)
class Selection:
    """The outcome of the selection phase: the event(s) to estimate, their predicted bound and the test.

    ``test``: ``"binomial"`` (n draws per input, two Clopper–Pearson bounds) or ``"poisson"``
    (Poisson(λ) draws per input, the conditional test on the ratio; δ = 0 only).
    """

    events: tuple
    choice: str
    score: float
    n_selection: int
    test: str = "binomial"


TESTS = ("binomial", "poisson")


def _ranked(ca, cb, n_used, n_eff, alpha, delta, tests, epsilon=None):
    """The bound each candidate event (counts ca, cb of n_used) would give on fresh draws with the
    selection noise folded into n_eff, under the better of ``tests``: (scores, poisson chosen).
    With ``epsilon`` the score is the lower bound on δ(ε) it would give, P_lower − e^ε·Q_upper, on the
    same bounds (the binomial test).  Ranking only — validity never depends on it."""
    z = special.ndtri(1.0 - alpha / 2.0)
    pl = wilson(ca / n_used, n_eff, z, upper=False) - delta
    qu = wilson(cb / n_used, n_eff, z, upper=True)
    if epsilon is not None:
        return pl - math.exp(epsilon) * qu, np.zeros(np.shape(pl), bool)
    with np.errstate(divide="ignore", invalid="ignore"):
        score = np.where(pl > 0, np.log(np.maximum(pl, 1e-300) / qu), -np.inf)
        if "poisson" not in tests or delta > 0:
            return score, np.zeros(np.shape(score), bool)
    # conditional test: K_P of m = K_P + K_Q draws in the event, one-sided at the full level
    pois = wilson_log_ratio(ca, cb, (ca + cb) * n_eff / n_used, alpha)
    if "binomial" not in tests:  # the conditional test only
        return pois, np.ones(np.shape(pois), bool)
    use = pois > score
    return np.where(use, pois, score), use


def _ranked_parts(parts, n_eff, alpha, delta, tests, epsilon):
    """:func:`_ranked` of each (count_a, count_b, n_used) in ``parts`` (``n_eff(n_used)`` its effective
    size), computed in one vectorised call: (scores, poisson chosen), one array per part.  Every
    operation is elementwise, so each part's numbers are those of a call of its own."""
    sizes = [len(ca) for ca, _, _ in parts]
    if not parts or not sum(sizes):
        return ([np.zeros(0)] * len(parts),) * 2
    ca = np.concatenate([np.asarray(p[0], dtype=float) for p in parts])
    cb = np.concatenate([np.asarray(p[1], dtype=float) for p in parts])
    n_used = np.repeat(np.array([float(p[2]) for p in parts]), sizes)
    eff = np.repeat(np.array([float(n_eff(p[2])) for p in parts]), sizes)
    score, pois = _ranked(ca, cb, n_used, eff, alpha, delta, tests, epsilon)
    ends = np.cumsum(sizes).tolist()
    return ([score[e - m:e] for m, e in zip(sizes, ends)], [pois[e - m:e] for m, e in zip(sizes, ends)])


def _families(binner, counts, kinds, confirm):
    """Every candidate family of both directions (:func:`candidate_events`) — and, to split and confirm,
    each threshold family on the two halves of the selection sample, so that a tail event that was
    lucky on one half is not chosen — as (direction, kind, mask_of, count_a, count_b, n_used, first, end)
    and the (count_a, count_b, n_used) parts to rank, family f's being ``parts[first:end]``."""
    families, parts = [], []
    for direction, (a, b) in (("d>d_prime", (counts[0], counts[1])), ("d_prime>d", (counts[1], counts[0]))):
        sa, sb = a.sum(axis=1), b.sum(axis=1)  # the halves' totals
        halves = confirm and min(sa[0], sa[1]) >= 1
        if halves:
            cum_a, cum_b = np.cumsum(a, axis=1)[:, :-1], np.cumsum(b, axis=1)[:, :-1]
        for kind, mask, ca, cb, n_used in candidate_events(a, b, ordered=not getattr(binner, "categorical", False)):
            if kind not in kinds:
                continue
            first = len(parts)
            parts.append((ca, cb, n_used))
            if halves and kind in ("le", "gt"):
                for h in (0, 1):  # the threshold family on each half of the selection sample
                    cah, cbh = cum_a[h], cum_b[h]
                    if kind == "gt":
                        cah, cbh = sa[h] - cah, sb[h] - cbh
                    parts.append((cah, cbh, sa[h]))
            families.append((direction, kind, mask, ca, cb, n_used, first, len(parts)))
    return families, parts


def count_selection(mechanism, data, n_sel, entropy, stat, *, key=(SEED_SELECTION,), chunk_size=DEFAULT_CHUNK,
                    executor=None, prog: Progress | None = None):
    """Draw ``n_sel`` outputs per input, fix bins from the first chunk, count both halves: (binner,
    per input the (2, nbins) counts of the two halves).

    >>> binner, counts = count_selection(lambda d, rng, n: rng.integers(0, 2, n) + d, (0, 1), 1000, 7, None)
    >>> binner.discrete, [int(c.sum()) for c in counts]
    (True, [1000, 1000])
    """
    n_sel = check_positive_int(n_sel, "n_sel")
    check_work(n_sel, f"n_sel = {n_sel}")
    chunk_size = check_positive_int(chunk_size, "chunk_size")
    data = _check_data(data)
    key = _check_key(key)
    check_nonneg_int(entropy, "entropy")
    if stat is not None and not callable(stat):
        raise TypeError(f"stat must be a statistic (a callable) or None, got {type(stat).__name__}")
    if prog is not None and not isinstance(prog, Progress):
        raise TypeError(f"prog must be a Progress or None, got {type(prog).__name__}")
    sizes = chunk_sizes(n_sel, chunk_size)
    jobs = [[ChunkJob(mechanism, data[i], m, entropy, (*key, i, j), stat) for j, m in enumerate(sizes)]
            for i in (0, 1)]
    pilot = [jobs[i][0].statistic_values() for i in (0, 1)]
    if pilot[0].dtype.kind != pilot[1].dtype.kind and "f" in (pilot[0].dtype.kind, pilot[1].dtype.kind):
        pilot = [p.astype(float) for p in pilot]
    binner = Binner(np.concatenate(pilot), categorical=bool(getattr(stat, "categorical", False)))
    prog = prog or Progress(None, 0)
    counts = []  # per input: (2, nbins) counts of the two halves of the selection sample
    for i in (0, 1):
        first = binner.count_halves(pilot[i])
        prog.add(sizes[0])
        rest = run_tasks([CountBins(job, binner) for job in jobs[i][1:]], executor, prog, sizes[1:])
        counts.append(np.sum([first, *rest], axis=0))
    return binner, counts


def check_alpha(alpha) -> float:
    """A test level in (0, 1) whose two-sided normal quantile is finite."""
    alpha = check_real(alpha, "alpha")
    if not 0 < alpha < 1 or not 1.0 - alpha / 2.0 < 1.0:
        raise ValueError(f"alpha must be in (0, 1) with 1 - alpha/2 < 1 in floating point, got {alpha!r}")
    return alpha


def _check_data(data):
    """The two inputs (d, d') of a pair."""
    if isinstance(data, (str, bytes)) or not hasattr(data, "__len__") or getattr(data, "ndim", 1) == 0 \
            or len(data) != 2:
        raise ValueError(f"data must be a pair (d, d_prime), got {data!r}"[:200])
    return data


def _check_key(key) -> tuple:
    """A seed stream key: a tuple of non-negative integers."""
    if isinstance(key, np.ndarray) and key.ndim == 1 and key.dtype.kind in "iu":
        if key.size > 64:
            raise ValueError(f"key must be a short tuple of seed-stream integers, got {key.size} entries")
        key = tuple(int(k) for k in key)
    if not isinstance(key, tuple):
        raise TypeError(f"key must be a tuple of non-negative integers, got {type(key).__name__}")
    for k in key:
        check_nonneg_int(k, "key")
    return key


def _check_counts(counts, binner) -> list:
    """Per input, the (2, nbins) selection counts of the two halves: non-negative integers."""
    if isinstance(counts, np.ndarray):
        check_elements(counts, "counts")
    if isinstance(counts, np.ndarray) and counts.ndim == 3:
        counts = list(counts)  # an array of the two inputs' (2, nbins) counts
    if isinstance(counts, (str, bytes)) or not isinstance(counts, (list, tuple)) or len(counts) != 2:
        raise TypeError(f"counts must be a list of two (2, nbins) count arrays, got {type(counts).__name__}")
    out = []
    for c in counts:
        check_elements(c, "counts")
        a = np.asarray(c) if isinstance(c, (np.ndarray, list, tuple)) else None
        if a is None or a.dtype.kind not in "iu":
            raise TypeError(f"counts must hold integer arrays, got {getattr(a, 'dtype', type(c).__name__)}")
        if a.ndim != 2 or a.shape[0] != 2 or a.shape[1] < 1 or out and a.shape != out[0].shape:
            raise ValueError(f"counts must hold two arrays of one shape (2, nbins), got shape {a.shape}")
        if (a < 0).any():
            raise ValueError("counts must be non-negative")
        out.append(a)
    return out


def _check_selection(binner, counts, n_est, alpha, delta, min_count, confirm, penalty, tests) -> tuple:
    """select_event's arguments, validated (each refused by name)."""
    if not all(hasattr(binner, a) for a in ("nbins", "edges", "discrete")):
        raise TypeError(f"binner must be a Binner, got {type(binner).__name__}")
    if not isinstance(tests, (tuple, list)):
        raise TypeError(f"tests must be a tuple of {TESTS}, got {type(tests).__name__}")
    return (_check_counts(counts, binner), check_positive_int(n_est, "n_est"), check_alpha(alpha), check_delta(delta),
            check_nonneg_int(min_count, "min_count"), check_bool(confirm, "confirm"),
            check_real(penalty, "penalty", positive=True))


def select_event(binner, counts, *, n_est: int, alpha: float, delta: float,
                 min_count: int = MIN_EVENT_COUNT, confirm: bool = False, penalty: float = _SEL_PENALTY,
                 tests: tuple = ("binomial",), epsilon: float | None = None,
                 kinds: tuple = ("le", "gt", "bins")) -> Selection:
    """Rank the candidate events on the selection counts; return the best (or the pooled pair).

    ``confirm``: rank thresholds by the worse of their scores on the two halves of the selection
    sample (split and confirm; used by :func:`dpverify.audit.audit`).  ``penalty`` weighs the selection
    counts' own variance against the estimation's (1: an event is ranked as if the selection noise
    were as large again as the estimation noise, scaled by the same z; 1/z²: one standard error).
    ``tests``: the estimation tests to choose from (``TESTS``); ``"poisson"`` applies at δ = 0 only.
    ``epsilon``: rank by the lower bound on δ(ε) an event promises, P_lower − e^ε·Q_upper, instead of
    the bound on ε (:func:`dpverify.audit.curves.audit_delta_curve`; ``delta`` is then ignored and the
    test is binomial).  Either way an event's Q is bounded above from its selection count widened by
    the selection noise, so an event with no selection draw of Q is charged the Q a fresh sample can
    still show: it cannot win on an empty count alone.  ``kinds``: the event families ranked
    (thresholds ``"le"``, ``"gt"``; likelihood-ordered unions ``"bins"``).

    >>> from dpverify.audit.events import Binner
    >>> b = Binner(np.arange(2), categorical=True)
    >>> counts = [np.array([[300, 200], [300, 200]]), np.array([[200, 300], [200, 300]])]
    >>> sel = select_event(b, counts, n_est=10_000, alpha=0.05, delta=0.0)
    >>> sel.choice, round(sel.score, 2)
    ('both', 0.31)
    """
    counts, n_est, alpha, delta, min_count, confirm, penalty = _check_selection(
        binner, counts, n_est, alpha, delta, min_count, confirm, penalty, tests)
    unknown = [t for t in tests if t not in TESTS]
    if unknown or not tests:
        raise ValueError(f"tests must be a non-empty subset of {TESTS}, got {tests!r}")
    if not isinstance(kinds, tuple) or not kinds or any(k not in ("le", "gt", "bins") for k in kinds):
        raise ValueError(f"kinds must be a non-empty tuple of 'le', 'gt', 'bins', got {kinds!r}")
    if epsilon is not None:
        epsilon = check_real(epsilon, "epsilon", nonneg=True)
        if epsilon > 700:
            raise ValueError(f"epsilon must be at most 700 (e^epsilon stays finite), got {epsilon!r}")
        tests, delta = ("binomial",), 0.0

    def n_eff(n_used):
        # the bound an event would give on n_est fresh samples, widened by the selection counts' own
        # noise (n_eff)
        return 1.0 / (penalty / n_used + 1.0 / n_est)

    families, parts = _families(binner, counts, kinds, confirm)
    scores, poissons = _ranked_parts(parts, n_eff, alpha, delta, tests, epsilon)
    best = {}  # direction -> (score, kind, mask, count_a, count_b, n_used, poisson) of its best event
    for direction, kind, mask, ca, cb, n_used, first, end in families:
        score, pois = scores[first], poissons[first]
        for half in scores[first + 1:end]:  # a threshold split and confirmed: its scores on the two halves
            score = np.minimum(score, half)  # proof: split-confirm
        score = np.where(ca >= min_count, score, -np.inf)  # proof: min-count
        if score.size == 0 or not np.isfinite(score).any():
            continue
        j = int(np.argmax(score))
        if direction not in best or score[j] > best[direction][0]:
            best[direction] = (float(score[j]), kind, mask(j), float(ca[j]), float(cb[j]), n_used, bool(pois[j]))
    if not best:  # every event below the minimum count: the whole output space (ε_lb = 0)
        full = np.ones(binner.nbins, bool)
        ev = Event("bins", None, binner.discrete, binner.edges, full, "every output (no event had enough draws)")
        n_sel = int(counts[0].sum())
        return Selection((ev,), "d>d_prime", -math.inf, n_sel)
    choice = max(best, key=lambda k: best[k][0])
    score, test = best[choice][0], "poisson" if best[choice][6] else "binomial"
    # the pooled "both orders" event: Ā = (P(S1) + Q(S2))/2 ≤ e^ε B̄ + δ, B̄ = (Q(S1) + P(S2))/2,
    # each count a sum over 2·n_est draws (dpverify/audit/proofs/auditor_validity.md, step 6); with Poisson
    # draw counts only when S1 and S2 are disjoint (step 7: the four counts are then independent)
    if len(best) == 2 and alpha / 2.0 < 0.25:
        (_, _, m1, a1, b1, n1, _), (_, _, m2, a2, b2, n2, _) = best["d>d_prime"], best["d_prime>d"]
        zp = special.ndtri(math.exp(-alpha / 2.0))
        n_eff = 1.0 / (penalty / (n1 + n2) + 1.0 / (2 * n_est))
        pl = wilson((a1 / n1 + a2 / n2) / 2, n_eff, zp, upper=False) - delta
        qu = wilson((b1 / n1 + b2 / n2) / 2, n_eff, zp, upper=True)
        pooled = math.log(pl / qu) if pl > 0 and "binomial" in tests else -math.inf
        if epsilon is not None:
            pooled = float(pl - math.exp(epsilon) * qu)
        pooled_test = "binomial"
        if "poisson" in tests and delta == 0 and not (m1 & m2).any():
            ra, rb = a1 / n1 + a2 / n2, b1 / n1 + b2 / n2  # K_A, K_B per unit of λ
            pp = float(wilson_log_ratio(ra, rb, (ra + rb) / (penalty / (n1 + n2) + 1.0 / n_est), alpha))
            if pp > pooled:
                pooled, pooled_test = pp, "poisson"
        if pooled > score:
            choice, score, test = "both", pooled, pooled_test
    ev = tuple(make_event(best[d][1], best[d][2], binner)
               for d in (("d>d_prime", "d_prime>d") if choice == "both" else (choice,)))
    return Selection(ev, choice, score, int(counts[0].sum()), test)


def minimum_count(n_values: int, n_check=None, cap=None) -> int:
    """The selection draws an event must hold: 30, and — when ``n_check`` is given — as many as promise
    ≥ 100 draws in a sample of ``n_check`` (at most ``cap``, when given).  Ranking only.

    >>> minimum_count(10_000), minimum_count(10_000, 500), minimum_count(10**6, 500, cap=400)
    (30, 2000, 400)
    """
    top = 2**63 - 1  # counts of draws are int64
    n_values = check_nonneg_int(n_values, "n_values", maximum=top)
    n_check = None if n_check is None else check_nonneg_int(n_check, "n_check", maximum=top)
    cap = None if cap is None else check_nonneg_int(cap, "cap", maximum=top)
    if not n_check:
        return 30
    return max(30, min(int(np.ceil(100 * n_values / n_check)), cap or np.inf))


def structural_minimum(n_values: int, n_est: int) -> int:
    """The minimum count of a statistic whose informative events are structural zeros (an event one
    input cannot produce: the floating-point codes): ≥ 10 of the ``n_values`` selection draws and as
    many as promise ≥ 20 draws in the ``n_est`` estimation draws, at most ``MIN_COUNT_CAP``.  It
    shrinks as the budget grows: at 10^6 draws per input an event of 0.01 % of the draws is scored.
    Ranking only.

    >>> structural_minimum(175_000, 450_000), structural_minimum(175_000, 10_000), structural_minimum(10**7, 10**5)
    (10, 350, 400)
    """
    n_values, n_est = check_positive_int(n_values, "n_values"), check_positive_int(n_est, "n_est")
    return max(10, min(math.ceil(20 * n_values / n_est), MIN_COUNT_CAP))


def available_tests(delta: float) -> tuple:
    """The estimation tests the audit chooses from: the conditional Poisson test needs δ = 0.

    >>> available_tests(0.0), available_tests(1e-6)
    (('binomial', 'poisson'), ('binomial',))
    """
    return ("binomial", "poisson") if check_delta(delta) == 0 else ("binomial",)
