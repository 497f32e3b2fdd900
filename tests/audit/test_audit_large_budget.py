"""Large budgets (issue 32, item 4): every draw the auditor makes is in calls bounded by the memory
budget, or the budget is refused up front, before any draw, naming ``samples`` and the limit.

The memory budget is made small (``DPVERIFY_MEMORY_BUDGET`` = 1 MiB) so that modest audits reach the
bounds; every mechanism call goes through ``ChunkJob.outputs`` → ``chunks.call_mechanism``, which is
wrapped to record the ``n`` of each call.  The bound checked is the largest per-call bound any stage
has under that budget (chunks: budget/64 bytes a draw; held stages: budget/116; a curve's held part:
budget/25), 41,943 draws; every audit below would ask for more in one call without the bounds
(:func:`test_the_check_flips`).  Deterministic: no statistical assertion, no false-alarm rate.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time

import numpy as np
import pytest

from dpverify.audit import chunks as chunks_mod
from dpverify.audit.api import audit, check_samples
from dpverify.audit.chunks import CHUNK_BYTES, DEFAULT_CHUNK, chunk_bound, chunk_sizes, held_bound
from dpverify.audit.curves import HELD_CURVE_BYTES, audit_delta_curve, gaussian_delta_curve
from dpverify.audit.local_search import local_search
from dpverify.audit.plan import make_plan
from dpverify.audit.renyi import audit_zcdp
from dpverify.audit.stages import CHUNK
from dpverify.audit.statistical import epsilon_lower_bound
from dpverify.budget import draws_in_memory

SMALL = 2**20  # bytes: the memory budget of these tests


class _Ideal:
    """Laplace noise standing for the real-valued mechanism (no floating-point statistics: the audit
    runs to its final stages instead of refuting the float outputs at the quick check)."""

    ideal_arithmetic = True

    def __init__(self, width=None):
        self.width = width

    def __call__(self, d, rng, n):
        return rng.laplace(float(np.ravel(d)[0]), 1.0, size=n if self.width is None else (n, self.width))


laplace, wide = _Ideal(), _Ideal(3)


@pytest.fixture
def calls(monkeypatch):
    """The memory budget made small, and the n of every mechanism call the auditor makes, recorded."""
    monkeypatch.setenv("DPVERIFY_MEMORY_BUDGET", str(SMALL))
    seen: list[int] = []
    real = chunks_mod.call_mechanism

    def recording(mechanism, data, rng, n):
        seen.append(int(n))
        return real(mechanism, data, rng, n)

    monkeypatch.setattr(chunks_mod, "call_mechanism", recording)
    return seen


def _limit() -> int:
    """The largest per-call bound of any stage under the current memory budget."""
    return max(chunk_bound(), held_bound(), draws_in_memory(HELD_CURVE_BYTES))


def test_bounds_follow_the_budget(calls):
    assert chunk_bound() == SMALL // CHUNK_BYTES and held_bound() == SMALL // 116
    assert _limit() == SMALL // HELD_CURVE_BYTES == 41_943
    assert max(chunk_sizes(10**6, DEFAULT_CHUNK)) == chunk_bound()


def test_audit_draws_within_the_bound(calls):
    r = audit(laplace, epsilon=1.0, pairs=[(0.0, 1.0)], samples=400_000, rng=0)
    assert calls and max(calls) <= _limit()
    assert "capped at" in r.stop_reason and "memory budget" in r.stop_reason  # said in the report
    assert r.samples_used <= 400_000 and sum(calls) > 2 * 300_000  # the final audit drew the rest, in chunks


def test_trained_statistic_within_the_bound(calls):
    audit(wide, epsilon=1.0, pairs=[(np.zeros(1), np.ones(1))], samples=200_000, rng=1, statistic="classifier")
    assert calls and max(calls) <= _limit()


def test_epsilon_lower_bound_within_the_bound(calls):
    r = epsilon_lower_bound(laplace, 0.0, 1.0, samples=400_000, rng=0)
    assert max(calls) <= chunk_bound() and r.n_selection + r.n_estimation == 400_000
    calls.clear()
    epsilon_lower_bound(wide, np.zeros(1), np.ones(1), samples=200_000, rng=0, statistic="classifier")
    assert max(calls) <= _limit()


def test_curve_audit_within_the_bound(calls):
    gauss = lambda d, rng, n: rng.normal(float(d), 1.0, n)  # noqa: E731
    r = audit_delta_curve(gauss, pair=(0.0, 1.0), delta_curve=gaussian_delta_curve(1.0), epsilons=[0.0, 1.0],
                          samples=400_000, rng=0)
    assert max(calls) <= _limit() and r.n_estimation == 320_000
    assert r.delta_lower[0] <= gaussian_delta_curve(1.0)(0.0) + 0.01


def test_zcdp_refused_up_front_or_bounded(calls):
    gauss = lambda d, rng, n: rng.normal(float(d), 1.0, n)  # noqa: E731
    with pytest.raises(ValueError, match="samples = 1000000001 is too much work"):
        audit_zcdp(gauss, rho=0.5, pair=(0.0, 1.0), samples=10**9 + 1, rng=0)
    with pytest.raises(ValueError, match="samples = 1000000001 is too much work"):
        audit_delta_curve(gauss, pair=(0.0, 1.0), delta_curve=gaussian_delta_curve(1.0), epsilons=[0.0],
                          samples=10**9 + 1, rng=0)
    assert calls == []  # before any draw
    r = audit_zcdp(gauss, rho=0.5, pair=(0.0, 1.0), samples=400_000, rng=0)
    assert max(calls) <= _limit() and r.verdict().value == "inconclusive"


def test_screening_round_capped_by_row_size(calls):
    """A screening job caps its own draws by the size of an output row, measured on a probe."""
    from dpverify.audit.screening import ScreenJob

    def job(mech, pair, n):
        return ScreenJob(mech, "auto", pair, n, 7, (10, 0, 0), n_est=10**6, n_quick=1000, alpha=0.01, delta=0.0,
                         n_small=1000)

    assert job(laplace, (0.0, 1.0), 70_000).size() == held_bound() < 70_000
    assert job(wide, (np.zeros(1), np.ones(1)), 70_000).size() == held_bound(24) < held_bound()
    assert job(laplace, (0.0, 1.0), 5_000).size() == 5_000  # below the bound: as planned
    r = job(wide, (np.zeros(1), np.ones(1)), 70_000)()
    assert r.n == held_bound(24) == len(r.values[0]) and max(calls) == held_bound(24)


def test_local_search_within_the_bound(calls, monkeypatch):
    from dpverify.audit.suite import ExponentialMedian

    monkeypatch.setenv("DPVERIFY_MEMORY_BUDGET", str(2**30))  # its candidates' exact ε needs more than SMALL
    m = ExponentialMedian(1.0, halved=False)
    base = m.relation.candidates(np.random.default_rng(0))
    monkeypatch.setenv("DPVERIFY_MEMORY_BUDGET", str(SMALL))
    found = local_search(m, m.relation, base, budget=400_000, n_eval=100_000, entropy=2, keep=2)
    assert max(calls) <= held_bound() and found.draws <= 400_000


def test_absurd_budget_refused_before_any_draw(calls):
    t0 = time.perf_counter()
    with pytest.raises(ValueError, match=r"samples = 10000000000 is too much work.*work budget of 2e\+09"):
        audit(laplace, epsilon=1.0, pairs=[(0.0, 1.0)], samples=10**10, rng=0)
    assert calls == [] and time.perf_counter() - t0 < 1.0
    with pytest.raises(ValueError, match="--samples = 2000000000 is too much work.*--force"):
        check_samples(2 * 10**9, name="--samples")
    assert check_samples(10**9) == 10**9  # within the work budget: accepted


def test_the_check_flips(calls, monkeypatch):
    """Without the bounds (draws_in_memory unlimited) the same audits ask for more than the limit in one call."""
    limit = _limit()
    monkeypatch.setattr(chunks_mod, "draws_in_memory", lambda bytes_per_draw: 10**12)
    with pytest.raises(ValueError, match="outs"):  # a check after the draw refuses what is held...
        audit(laplace, epsilon=1.0, pairs=[(0.0, 1.0)], samples=400_000, rng=0)
    assert max(calls) > limit  # ...but the screening round asked for 140,000 draws per input in one call
    calls.clear()
    with pytest.raises(ValueError, match="200000 entries"):
        epsilon_lower_bound(laplace, 0.0, 1.0, samples=400_000, rng=0)
    assert max(calls) > limit  # one chunk of 200,000 selection draws


def test_default_budget_keeps_every_layout(monkeypatch):
    """Under the default 4 GiB budget no bound binds for the sizes in use: same chunks, same plans."""
    monkeypatch.delenv("DPVERIFY_MEMORY_BUDGET", raising=False)
    assert chunk_bound() >= 2**26 and chunk_sizes(10**8, CHUNK) == [CHUNK] * (10**8 // CHUNK) + [10**8 % CHUNK]
    assert chunk_sizes(10**8, DEFAULT_CHUNK)[0] == DEFAULT_CHUNK
    p = make_plan(laplace, [(0.0, 1.0)], samples=10**8, rng=0, statistic="auto", stop_early=True)
    assert p.screen_cap == 0 and p.per_round == (35_000_000,)


def test_cli_refuses_absurd_budget(tmp_path):
    (tmp_path / "m.py").write_text("def ok(d, rng, n):\n    return rng.laplace(d, 1.0, size=n)\n")
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([root, os.environ.get("PYTHONPATH", "")])}
    res = subprocess.run([sys.executable, "-m", "dpverify", "audit", "m:ok", "--d", "0", "--d-prime", "1",
                          "--epsilon", "1", "--samples", "10000000000"], cwd=tmp_path, env=env,
                         capture_output=True, text=True, timeout=60)
    assert res.returncode == 2, res.stderr
    assert "samples" in res.stderr and "10000000000" in res.stderr and "work budget" in res.stderr
    assert "MemoryError" not in res.stderr
