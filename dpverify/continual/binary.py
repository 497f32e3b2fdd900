"""The binary mechanism of Chan, Shi, Song (2011), Alg. 2 "Binary Mechanism B", for T = n releases.

p-sums α_i over ``(t − 2^i, t]`` with i the lowest set bit of t, each noisy with
Lap(L/ε); s_t is the sum of the noisy p-sums of the set bits of t.  L counts the
p-sums one count can fall in, ``floor(log2 n) + 1`` (the paper writes
ε' = ε/log T; with ``floor + 1`` the release is exactly ε-DP).
MSE(t) = Var(p-sum) · popcount(t): 2L²/ε² (Laplace) or 2r/(1 − r)², r = e^{−ε/L}
(discrete).  Online.  Reference: Cai, Wu, Wang 2016, §5.2; ``continual/baselines_variance.md``.

Example
-------
>>> from dpverify.continual import expected_mse
>>> expected_mse(4, 1.0, "binary").tolist()   # 2 · 3² · popcount(t)
[18.0, 18.0, 36.0, 18.0]
"""

from __future__ import annotations

import numpy as np

from dpverify.validation import as_generator, check_counts, check_positive_int
from dpverify.continual.checks import MAX_DISCRETE_SCALE, check_eps, check_n, check_noise, check_result
from dpverify.continual.kary_tree import kary_node_sums, kary_path_sums, kary_recombination, kary_strategy_matrix
from dpverify.continual.streams import CHUNK, BoundedStream, draw_run
from dpverify.continual.trees import bit_counts, guard
from dpverify.proofdocs import proven

__all__ = [
    "binary_levels",
    "binary_expected_mse",
    "binary_strategy",
    "binary_release",
    "BinaryMechanismStream",
]


def binary_levels(n: int, levels: int | None = None) -> int:
    """L: the noise is Lap(L/ε) per p-sum; default ``floor(log2 n) + 1``, the most p-sums one count is in.

    A smaller L would not be ε-DP and is refused; a larger one (e.g. the
    ``m + 1`` levels of a complete tree over 2^m >= n leaves) is allowed.

    Example
    -------
    >>> binary_levels(8)   # ⌈log2(n+1)⌉ levels for n = 8
    4
    >>> binary_levels(7)
    3
    """
    n = check_positive_int(n, "n")
    need = n.bit_length()
    if levels is None:
        return need
    levels = check_positive_int(levels, "levels")
    if levels < need:
        raise ValueError(f"levels must be >= floor(log2 n) + 1 = {need} for ε-DP, got {levels}")
    return levels


@proven("continual/baselines_variance.md")
def binary_expected_mse(n: int, epsilon: float, *, levels: int | None = None, noise: str = "laplace") -> np.ndarray:
    """Exact MSE of release t: ``2 L² popcount(t) / ε²`` (popcount(t) independent noisy p-sums).

    Reference: Chan, Shi, Song (2011) Alg. 2; Cai, Wu, Wang 2016, §5.2.

    Example
    -------
    >>> binary_expected_mse(7, 1.0).tolist()   # L = 3
    [18.0, 18.0, 36.0, 18.0, 36.0, 36.0, 54.0]
    """
    n = check_n(n, per_node=32, what=f"binary_expected_mse(n={n})")
    eps = check_eps(epsilon)
    check_noise(noise)
    L = binary_levels(n, levels)
    t = np.arange(1, n + 1, dtype=np.int64)
    if noise == "discrete":  # DLap(L/ε) on the integer p-sums: variance 2r/(1 - r)², r = e^{-ε/L}
        r = np.exp(-eps / L)
        mse = 2.0 * r / np.expm1(-eps / L) ** 2 * bit_counts(t)  # proof: binary-mse-discrete
    else:
        mse = 2.0 * L**2 * bit_counts(t) / eps**2  # proof: binary-mse
    return check_result(mse, epsilon)


def binary_strategy(n: int, *, levels: int | None = None):
    """``(R, A) = (L B, M / L)`` with the p-sum matrix M (rows = p-sums) and B summing the set bits.

    Example
    -------
    >>> R, A = binary_strategy(4)
    >>> bool(np.allclose((R @ A).toarray(), np.tril(np.ones((4, 4)))))   # R A = W
    True
    """
    n = check_positive_int(n, "n")
    L = binary_levels(n, levels)
    return (kary_recombination(n, 2) * float(L)).tocsr(), guard(kary_strategy_matrix(n, 2) / float(L))  # proof: guard


@proven("continual/baselines_variance.md")
def binary_release(counts, epsilon: float, rng=None, noise: str = "laplace", *, levels: int | None = None) -> np.ndarray:
    """Batch form of Alg. 2 of Chan–Shi–Song: noisy p-sums, then the sums over the set bits of t.

    Example
    -------
    >>> binary_release([1, 0, 2, 1], 1.0, rng=0).shape
    (4,)
    """
    a = check_counts(counts, "counts", nonempty=True)
    eps = check_eps(epsilon)
    check_noise(noise)
    g = as_generator(rng)
    L = _check_scale(binary_levels(a.size, levels), eps, noise)
    psum = kary_node_sums(a, 2)  # α for the p-sum ending at t
    scale = np.full(a.size, 1.0 / L)  # weight 1/L per p-sum: Lap(L/ε), or DLap(L/ε) on the integer p-sum
    z = np.concatenate([draw_run(scale[lo : lo + CHUNK], eps, g, noise) for lo in range(0, a.size, CHUNK)])
    return kary_path_sums(psum + z * (L if noise == "laplace" else 1), 2)  # proof: binary-release


def _check_scale(L: int, eps: float, noise: str) -> int:
    """L, once the noise scale L/ε of a p-sum is representable (integer noise: at most 2^40)."""
    if noise == "discrete" and not L / eps <= MAX_DISCRETE_SCALE:
        raise ValueError(f"levels = {L} is too large for integer noise at epsilon = {eps!r}: the scale L/ε = "
                         f"{L / eps:.3g} exceeds 2^40 (the noisy totals would not stay inside int64)")
    return L


class BinaryMechanismStream(BoundedStream):
    """Chan–Shi–Song Alg. 2 verbatim: ``push(σ(t))`` returns B(t) in O(log n).

    i = lowest set bit of t; α_i ← Σ_{j<i} α_j + σ(t); α_j, α̂_j ← 0 for j < i;
    α̂_i ← α_i + Lap(L/ε); output Σ_{j: bit j of t set} α̂_j.

    Example
    -------
    >>> s = BinaryMechanismStream(3, 1.0, rng=0)
    >>> len([s.push(c) for c in (1, 0, 2)]), s.remaining
    (3, 0)
    """

    def __init__(self, n: int, epsilon: float, rng=None, noise: str = "laplace", *, levels: int | None = None):
        super().__init__(n, epsilon, rng, noise)
        self.L = _check_scale(binary_levels(self.n, levels), self.epsilon, self.noise)
        self._zero = 0 if self.noise == "discrete" else 0.0  # integer counts + integer noise: integers
        self._alpha = [0] * (self.n.bit_length() + 1)
        self._alpha_hat = [self._zero] * (self.n.bit_length() + 1)
        self._buf = None
        self._lo = 0

    def _draw(self, lo: int) -> None:
        """The noise of p-sums lo + 1 .. lo + CHUNK (lo a multiple of CHUNK): the batch release's chunks."""
        z = draw_run(np.full(min(CHUNK, self.n - lo), 1.0 / self.L), self.epsilon, self._rng, self.noise)
        self._buf = z * self.L if self.noise == "laplace" else z
        self._lo = lo

    def push(self, a_t):
        """Add σ(t); return the noisy running total B(t): an int under discrete noise, else a float."""
        a_t = self.admit(a_t)  # the one push guard of the streams (dpverify.continual.streams)
        if self._buf is None or self.t - self._lo >= self._buf.size:  # the batch release's chunks, in order
            self._draw(self.t)
        t = self.t + 1
        i = (t & -t).bit_length() - 1
        alpha, hat = self._alpha, self._alpha_hat
        alpha[i] = sum(alpha[:i]) + int(a_t)
        for j in range(i):
            alpha[j] = 0
            hat[j] = self._zero
        hat[i] = alpha[i] + self._buf[t - 1 - self._lo].item()
        self.t = t
        out = self._zero
        for j in range(len(hat) - 1, -1, -1):  # high bits first: the batch adds the descent path in this order
            if (t >> j) & 1:
                out += hat[j]
        return out

    def push_many(self, counts) -> np.ndarray:
        """Push a chunk of counts; return their noisy running totals B(t), vectorised.

        The same noise, p-sums and additions as one :meth:`push` per count (equal integers under
        discrete noise, equal floats under Laplace noise), so also :func:`binary_release`.

        Example
        -------
        >>> a = BinaryMechanismStream(9, 1.0, rng=4, noise="discrete")
        >>> b = BinaryMechanismStream(9, 1.0, rng=4, noise="discrete")
        >>> a.push_many([1, 0, 2, 1]).tolist() + [a.push(3)] == [b.push(x) for x in (1, 0, 2, 1, 3)]
        True
        """
        return self._in_pieces(counts)

    def _chunk(self, a: np.ndarray) -> np.ndarray:
        t0, m = self.t, a.size
        lo, hi = t0 + 1, t0 + m
        alpha, hat = self._alpha, self._alpha_hat
        acc, base = [0] * len(alpha), [self._zero] * len(alpha)
        run = self._zero  # the kary state of time t0 from Alg. 2's: the set bits of t0, high bits first
        for j in range(len(alpha) - 1, -1, -1):
            if (t0 >> j) & 1:
                run += hat[j]
            base[j] = run  # B(t0 with the bits below j cleared)
        for j in range(1, len(alpha)):
            acc[j] = acc[j - 1] + (alpha[j - 1] if (t0 >> (j - 1)) & 1 else 0)  # counts since that time
        c, _ = self._tree_nodes(a, lo, 2, acc)  # the p-sums α ending at lo .. hi
        x = c + self._run_noise(t0, m)
        out = self._tree_fill(x, lo, 2, base)
        for j in range(len(alpha)):  # Alg. 2's state at hi: the p-sums of its set bits
            e = hi >> j << j
            if (hi >> j) & 1 and e >= lo:
                alpha[j], hat[j] = int(c[e - lo]), x[e - lo].item()
        self.t = hi
        return out

def _register():
    from dpverify.continual.methods import ContinualMethod, register_method

    register_method(ContinualMethod(
        name="binary",
        description="binary mechanism of Chan–Shi–Song (2011): Lap(L/ε) p-sums, L = floor(log2 n) + 1 (option levels)",
        expected_mse=binary_expected_mse,
        strategy=binary_strategy,
        release=binary_release,
        stream=BinaryMechanismStream,
        online=True,
        reference="Chan, Shi, Song, TISSEC 14(3) 2011, Alg. 2; Cai, Wu, Wang 2016, §5.2",
    ))


_register()
