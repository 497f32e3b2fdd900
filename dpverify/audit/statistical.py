"""The statistical auditor: a lower bound on the ε a black-box mechanism really has.

Given a mechanism ``mechanism(data, rng, n)`` (n independent outputs along axis 0),
two neighbouring inputs ``d`` and ``d_prime`` and a claimed δ, the auditor

1. draws a *selection* sample from both inputs, counts it into bins of a scalar
   statistic of the output, and picks the event S (a union of bins: a threshold
   ``T ≤ t`` or ``T > t``, or the bins ordered by their observed likelihood ratio)
   and the direction (which input plays D) whose bound promises to be largest — or
   one event per direction, pooled (S1 likelier under D, S2 under D'), which doubles
   the trials for symmetric mechanisms; events whose selection count is below a
   minimum are never chosen (robust selection, ``proofs/audit/selection.md``);
2. draws a fresh, independent *estimation* sample, counts the draws in the event(s),
   and bounds P = Pr[M(D) ∈ S] from below and Q = Pr[M(D') ∈ S] from above (pooled:
   P = (Pr[M(D) ∈ S1] + Pr[M(D') ∈ S2])/2, Q the swap) with one-sided Clopper–Pearson
   intervals, each at level 1 − α/2 (Bonferroni over the two estimated quantities,
   α = 1 − confidence; level 1 − (1 − e^{−α/2}) when pooled);
3. reports ε_lb = ln((P_lower − δ) / Q_upper)  (0 when P_lower ≤ δ).

If the mechanism is (ε, δ)-DP then P ≤ e^ε Q + δ for every fixed S (and for the pooled
pair), and the events are fixed before the estimation sample is drawn, so
Pr[ε_lb > ε] ≤ α.  The argument is written out in ``proofs/audit/auditor_validity.md``.
The phases are separate functions (:func:`select_event`, :func:`estimate`) so that
:func:`dpverify.audit.audit` can search pairs and spend its budget sequentially.

Reference: seed 002 (definition of (ε, δ)-DP); SPEC part D; Ding et al., CCS 2018
("Detecting violations of differential privacy") for the select/estimate split.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable, NamedTuple

import numpy as np
from scipy import special

from dpverify.validation import (
    as_generator,
    check_confidence,
    check_delta,
    check_positive_int,
    check_real,
)
from dpverify.audit.chunks import _ChunkJob, _CountBins, _CountEvent, _Progress, _readonly, _run, _sizes
from dpverify.audit.classifiers import _fit_classifier
from dpverify.audit.errors import MechanismError
from dpverify.audit.events import Event, PatternCode, _Binner, _candidates, _make_event
from dpverify.audit.intervals import (
    _wilson,
    _wilson_log_ratio,
    clopper_pearson_lower,
    clopper_pearson_upper,
    poisson_draws,
    poisson_log_ratio_lower,
)
from dpverify.audit.result import AuditResult
from dpverify.proofdocs import proven

__all__ = [
    "AuditResult",
    "Event",
    "MechanismError",
    "clopper_pearson_lower",
    "clopper_pearson_upper",
    "epsilon_lower_bound",
    "PatternCode",
]

_DEFAULT_CHUNK = 1 << 19
_CLASSIFIER_TRAIN = 50_000
_SEL_PENALTY = 1.0  # weight of the selection counts' own variance when ranking events
MIN_EVENT_COUNT = 30  # robust selection: an event must hold ≥ this many selection draws of D


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


def _ranked(ca, cb, n_used, n_eff, alpha, delta, tests):
    """The bound each candidate event (counts ca, cb of n_used) would give on fresh draws with the
    selection noise folded into n_eff, under the better of ``tests``: (scores, poisson chosen).
    Ranking only — validity never depends on it."""
    z = special.ndtri(1.0 - alpha / 2.0)
    pl = _wilson(ca / n_used, n_eff, z, upper=False) - delta
    qu = _wilson(cb / n_used, n_eff, z, upper=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        score = np.where(pl > 0, np.log(np.maximum(pl, 1e-300) / qu), -np.inf)
        if "poisson" not in tests or delta > 0:
            return score, np.zeros(np.shape(score), bool)
    # conditional test: K_P of m = K_P + K_Q draws in the event, one-sided at the full level
    pois = _wilson_log_ratio(ca, cb, (ca + cb) * n_eff / n_used, alpha)
    if "binomial" not in tests:  # the conditional test only
        return pois, np.ones(np.shape(pois), bool)
    use = pois > score
    return np.where(use, pois, score), use


def count_selection(mechanism, data, n_sel, entropy, stat, *, key=(1,), chunk_size=_DEFAULT_CHUNK,
                    executor=None, prog: _Progress | None = None):
    """Draw ``n_sel`` outputs per input, fix bins from the first chunk, count both halves."""
    sizes = _sizes(n_sel, chunk_size)
    jobs = [[_ChunkJob(mechanism, data[i], m, entropy, (*key, i, j), stat) for j, m in enumerate(sizes)]
            for i in (0, 1)]
    pilot = [jobs[i][0].statistic_values() for i in (0, 1)]
    if pilot[0].dtype.kind != pilot[1].dtype.kind and "f" in (pilot[0].dtype.kind, pilot[1].dtype.kind):
        pilot = [p.astype(float) for p in pilot]
    binner = _Binner(np.concatenate(pilot), categorical=bool(getattr(stat, "categorical", False)))
    prog = prog or _Progress(None, 0)
    counts = []  # per input: (2, nbins) counts of the two halves of the selection sample
    for i in (0, 1):
        first = binner.count_halves(pilot[i])
        prog.add(sizes[0])
        rest = _run([_CountBins(job, binner) for job in jobs[i][1:]], executor, prog, sizes[1:])
        counts.append(np.sum([first, *rest], axis=0))
    return binner, counts


def select_event(binner, counts, *, n_est: int, alpha: float, delta: float,
                 min_count: int = MIN_EVENT_COUNT, confirm: bool = False, penalty: float = _SEL_PENALTY,
                 tests: tuple = ("binomial",)) -> Selection:
    """Rank the candidate events on the selection counts; return the best (or the pooled pair).

    ``confirm``: rank thresholds by the worse of their scores on the two halves of the selection
    sample (split and confirm; used by :func:`dpverify.audit.audit`).  ``penalty`` weighs the selection
    counts' own variance against the estimation's (1: an event is ranked as if the selection noise
    were as large again as the estimation noise, scaled by the same z; 1/z²: one standard error).
    ``tests``: the estimation tests to choose from (``TESTS``); ``"poisson"`` applies at δ = 0 only.
    """
    unknown = [t for t in tests if t not in TESTS]
    if unknown or not tests:
        raise ValueError(f"tests must be a non-empty subset of {TESTS}, got {tests!r}")

    def bound(ca, cb, n_used):
        # the bound this event would give on n_est fresh samples, widened by the selection
        # counts' own noise (n_eff)
        return _ranked(ca, cb, n_used, 1.0 / (penalty / n_used + 1.0 / n_est), alpha, delta, tests)

    best = {}  # direction -> (score, kind, mask, count_a, count_b, n_used, poisson) of its best event
    for direction, (a, b) in (("d>d_prime", (counts[0], counts[1])), ("d_prime>d", (counts[1], counts[0]))):
        for kind, mask, ca, cb, n_used in _candidates(a, b, ordered=not getattr(binner, "categorical", False)):
            score, pois = bound(ca, cb, n_used)
            if confirm and kind in ("le", "gt") and min(a[0].sum(), a[1].sum()) >= 1:
                # split and confirm: a threshold must look good on both halves of the selection
                # sample, so a tail event that was lucky on one half is not chosen
                for h in (0, 1):
                    cah, cbh = np.cumsum(a[h])[:-1], np.cumsum(b[h])[:-1]
                    if kind == "gt":
                        cah, cbh = a[h].sum() - cah, b[h].sum() - cbh
                    score = np.minimum(score, bound(cah, cbh, a[h].sum())[0])  # proof: split-confirm
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
    # each count a sum over 2·n_est draws (proofs/audit/auditor_validity.md, step 6); with Poisson
    # draw counts only when S1 and S2 are disjoint (step 7: the four counts are then independent)
    if len(best) == 2 and alpha / 2.0 < 0.25:
        (_, _, m1, a1, b1, n1, _), (_, _, m2, a2, b2, n2, _) = best["d>d_prime"], best["d_prime>d"]
        zp = special.ndtri(math.exp(-alpha / 2.0))
        n_eff = 1.0 / (penalty / (n1 + n2) + 1.0 / (2 * n_est))
        pl = _wilson((a1 / n1 + a2 / n2) / 2, n_eff, zp, upper=False) - delta
        qu = _wilson((b1 / n1 + b2 / n2) / 2, n_eff, zp, upper=True)
        pooled = math.log(pl / qu) if pl > 0 and "binomial" in tests else -math.inf
        pooled_test = "binomial"
        if "poisson" in tests and delta == 0 and not (m1 & m2).any():
            ra, rb = a1 / n1 + a2 / n2, b1 / n1 + b2 / n2  # K_A, K_B per unit of λ
            pp = float(_wilson_log_ratio(ra, rb, (ra + rb) / (penalty / (n1 + n2) + 1.0 / n_est), alpha))
            if pp > pooled:
                pooled, pooled_test = pp, "poisson"
        if pooled > score:
            choice, score, test = "both", pooled, pooled_test
    events = {d: _make_event(best[d][1], best[d][2], binner) for d in best}
    ev = (events["d>d_prime"], events["d_prime>d"]) if choice == "both" else (events[choice],)
    return Selection(ev, choice, score, int(counts[0].sum()), test)


class Estimate(NamedTuple):
    """The counts and bounds of one test on fresh draws (:func:`estimate`)."""

    k_p: int
    k_q: int
    trials: int  # draws behind k_p (binomial: n, or 2n pooled; poisson: the Poisson draw counts)
    level: float  # the level of each Clopper–Pearson bound (binomial) or of the conditional test
    p_lower: float
    q_upper: float
    eps_lb: float
    trials_q: int  # draws behind k_q (equal to ``trials`` for the binomial test)
    test: str


_POISSON_ETA = 1e-3  # share of a test's level spent on a Poisson draw count exceeding the cap


def estimate(mechanism, data, selection: Selection, n_est: int, entropy: int, stat, *, alpha: float,
             delta: float, key=(2,), chunk_size=_DEFAULT_CHUNK, executor=None, prog: _Progress | None = None
             ) -> Estimate:
    """Count fresh draws in the selected event(s) and bound ε at level ``alpha`` (:class:`Estimate`).

    Binomial test: n_est draws per input, P bounded below and Q above by Clopper–Pearson at α/2 each.
    Poisson test (``selection.test == "poisson"``, δ = 0): N ~ Poisson(λ) draws per input, λ the largest
    mean with Pr[N > n_est] ≤ η = 10⁻³·α (the draws are capped at n_est, which costs at most 2η of
    the level); the conditional bound on ln(P/Q) at α − 2η (``proofs/audit/auditor_validity.md``, step 7).
    """
    return estimate_each(mechanism, data, (selection,), n_est, entropy, stat, alphas=(alpha,), delta=delta,
                         key=key, chunk_size=chunk_size, executor=executor, prog=prog)[0]


def estimate_each(mechanism, data, selections, n_est: int, entropy: int, stat, *, alphas, delta: float,
                  key=(2,), chunk_size=_DEFAULT_CHUNK, executor=None, prog: _Progress | None = None
                  ) -> list[Estimate]:
    """:func:`estimate` for several selections on the same fresh draws, selection j at level
    ``alphas[j]``: each bound is valid at its own level, so all of them together hold with
    probability ≥ 1 − Σ alphas (union bound).  The selections must share their test (one kind of
    draw count); a Poisson count's λ is set by the smallest level."""
    if len(selections) != len(alphas) or not selections:
        raise ValueError(f"selections and alphas must be non-empty and of one length, got {len(selections)} and "
                         f"{len(alphas)}")
    alphas = tuple(check_confidence(a, "alphas") for a in alphas)  # each level in (0, 1)
    if sum(alphas) >= 1:
        raise ValueError(f"alphas must sum to less than 1, got {alphas!r}")
    tests = {sel.test for sel in selections}
    if len(tests) > 1:
        raise ValueError(f"selections estimated on the same draws must share their test, got {sorted(tests)}")
    ev = tuple(e for sel in selections for e in sel.events)
    prog = prog or _Progress(None, 0)
    poisson = tests == {"poisson"}
    if poisson and delta > 0:
        raise ValueError(f"the Poisson test needs delta = 0, got delta={delta!r}")
    n_draws, over = [n_est, n_est], 0.0
    if poisson:
        lam, over = poisson_draws(n_est, _POISSON_ETA * min(alphas))
        for i in (0, 1):  # the draw counts, each from its own stream
            g = np.random.default_rng(np.random.SeedSequence(entropy, spawn_key=(*key, 2, i)))
            n_draws[i] = min(int(g.poisson(lam)), n_est)  # proof: poisson-cap
    c = []  # c[i][e]: draws of input i falling in event e
    for i in (0, 1):
        sizes = _sizes(n_draws[i], chunk_size) if n_draws[i] else []
        tasks = [_CountEvent(_ChunkJob(mechanism, data[i], m, entropy, (*key, i, j), stat), ev)
                 for j, m in enumerate(sizes)]
        c.append(np.sum(_run(tasks, executor, prog, sizes), axis=0).astype(np.int64) if tasks
                 else np.zeros(len(ev), np.int64))
    out, pos = [], 0
    for selection, alpha in zip(selections, alphas):
        m = len(selection.events)
        out.append(_bound(selection, [c[0][pos:pos + m], c[1][pos:pos + m]], n_draws, alpha, over, delta))
        pos += m
    return out


def _bound(selection: Selection, c, n_draws, alpha: float, over: float, delta: float) -> Estimate:
    """One selection's test from its events' counts ``c[i][e]`` on ``n_draws[i]`` draws of input i."""
    if selection.choice == "both":
        k = [int(c[0][0] + c[1][1]), int(c[1][0] + c[0][1])]  # proof: pooled-counts
        trials = trials_q = n_draws[0] + n_draws[1]
        level = 1.0 - math.exp(-alpha / 2.0)
    else:
        first = 0 if selection.choice == "d>d_prime" else 1
        k = [int(c[first][0]), int(c[1 - first][0])]
        trials, trials_q, level = n_draws[first], n_draws[1 - first], alpha / 2.0
    if selection.test == "poisson":
        level = alpha - 2 * over  # proof: poisson-level
        bound = float(poisson_log_ratio_lower(k[0], k[1], level)) if k[0] + k[1] else -math.inf
        # the intervals for P and Q alone (each valid given its draw count, at α/2), for the report
        p_lo = float(clopper_pearson_lower(k[0], max(trials, 1), alpha / 2)) if trials else 0.0
        q_hi = float(clopper_pearson_upper(k[1], max(trials_q, 1), alpha / 2)) if trials_q else 1.0
        return Estimate(k[0], k[1], trials, level, p_lo, q_hi, max(0.0, bound), trials_q, "poisson")
    p_lo = float(clopper_pearson_lower(k[0], trials, level))
    q_hi = float(clopper_pearson_upper(k[1], trials, level))
    eps_lb = math.log((p_lo - delta) / q_hi) if p_lo > delta else 0.0  # proof: eps-lb
    return Estimate(k[0], k[1], trials, level, p_lo, q_hi, max(0.0, eps_lb), trials_q, "binomial")


# --------------------------------------------------------------------------- the auditor


@proven("proofs/audit/auditor_validity.md")
def epsilon_lower_bound(
    mechanism: Callable,
    d: Any,
    d_prime: Any,
    *,
    samples: int,
    confidence: float = 0.99,
    delta: float = 0.0,
    rng=None,
    statistic: Callable | str | None = None,
    selection_fraction: float = 0.5,
    chunk_size: int = _DEFAULT_CHUNK,
    executor=None,
    progress: Callable[[int, int], None] | None = None,
) -> AuditResult:
    """A lower bound on the ε of ``mechanism`` at δ, valid with probability ≥ ``confidence``.

    Parameters
    ----------
    mechanism : callable ``mechanism(data, rng, n)`` returning n independent outputs along
        axis 0 (numbers, or arrays when ``statistic`` maps them to numbers)
    d, d_prime : neighbouring inputs, passed unchanged (numpy arrays as read-only copies)
    samples : outputs drawn per input, split into selection and estimation parts
    confidence : 1 − α; the bound exceeds the true ε with probability at most α
    delta : the δ of the claim being audited, in [0, 1)
    rng : numpy Generator, int seed or None — every chunk gets its own child seed
        (SeedSequence spawn key), so for a given seed and ``chunk_size`` the result is
        the same whether chunks run locally, in threads, processes or on Dask workers
    statistic : None (outputs are scalars), a callable ``outputs -> (n,) numbers`` (a
        projection, :class:`PatternCode`, ...), or ``"classifier"`` (a logistic
        regression trained on part of the selection sample, DP-Sniper style)
    selection_fraction : share of ``samples`` used to choose the event (default one half)
    chunk_size : outputs per chunk; memory stays O(chunk_size)
    executor : optional ``concurrent.futures``-style executor (e.g. a dask Client)
    progress : optional callback ``progress(done, total)`` (samples drawn so far)

    Returns
    -------
    AuditResult with ``.epsilon``, ``.event``, counts, intervals and ``.verdict(claimed)``.

    Example
    -------
    >>> from dpverify.audit.mechanisms import LaplaceMechanism
    >>> r = epsilon_lower_bound(LaplaceMechanism(epsilon=1.0), 0.0, 1.0, samples=200_000, rng=0)
    >>> 0.9 < r.epsilon <= 1.0, r.verdict(1.0).value
    (True, 'inconclusive')
    """
    if not callable(mechanism):
        raise TypeError(f"mechanism must be callable mechanism(data, rng, n), got {type(mechanism).__name__}")
    samples = check_positive_int(samples, "samples")
    if samples < 2:
        raise ValueError(f"samples must be >= 2 (selection and estimation need one each), got {samples}")
    conf = check_confidence(confidence)
    delta = check_delta(delta)
    frac = check_real(selection_fraction, "selection_fraction")
    if not 0 < frac < 1:
        raise ValueError(f"selection_fraction must be in (0, 1), got {selection_fraction!r}")
    chunk_size = check_positive_int(chunk_size, "chunk_size")
    if statistic is not None and not callable(statistic) and statistic != "classifier":
        raise ValueError(f"statistic must be None, a callable or 'classifier', got {statistic!r}")
    if progress is not None and not callable(progress):
        raise TypeError(f"progress must be callable or None, got {type(progress).__name__}")
    if executor is not None and not hasattr(executor, "submit"):
        raise TypeError(f"executor must have a submit() method, got {type(executor).__name__}")

    g = as_generator(rng)
    entropy = int(g.integers(0, 2**63 - 1))
    n_sel = min(max(1, int(round(samples * frac))), samples - 1)
    n_est = samples - n_sel
    alpha = 1.0 - conf
    data = (_readonly(d), _readonly(d_prime))
    prog = _Progress(progress, 2 * samples)

    # ---- selection: (optional classifier), pilot chunk -> bins, then all counts
    stat = statistic
    train_n = 0
    if statistic == "classifier":
        train_n = min(_CLASSIFIER_TRAIN, max(1, n_sel // 2))
        if n_sel - train_n < 1:
            raise ValueError(f"samples={samples} is too small for statistic='classifier'")
        outs = [_ChunkJob(mechanism, data[i], train_n, entropy, (0, i), None).outputs() for i in (0, 1)]
        stat = _fit_classifier(outs[0], outs[1])
        prog.add(2 * train_n)
    binner, counts = count_selection(mechanism, data, n_sel - train_n, entropy, stat, chunk_size=chunk_size,
                                     executor=executor, prog=prog)
    sel = select_event(binner, counts, n_est=n_est, alpha=alpha, delta=delta)

    # ---- estimation: fresh samples, the chosen event(s), two Clopper–Pearson bounds (Bonferroni)
    k_p, k_q, trials, _, p_lo, q_hi, eps_lb, _, _ = estimate(mechanism, data, sel, n_est, entropy, stat,
                                                             alpha=alpha, delta=delta, chunk_size=chunk_size,
                                                             executor=executor, prog=prog)
    return AuditResult(
        epsilon=eps_lb,
        event=sel.events[0],
        direction=sel.choice,
        count_p=k_p,
        count_q=k_q,
        n_estimation=n_est,
        n_trials=trials,
        event_reverse=sel.events[1] if len(sel.events) > 1 else None,
        n_selection=n_sel,
        p_interval=(p_lo, 1.0),
        q_interval=(0.0, q_hi),
        confidence=conf,
        delta=delta,
        seed_entropy=entropy,
        selection_score=sel.score,
    )
