"""No cliff past 2^20 (issue 30 item 2): the FDA release's weights from per-level share tables.

``FdaRunWeights`` must return exactly the floats of the walk ``fda_forest_weights_at`` (the
computation the release used beyond 2^20 before), and the release beyond 2^20 must use it: checked
by counting the nodes that take the O(log n) walk, never by timing.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from dpverify.continual.fda import fda_forest_weights_at
from dpverify.continual.fda_runs import RESIDUE_BITS, FdaRunWeights
from dpverify.continual.forest import ForestStream, complete_blocks

SEG = 1 << RESIDUE_BITS


def _probe_runs(n: int, rng: np.random.Generator) -> list[tuple[int, int]]:
    """Runs (1-based, inclusive) that cover every kind of node: the start, both sides of each block
    boundary, each block's last segment and its multiples of 2^12, the end, and random runs."""
    runs = [(1, min(n, SEG))]
    for o, size in complete_blocks(n):
        for c in (o, o + size - SEG, o + (size + 1) // 2, o + size):  # boundary, last segment, middle root
            lo = max(1, c - SEG // 2)
            runs.append((lo, min(n, lo + SEG + 37)))
    for _ in range(4):
        lo = int(rng.integers(1, n + 1))
        runs.append((lo, min(n, lo + int(rng.integers(1, 3 * SEG)))))
    runs.append((max(1, n - 2 * SEG), n))
    return runs


def _sizes() -> list[int]:
    rng = np.random.default_rng(20261126)
    ks = (1, 2, 3, 11, 12, 13, 14, 19, 20, 21, 22)
    return [2**k + d for k in ks for d in (-1, 0, 1)] + [int(x) for x in rng.integers(2, 2**22, 6)]


@pytest.mark.parametrize("n", _sizes())
def test_run_weights_equal_the_walk_bit_for_bit(n):
    w = FdaRunWeights(n)
    rng = np.random.default_rng(n)
    for lo, hi in _probe_runs(n, rng):
        t = np.arange(lo, hi + 1, dtype=np.int64)
        got, ref = w(t), fda_forest_weights_at(t, n)
        assert got.dtype == ref.dtype and np.array_equal(got, ref), (n, lo, hi, np.flatnonzero(got != ref)[:5])
    t = rng.integers(1, n + 1, size=300)  # arbitrary positions: the table walk
    assert np.array_equal(w(t), fda_forest_weights_at(t, n))


def test_every_node_equal_for_small_n():
    for n in list(range(1, 70)) + [4095, 4096, 4097, 8191, 8193, 3 * SEG + 5, 5 * SEG - 2]:
        t = np.arange(1, n + 1)
        assert np.array_equal(FdaRunWeights(n)(t), fda_forest_weights_at(t, n)), n


@pytest.mark.slow
@pytest.mark.parametrize("n", [2**21 - 1, 2**21 + 1, 3 * 2**20 + 12345])
def test_every_node_equal_across_the_old_threshold(n):
    w = FdaRunWeights(n)
    for lo in range(0, n, 1 << 16):
        t = np.arange(lo + 1, min(n, lo + (1 << 16)) + 1)
        assert np.array_equal(w(t), fda_forest_weights_at(t, n)), (n, lo)


def test_a_changed_share_is_seen():
    """The equality checks can fail: perturb one table entry by one ulp and the runs differ."""
    n = 2**20 + 1
    t = np.arange(SEG + 1, 2 * SEG + 1)
    w = FdaRunWeights(n)
    assert np.array_equal(w(t), fda_forest_weights_at(t, n))
    w._residue[3] = np.nextafter(w._residue[3], 1.0)
    assert not np.array_equal(w(t), fda_forest_weights_at(t, n))


def test_refuses_bad_positions():
    w = FdaRunWeights(10)
    with pytest.raises(ValueError, match="t must be in"):
        w([0, 1])
    with pytest.raises(ValueError, match="t must be in"):
        w([11])
    with pytest.raises(TypeError):
        w([True])
    with pytest.raises(ValueError, match="n"):
        FdaRunWeights(0)


def test_walk_counter_counts_what_it_says():
    n = 2**22 - 5
    w = FdaRunWeights(n)
    t = np.arange(10 * SEG + 1, 14 * SEG + 1)
    w(t)
    assert w.walked <= 4  # one multiple of 2^12 per segment, nothing else
    w.walked = 0
    w(t[::-1].copy())  # not a run: every node walks
    assert w.walked == t.size


def test_release_beyond_2_20_takes_the_tables(monkeypatch):
    """n = 2^20 + 1: no call to the per-node walk, and the table walk covers O(2^12 per block +
    n / 2^12) nodes, not n; at n = 2^20 the weights are precomputed (no tables)."""
    import dpverify.continual.fda as fda_mod

    made = []

    class Recording(FdaRunWeights):
        def __init__(self, n):
            super().__init__(n)
            made.append(self)

    def refuse(*a, **k):
        raise AssertionError("the per-node walk fda_forest_weights_at was called")

    monkeypatch.setattr(fda_mod, "FdaRunWeights", Recording)
    monkeypatch.setattr(fda_mod, "fda_forest_weights_at", refuse)
    from dpverify.continual import release

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for n in (2**20, 2**20 + 1):
            a = np.ones(n, dtype=np.int64)
            out = release(a, 1e9, "fda", rng=0, noise="laplace")
            assert np.allclose(out, np.arange(1, n + 1), atol=1e-3)
    assert len(made) == 1 and made[0].n == 2**20 + 1
    blocks = len(complete_blocks(2**20 + 1))
    assert 0 < made[0].walked <= blocks * SEG + (2**20 + 1) // SEG + 1


def test_chunked_forest_stream_is_bit_identical():
    """push_many works in pieces of 2^16: the same floats as one push per count, any chunking."""
    n = 3 * (1 << 16) + 11
    a = np.random.default_rng(1).integers(0, 9, n)
    blocks = complete_blocks(n)
    w = FdaRunWeights(n)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        whole = ForestStream(n, 0.5, blocks, w, rng=7, noise="laplace").push_many(a)
        s = ForestStream(n, 0.5, blocks, w, rng=7, noise="laplace")
        cuts = np.sort(np.random.default_rng(2).choice(np.arange(1, n), 9, replace=False))
        parts = [s.push_many(c) for c in np.split(a, cuts)]
    assert np.array_equal(whole, np.concatenate(parts))
    s = ForestStream(n, 0.5, blocks, w, rng=7, noise="discrete")
    head = s.push_many(a[: n - 3])
    tail = [s.push(int(x)) for x in a[n - 3 :]]
    ref = ForestStream(n, 0.5, blocks, w, rng=7, noise="discrete").push_many(a)
    assert np.array_equal(np.concatenate([head, tail]), ref)
