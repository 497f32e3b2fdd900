"""The statistical auditor: a lower bound on the ε a black-box mechanism really has.

Given a mechanism ``mechanism(data, rng, n)`` (n independent outputs along axis 0),
two neighbouring inputs ``d`` and ``d_prime`` and a claimed δ, the auditor

1. draws a *selection* sample from both inputs, counts it into bins of a scalar
   statistic of the output, and picks the event S (a union of bins: a threshold
   ``T ≤ t`` or ``T > t``, or the bins ordered by their observed likelihood ratio)
   and the direction (which input plays D) whose bound promises to be largest — or
   one event per direction, pooled (S1 likelier under D, S2 under D'), which doubles
   the trials for symmetric mechanisms; events whose selection count is below a
   minimum are never chosen (robust selection, ``dpverify/audit/proofs/selection.md``);
2. draws a fresh, independent *estimation* sample, counts the draws in the event(s),
   and bounds P = Pr[M(D) ∈ S] from below and Q = Pr[M(D') ∈ S] from above (pooled:
   P = (Pr[M(D) ∈ S1] + Pr[M(D') ∈ S2])/2, Q the swap) with one-sided Clopper–Pearson
   intervals, each at level 1 − α/2 (Bonferroni over the two estimated quantities,
   α = 1 − confidence; level 1 − (1 − e^{−α/2}) when pooled);
3. reports ε_lb = ln((P_lower − δ) / Q_upper)  (0 when P_lower ≤ δ).

If the mechanism is (ε, δ)-DP then P ≤ e^ε Q + δ for every fixed S (and for the pooled
pair), and the events are fixed before the estimation sample is drawn, so
Pr[ε_lb > ε] ≤ α.  The argument is written out in ``dpverify/audit/proofs/auditor_validity.md``.
The phases are separate functions — the selection in :mod:`dpverify.audit.selection`
(:func:`~dpverify.audit.selection.select_event`), the estimation here (:func:`estimate`) — so that
:func:`dpverify.audit.audit` can search pairs and spend its budget sequentially.

Reference: the survey of Zhu et al. (definition of (ε, δ)-DP); SPEC part D; Ding et al., CCS 2018
("Detecting violations of differential privacy") for the select/estimate split.
"""

from __future__ import annotations

import math
from typing import Any, Callable, NamedTuple

import numpy as np

from dpverify.budget import check_work
from dpverify.validation import as_generator, check_confidence, check_delta, check_positive_int, check_real
from dpverify.audit.chunks import (DEFAULT_CHUNK, ChunkJob, CountEvent, Progress, chunk_sizes, held_bound, readonly,
                                   run_tasks)
from dpverify.audit.classifiers import fit_classifier
from dpverify.audit.errors import MechanismError
from dpverify.audit.events import Event, PatternCode
from dpverify.audit.intervals import (clopper_pearson_lower, clopper_pearson_upper, poisson_draws,
                                      poisson_log_ratio_lower)
from dpverify.audit.result import AuditResult
from dpverify.audit.selection import Selection, count_selection, select_event
from dpverify.claims.model import note_sampling
from dpverify.proofdocs import proven
from dpverify.mechanisms.convert import sampler

__all__ = [
    "AuditResult",
    "Event",
    "MechanismError",
    "clopper_pearson_lower",
    "clopper_pearson_upper",
    "epsilon_lower_bound",
    "PatternCode",
]

_CLASSIFIER_TRAIN = 50_000
# the seed streams of epsilon_lower_bound's draws (the first entry of each chunk's spawn key; its
# selection draws: dpverify.audit.selection.SEED_SELECTION = 1)
SEED_CLASSIFIER = 0  # training draws of statistic="classifier": (SEED_CLASSIFIER, input)
SEED_ESTIMATION = 2  # estimation draws: (SEED_ESTIMATION, input, chunk); Poisson counts (.., 2, input)


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
             delta: float, key=(SEED_ESTIMATION,), chunk_size=DEFAULT_CHUNK, executor=None, prog: Progress | None = None
             ) -> Estimate:
    """Count fresh draws in the selected event(s) and bound ε at level ``alpha`` (:class:`Estimate`).

    Binomial test: n_est draws per input, P bounded below and Q above by Clopper–Pearson at α/2 each.
    Poisson test (``selection.test == "poisson"``, δ = 0): N ~ Poisson(λ) draws per input, λ the largest
    mean with Pr[N > n_est] ≤ η = 10⁻³·α (the draws are capped at n_est, which costs at most 2η of
    the level); the conditional bound on ln(P/Q) at α − 2η (``dpverify/audit/proofs/auditor_validity.md``, step 7).
    """
    return estimate_each(mechanism, data, (selection,), n_est, entropy, stat, alphas=(alpha,), delta=delta,
                         key=key, chunk_size=chunk_size, executor=executor, prog=prog)[0]


def estimate_each(mechanism, data, selections, n_est: int, entropy: int, stat, *, alphas, delta: float,
                  key=(SEED_ESTIMATION,), chunk_size=DEFAULT_CHUNK, executor=None, prog: Progress | None = None
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
    prog = prog or Progress(None, 0)
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
        sizes = chunk_sizes(n_draws[i], chunk_size) if n_draws[i] else []
        tasks = [CountEvent(ChunkJob(mechanism, data[i], m, entropy, (*key, i, j), stat), ev)
                 for j, m in enumerate(sizes)]
        c.append(np.sum(run_tasks(tasks, executor, prog, sizes), axis=0).astype(np.int64) if tasks
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


@proven("audit/auditor_validity.md")
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
    chunk_size: int = DEFAULT_CHUNK,
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
    mechanism = sampler(mechanism)  # a Mechanism through as_mechanism (made callable); a callable as is
    samples, conf, delta, frac, chunk_size = _checked(mechanism, samples=samples, confidence=confidence, delta=delta,
                                                      selection_fraction=selection_fraction, chunk_size=chunk_size,
                                                      statistic=statistic, progress=progress, executor=executor)
    note_sampling("audit")  # a claim that calls this rests on sampling: the claims engine records it
    g = as_generator(rng)
    entropy = int(g.integers(0, 2**63 - 1))
    n_sel = min(max(1, int(round(samples * frac))), samples - 1)
    n_est = samples - n_sel
    alpha = 1.0 - conf
    data = (readonly(d), readonly(d_prime))
    prog = Progress(progress, 2 * samples)
    # ---- selection: (optional classifier), pilot chunk -> bins, then all counts
    stat, train_n = _statistic(mechanism, data, statistic, n_sel, samples, entropy, prog)
    binner, counts = count_selection(mechanism, data, n_sel - train_n, entropy, stat, chunk_size=chunk_size,
                                     executor=executor, prog=prog)
    sel = select_event(binner, counts, n_est=n_est, alpha=alpha, delta=delta)
    # ---- estimation: fresh samples, the chosen event(s), two Clopper–Pearson bounds (Bonferroni)
    est = estimate(mechanism, data, sel, n_est, entropy, stat, alpha=alpha, delta=delta, chunk_size=chunk_size,
                   executor=executor, prog=prog)
    return AuditResult(epsilon=est.eps_lb, event=sel.events[0], direction=sel.choice, count_p=est.k_p,
                       count_q=est.k_q, n_estimation=n_est, n_trials=est.trials,
                       event_reverse=sel.events[1] if len(sel.events) > 1 else None, n_selection=n_sel,
                       p_interval=(est.p_lower, 1.0), q_interval=(0.0, est.q_upper), confidence=conf, delta=delta,
                       seed_entropy=entropy, selection_score=sel.score)


def _checked(mechanism, *, samples, confidence, delta, selection_fraction, chunk_size, statistic, progress,
             executor):
    """:func:`epsilon_lower_bound`'s arguments, validated: (samples, confidence, δ, selection share, chunk)."""
    if not callable(mechanism):
        raise TypeError(f"mechanism must be callable mechanism(data, rng, n), got {type(mechanism).__name__}")
    samples = check_positive_int(samples, "samples")
    if samples < 2:
        raise ValueError(f"samples must be >= 2 (selection and estimation need one each), got {samples}")
    check_work(2 * samples, "samples (draws at two inputs)")
    conf = check_confidence(confidence)
    delta = check_delta(delta)
    frac = check_real(selection_fraction, "selection_fraction")
    if not 0 < frac < 1:
        raise ValueError(f"selection_fraction must be in (0, 1), got {selection_fraction!r}")
    if round(samples * frac) < 1:  # not one selection draw: no event could be chosen
        raise ValueError(f"selection_fraction must leave at least one selection draw of the samples = {samples}, "
                         f"got {selection_fraction!r}")
    chunk_size = check_positive_int(chunk_size, "chunk_size")
    if statistic is not None and not callable(statistic) and statistic != "classifier":
        raise ValueError(f"statistic must be None, a callable or 'classifier', got {statistic!r}")
    if progress is not None and not callable(progress):
        raise TypeError(f"progress must be callable or None, got {type(progress).__name__}")
    if executor is not None and not hasattr(executor, "submit"):
        raise TypeError(f"executor must have a submit() method, got {type(executor).__name__}")
    return samples, conf, delta, frac, chunk_size


def _statistic(mechanism, data, statistic, n_sel: int, samples: int, entropy: int, prog: Progress):
    """The statistic the events are made of, and the selection draws spent on it per input:
    ``statistic="classifier"`` trains a logistic regression on the first part of the selection sample."""
    if statistic != "classifier":
        return statistic, 0
    train_n = min(_CLASSIFIER_TRAIN, max(1, n_sel // 2), held_bound())  # held in memory: within the budget
    if n_sel - train_n < 1:
        raise ValueError(f"samples={samples} is too small for statistic='classifier'")
    outs = [ChunkJob(mechanism, data[i], train_n, entropy, (SEED_CLASSIFIER, i), None).outputs() for i in (0, 1)]
    stat = fit_classifier(outs[0], outs[1])
    prog.add(2 * train_n)
    return stat, train_n
