"""audit()'s budget is per input: no input is drawn more than ``samples`` times, an input shared by
several candidate pairs is charged for every pair that draws it, and the winning pair's inputs spend the
rest of their budget on the final audit (the draws at the other pairs' inputs do not reduce it).

Every draw is counted by a wrapper around the mechanism, independently of the auditor's own
bookkeeping, so each test fails if the accounting is off.
"""

from collections import Counter

import numpy as np

from dpverify.audit import Neighbours, audit
from dpverify.audit.plan import SCREEN_SHARE
from dpverify.audit.search import distinct_inputs
from dpverify.audit.suite import NoisyHist1


class Counted:
    """A mechanism wrapper that counts the draws made at each input."""

    def __init__(self, inner):
        self.inner, self.draws = inner, Counter()
        self.name = getattr(inner, "name", "counted")
        self.ideal_arithmetic = getattr(inner, "ideal_arithmetic", False)  # the suite's: real arithmetic

    def sample(self, data, rng, n):
        self.draws[tuple(np.asarray(data, float).ravel().tolist())] += n
        return self.inner.sample(data, rng, n)


def _audit(samples=200_000, seed=0):
    m = Counted(NoisyHist1(0.5))
    rel = Neighbours(shape=(3,), kind="linf", default_domain=True)
    r = audit(m, epsilon=0.5, pairs=rel, samples=samples, rng=seed, confidence=0.9, stop_early=False)
    return m, r, None


def test_no_input_is_drawn_more_than_the_budget_and_samples_used_is_the_most_drawn():
    m, r, _ = _audit()
    most = max(m.draws.values())
    assert most <= r.samples == 200_000
    # samples_used counts each test's cap; the Poisson test draws a little less than its cap
    assert most <= r.samples_used <= r.samples and r.samples_used - most < 0.01 * r.samples


def test_winning_pair_spends_the_rest_of_its_budget():
    """The old accounting (screening over all pairs charged as if to every input) left the final 65 %
    of the budget; now the winner's more-drawn input spends all of its budget (the Poisson test's
    counts fall a little short of their cap)."""
    m, r, _ = _audit()
    winner = [m.draws[tuple(np.asarray(x, float).ravel().tolist())] for x in r.pair]
    assert 0.98 * r.samples <= max(winner) <= r.samples
    final = sum(s.n for s in r.stages if "safe" not in s.kind)  # a safe event's test shares its stage's draws
    assert final >= (1 - SCREEN_SHARE) * r.samples


def test_a_shared_input_is_charged_for_every_pair_that_draws_it():
    """Most StatDP patterns share their first input; each pair draws it afresh in screening, and all
    those draws count against that input's budget (never more than ``samples`` in total)."""
    m, r, _ = _audit()
    inputs, ix = distinct_inputs(r.pairs)  # the candidates the audit itself generated
    shared = [i for i in range(len(inputs)) if sum(i in p for p in ix) > 1]
    assert shared  # the relation's candidates do share inputs
    assert all(m.draws[tuple(np.asarray(inputs[i], float).ravel().tolist())] <= r.samples for i in shared)
    assert sum(m.draws.values()) <= 2 * SCREEN_SHARE * r.samples + 2 * r.samples


def test_distinct_inputs_keys_by_value_dtype_and_shape():
    a = np.array([1.0, 2.0])
    inputs, ix = distinct_inputs([(a, a.copy()), (a.astype(np.float32), a.reshape(2, 1)), (3, 3.0)])
    assert ix == [(0, 0), (1, 2), (3, 4)] and len(inputs) == 5


def test_screening_and_final_audit_on_an_executor_give_the_same_result():
    """Every screening job (one pair, one round) and every chunk of the final audit has its own seed: a
    process pool changes where they run, not what they draw or train (the report is equal field by
    field, time aside; SVT6's pairs come from its relation and its classifiers are trained in the
    screening jobs)."""
    from concurrent.futures import ProcessPoolExecutor

    from dpverify.audit.suite import SVT6

    m = SVT6(0.5)
    # 600k draws: the final estimate spans several 2^17-row chunks per input, so chunk order matters
    kw = dict(epsilon=0.5, samples=600_000, rng=3, confidence=0.9, stop_early=False)
    with ProcessPoolExecutor(2) as pool:
        a = audit(m, executor=pool, **kw).as_dict()
    b = audit(m, **kw).as_dict()
    assert max(st["n"] for st in b["stages"]) > 2 * (1 << 17)
    assert len(b["screened"]) > 2 and any("logistic" in s["statistic"] for s in b["screened"])
    a.pop("seconds"), b.pop("seconds")
    assert a == b


def test_executor_without_submit_is_refused():
    import pytest

    with pytest.raises(TypeError, match="executor must have a submit"):
        audit(NoisyHist1(0.5), epsilon=0.5, samples=10_000, rng=0, executor=object())


def test_a_pair_of_equal_inputs_stays_within_the_budget():
    """A pair whose two inputs are equal draws the final audit twice at that one input: its budget
    is halved between the two sides (the review found 130,000 draws at a 100,000 budget before)."""
    m = Counted(NoisyHist1(0.5))
    x = np.array([1.0, 1.0, 1.0])
    r = audit(m, epsilon=0.5, pairs=[(x, x.copy())], samples=100_000, rng=0, confidence=0.9, stop_early=False)
    assert max(m.draws.values()) <= r.samples and r.samples_used <= r.samples


class _Recording:
    """An executor that runs each task at once and records what was submitted (and cancelled)."""

    _max_workers = 1

    def __init__(self):
        self.tasks = []

    def submit(self, task):
        from concurrent.futures import Future

        self.tasks.append(type(task).__name__)
        f = Future()
        f.set_result(task())
        return f


def test_screening_jobs_run_on_the_executor():
    """The screening jobs themselves are submitted (not only the final chunks): a recording executor
    sees one ScreenJob per pair and round, and the result equals the in-process one."""
    from dpverify.audit.suite import ReportNoisyMax1

    m = ReportNoisyMax1(0.5)
    kw = dict(epsilon=0.5, samples=40_000, rng=2, confidence=0.9, stop_early=False)
    ex = _Recording()
    a = audit(m, executor=ex, **kw).as_dict()
    b = audit(m, **kw).as_dict()
    assert ex.tasks.count("ScreenJob") == len(b["screened"]) > 2
    a.pop("seconds"), b.pop("seconds")
    assert a == b


def test_a_quick_refutation_on_an_executor_submits_few_screening_jobs():
    """ReportNoisyMax3(1) (true ε 2.5, claim 1) is refuted by the quick check during the first round:
    on an executor with one worker at most 4 screening jobs are in flight at a time, so beyond the
    pairs screened only 3 were submitted, not the whole round (16 pairs); the report equals the
    in-process one."""
    from dpverify.audit.suite import ReportNoisyMax3

    kw = dict(epsilon=1.0, samples=10**6, rng=0, confidence=0.9)
    ex = _Recording()
    a = audit(ReportNoisyMax3(1.0), executor=ex, **kw)
    b = audit(ReportNoisyMax3(1.0), **kw)
    assert a.verdict().value == "refuted" and a.stages[0].kind == "quick check"
    da, db = a.as_dict(), b.as_dict()
    assert ex.tasks.count("ScreenJob") <= len(da["screened"]) + 3 < len(a.pairs)
    da.pop("seconds"), db.pop("seconds")
    assert da == db
