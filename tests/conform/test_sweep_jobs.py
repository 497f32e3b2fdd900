"""``sweep(..., jobs=N)`` / ``dpverify conform --jobs N``: cases in worker processes, rows in the cases' order.

diffprivlib is seeded through the sweep's generator, so a seeded sweep must give the same rows (seconds
aside) for every ``jobs``; a worker that dies is an ``error`` row, never the sweep's end.
"""

from __future__ import annotations

import os

import pytest

pytest.importorskip("diffprivlib")

import dpverify.conform.sweep as sw  # noqa: E402
from dpverify.cli import main  # noqa: E402

ONLY = ["Binary", "Laplace", "Geometric"]


def _rows(result):
    return [{k: v for k, v in r.to_json().items() if k != "seconds"} for r in result.rows]


def test_jobs_two_gives_the_rows_of_jobs_one_in_the_same_order():
    one = sw.sweep("diffprivlib", samples=4000, only=ONLY, rng=5, stream=None, jobs=1)
    two = sw.sweep("diffprivlib", samples=4000, only=ONLY, rng=5, stream=None, jobs=2)
    assert len(one.rows) == 4 and _rows(one) == _rows(two)
    other = sw.sweep("diffprivlib", samples=4000, only=ONLY, rng=6, stream=None, jobs=2)
    assert _rows(other) != _rows(one)  # the seed reaches the workers' draws


def test_a_worker_that_dies_is_an_error_row_and_the_sweep_goes_on(monkeypatch):
    real = sw.check

    def dying(case, **kw):  # inherited by the forked workers
        if case.constructor == "Geometric":
            os._exit(3)
        return real(case, **kw)

    monkeypatch.setattr(sw, "check", dying)
    res = sw.sweep("diffprivlib", samples=4000, only=ONLY, rng=5, stream=None, jobs=2)
    from dpverify.conform.diffprivlib_sweep import cases

    assert [(r.constructor, r.params) for r in res.rows] == [(c.constructor, c.params) for c in cases(ONLY)]
    dead = [r for r in res.rows if r.constructor == "Geometric"][0]
    assert dead.verdict == "error" and "BrokenProcessPool" in dead.detail
    assert not res.refuted


def test_jobs_is_validated_by_name(capsys):
    with pytest.raises(ValueError, match="jobs"):
        sw.sweep("diffprivlib", samples=4000, only=["Binary"], stream=None, jobs=0)
    assert main(["conform", "diffprivlib", "--jobs", "0", "--only", "Binary"]) == 2
    assert "--jobs" in capsys.readouterr().err
