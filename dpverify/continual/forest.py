"""Fenwick forests made of consecutive blocks, released exactly in chunks (memory O(chunk + log n)).

A *block forest* splits the n counts into consecutive blocks ``(offset, size)``;
inside a block the nodes are the Fenwick nodes of the block's local index
``i = t - offset``: node t covers the counts ``(t - lowbit(i), t]`` and release
t adds the noisy nodes of its local descent path to the noisy total of all
earlier blocks.  The plain Fenwick strategy is the one block ``[(0, n)]``; FDA
uses the greedy blocks of sizes ``2^m - 1`` (:func:`complete_blocks`, see
``continual/fda_any_n.md``).

:class:`ForestStream` releases such a forest online: ``push(a_t)`` one count
(pure Python, O(log n)), or ``push_many(chunk)`` a whole chunk vectorised.  Its
state is the true and noisy local prefix sums on the descent path of the last
local index (at most ``log2 n + 1`` pairs) and the true and noisy totals of the
finished blocks: the running state is exact (integers for the discrete noise).
Noise is drawn in aligned runs of :data:`~dpverify.continual.streams.CHUNK` nodes, so a
batch release and a stream seeded alike draw the same noise whatever the chunking.

Example
-------
>>> s = ForestStream(5, 1e9, [(0, 3), (3, 1), (4, 1)], lambda t: np.full(len(t), 0.5), rng=0, noise="discrete")
>>> s.push_many([1, 2, 3]).tolist(), s.push(4), s.push_many([5]).tolist()
([1, 3, 6], 10, [15])
"""

from __future__ import annotations

import numbers
from typing import Callable, Sequence

import numpy as np

from dpverify.validation import check_budget, check_elements
from dpverify.continual.checks import MAX_TOTAL, check_n, check_noise_scale
from dpverify.continual.fenwick_tree import descent_sums
from dpverify.continual.streams import CHUNK, PIECE, BoundedStream
from dpverify.primitives.sampling import discrete_laplace

__all__ = ["complete_blocks", "check_blocks", "block_of", "forest_descent_sums", "ForestStream", "check_noise_scale"]


def complete_blocks(n: int) -> list[tuple[int, int]]:
    """The greedy split of n into blocks of sizes ``2^m - 1`` (largest first): ``[(offset, size), ...]``.

    At most ``2 log2(n + 1)`` blocks; n = 2^m gives the block 2^m - 1 and one block of 1.

    Example
    -------
    >>> complete_blocks(7), complete_blocks(8), complete_blocks(10)
    ([(0, 7)], [(0, 7), (7, 1)], [(0, 7), (7, 3)])
    """
    n = check_n(n)
    out, o = [], 0
    while o < n:
        size = (1 << ((n - o + 1).bit_length() - 1)) - 1  # proof: greedy-blocks
        out.append((o, size))
        o += size
    return out


def check_blocks(blocks, n: int | None = None) -> list[tuple[int, int]]:
    """Blocks as a list of ``(offset, size)`` ints, consecutive from 0, sizes >= 1 (covering n if given).

    Example
    -------
    >>> check_blocks([(0, 3), (3, 1)], 4)
    [(0, 3), (3, 1)]
    """
    if isinstance(blocks, np.ndarray) and blocks.ndim != 2:
        raise TypeError(f"blocks must be a sequence of (offset, size) integer pairs, got an array of shape {blocks.shape}")
    if hasattr(blocks, "__len__") and not isinstance(blocks, (str, bytes)):
        check_budget(128.0 * len(blocks), f"blocks with {len(blocks)} pairs")  # a Python pair of ints each
    try:
        pairs = [(o, s) for o, s in blocks]
    except (TypeError, ValueError):
        raise TypeError(f"blocks must be a sequence of (offset, size) integer pairs, got {blocks!r}") from None
    for v in (x for pair in pairs for x in pair):
        if isinstance(v, (bool, np.bool_)) or not isinstance(v, (numbers.Integral, np.integer)):
            raise TypeError(f"blocks must be a sequence of (offset, size) integer pairs, got {v!r} in {blocks!r}")
    out = [(int(o), int(s)) for o, s in pairs]
    pos = 0
    for i, (o, size) in enumerate(out):
        if o != pos or size < 1:  # the pair at fault, not the whole list (it may hold millions)
            raise ValueError(f"blocks must be consecutive (offset, size) pairs from 0 with size >= 1, got {out[i]} "
                             f"at index {i}" + ("" if len(out) > 20 else f" in {out}"))
        pos += size
    if not out or (n is not None and pos != n):
        raise ValueError(f"blocks must cover exactly n={n} positions, they cover {pos}")
    return out


def block_of(t, blocks: Sequence[tuple[int, int]]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For 1-based positions t: ``(offset, size, local index)`` of the block holding each.

    Example
    -------
    >>> [x.tolist() for x in block_of(np.array([1, 7, 8, 10]), complete_blocks(10))]
    [[0, 0, 7, 7], [7, 7, 3, 3], [1, 7, 1, 3]]
    """
    blocks = check_blocks(blocks)
    raw = np.asarray(t)
    check_elements(raw, "t")
    if raw.dtype == bool or not np.issubdtype(raw.dtype, np.integer):
        raise TypeError(f"t must be integer positions, got dtype {raw.dtype}")
    t = raw.astype(np.int64)
    total = blocks[-1][0] + blocks[-1][1]
    if t.size and (t.min() < 1 or t.max() > total):
        raise ValueError(f"t must be in [1, {total}], got values in [{t.min()}, {t.max()}]")
    offs = np.array([o for o, _ in blocks], dtype=np.int64)
    sizes = np.array([s for _, s in blocks], dtype=np.int64)
    j = np.searchsorted(offs, t - 1, side="right") - 1
    return offs[j], sizes[j], t - offs[j]


def forest_descent_sums(x, blocks: Sequence[tuple[int, int]]) -> np.ndarray:
    """``y_t = x_t + y_{pred(t)}``: local descent sums per block plus the total of the earlier blocks.

    Applied to node variances it gives the exact per-release MSE; to noisy
    node values, the releases.

    Example
    -------
    >>> forest_descent_sums(np.ones(4), [(0, 3), (3, 1)]).tolist()   # release 3 = nodes 2, 3; 4 = nodes 2, 3, 4
    [1.0, 1.0, 2.0, 3.0]
    """
    x = np.asarray(x)
    check_elements(x, "x")
    if x.ndim != 1 or x.dtype.kind not in "iuf":
        raise ValueError(f"x must be a 1-d integer or float array, got shape {x.shape}, dtype {x.dtype}")
    blocks = check_blocks(blocks, x.size)
    out = np.empty_like(x)
    base = x.dtype.type(0)
    for o, size in blocks:
        y = descent_sums(x[o : o + size])
        y += base  # proof: forest-descent
        out[o : o + size] = y
        base = y[-1]
    return out




class ForestStream(BoundedStream):
    """Online (and chunked) release of a weighted block forest: at most n counts.

    ``weights_at(t)`` gives λ_t for 1-based positions t (vectorised, O(log n)
    each).  Continuous noise adds Lap(1/ε) to λ_t c_t and publishes
    ``(λ_t c_t + η_t)/λ_t``; discrete noise adds a two-sided geometric of scale
    1/(ε λ_t) to c_t (integer outputs).

    Example
    -------
    >>> s = ForestStream(3, 1.0, [(0, 3)], lambda t: np.full(len(t), 0.5), rng=0, noise="discrete")
    >>> [type(s.push(a)).__name__ for a in (1, 0, 2)], s.remaining
    (['int', 'int', 'int'], 0)
    """

    def __init__(self, n: int, epsilon: float, blocks: Sequence[tuple[int, int]],
                 weights_at: Callable[[np.ndarray], np.ndarray], rng=None, noise: str = "laplace"):
        super().__init__(n, epsilon, rng, noise)
        self._blocks = check_blocks(blocks, self.n)
        if not callable(weights_at):
            raise TypeError(f"weights_at must be callable, got {type(weights_at).__name__}")
        self._weights_at = weights_at
        self._block = 0  # index of the current block
        self._zero = 0 if noise == "discrete" else 0.0
        self._true_base = 0  # true total of the finished blocks (exact int)
        self._noisy_base = self._zero  # noisy total of the finished blocks
        self._path: list = [(0, 0, self._zero)]  # (local j, S_loc(j), Ŝ_loc(j)) on the descent path, ascending
        self._buf_lo = 0  # the noise buffer covers nodes _buf_lo + 1 .. _buf_lo + len(_z)
        self._z = np.empty(0)
        self._lam = np.empty(0)

    # ------------------------------------------------------------------ noise, in aligned runs
    def _draw(self, lo: int) -> None:
        """Draw the noise of the aligned run of nodes lo + 1 .. lo + CHUNK (lo a multiple of CHUNK)."""
        hi = min(self.n, lo + CHUNK)
        lam = np.asarray(self._weights_at(np.arange(lo + 1, hi + 1, dtype=np.int64)), dtype=float)
        if lam.shape != (hi - lo,) or not (np.isfinite(lam).all() and (lam > 0).all()):
            raise ValueError(f"weights_at must return {hi - lo} finite weights > 0 for nodes {lo + 1}..{hi}")
        check_noise_scale(self.epsilon, float(lam.min()), self.noise)
        if self.noise == "laplace":
            z = self._rng.laplace(0.0, 1.0 / self.epsilon, size=lam.size)  # proof: forest-laplace
        else:
            z = discrete_laplace(1.0 / (self.epsilon * lam), lam.size, self._rng)  # proof: forest-discrete
        self._buf_lo, self._z, self._lam = lo, z, lam

    def _noise(self, lo: int, m: int) -> tuple[np.ndarray, np.ndarray]:
        """(λ, noise) of nodes lo + 1 .. lo + m, from the aligned runs."""
        zs, ls = [], []
        pos = lo
        while pos < lo + m:
            if not self._buf_lo <= pos < self._buf_lo + self._z.size:
                self._draw(pos - pos % CHUNK)
            a = pos - self._buf_lo
            b = min(self._z.size, a + (lo + m - pos))
            zs.append(self._z[a:b])
            ls.append(self._lam[a:b])
            pos += b - a
        if len(zs) == 1:
            return ls[0], zs[0]
        return np.concatenate(ls), np.concatenate(zs)

    # ------------------------------------------------------------------ one count
    def push(self, a_t):
        """Add the count of release t = pushes + 1; return the noisy running total s_t."""
        a = self.admit(a_t)
        o, size = self._blocks[self._block]
        t = self.t + 1
        i = t - o
        if not self._buf_lo < t <= self._buf_lo + self._z.size:
            self._draw((t - 1) - (t - 1) % CHUNK)
        k = t - 1 - self._buf_lo
        z = self._z[k]
        path = self._path
        s_prev = path[-1][1] if path[-1][0] == i - 1 else None
        if s_prev is None:  # not reached: the last path entry is always i - 1
            raise RuntimeError("forest stream state lost")
        s_i = s_prev + a  # S_loc(i), exact
        if self._true_base + s_i >= MAX_TOTAL:
            raise ValueError("counts too large: the running total must stay below 2^62 (int64)")
        j = i - (i & -i)  # pred(i): on the descent path of i - 1
        while path[-1][0] > j:
            path.pop()
        _, s_j, h_j = path[-1]
        c = s_i - s_j  # node value, exact
        if self.noise == "laplace":
            lam = float(self._lam[k])
            h_i = h_j + (lam * c + float(z)) / lam  # proof: forest-node
        else:
            h_i = h_j + (c + int(z))  # proof: forest-node
        path.append((i, s_i, h_i))
        out = self._noisy_base + h_i
        self.t = t
        if i == size:
            self._finish_block(s_i, h_i)
        return out

    def _finish_block(self, s_end, h_end) -> None:
        self._true_base += s_end
        self._noisy_base = self._noisy_base + h_end
        self._path = [(0, 0, self._zero)]
        self._block += 1

    # ------------------------------------------------------------------ a chunk, vectorised
    def push_many(self, counts) -> np.ndarray:
        """Push a chunk of counts; return their noisy running totals (same values as repeated ``push``).

        Example
        -------
        >>> s = ForestStream(4, 1e9, [(0, 3), (3, 1)], lambda t: np.ones(len(t)), rng=0, noise="discrete")
        >>> s.push_many([2, 0, 1]).tolist(), s.push_many([4]).tolist()
        ([2, 2, 3], [7])
        """
        a = self.admit_many(counts)
        parts = []
        pos = 0
        while pos < a.size:
            o, size = self._blocks[self._block]
            lo = self.t + 1 - o  # local index of the first count
            m = min(a.size - pos, size - lo + 1, PIECE)  # pieces that stay in cache; same values
            parts.append(self._segment(a[pos : pos + m], o, size, lo))
            pos += m
        if not parts:
            return self.empty()
        return parts[0] if len(parts) == 1 else np.concatenate(parts)

    def _segment(self, a: np.ndarray, o: int, size: int, lo: int) -> np.ndarray:
        m = a.size
        hi = lo + m - 1
        path = self._path
        s_prev = path[-1][1]
        if a.size and int(a.max()) * m + self._true_base + s_prev >= MAX_TOTAL:
            if self._true_base + s_prev + sum(int(x) for x in a) >= MAX_TOTAL:
                raise ValueError("counts too large: the running total must stay below 2^62 (int64)")
        S = np.cumsum(a, dtype=np.int64)
        S += s_prev  # S_loc(lo .. hi), exact
        i = np.arange(lo, hi + 1, dtype=np.int64)
        j = i - (i & -i)
        keys = np.array([p[0] for p in path], dtype=np.int64)  # the descent path of lo - 1 (and 0)
        inside = j >= lo
        where = np.searchsorted(keys, j[~inside])
        Sj = np.empty(m, dtype=np.int64)
        Sj[inside] = S[j[inside] - lo]
        Sj[~inside] = np.array([p[1] for p in path], dtype=np.int64)[where]
        c = S - Sj  # node values M a, exact integers  # proof: forest-chunk
        lam, z = self._noise(o + lo - 1, m)
        if self.noise == "laplace":
            x = (lam * c + z) / lam  # proof: forest-x
            H = np.empty(m)
            hpath = np.array([p[2] for p in path], dtype=float)
        else:
            x = c + z  # proof: forest-x
            H = np.empty(m, dtype=np.int64)
            hpath = np.array([p[2] for p in path], dtype=np.int64)
        # Ŝ_loc(i) = Ŝ_loc(j) + x_i: j has a larger lowbit than i, so fill the levels from the top down
        for k in range(hi.bit_length() - 1, -1, -1):
            step = 1 << k
            q = -(-lo // step)
            if q % 2 == 0:
                q += 1
            first = q * step  # the first i >= lo with lowbit(i) = 2^k
            if first > hi:
                continue
            sl = slice(first - lo, m, 2 * step)
            jj = j[sl]
            ins = jj >= lo
            base = np.empty(jj.size, dtype=H.dtype)
            base[ins] = H[jj[ins] - lo]
            base[~ins] = hpath[np.searchsorted(keys, jj[~ins])]
            H[sl] = base + x[sl]  # proof: forest-chunk
        # new state: the descent path of hi
        new = []
        p = hi
        while p:
            if p >= lo:
                new.append((p, int(S[p - lo]), H[p - lo].item()))
            else:
                new.append(path[int(np.searchsorted(keys, p))])
            p &= p - 1
        new.append((0, 0, self._zero))
        self._path = new[::-1]
        out = H + self._noisy_base
        self.t += m
        if hi == size:
            self._finish_block(int(S[-1]), H[-1].item())
        return out
