"""The steps of one :func:`~dpverify.audit.audit` after its plan: screening rounds, the quick check,
and the final audit's selection and estimation stages (the method: :mod:`dpverify.audit.api`).

:class:`AuditRun` holds what the steps share — the draws made at each distinct input, the tests made
(:class:`~dpverify.audit.report.Stage`) and the level left after a quick check — and each step is one
method.  Every draw is seeded by its stream (``dpverify.audit.plan.SEED_*``) and key alone, so the
result does not depend on where a job ran.

Example
-------
>>> from dpverify.audit.plan import make_plan
>>> from dpverify.audit.suite import Laplace
>>> m = Laplace(1.0)
>>> plan = make_plan(m, None, samples=20_000, rng=0, statistic="auto", stop_early=True)
>>> run = AuditRun(m, plan, claimed=1.0, delta=0.0, alpha=0.01, statistic="auto", stop_early=True)
>>> best, stopped = run.screen()
>>> stopped, best.index in range(len(plan.pairs)), int(run.drawn.max()) <= 20_000
(False, True, True)
"""

from __future__ import annotations

import numpy as np

from dpverify.audit.chunks import ChunkJob, Progress, held_bound
from dpverify.audit.classifiers import LogLikelihoodRatio
from dpverify.audit.events import Binner, PatternCode
from dpverify.audit.plan import (SEED_HOLDOUT, SEED_PROBE, SEED_QUICK, SEED_SCREEN, SEED_SELECT, SEED_STAGE,
                                 SEED_TRAIN, SEL_SHARE, Plan)
from dpverify.audit.projections import CoordinateSum, Projection, SignCount, StateCounts
from dpverify.audit.words import statistic_subject
from dpverify.audit.report import Stage
from dpverify.audit.screening import (FIXED_STATISTICS, TRAINED_KIND, Screened, ScreenJob, apply_statistic,
                                      available_tests, fitted_statistics, minimum_count, score_statistic, statistic_candidates)
from dpverify.audit.selection import count_selection, select_event, structural_minimum
from dpverify.audit.sequential import stage_plan
from dpverify.audit.statistical import estimate, estimate_each

__all__ = ["AuditRun"]

QUICK_ALPHA = 0.05  # the quick check's share of α
SEL_SHARE_FIXED = 0.15  # selection draws of a fixed statistic (its screening values count towards it)
TRAIN_MAX = 200_000
MIN_COUNT_CAP = 400  # the most draws the final selection requires of an event (rarer events stay choosable
# on large samples; measured: without the cap LaplaceParallel's sign count at 400k draws 0.38, with it 0.49)
# A final stage also tests a "safe" event — chosen on the same selection draws with their noise
# weighted SAFE_PENALTY times, so a large event — at SAFE_SHARE of the stage's level, the chosen
# event taking the rest.  A tail event that looked lucky on the selection draws then costs the
# bound little.  Measured with the pair searched, 10^6 draws, 90 %, seeds 1000–1039: Laplace(0.1)
# mean 0.0943 → 0.0967 and minimum 0.0124 → 0.0929 (seed 1001 had chosen a tail of 0.3 % of the
# draws; now 0.0981); OneTimeRappor mean 0.6349 → 0.6605, minimum 0.4431 → 0.4960.
SAFE_PENALTY = 8.0
SAFE_SHARE = 0.1
# rows per chunk of the final audit's draws: measured on SVT34Parallel's 20-wide outputs with its
# logistic score, 2^17 rows cost 1.38 µs a draw against 1.72 µs at 2^19 (the chunk stays in cache)
CHUNK = 1 << 17

FIXED = (CoordinateSum, LogLikelihoodRatio, PatternCode, Projection, SignCount, StateCounts) + FIXED_STATISTICS


def _same_events(a, b) -> bool:
    """Two selections with the same events in the same direction (then one test suffices)."""
    return a.choice == b.choice and len(a.events) == len(b.events) and all(
        e.same_as(f) for e, f in zip(a.events, b.events))


def same_statistic(a, b) -> bool:
    """The same statistic: the same object, or equal by value (pattern codes, projections, identity).

    >>> same_statistic(PatternCode(), PatternCode()), same_statistic(None, PatternCode())
    (True, False)
    """
    if a is b:
        return True
    try:
        return type(a) is type(b) and type(a).__eq__ is not object.__eq__ and bool(a == b)
    except (TypeError, ValueError):
        return False


def executor_width(executor) -> int:
    """Screening jobs kept in flight on ``executor``: twice its workers (a process pool's, a dask
    cluster's), at least 4.

    >>> from concurrent.futures import ThreadPoolExecutor
    >>> with ThreadPoolExecutor(3) as ex:
    ...     executor_width(ex), executor_width(None)
    (6, 4)
    """
    n = getattr(executor, "_max_workers", None)
    client = getattr(executor, "client", executor)
    if n is None and hasattr(client, "scheduler_info"):
        try:
            n = len(client.scheduler_info().get("workers", {}))
        except Exception:  # a client that cannot say: the default
            n = None
    return max(4, 2 * int(n or 2))


def _fixed_events(stat, values, n_est: int, alpha: float, delta: float, n_check: int):
    """``score_statistic(stat, values, n_est, alpha, delta, n_check=n_check, cap=MIN_COUNT_CAP)`` and the
    same at ``penalty=SAFE_PENALTY`` with its test (the safe event), on one binning of the checked values."""
    t0, t1 = values if values[0].dtype.kind == values[1].dtype.kind else (v.astype(float) for v in values)
    binner = Binner(np.concatenate([t0, t1]), categorical=bool(getattr(stat, "categorical", False)))
    counts = [binner.count_halves(t0), binner.count_halves(t1)]
    min_count = structural_minimum(len(t0), n_est) if getattr(stat, "structural_zeros", False) else \
        minimum_count(len(t0), n_check, MIN_COUNT_CAP)  # the screening's rule, scaled to these values (ranking only)
    sel = select_event(binner, counts, n_est=n_est, alpha=alpha, delta=delta,  # proof: screened-event
                       min_count=min_count, confirm=True, tests=available_tests(delta))
    return sel, select_event(binner, counts, n_est=n_est, alpha=alpha, delta=delta, min_count=min_count, confirm=True,
                             penalty=SAFE_PENALTY, tests=(sel.test,))


def _train(mechanism, kind, pair, n, entropy, key, g):
    outs = [ChunkJob(mechanism, pair[i], n, entropy, (*key, i), None).outputs() for i in (0, 1)]
    return fitted_statistics(kind, outs[0], outs[1], g)


class AuditRun:
    """The state one audit's steps share, and the steps (the module's docstring has a run of
    :meth:`screen`).

    >>> from dpverify.audit.plan import make_plan
    >>> m = lambda d, rng, n: rng.laplace(d, 1.0, n)
    >>> plan = make_plan(m, [(0.0, 1.0)], samples=10_000, rng=0, statistic=np.asarray, stop_early=True)
    >>> run = AuditRun(m, plan, claimed=1.0, delta=0.0, alpha=0.01, statistic=np.asarray, stop_early=True)
    >>> run.final(0, None); [s.kind for s in run.stages][:1], int(run.drawn.max())
    (['stage 1'], 10000)
    """

    def __init__(self, mechanism, plan: Plan, *, claimed: float, delta: float, alpha: float, statistic,
                 stop_early: bool, executor=None, progress=None):
        from dpverify.audit.screening import STATISTICS
        from dpverify.audit.plan import Plan
        from dpverify.audit.selection import check_alpha
        from dpverify.validation import check_bool, check_delta, check_epsilon

        if not (callable(mechanism) or hasattr(mechanism, "sample")):
            raise TypeError(f"mechanism must be callable mechanism(data, rng, n) or have .sample, got "
                            f"{type(mechanism).__name__}")
        if not isinstance(plan, Plan) and not all(hasattr(plan, a) for a in ("n_inputs", "total", "entropy")):
            raise TypeError(f"plan must be a Plan (make_plan's), got {type(plan).__name__}")
        claimed, delta, alpha = check_epsilon(claimed, "claimed"), check_delta(delta), check_alpha(alpha)
        if not (callable(statistic) or isinstance(statistic, str) and statistic in STATISTICS):
            raise ValueError(f"unknown statistic {statistic!r}; valid: {', '.join(STATISTICS)} or a callable")
        stop_early = check_bool(stop_early, "stop_early")
        if executor is not None and not callable(getattr(executor, "submit", None)):
            raise TypeError(f"executor must have a submit() method or be None, got {type(executor).__name__}")
        if progress is not None and not callable(progress):
            raise TypeError(f"progress must be callable as progress(done, total) or None, got {type(progress).__name__}")
        self.mechanism, self.plan, self.statistic, self.executor = mechanism, plan, statistic, executor
        self.claimed, self.delta, self.alpha, self.alpha_rest = claimed, delta, alpha, alpha
        self.stop_early = stop_early
        # draws made at each distinct input, from those the plan made already (a local search's, when it ran)
        before = getattr(plan, "drawn_before", ())
        self.drawn = np.array(before, dtype=np.int64) if len(before) == plan.n_inputs else \
            np.zeros(plan.n_inputs, dtype=np.int64)
        self.prog = Progress(progress, plan.total)
        self.stages: list[Stage] = []
        self.screened: list[tuple] = []  # (round, pair, statistic name, score) of every screening job
        self.history: dict[int, list[Screened]] = {}  # a pair's screening results, round by round
        self.quick_done = False
        # why the audit stopped, and whether before its last planned test (the report's stop_reason, early_stop)
        self.stop_reason, self.early_stop = "", False
        self.capped = getattr(plan, "screen_cap", 0)  # a screening round's draws per input capped by memory (0: none)

    def record(self, name, kind, sel, est, n, level, stat=None) -> bool:
        """Keep one test's outcome; whether it refutes the claim."""
        self.stages.append(Stage(kind, name, sel.events, sel.choice, n, level, est.k_p, est.k_q, est.trials,
                                 est.p_lower, est.q_upper, est.eps_lb, test=est.test, trials_q=est.trials_q,
                                 subject=statistic_subject(name, stat)))
        return est.eps_lb > self.claimed

    def stopped(self, reason: str, early: bool) -> None:
        """Note why the audit stopped (``early``: before its last planned test, so a full audit —
        ``stop_early=False`` — may give a larger bound)."""
        self.stop_reason, self.early_stop = reason, early

    def _share(self, n: int) -> str:
        """``n`` draws per input, with its share of the budget."""
        pct = 100.0 * n / self.plan.samples
        return f"{n:,} draws per input, {pct:.2g} % of the budget"

    # ---- 1. screening by successive elimination

    def screen(self) -> tuple[Screened | None, bool]:
        """Screening rounds (``elimination_schedule``): every round on its own fresh samples and at the
        same cost, the best quarter of the pairs go on with more draws each; each pair's statistic and
        event are scored on draws that did not choose them.  The first candidate that promises a
        refutation at the quick check's size is checked at once.  Returns (the winner, whether the
        quick check refuted)."""
        plan, best = self.plan, None
        alive, n_r, r = list(range(len(plan.pairs))), plan.n_screen, 0
        while plan.n_screen and alive:
            results, stopped = self.screen_round(r, alive, n_r)
            if stopped:
                return results[-1], True
            results.sort(key=lambda s: -s.score)
            best = results[0]
            if len(alive) <= 2:  # the last round compares the two finalists
                break
            keep: list[int] = []
            for res in results:
                if res.index not in keep:
                    keep.append(res.index)
            r += 1
            alive = keep[: plan.schedule[r]]
            n_r = plan.round_size(len(alive))
        return best, False

    def screen_round(self, r: int, alive: list[int], n_r: int) -> tuple[list[Screened], bool]:
        """Round ``r``: one job per pair still alive, consumed in pair order.

        Each pair its own draws, even of an input it shares with other pairs: pairs compared on one
        sample of their common input would rise and fall together, and a round could drop them all
        on one unlucky sample (the shared input's draws all count against its budget).  Measured at
        10^7, seeds 0–9, with draws shared per input and round: the final audits got 86 % of the
        budget instead of 69–86 %, yet weak pairs won screening — mean bound SVT1 0.083 → 0.072,
        SVT2 0.086 → 0.065, SVT4 0.162 → 0.139 (ReportNoisyMax1 0.0919 → 0.0927)."""
        plan = self.plan
        jobs = [ScreenJob(self.mechanism, self.statistic, plan.pairs[p], n_r, plan.entropy, (SEED_SCREEN, r, p),
                          n_est=plan.n_est, n_quick=plan.n_quick, alpha=self.alpha, delta=self.delta,
                          n_small=plan.n_small, index=p) for p in alive]
        futures: dict = {}
        results: list[Screened] = []
        for j, p in enumerate(alive):
            res = self._result(jobs, j, futures)
            m = res.n or n_r  # the draws the job made (fewer where the memory budget capped them)
            self.capped = min(self.capped or m, m) if m < n_r else self.capped
            for i in (0, 1):
                self.drawn[plan.ix[p][i]] += m
            self.prog.add(2 * m)
            self.screened.append((r, p, res.name, res.score))
            self.history.setdefault(p, []).append(res)
            results.append(res)
            if plan.n_quick and not self.quick_done and res.score_quick > self.claimed and self.quick(res):
                for f in futures.values():  # jobs in flight (their draws are not used, nor counted)
                    f.cancel()
                return results, True  # refuted after this pair's screening draws: nothing else is used
        return results, False

    def _result(self, jobs, j: int, futures: dict) -> Screened:
        """Job j's result; on an executor, the next few jobs are kept in flight (not the whole round:
        a quick check that refutes then waits behind a few jobs, not all of them)."""
        if self.executor is None:
            return jobs[j]()
        for k in range(j, min(len(jobs), j + executor_width(self.executor))):
            if k not in futures:
                futures[k] = self.executor.submit(jobs[k])
        return futures.pop(j).result()

    # ---- 2. the quick check

    def quick(self, candidate: Screened) -> bool:
        """The quick check of a screening winner on fresh samples, at level 0.05·α (spent once);
        whether it refutes and the audit stops there."""
        plan, a_q = self.plan, QUICK_ALPHA * self.alpha
        self.alpha_rest = self.alpha - a_q  # proof: quick-alpha
        self.quick_done = True  # one quick check per audit: its level is spent once
        est = estimate(self.mechanism, plan.pairs[candidate.index], candidate.selection, plan.n_quick, plan.entropy,
                       candidate.statistic, alpha=a_q, delta=self.delta, key=(SEED_QUICK,), prog=self.prog,
                       chunk_size=CHUNK, executor=self.executor)
        np.add.at(self.drawn, list(plan.ix[candidate.index]), plan.n_quick)  # at most n_quick each (Poisson caps)
        refuted = self.record(candidate.name, "quick check", candidate.selection, est, plan.n_quick, a_q,
                              candidate.statistic)
        if refuted and self.stop_early:
            self.stopped(f"refuted at the quick check ({self._share(plan.n_quick)})", True)
        return refuted and self.stop_early

    # ---- 3. the final audit

    def final(self, p: int, best: Screened | None) -> None:
        """The final audit of pair ``p``: (re)train, select, estimate in stages, on the rest of its
        inputs' budgets (a pair of two equal inputs draws it twice at that one input)."""
        plan = self.plan
        i0, i1 = plan.ix[p]
        n_final = max(2000, (plan.samples - int(self.drawn[i0])) // 2 if i0 == i1
                      else plan.samples - int(self.drawn[[i0, i1]].max()))
        self.prog.total = self.prog.done[0] + 2 * n_final
        n_sel = max(500, int(SEL_SHARE * n_final))
        fixed = best is not None and self.statistic == "auto" and (best.statistic is None
                                                                   or isinstance(best.statistic, FIXED))
        if fixed:
            name, stat = best.name, best.statistic
            sel, safe, n_sel = self.fixed_selection(p, best, n_final)
        else:
            name, stat, used = self.final_statistic(plan.pairs[p], best, n_sel, n_final - n_sel)
            sel, safe = self.select(plan.pairs[p], stat, n_sel - used, n_final - n_sel)
        spent = self.estimate_stages(name, stat, plan.pairs[p], sel, safe, n_final - n_sel)
        np.add.at(self.drawn, list(plan.ix[p]), n_sel + spent)

    def fixed_selection(self, p: int, best: Screened, n_final: int):
        """A fixed statistic as it was screened, its event chosen on the winner's screening values (every
        round whose statistic was the same), topped up with fresh selection draws to ``SEL_SHARE_FIXED``
        of the final budget; no training.  Returns (selection, safe selection, fresh draws)."""
        plan, stat = self.plan, best.statistic
        rounds_same = [h.values for h in self.history[p] if h.name == best.name and same_statistic(h.statistic, stat)]
        cap = held_bound()  # the values are held in memory: at most what fits the memory budget
        values = [np.concatenate([v[i] for v in rounds_same])[:cap] for i in (0, 1)]
        n_sel = max(0, min(int(SEL_SHARE_FIXED * n_final), cap) - len(values[0]))
        n_est = n_final - n_sel
        if n_sel:
            fresh = [ChunkJob(self.mechanism, plan.pairs[p][i], n_sel, plan.entropy, (SEED_SELECT, i), None).outputs()
                     for i in (0, 1)]
            self.prog.add(2 * n_sel)
            values = [np.concatenate([values[i], apply_statistic(stat, fresh[i])]) for i in (0, 1)]
        sel, safe = _fixed_events(stat, values, n_est, self.alpha_rest, self.delta, plan.n_small // 2)
        return sel, safe, n_sel

    def final_statistic(self, pair, best: Screened | None, n_sel: int, n_est: int):
        """The final audit's statistic when it is learned (or given): the candidates a probe offers —
        with ``statistic="auto"`` the screened kind only — trained on fresh draws, the best on held-out
        draws.  Returns (name, statistic, selection draws spent).

        Measured at 10^7, seed 0: with trees as the logistic's rival no mechanism of the suite chose
        them, yet their training and held-out draws cost SVT34Parallel 6 s (64 s → 58 s, bound 0.261 →
        0.283); where trees did win (SVT34Parallel with half the screening training draws) the bound
        was 0.099 and applying them to every draw took the audit to 145 s."""
        plan = self.plan
        n_probe = min(n_sel // 4, 20_000, held_bound())
        probe = [ChunkJob(self.mechanism, pair[i], n_probe, plan.entropy, (SEED_PROBE, i), None).outputs()
                 for i in (0, 1)]
        self.prog.add(2 * n_probe)
        options = statistic_candidates(self.statistic, self.mechanism, pair, probe, final=True)
        if best is not None and self.statistic == "auto":
            # the probe may not offer the screened kind (a classifier screened on many patterns, a
            # probe showing few): then every candidate the probe offers is tried
            options = [o for o in options if o[0] == TRAINED_KIND.get(best.name, best.name)] or options
        used = n_probe
        if any(isinstance(s, str) for _, s in options):
            options, spent = self.train(pair, options, n_sel, n_est)
            used += spent
        name, stat = options[0]
        return name, stat, used

    def train(self, pair, options, n_sel: int, n_est: int):
        """Train every named kind among ``options`` (fresh draws each), then keep the best on held-out
        draws when more than one remains.  Returns ([(name, statistic)], draws spent per input)."""
        plan, used = self.plan, 0
        n_train = min(TRAIN_MAX, n_sel // 5, held_bound())  # per trained model
        n_hold = min(50_000, n_train // 4)
        trained = []
        for j, (name, kind) in enumerate(options):
            if not isinstance(kind, str):
                trained.append((name, kind))
                continue
            trained += _train(self.mechanism, kind, pair, n_train, plan.entropy, (SEED_TRAIN, j), plan.generator)
            self.prog.add(2 * n_train)
            used += n_train
        if len(trained) > 1:
            hold = [ChunkJob(self.mechanism, pair[i], n_hold, plan.entropy, (SEED_HOLDOUT, i), None).outputs()
                    for i in (0, 1)]
            scores = [score_statistic(s, [apply_statistic(s, h) for h in hold], n_est, self.alpha, self.delta).score
                      for _, s in trained]
            trained = [trained[int(np.argmax(scores))]]
            self.prog.add(2 * n_hold)
            used += n_hold
        return trained, used

    def select(self, pair, stat, n_count: int, n_est: int):
        """The event of a learned (or given) statistic, chosen on ``n_count`` fresh selection draws per
        input with the screening's minimum-count rule at this size; and the safe event beside it."""
        plan = self.plan
        binner, counts = count_selection(self.mechanism, pair, n_count, plan.entropy, stat, key=(SEED_SELECT,),
                                         prog=self.prog, chunk_size=CHUNK, executor=self.executor)
        min_count = minimum_count(int(counts[0].sum()), plan.n_small // 2, MIN_COUNT_CAP)
        sel = select_event(binner, counts, n_est=n_est, alpha=self.alpha_rest, delta=self.delta, confirm=True,
                           tests=available_tests(self.delta), min_count=min_count)
        safe = select_event(binner, counts, n_est=n_est, alpha=self.alpha_rest, delta=self.delta, confirm=True,
                            tests=(sel.test,), min_count=min_count, penalty=SAFE_PENALTY)
        return sel, safe

    def estimate_stages(self, name, stat, pair, sel, safe, n_est: int) -> int:
        """Estimate in stages with error spending when the audit may stop at a refutation; one test at
        the whole level when it may not (``stop_early=False``: early stages could then only cost
        confidence).  The chosen event and, when it differs, the safe one, on the same draws.
        Returns the estimation draws made per input."""
        a = self.alpha_rest
        steps = stage_plan(n_est, a) if self.stop_early else [(n_est, a)]  # proof: one-stage
        sels = (sel,) if _same_events(sel, safe) or safe.test != sel.test else (sel, safe)
        spent = 0
        for k, (m, a_k) in enumerate(steps):
            levels = (a_k,) if len(sels) == 1 else ((1 - SAFE_SHARE) * a_k, SAFE_SHARE * a_k)  # proof: safe-split
            ests = estimate_each(self.mechanism, pair, sels, m, self.plan.entropy, stat, alphas=levels,
                                 delta=self.delta, key=(SEED_STAGE + k,), prog=self.prog, chunk_size=CHUNK,
                                 executor=self.executor)
            spent += m
            refuted = [self.record(name, f"stage {k + 1}" + (" (safe event)" if j else ""), s_, e_, m, lv, stat)
                       for j, (s_, e_, lv) in enumerate(zip(sels, ests, levels))]
            if any(refuted) and self.stop_early:
                last = k + 1 == len(steps)
                self.stopped(f"refuted at stage {k + 1} of {len(steps)} of the final audit (its stages so far: "
                             f"{self._share(spent)})" + ("; the whole budget spent" if last else ""), not last)
                return spent
        self.stopped("the whole budget spent on one final test (no early stop)" if not self.stop_early else
                     f"the whole budget spent in {len(steps)} stage(s) of the final audit", False)
        return spent
