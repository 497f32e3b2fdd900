"""RAPPOR (Erlingsson, Pihur & Korolova, CCS 2014): a value is hashed into a Bloom filter B of
``size`` bits with ``hashes`` hash functions (MurmurHash3 of the value's decimal text, seeds
0..h−1, as in the DP-Sniper benchmark), then every bit goes through the permanent randomised
response (1 or 0 with probability f/2 each, else B_i) and, for full RAPPOR, the instantaneous
one (1 with probability q if the bit is 1, p if 0).  :class:`OneTimeRappor` stops after the
permanent step (steps 1–2), :class:`Rappor` runs steps 1–3.

Bits are independent, so bit i is 1 with probability π1 when B_i = 1 and π0 when B_i = 0; for
two values whose filters differ in m bits the exact ε is m·ln max(π1/π0, (1−π0)/(1−π1)), and
the claimed ε = 2h·ln(...) is the worst case m = 2h.

Example
-------
>>> murmur3_32(b"foo", 0) - 2**32      # MurmurHash3 x86_32 reference value (signed): -156908512
-156908512
"""

from __future__ import annotations

import math

import numpy as np

from dpverify.mechanisms.relations import Neighbours
from dpverify.audit.suite.base import BenchmarkMechanism, count_of, vector_of
from dpverify.validation import check_budget, check_int_in, check_probability

__all__ = ["OneTimeRappor", "Rappor", "murmur3_32"]

_M = 0xFFFFFFFF
#: Hash functions of a filter (RAPPOR deployments use 2, DP-Sniper's benchmark 4): at most 64.
_MAX_HASHES = 64
#: high − low at most: the exact ε hashes every value in [low, high] and compares every pair of filters.
_MAX_VALUES = 1000


def _rotl(x: int, r: int) -> int:
    return ((x << r) | (x >> (32 - r))) & _M


def murmur3_32(data: bytes, seed: int) -> int:
    """MurmurHash3 x86_32 of ``data`` (bytes-like) with a 32-bit ``seed`` in [0, 2^32 − 1] (unsigned result).

    Example
    -------
    >>> murmur3_32(b"", 0)
    0
    """
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise TypeError(f"data must be bytes, got {data!r} of type {type(data).__name__}")
    return _murmur3_32(bytes(data), check_int_in(seed, "seed", 0, _M))


def _murmur3_32(data: bytes, seed: int) -> int:
    c1, c2, h, n = 0xCC9E2D51, 0x1B873593, seed & _M, len(data)
    for i in range(0, n - n % 4, 4):
        k = _rotl((int.from_bytes(data[i : i + 4], "little") * c1) & _M, 15) * c2 & _M
        h = (_rotl(h ^ k, 13) * 5 + 0xE6546B64) & _M
    tail, k = data[n - n % 4 :], 0
    for j, byte in enumerate(tail):
        k ^= byte << (8 * j)
    if tail:
        h ^= _rotl((k * c1) & _M, 15) * c2 & _M
    h ^= n
    h = ((h ^ (h >> 16)) * 0x85EBCA6B) & _M
    h = ((h ^ (h >> 13)) * 0xC2B2AE35) & _M
    return h ^ (h >> 16)


def _value_range(low, high) -> tuple[int, int]:
    """The integer values [low, high]: exact in float64 (the relation holds them as floats), low < high,
    and at most _MAX_VALUES + 1 of them (the exact ε compares the filters of every pair)."""
    low = check_int_in(low, "low", -(2**53), 2**53 - 1)
    high = check_int_in(high, "high", -(2**53) + 1, 2**53)
    if not low < high <= low + _MAX_VALUES:
        raise ValueError(f"high must be in [low + 1, low + {_MAX_VALUES}] = [{low + 1}, {low + _MAX_VALUES}] "
                         f"(the exact ε compares the filters of every pair of values), got high={high}")
    return low, high


class Rappor(BenchmarkMechanism):
    """RAPPOR steps 1–3 with h hashes, filter size k, f, p, q (defaults of the DP-Sniper benchmark).

    The values are the integers ``low..high``; the exact ε hashes each once and compares every pair
    of filters, so ``hashes`` <= 64, ``high`` − ``low`` in [1, 1000] (bounds within ±2^53, exact in
    float64) and a filter row within the memory budget; anything else is refused by name.

    Example
    -------
    >>> r = Rappor()
    >>> r.sample(np.array([1]), np.random.default_rng(0), 2).shape, round(r.epsilon, 4)
    ((2, 20), 0.4001)
    """

    name = "Rappor"

    def __init__(self, hashes: int = 4, size: int = 20, f: float = 0.75, p: float = 0.45, q: float = 0.55,
                 low: int = -10, high: int = 10):
        self.hashes = count_of(hashes, "hashes", maximum=_MAX_HASHES)
        self.size = count_of(size, "size")
        check_budget(8 * self.size, f"size = {self.size} (one draw holds size bits)")
        self.f, self.p, self.q = (check_probability(v, nm) for nm, v in (("f", f), ("p", p), ("q", q)))
        self.low, self.high = _value_range(low, high)
        pi1, pi0 = self._bit_probabilities()
        if not 0 < pi0 < 1 or not 0 < pi1 < 1:
            raise ValueError("f, p, q give a deterministic bit: not private")
        self.bit_epsilon = abs(max(math.log(pi1 / pi0), math.log((1 - pi0) / (1 - pi1)), key=abs))
        self.epsilon = 2 * self.hashes * self.bit_epsilon  # the paper's claim (worst case m = 2h)
        self.relation = Neighbours(shape=(1,), kind="replace", low=self.low, high=self.high, integer=True)
        self.true_epsilon = self._exact_epsilon()

    def _bit_probabilities(self) -> tuple[float, float]:
        pi1 = self.q * (1 - self.f / 2) + self.p * self.f / 2
        pi0 = self.q * self.f / 2 + self.p * (1 - self.f / 2)
        return pi1, pi0

    def _bits(self, value: int) -> np.ndarray:
        """The set bits of the Bloom filter of ``value``, sorted (signed MurmurHash3 mod size)."""
        text = str(int(value)).encode()
        hashes = (_murmur3_32(text, i) for i in range(self.hashes))
        return np.unique([(h - 2**32 if h >= 2**31 else h) % self.size for h in hashes])

    def bloom(self, value: int) -> np.ndarray:
        """The Bloom filter of ``value`` (signed MurmurHash3 mod size, as in the benchmark)."""
        b = np.zeros(self.size, dtype=bool)
        b[self._bits(value)] = True
        return b

    def _exact_epsilon(self) -> float:
        """max of :meth:`pair_epsilon` over all pairs of values in [low, high], each filter hashed once:
        filters A, B differ in |A| + |B| − 2|A ∩ B| bits, the intersections counted by a sparse product."""
        from scipy.sparse import csr_matrix

        bits = [self._bits(v) for v in range(self.low, self.high + 1)]
        counts = np.array([b.size for b in bits], dtype=np.int64)
        rows = np.repeat(np.arange(len(bits)), counts)
        used, cols = np.unique(np.concatenate(bits), return_inverse=True)  # only the bits some filter sets
        filters = csr_matrix((np.ones(rows.size, dtype=np.int64), (rows, cols.reshape(-1))),
                             shape=(len(bits), used.size))
        shared = (filters @ filters.T).toarray()
        differ = counts[:, None] + counts[None, :] - 2 * shared
        return int(differ.max()) * self.bit_epsilon

    def pair_epsilon(self, a: int, b: int) -> float:
        """Exact ε between values a and b: (#bits where their filters differ)·(per-bit ε)."""
        return int(np.count_nonzero(self.bloom(a) != self.bloom(b))) * self.bit_epsilon

    def sample(self, data, rng, n):
        pi1, pi0 = self._bit_probabilities()
        b = self.bloom(int(round(float(vector_of(data)[0]))))
        return (rng.random((count_of(n), self.size)) < np.where(b, pi1, pi0)).astype(np.int64)


class OneTimeRappor(Rappor):
    """RAPPOR steps 1–2 (permanent randomised response only), f = 0.95.

    Example
    -------
    >>> round(OneTimeRappor().epsilon, 4)       # 8 ln(0.525 / 0.475)
    0.8007
    """

    name = "OneTimeRappor"

    def __init__(self, hashes: int = 4, size: int = 20, f: float = 0.95, low: int = -10, high: int = 10):
        super().__init__(hashes, size, f, p=0.0, q=1.0, low=low, high=high)
