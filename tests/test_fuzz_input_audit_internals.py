"""Regression cases of the whole-API fuzz for the audit engine's internals that had no baseline
(issue 26, item 7: each hostile input is refused by a ValueError/TypeError naming the parameter,
and arrays standing for tuples (pairs, centres, sizes, keys, counts) are accepted."""

from __future__ import annotations

import numpy as np
import pytest

from dpverify.audit.chunks import Progress, run_tasks
from dpverify.audit.classifiers import FeatureMap, fit_score
from dpverify.audit.controls.standard import FiniteMechanism, HockeyStick
from dpverify.audit.curves import CurveAudit
from dpverify.audit.events import Binner
from dpverify.audit.float_grid import FloatReach, centres_of, float_statistics, is_float_output
from dpverify.audit.plan import make_plan
from dpverify.audit.projections import fixed_statistics
from dpverify.audit.render import zcdp_json
from dpverify.audit.renyi import ZCDPAudit
from dpverify.audit.screening import apply_statistic, fitted_statistics, score_statistic, statistic_candidates
from dpverify.audit.selection import count_selection, select_event
from dpverify.audit.stages import AuditRun

G = np.random.default_rng(0)
A, B = G.normal(1, 1, (200, 2)), G.normal(0, 1, (200, 2))
OUTS = (5.0 + G.laplace(size=100), 6.0 + G.laplace(size=100))
COUNTS = [np.array([[300, 200], [300, 200]]), np.array([[200, 300], [200, 300]])]
BIN = Binner(np.arange(2), categorical=True)
ZCDP = ZCDPAudit(0.5, 0.02, CurveAudit((0.0,), (0.1,), (0.2,), 0.99, 100, 100))
VIEW = np.broadcast_to(1.0, (1_500_000_000,))


def gauss(d, rng, n):
    return rng.normal(float(np.sum(d)), 1.0, n)


def _plan():
    return make_plan(gauss, [(0.0, 1.0)], samples=10_000, rng=0, statistic="auto", stop_early=True)


CASES = [
    ("callback", lambda: Progress("x", 10)),
    ("total", lambda: Progress(None, float("nan"))),
    ("tasks", lambda: run_tasks(3, None, Progress(None, 0), [0])),
    ("executor", lambda: run_tasks([lambda: 1], "x", Progress(None, 0), [0])),
    ("prog", lambda: run_tasks([lambda: 1], None, None, [0])),
    ("sizes", lambda: run_tasks([lambda: 1], None, Progress(None, 0), [1.5])),
    ("width", lambda: FeatureMap(float("nan"), np.zeros(0))),
    ("discrete", lambda: FeatureMap(2, np.zeros(0), "yes")),
    ("out_d", lambda: fit_score(np.float64(3.0), B, "logistic", rng=np.random.default_rng(0))),
    ("out_dp", lambda: fit_score(A, VIEW, "logistic", rng=np.random.default_rng(0))),
    ("rng", lambda: fit_score(A, B, "logistic", rng=3)),
    ("laws", lambda: FiniteMechanism(((0.5, float("nan")), (0.5, 0.5)))),
    ("laws", lambda: HockeyStick(np.broadcast_to(0.5, (100_000, 100_000)))),
    ("out", lambda: is_float_output(VIEW)),
    ("out", lambda: centres_of((5.0, 6.0), "abc")),
    ("floats_only", lambda: float_statistics((5.0, 6.0), OUTS, floats_only=None)),
    ("samples", lambda: make_plan(gauss, [(0.0, 1.0)], samples=float("inf"), rng=0, statistic="auto", stop_early=True)),
    ("stop_early", lambda: make_plan(gauss, [(0.0, 1.0)], samples=10_000, rng=0, statistic="auto", stop_early=1)),
    ("alpha", lambda: make_plan(gauss, [(0.0, 1.0)], samples=10_000, rng=0, statistic="auto", stop_early=True,
                                alpha=float("nan"))),
    ("pilot", lambda: fixed_statistics(VIEW.reshape(500_000_000, 3))),
    ("seed", lambda: zcdp_json(ZCDP, pair=(0.0, 1.0), samples=200, seconds=0.1, seed="x")),
    ("stat", lambda: apply_statistic("x", np.ones(2))),
    ("out", lambda: apply_statistic(None, None)),
    ("g", lambda: fitted_statistics("logistic", A, B, None)),
    ("outs", lambda: statistic_candidates("auto", gauss, (0.0, 1.0), (), final=True)),
    ("n_est", lambda: score_statistic(None, list(OUTS), 0, 0.05, 0.0)),
    ("penalty", lambda: score_statistic(None, list(OUTS), 4000, 0.05, 0.0, penalty=-1.0)),
    ("alpha", lambda: score_statistic(None, list(OUTS), 4000, 5e-324, 0.0)),
    ("t_sel", lambda: score_statistic(None, np.float64(1.0), 4000, 0.05, 0.0)),
    ("n_sel", lambda: count_selection(gauss, (0.0, 1.0), 0, 7, None)),
    ("chunk_size", lambda: count_selection(gauss, (0.0, 1.0), 100, 7, None, chunk_size=0)),
    ("entropy", lambda: count_selection(gauss, (0.0, 1.0), 100, -1, None)),
    ("key", lambda: count_selection(gauss, (0.0, 1.0), 100, 7, None, key=np.arange(100))),
    ("data", lambda: count_selection(gauss, (), 100, 7, None)),
    ("counts", lambda: select_event(BIN, "abc", n_est=10_000, alpha=0.05, delta=0.0)),
    ("n_est", lambda: select_event(BIN, COUNTS, n_est=0, alpha=0.05, delta=0.0)),
    ("delta", lambda: select_event(BIN, COUNTS, n_est=10_000, alpha=0.05, delta=2.0**63)),
    ("confirm", lambda: select_event(BIN, COUNTS, n_est=10_000, alpha=0.05, delta=0.0, confirm=None)),
    ("tests", lambda: select_event(BIN, COUNTS, n_est=10_000, alpha=0.05, delta=0.0, tests=None)),
    ("plan", lambda: AuditRun(gauss, None, claimed=1.0, delta=0.0, alpha=0.01, statistic="auto", stop_early=True)),
    ("claimed", lambda: AuditRun(gauss, _plan(), claimed="1", delta=0.0, alpha=0.01, statistic="auto",
                                 stop_early=True)),
    ("statistic", lambda: AuditRun(gauss, _plan(), claimed=1.0, delta=0.0, alpha=0.01, statistic=None,
                                   stop_early=True)),
]


@pytest.mark.parametrize("param,call", CASES, ids=[f"{i}-{p}" for i, (p, _) in enumerate(CASES)])
def test_hostile_input_is_refused_by_name(param, call):
    with pytest.raises((ValueError, TypeError)) as e:
        call()
    assert param in str(e.value)


def test_arrays_standing_for_tuples_are_accepted():
    ro = np.array([5.0, 6.0])
    ro.flags.writeable = False
    assert FloatReach(np.array([5.0]), np.array([6.0])) == FloatReach((5.0,), (6.0,))
    assert centres_of(ro, np.zeros(4)) == ((5.0,), (6.0,))
    assert [n for n, _ in float_statistics(ro, np.stack(OUTS))] == [n for n, _ in float_statistics((5.0, 6.0), OUTS)]
    assert run_tasks([lambda: 1, lambda: 2], None, Progress(None, 0), np.array([0, 0])) == [1, 2]
    assert zcdp_json(ZCDP, pair=np.array([0.0, 1.0]), samples=200, seconds=0.1)["pair"] == [0.0, 1.0]
    a = select_event(BIN, np.stack(COUNTS), n_est=10_000, alpha=0.05, delta=0.0)
    b = select_event(BIN, COUNTS, n_est=10_000, alpha=0.05, delta=0.0)
    assert (a.choice, a.score) == (b.choice, b.score)


def test_nan_outputs_are_still_flags_for_the_classifiers():
    x = A.copy()
    x[::5, 0] = np.nan
    assert fit_score(x, B, "logistic", rng=np.random.default_rng(0)).name == "logistic"


# ----------------------------------------------------------------------------- wave 2: contained executors

@pytest.mark.parametrize("bad", [float("nan"), None, True, "abc", 1])
def test_contained_helpers_refuse_junk_by_name(bad):
    from dpverify.audit.contained import task_mechanism_name, worker_death

    with pytest.raises(TypeError, match="exc"):
        worker_death(bad)
    with pytest.raises(TypeError, match="task"):
        task_mechanism_name(bad)


def test_contained_helpers_keep_their_answers():
    from concurrent.futures.process import BrokenProcessPool

    from dpverify.audit.chunks import ChunkJob, CountBins
    from dpverify.audit.contained import task_mechanism_name, worker_death
    from dpverify.audit.events import Binner

    def coin(d, rng, n):
        return rng.random(n)

    job = ChunkJob(coin, 0, 10, 0, (), None)
    assert worker_death(BrokenProcessPool("x")) and not worker_death(ValueError("x"))
    assert task_mechanism_name(job) == task_mechanism_name(job.statistic_values) == "coin"
    assert task_mechanism_name(CountBins(job, Binner(job.statistic_values()))) == "coin"
    assert task_mechanism_name(print) is None
