"""Noise samplers shared by every room.

``laplace(scale, size, rng)`` draws continuous Laplace noise;
``discrete_laplace(scale, size, rng)`` draws the two-sided geometric
distribution P(k) ∝ exp(−|k| / scale) on the integers, the integer analogue
used for integer-valued releases.  The discrete sampler is exact at every
scale and vectorised: K = 0 with probability (1 − r)/(1 + r), else
±(1 + G) with G geometric, G = Q·M + R for a power of two M ≈ scale/256, Q by
inversion and R by rejection.  Every random decision compares a uniform real,
read 53 bits at a time from the Generator's 64-bit words, with a number
e^{−y} (or (1 − r)/(1 + r)); a float approximation with a proven error below
2^-46 settles it unless the two are within 2^-44, and then exact rational
brackets and further random bits do (about one decision in 2^42).  So the law
is exact (no float exponential decides anything alone, no low bits are lost,
no tail is cut), at float speed.  Proof: ``primitives/discrete_laplace_sampler.md``.
:func:`_bernoulli_exp_frac` keeps Canonne–Kamath–Steinke's exact Bernoulli(e^{−γ})
(NeurIPS 2020, Algorithm 1) as an independent reference for the tests.

``size`` everywhere means *independent draws*: a batch of ``size`` draws
used as noise for ``size`` releases of the same data costs ``size``·ε under
sequential composition.
"""

from __future__ import annotations

import math

import numpy as np

from dpverify.primitives.exact_noise import two_sided_geometric
from dpverify.validation import as_generator, check_finite_array, check_size
from dpverify.proofdocs import proven

__all__ = ["MAX_DISCRETE_SCALE", "MAX_LAPLACE_SCALE", "laplace", "discrete_laplace", "discrete_laplace_words"]

#: Largest scale :func:`discrete_laplace` accepts: its int64 outputs then overflow with
#: probability below e^{-64} (|K| ≥ 2^63 needs ⌊X/s⌋ ≥ 2^63 with P(X ≥ x) = e^{-x/scale}).
MAX_DISCRETE_SCALE = 2.0**57

#: Largest scale :func:`laplace` accepts: beyond it draws (scale × an exponential up to ~40) overflow float64.
MAX_LAPLACE_SCALE = 1e305



def _scales(scale, name="scale", *, exact: bool = False) -> np.ndarray:
    given = np.asarray(scale)
    if isinstance(scale, (str, bytes)) or given.dtype.kind in "USObc":
        raise TypeError(f"{name} must be a positive real number or array of them, got {scale!r}")
    s = check_finite_array(scale, name)
    if (s <= 0).any():
        raise ValueError(f"{name} must be > 0, got {s[s <= 0].ravel()[0]!r}")
    if exact and given.dtype != np.float64 and given.dtype.kind in "iuf":  # the exact sampler reads a float64
        with np.errstate(all="ignore"):
            lost = s.astype(given.dtype) != given
        if lost.any():  # e.g. 2**53 + 1 or a long double: rounding could shrink the noise
            bad = given[lost].ravel()[0] if given.ndim else given.item()
            raise ValueError(f"{name} must be exactly a float64 for the exact sampler, got {bad!r} (it would be "
                             f"rounded to {float(bad)!r}); pass a float64 scale, rounded up if it must not shrink")
    return s


def laplace(scale, size=None, rng=None) -> np.ndarray:
    """Laplace(0, scale) noise; ``scale`` may be an array broadcast against ``size``.

    Floating-point noise: its outputs leak the input's low bits (Mironov 2012); integer
    releases use :func:`discrete_laplace`.

    Example
    -------
    >>> laplace(1.0, 3, rng=np.random.default_rng(0)).shape
    (3,)
    """
    s = _scales(scale)
    if (s > MAX_LAPLACE_SCALE).any():
        raise ValueError(f"scale must be <= 1e305 (larger Laplace draws overflow float64), got {s[s > MAX_LAPLACE_SCALE].ravel()[0]!r}")
    shape = check_size(size, "size", broadcast=s.shape)
    g = as_generator(rng)
    return g.laplace(0.0, s, size=shape)


def _bernoulli_exp_frac(num: np.ndarray, den: np.ndarray, g: np.random.Generator) -> np.ndarray:
    """Exact Bernoulli(exp(−num/den)) per entry, for integers 0 ≤ num ≤ den (CKS Algorithm 1).

    The tests' independent exact reference (the sampler itself decides by brackets, see above).

    K = 1, 2, … while A_K ~ Bernoulli(γ/K) succeeds; the result is [K odd], whose probability
    is Σ_k odd γ^{k−1}/(k−1)! (1 − γ/k) = e^{−γ}.  Bernoulli(γ/K) is drawn as
    Bernoulli(num/den) ∧ Bernoulli(1/K), two independent uniform-integer comparisons.
    """
    out = np.empty(num.shape, dtype=bool)
    active = np.arange(num.size)
    k = 1
    per = isinstance(den, np.ndarray)  # one denominator per entry, or one for all (a Python int)
    while active.size:
        d = den[active] if per else den
        # A_k ~ Bernoulli(γ/k) = Bernoulli(num/den) ∧ Bernoulli(1/k) (k = 1: the second is certain)
        a = g.integers(0, d, size=active.size) < num[active]  # proof: bern-exp
        if k > 1:
            a &= g.integers(0, k, size=active.size) == 0  # proof: bern-exp
        stop = active[~a]
        out[stop] = k % 2 == 1  # proof: bern-exp-parity
        active = active[a]
        k += 1
    return out


def discrete_laplace_words(scale, words, extra) -> np.ndarray:
    """Exact discrete Laplace draws, entry i read from its own stream of uniform 64-bit words.

    ``scale`` is a float, or a 1-D float array (one scale per entry, as in :func:`discrete_laplace`);
    ``words`` a ``(len(scale), B)`` uint64 array, the first B words of each entry's stream;
    ``extra(i)`` returns a callable giving the further words of entry i's stream, one per call
    (called rarely: about 1 entry in 1000 needs more than 8 words).  Entry i's output is a function
    of its stream alone (the same stream gives the same draw, whatever the other entries), with the
    law of :func:`discrete_laplace` when the words are i.i.d. uniform.

    Example
    -------
    >>> w = np.random.default_rng(0).integers(0, 2**64, size=(3, 8), dtype=np.uint64)
    >>> more = lambda i: np.random.default_rng(i).bit_generator.random_raw
    >>> discrete_laplace_words(np.array([1.0, 2.0, 2.0**40]), w, more).dtype
    dtype('int64')
    """
    s = _scales(scale, exact=True)
    if s.ndim > 1 or (s > MAX_DISCRETE_SCALE).any():
        raise ValueError(f"scale must be a scale <= 2^57 or a 1-D array of them, got {scale!r}")
    words = np.asarray(words)
    n = words.shape[0] if words.ndim == 2 else -1
    if words.dtype != np.uint64 or words.ndim != 2 or words.shape[1] < 1 or s.ndim and s.size != n:
        raise ValueError(f"words must be a (len(scale), B) uint64 array, got {words.dtype} {words.shape}")
    if not callable(extra):
        raise TypeError(f"extra must be callable, got {extra!r}")
    cursor = np.zeros(n, dtype=np.int64)
    col = [0]  # while every entry has read the same number of words: that number, else -1
    streams: dict = {}

    def draw(ids):
        if col[0] >= 0 and ids.size == n and col[0] < words.shape[1]:
            col[0] += 1
            return words[:, 0] if words.shape[1] == 1 else words[:, col[0] - 1].copy()
        if col[0] >= 0:
            cursor[:], col[0] = col[0], -1
        c = cursor[ids]
        cursor[ids] += 1
        inb = c < words.shape[1]
        out = np.empty(ids.size, dtype=np.uint64)
        out[inb] = words[ids[inb], c[inb]]
        for j in np.flatnonzero(~inb):
            i = int(ids[j])
            out[j] = streams.setdefault(i, extra(i))()
        return out

    return two_sided_geometric(s, n, draw)


@proven("primitives/discrete_laplace_sampler.md")
def discrete_laplace(scale, size=None, rng=None) -> np.ndarray:
    """Two-sided geometric noise: P(K = k) = (1 − r)/(1 + r) · r^|k|, r = exp(−1/scale), exactly.

    ``scale`` (a float, or an array broadcast against ``size``; one scale per draw is fine) is
    read as the exact rational it is in binary.  K = 0 with probability (1 − r)/(1 + r), else
    ±(1 + G) with a fair sign and P(G ≥ m) = r^m; G = Q·M + R (M a power of two, M/scale ∈
    (1/512, 1/256], or M = 1 below scale 256) with Q = max{m : V < e^{−mM/scale}} for a uniform
    real V and R uniform on {0, …, M − 1} accepted with probability e^{−R/scale}.  Each comparison
    with a uniform real is settled exactly (a float within 2^-46, else exact rational brackets and
    further random bits): exact at every scale, no lost low bits, no cut tail.  Returned as int64;
    scales above :data:`MAX_DISCRETE_SCALE` = 2^57 are refused (outputs would not fit int64).
    ``size`` draws are independent (a batch used on one datum costs size·ε).
    Proof: ``primitives/discrete_laplace_sampler.md``.

    Example
    -------
    >>> discrete_laplace(2.0, 4, rng=np.random.default_rng(0)).dtype
    dtype('int64')
    >>> k = discrete_laplace(1.0, 200_000, rng=1)
    >>> r = np.exp(-1.0)
    >>> bool(abs(np.mean(k == 0) - (1 - r) / (1 + r)) < 0.005)
    True
    """
    s = _scales(scale, exact=True)
    if (s > MAX_DISCRETE_SCALE).any():
        raise ValueError(
            f"scale must be <= 2^57 for int64 outputs of the exact discrete sampler, got {s[s > MAX_DISCRETE_SCALE].ravel()[0]!r}"
        )
    shape = check_size(size, "size", broadcast=s.shape, itemsize=8 * 12)
    g = as_generator(rng)
    raw = g.bit_generator.random_raw
    n = math.prod(shape)
    s = s if s.size == 1 else np.broadcast_to(s, shape)
    return two_sided_geometric(s, n, lambda ids: raw(ids.size)).reshape(shape)  # proof: dlap-sampler
