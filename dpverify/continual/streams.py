"""The bounded stream every online method of the room is built on (Def. 5.2: at most n pushes).

:class:`BoundedStream` holds what every stream shares: the horizon ``n``, ε, the noise kind,
the random generator, the number ``t`` of counts pushed so far, and the one push guard
(:meth:`BoundedStream.admit` for one count, :meth:`BoundedStream.admit_many` for a chunk).
:func:`draw_run` draws the noise of a run of weighted nodes, in the chunks of :data:`CHUNK`
nodes that the batch releases and the streams share (same seed, same noise).

Example
-------
>>> s = BoundedStream(2, 1.0, rng=0, noise="discrete")
>>> s.admit(3), s.remaining
(3, 2)
"""

from __future__ import annotations

import numpy as np

from dpverify.validation import as_generator, check_counts, check_finite_array
from dpverify.continual.checks import MAX_TOTAL, check_count, check_eps, check_n, check_noise
from dpverify.primitives.sampling import discrete_laplace

__all__ = ["CHUNK", "PIECE", "BoundedStream", "draw_run"]

# noise is drawn in (aligned) runs of this many nodes, batch and stream alike; 2^15 rather than 4096
# since the stream speed-up: the exact sampler's cost per call is then spread over 8 times more draws
CHUNK = 1 << 15


def draw_run(lam: np.ndarray, epsilon: float, rng: np.random.Generator, noise: str) -> np.ndarray:
    """Noise of a run of nodes of weights λ: Lap(1/ε) for the weighted node, or integer DLap(1/(ε λ_i)).

    Example
    -------
    >>> z = draw_run(np.array([0.5, 1.0]), 1.0, np.random.default_rng(0), "discrete")
    >>> z.dtype.kind, z.shape
    ('i', (2,))
    """
    lam = check_finite_array(lam, "lam", ndim=1)
    if lam.size == 0:
        raise ValueError("lam must hold at least one node weight, got an empty array")
    if (lam <= 0).any():
        raise ValueError(f"lam must hold node weights > 0, got {lam[lam <= 0][0]!r}")
    epsilon = check_eps(epsilon)
    if not isinstance(rng, np.random.Generator):
        raise TypeError(f"rng must be a numpy.random.Generator, got {type(rng).__name__}")
    if noise == "laplace":
        return rng.laplace(0.0, 1.0 / epsilon, size=lam.size)  # proof: laplace-noise
    if noise == "discrete":
        return discrete_laplace(1.0 / (epsilon * lam), lam.size, rng)  # proof: discrete-noise
    raise ValueError(f"noise must be 'laplace' or 'discrete', got {noise!r}")


PIECE = 1 << 16  # push_many works on pieces of this many counts (their temporaries stay in cache)


class BoundedStream:
    """A stream of at most ``n`` counts: ``push(a_t)`` returns the noisy running total s_t.

    Subclasses implement ``push`` (and ``push_many`` where they release chunks) and call
    :meth:`admit` / :meth:`admit_many` first: the count checks and the bound live here only.

    Example
    -------
    >>> s = BoundedStream(1, 1.0)
    >>> s.admit(0); s.t = 1
    0
    >>> s.admit(1)
    Traceback (most recent call last):
    ...
    ValueError: stream is bounded: n=1 releases already made, cannot push release 2
    """

    def __init__(self, n: int, epsilon: float, rng=None, noise: str = "laplace"):
        self.n = check_n(n)
        self.epsilon = check_eps(epsilon)
        self.noise = check_noise(noise)
        self._rng = as_generator(rng)
        self.t = 0

    @property
    def remaining(self) -> int:
        """How many more counts may be pushed (the bound n of Def. 5.2)."""
        return self.n - self.t

    def admit(self, a_t) -> int:
        """The count a_t as an int, once it is a non-negative integer, push n + 1 is not being made and
        the true running total stays below 2^62 (:data:`~dpverify.continual.checks.MAX_TOTAL`, as for
        a batch release); otherwise a ValueError naming ``a_t``."""
        a = check_count(a_t)
        if self.t >= self.n:
            raise ValueError(f"stream is bounded: n={self.n} releases already made, cannot push release {self.t + 1}")
        self._admit_total(a, "a_t", a_t)
        return a

    def admit_many(self, counts) -> np.ndarray:
        """A chunk of counts as an int64 array, once it fits in what remains of the bound (and of 2^62)."""
        a = check_counts(counts, "counts")
        if a.size > self.n - self.t:
            raise ValueError(f"counts too long: the stream is bounded, n={self.n}, {self.t} pushed, "
                             f"cannot push {a.size} more")
        # counts are >= 0: when max <= 2^62 / size the int64 sum cannot overflow; else exact Python ints
        total = 0 if not a.size else (int(a.sum()) if int(a.max()) <= MAX_TOTAL // a.size else sum(int(x) for x in a))
        self._admit_total(total, "counts", None)
        return a

    def _admit_total(self, add: int, name: str, value) -> None:
        total = getattr(self, "_admitted", 0) + add
        if total >= MAX_TOTAL:
            got = "" if value is None else f" (got {name}={value!r})"
            raise ValueError(f"{name} too large: the running total of the stream must stay below 2^62 (int64){got}")
        self._admitted = total

    def empty(self) -> np.ndarray:
        """The release of an empty chunk (integers under discrete noise)."""
        return np.empty(0, dtype=np.int64 if self.noise == "discrete" else float)

    # ------------------------------------------------------------ chunks of a k-ary tree (kary, binary)
    @staticmethod
    def _tree_nodes(a: np.ndarray, lo: int, k: int, acc: list) -> tuple[np.ndarray, np.ndarray]:
        """(node sums c, prefix sums P) of nodes lo .. lo + m − 1 of the k-ary tree, for the chunk ``a``.

        Node t at level v = v_k(t) sums the counts in ``(t − k^v, t]``; ``acc[v]`` is the sum of the
        counts pushed since the last multiple of k^v before the chunk (exact ints); ``P[i]`` is the
        sum of ``a[: i + 1]``.
        """
        m = a.size
        hi = lo + m - 1
        P = np.cumsum(a, dtype=np.int64)  # P[t − lo] = counts lo .. t
        span = np.ones(m, dtype=np.int64)
        v = np.zeros(m, dtype=np.int64)
        p = k
        while p <= hi:
            first = -(-lo // p) * p - lo  # the first multiple of p in the chunk
            span[first::p] = p
            v[first::p] += 1
            p *= k
        pred = np.arange(lo, hi + 1, dtype=np.int64) - span - lo  # t − k^v, in the chunk if >= 0
        inside = pred >= 0
        before = np.array([int(x) for x in acc], dtype=np.int64)
        c = P - np.where(inside, P[np.maximum(pred, 0)], -before[v])
        return c, P

    @staticmethod
    def _tree_fill(x: np.ndarray, lo: int, k: int, base: list) -> np.ndarray:
        """ŝ(t) = ŝ(t − k^{v_k(t)}) + x_t for t = lo .. lo + m − 1 (the release of eq. 5.6 chunked).

        ``base[v]`` is ŝ at the last multiple of k^v before the chunk (0 if none).  Levels from the
        top down and, within a level, digits in increasing order, as :func:`kary_path_sums`: the
        same additions in the same order as one push per count, so the same floats.
        """
        m = x.size
        hi = lo + m - 1
        out = np.empty_like(x)
        p, v = 1, 0
        while p * k <= hi:
            p, v = p * k, v + 1
        while p >= 1:
            for d in range(1, k):
                t1 = lo + (d * p - lo) % (k * p)  # the first t >= lo with t ≡ d·p (mod k·p)
                if t1 > hi:
                    continue
                i, q = t1 - lo, t1 - p - lo  # q: the index of t1's parent t1 − p
                if q < 0:  # the parent was released before the chunk
                    out[i] = base[v] + x[i]
                    i, q = i + k * p, q + k * p
                if i < m:
                    tgt = out[i :: k * p]
                    np.add(out[q :: k * p][: tgt.size], x[i :: k * p], out=tgt)
            p, v = p // k, v - 1
        return out

    def _in_pieces(self, counts) -> np.ndarray:
        """``push_many`` of a stream with a ``_chunk(a)`` method: the counts admitted, then released in
        pieces of :data:`PIECE` (their temporaries stay in cache)."""
        a = self.admit_many(counts)
        parts = [self._chunk(a[i : i + PIECE]) for i in range(0, a.size, PIECE)]  # type: ignore[attr-defined]
        if not parts:
            return self.empty()
        return parts[0] if len(parts) == 1 else np.concatenate(parts)

    def _run_noise(self, lo: int, m: int) -> np.ndarray:
        """The noise of nodes lo + 1 .. lo + m, from the aligned runs of :data:`CHUNK` a subclass draws
        into ``self._buf`` (starting at node ``self._lo + 1``) by ``self._draw(pos)`` when first reached."""
        parts, pos = [], lo
        while pos < lo + m:
            if self._buf is None or not self._lo <= pos < self._lo + self._buf.size:  # type: ignore[attr-defined]
                self._draw(pos)  # type: ignore[attr-defined]
            take = min(lo + m - pos, self._lo + self._buf.size - pos)  # type: ignore[attr-defined]
            parts.append(self._buf[pos - self._lo : pos - self._lo + take])  # type: ignore[attr-defined]
            pos += take
        return parts[0] if len(parts) == 1 else np.concatenate(parts)
