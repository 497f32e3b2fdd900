"""The naive method (Cai, Wu, Wang 2016, §5.1): fresh noise of scale 1/ε on each count, then accumulate.

Release t is ``s_t + Σ_{j<=t} noise_j``: exact MSE ``2t/ε²`` (Laplace) or
``t · 2r/(1-r)²`` with ``r = e^{-ε}`` (two-sided geometric).  As a
factorization: A = I (sensitivity 1), R = W.

Example
-------
>>> from dpverify.continual import expected_mse
>>> expected_mse(3, 1.0, "naive").tolist()
[2.0, 4.0, 6.0]
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from dpverify.validation import as_generator, check_counts, check_epsilon
from dpverify.continual.checks import MAX_TOTAL, check_n, check_noise_scale, check_total
from dpverify.continual.fenwick import node_variances
from dpverify.continual.streams import CHUNK, BoundedStream
from dpverify.continual.methods import ContinualMethod, register_method
from dpverify.primitives.sampling import discrete_laplace

__all__ = ["naive_expected_mse", "naive_release", "naive_strategy", "NaiveStream"]

_MAX_W_ENTRIES = 2**24


def naive_expected_mse(n: int, epsilon: float, *, noise: str = "laplace") -> np.ndarray:
    """Exact MSE of each naive release: t times the variance of one noise draw.

    Example
    -------
    >>> naive_expected_mse(3, 1.0).tolist()               # 2t/ε²
    [2.0, 4.0, 6.0]
    """
    n = check_n(n, per_node=16, what=f"naive_expected_mse(n={n})")
    var = float(node_variances(np.ones(1), epsilon, noise)[0])  # one node of weight 1
    return var * np.arange(1, n + 1, dtype=float)


def naive_strategy(n: int):
    """``(R, A) = (W, I)``; W has n(n+1)/2 entries, so only for n ≤ 5792 (≤ 2²⁴ entries).

    Example
    -------
    >>> R, A = naive_strategy(3)
    >>> R.toarray().astype(int).tolist(), A.nnz
    ([[1, 0, 0], [1, 1, 0], [1, 1, 1]], 3)
    """
    n = check_n(n)
    if n * (n + 1) // 2 > _MAX_W_ENTRIES:
        raise ValueError(f"n must be <= 5792 for the naive strategy (W has n(n+1)/2 stored entries), got {n}; "
                         "expected_mse and release do not need it")
    length = np.arange(1, n + 1, dtype=np.int64)  # row t has ones in columns 1..t
    indptr = np.concatenate([[0], np.cumsum(length)])
    indices = np.arange(indptr[-1], dtype=np.int64) - np.repeat(indptr[:-1], length)
    W = sp.csr_matrix((np.ones(indptr[-1]), indices, indptr), shape=(n, n))
    return W, sp.identity(n, format="csr")


def naive_release(counts, epsilon: float, rng=None, noise: str = "discrete") -> np.ndarray:
    """``cumsum(a + noise)``: N draws and one cumulative sum (validates its input).

    Example
    -------
    >>> naive_release([1, 2, 3], 1e9, rng=0, noise="discrete").tolist()
    [1, 3, 6]
    """
    a = check_counts(counts, "counts", nonempty=True)
    check_total(a)
    eps = check_epsilon(epsilon)
    if noise not in ("laplace", "discrete"):
        raise ValueError(f"noise must be 'laplace' or 'discrete', got {noise!r}")
    return _naive_release(a, eps, as_generator(rng), noise)


def _naive_release(a: np.ndarray, epsilon: float, rng: np.random.Generator, noise: str) -> np.ndarray:
    # input validated by the caller (dpverify.continual.release or naive_release); the noise is
    # drawn in the stream's aligned runs, so a batch and a stream seeded alike agree
    return NaiveStream(a.size, epsilon, rng=rng, noise=noise).push_many(a)


class NaiveStream(BoundedStream):
    """The naive method online: ``s_t = s_{t-1} + a_t + noise`` with noise of scale 1/ε.

    Example
    -------
    >>> s = NaiveStream(3, 1e9, rng=0, noise="discrete")
    >>> [s.push(a) for a in (1, 2, 3)]
    [1, 3, 6]
    """

    def __init__(self, n: int, epsilon: float, rng=None, noise: str = "laplace"):
        super().__init__(n, epsilon, rng, noise)
        self._s = 0
        self._buf = None
        self._pos = 0

    def _refill(self):
        check_noise_scale(self.epsilon, 1.0, self.noise)
        m = min(CHUNK, self.n - self.t)
        if self.noise == "laplace":
            self._buf = self._rng.laplace(0.0, 1.0 / self.epsilon, size=m).tolist()
        else:
            self._buf = discrete_laplace(1.0 / self.epsilon, m, self._rng).tolist()
        self._pos = 0

    def push(self, a_t):
        """Add a_t; return the noisy s_t."""
        a = self.admit(a_t)
        if self._buf is None or self._pos >= len(self._buf):
            self._refill()
        s = self._s + (a + self._buf[self._pos])
        if self.noise == "discrete" and abs(s) >= MAX_TOTAL:
            raise ValueError("counts too large: the running total must stay below 2^62 (int64)")
        self._s = s
        self._pos += 1
        self.t += 1
        return self._s

    def push_many(self, counts) -> np.ndarray:
        """Push a chunk of counts; return their noisy running totals (the values repeated ``push`` gives).

        Example
        -------
        >>> s = NaiveStream(4, 1e9, rng=0, noise="discrete")
        >>> s.push_many([1, 2]).tolist(), s.push_many([3, 4]).tolist()
        ([1, 3], [6, 10])
        """
        a = self.admit_many(counts)
        if a.size and int(a.max()) * a.size + abs(self._s) >= MAX_TOTAL:
            if abs(self._s) + sum(int(x) for x in a) >= MAX_TOTAL:
                raise ValueError("counts too large: the running total must stay below 2^62 (int64)")
        parts, pos = [], 0
        while pos < a.size:
            if self._buf is None or self._pos >= len(self._buf):
                self._refill()
            m = min(a.size - pos, len(self._buf) - self._pos)
            z = np.array(self._buf[self._pos : self._pos + m])
            y = np.cumsum(a[pos : pos + m] + z)  # proof: naive-chunk
            y += self._s
            self._s = y[-1].item()
            parts.append(y)
            self._pos += m
            self.t += m
            pos += m
        if not parts:
            return self.empty()
        return parts[0] if len(parts) == 1 else np.concatenate(parts)


def _naive_stream(n, epsilon, rng, noise):
    return NaiveStream(n, epsilon, rng=rng, noise=noise)


register_method(
    ContinualMethod(
        name="naive",
        description="fresh Lap(1/ε) on each count, accumulated (MSE 2t/ε²)",
        expected_mse=naive_expected_mse,
        strategy=naive_strategy,
        release=_naive_release,
        stream=_naive_stream,
        online=True,
        reference="Cai, Wu, Wang 2016, §5.1",
    )
)
