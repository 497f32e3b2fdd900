"""FDA release weights for runs of consecutive nodes from per-level share tables: O(1) amortised a node.

:func:`dpverify.continual.fda_optimal.fda_forest_weights_at` walks, for each
position t, up its block's Fenwick tree and multiplies its own share by
``1 - share`` of every ancestor, nearest first, then by ``1 - 1e-12`` (the
rounding guard); each share is ``w^(1/3) / (w^(1/3) + err_k^(1/3))``,
recomputed per element (``np.log2``, ``np.cbrt``).  :class:`FdaRunWeights`
returns *the same floats*, bit for bit, much faster:

* a share depends only on the level k and on whether the node is a root
  (``j + lowbit(j) > size``); the inner shares form one table by level, the
  roots of a block (one per level, ``j = 2^m - 2^k``) one table per block,
  both computed with the walk's own expression;
* in a block of size ``2^m - 1`` the ancestors of local index i sit at the
  zero bits of i above its lowest set bit, in increasing order, and the last
  (topmost zero bit) is the only root among them;
* so, with ``B = 12`` and i not in the exceptions below, the walk's partial
  product after the levels < B depends on ``i mod 2^B`` only: one residue
  table ``T`` of 2^B floats computed by the same multiplications in the same
  order, and the levels >= B multiply by one factor per zero bit of
  ``i >> B``, the same for the whole segment of 2^B consecutive indices.

Multiplying by 1.0 is exact in IEEE arithmetic, so applying "no factor" as
skipping changes nothing; every multiplication the walk performs is
performed on the same two operands in the same order, hence the same result
(round-to-nearest is a function of the operands).  The exceptions, where a
low-level share can be a root's or the node's own level is >= B (``i mod 2^B
= 0``, the last segment ``i >> B = 2^(m-B) - 1`` of each block, blocks with
m <= B), go through the walk itself on the tables: at most
``2^B`` per block plus one per segment.  Equal weights give equal noise
scales, so the privacy statement of ``continual/fda_any_n.md`` is unchanged.

Example
-------
>>> import numpy as np
>>> from dpverify.continual.fda_optimal import fda_forest_weights_at
>>> w = FdaRunWeights(10_000)
>>> t = np.arange(4097, 8193)
>>> bool(np.array_equal(w(t), fda_forest_weights_at(t, 10_000)))
True
"""

from __future__ import annotations

import numpy as np

from dpverify.continual.checks import check_n, check_times
from dpverify.continual.forest import complete_blocks
from dpverify.continual.fda_optimal import fda_errors

__all__ = ["FdaRunWeights", "RESIDUE_BITS"]

RESIDUE_BITS = 12  # B: the residue table has 2^B entries (32 KB)
_KEEP = 1.0 - 1e-12  # the walk's final factor (fda_optimal._GUARD)


def _shares(w: np.ndarray, cerr_k: np.ndarray) -> np.ndarray:
    """The walk's share expression, ``cbrt(w) / (cbrt(w) + cbrt(err_k))``, on float weights w."""
    return np.cbrt(w) / (np.cbrt(w) + cerr_k)


def _level_of(p: np.ndarray) -> np.ndarray:
    """log2 of positive powers of two p (int64), exactly, from the float exponent."""
    return (p.astype(np.float64).view(np.int64) >> 52) - 1023


class FdaRunWeights:
    """λ_t of :func:`~dpverify.continual.fda_optimal.fda_forest_weights_at` (same floats), from tables.

    Parameters
    ----------
    n : number of releases; the blocks are :func:`~dpverify.continual.forest.complete_blocks` (n).

    Calling the object on 1-based positions t returns their weights; a run of
    consecutive positions (what :class:`~dpverify.continual.forest.ForestStream`
    asks for) costs O(1) a node plus O(log n) a segment of 2^12; other arrays
    use the table walk, O(log n) a node.  ``walked`` counts the nodes that went
    through the walk.  Memory: O(log² n + 2^12) floats.

    Example
    -------
    >>> from dpverify.continual.fda_optimal import fda_forest_weights_at
    >>> w = FdaRunWeights(8)                      # blocks of 7 and 1: both positions take the walk
    >>> bool(np.array_equal(w([1, 8]), fda_forest_weights_at([1, 8], 8))), w.walked
    (True, 2)
    """

    def __init__(self, n: int):
        self.n = check_n(n)
        self.blocks = complete_blocks(self.n)
        top = max(self.n.bit_length(), RESIDUE_BITS + 1)
        # the walk takes cbrt of fda_errors(n.bit_length()); err_k does not depend on the length
        self._cerr = np.cbrt(fda_errors(top))
        k = np.arange(top)
        self._inner = _shares((np.int64(1) << k).astype(float), self._cerr[k])
        self._inner_f = 1.0 - self._inner
        self._roots = {}  # block offset -> root share by level
        for o, size in self.blocks:
            m = size.bit_length()
            km = np.arange(m)
            w = (self.n - (o + (size + 1 - (np.int64(1) << km))) + 1).astype(float)
            self._roots[o] = _shares(w, self._cerr[km])
        self._residue = self._residue_table()
        self._offs = np.array([o for o, _ in self.blocks], dtype=np.int64)
        self.walked = 0

    def _residue_table(self) -> np.ndarray:
        """T[r], r = 1..2^B - 1: own inner share times the inner ancestors' factors at levels < B, in order."""
        r = np.arange(1 << RESIDUE_BITS, dtype=np.int64)
        r[0] = 1  # unused slot (i mod 2^B = 0 is an exception), kept finite
        v = _level_of(r & -r)
        T = self._inner[v].copy()
        for k in range(RESIDUE_BITS):  # the walk's ancestors, nearest (lowest level) first
            anc = ((r >> k) & 1 == 0) & (k > v)
            T[anc] *= self._inner_f[k]
        return T

    def __call__(self, t) -> np.ndarray:
        t = check_times(t, "t").ravel()
        if t.size and (t.min() < 1 or t.max() > self.n):
            raise ValueError(f"t must be in [1, {self.n}], got values in [{t.min()}, {t.max()}]")
        if t.size and int(t[-1]) - int(t[0]) == t.size - 1 and (t.size == 1 or bool(np.all(np.diff(t) == 1))):
            return self.run(int(t[0]), int(t[-1]))
        return self._walk(t)

    def run(self, first: int, last: int) -> np.ndarray:
        """Weights of positions first..last (1-based, inclusive), block by block and segment by segment."""
        out = np.empty(last - first + 1)
        for o, size in self.blocks:
            lo, hi = max(first, o + 1), min(last, o + size)
            if lo > hi:
                continue
            i0, i1 = lo - o, hi - o  # local indices
            m = size.bit_length()
            while i0 <= i1:
                h = i0 >> RESIDUE_BITS
                e = min(i1, ((h + 1) << RESIDUE_BITS) - 1)
                dst = out[o + i0 - first :][: e - i0 + 1]
                if m <= RESIDUE_BITS or h == (1 << (m - RESIDUE_BITS)) - 1:
                    dst[:] = self._walk(np.arange(o + i0, o + e + 1, dtype=np.int64))
                else:
                    self._segment(dst, o, m, h, i0, e)
                i0 = e + 1
        return out

    def _segment(self, dst: np.ndarray, o: int, m: int, h: int, i0: int, i1: int) -> None:
        """Regular segment: T[i mod 2^B], then the factors of the zero bits of h (the last one a root's)."""
        mask = (1 << RESIDUE_BITS) - 1
        np.take(self._residue, np.arange(i0 & mask, (i1 & mask) + 1), out=dst)
        zeros = [k for k in range(RESIDUE_BITS, m) if not (h >> (k - RESIDUE_BITS)) & 1]
        for k in zeros[:-1]:
            dst *= self._inner_f[k]
        dst *= 1.0 - self._roots[o][zeros[-1]]  # the topmost zero bit: the block's root of that level
        dst *= _KEEP
        if i0 & mask == 0:  # i0 = h 2^B: own level >= B, the walk's case
            dst[0] = self._walk_one(o, (1 << m) - 1, i0)

    def _walk_one(self, o: int, size: int, i: int) -> float:
        """The walk for one local index i of block (o, size), in Python floats (IEEE doubles, same operations)."""
        self.walked += 1
        roots, inner = self._roots[o], self._inner

        def share(p: int) -> float:
            lb = p & -p
            k = lb.bit_length() - 1
            return float(roots[k]) if p + lb > size else float(inner[k])

        out = share(i)
        while True:
            i += i & -i
            if i > size:
                return out * _KEEP
            out *= 1.0 - share(i)

    def _walk(self, t: np.ndarray) -> np.ndarray:
        """The walk of fda_forest_weights_at, shares from the tables (same operands, same order)."""
        self.walked += t.size
        j = np.searchsorted(self._offs, t - 1, side="right") - 1
        o = self._offs[j]
        size = np.array([s for _, s in self.blocks], dtype=np.int64)[j]
        i = t - o

        def share(p):
            lb = p & -p
            k = _level_of(lb)
            is_root = p + lb > size
            out = self._inner[k]
            for bo in np.unique(o[is_root]):
                sel = is_root & (o == bo)
                out[sel] = self._roots[int(bo)][k[sel]]
            return out

        out = share(i)
        cur = i.copy()
        live = np.ones(t.size, dtype=bool)
        while True:
            cur = cur + (cur & -cur)
            live &= cur <= size
            if not live.any():
                break
            idx = np.flatnonzero(live)
            sh = share(np.where(live, cur, 1))
            out[idx] *= 1.0 - sh[idx]
        return out * _KEEP
