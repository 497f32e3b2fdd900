"""Noise samplers shared by every room.

``laplace(scale, size, rng)`` draws continuous Laplace noise;
``discrete_laplace(scale, size, rng)`` draws the two-sided geometric
distribution P(k) ∝ exp(−|k| / scale) on the integers, the integer analogue
used for integer-valued releases.  The discrete sampler is exact at every
scale: it uses only uniform integers from the Generator and exact rational
Bernoulli trials (Canonne, Kamath, Steinke, "The Discrete Gaussian for
Differential Privacy", NeurIPS 2020, Algorithms 1–2), never a float
exponential, so no low bits are lost at large scales and no tail is cut.

``size`` everywhere means *independent draws*: a batch of ``size`` draws
used as noise for ``size`` releases of the same data costs ``size``·ε under
sequential composition.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from dpverify.validation import as_generator, check_finite_array, check_size
from dpverify.proofdocs import proven

__all__ = ["MAX_DISCRETE_SCALE", "MAX_LAPLACE_SCALE", "laplace", "discrete_laplace"]

#: Largest scale :func:`discrete_laplace` accepts: its int64 outputs then overflow with
#: probability below e^{-64} (|K| ≥ 2^63 needs ⌊X/s⌋ ≥ 2^63 with P(X ≥ x) = e^{-x/scale}).
MAX_DISCRETE_SCALE = 2.0**57

#: Largest scale :func:`laplace` accepts: beyond it draws (scale × an exponential up to ~40) overflow float64.
MAX_LAPLACE_SCALE = 1e305

_T_FAST = 32  # V < 32 keeps t·V + U < 2^57 · 32 + 2^57 < 2^63 in int64


def _scales(scale, name="scale") -> np.ndarray:
    if isinstance(scale, (str, bytes)) or np.asarray(scale).dtype.kind in "USObc":
        raise TypeError(f"{name} must be a positive real number or array of them, got {scale!r}")
    s = check_finite_array(scale, name)
    if (s <= 0).any():
        raise ValueError(f"{name} must be > 0, got {s[s <= 0].ravel()[0]!r}")
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


def _bernoulli_exp_one(n: int, g: np.random.Generator) -> np.ndarray:
    """Exact Bernoulli(e^{−1}) × n: :func:`_bernoulli_exp_frac` with γ = 1, where A_k ~ Bernoulli(1/k)."""
    out = np.empty(n, dtype=bool)
    active = np.arange(n)
    k = 2  # A_1 ~ Bernoulli(1) always succeeds
    while active.size:
        a = g.integers(0, k, size=active.size) == 0  # proof: bern-exp-one
        out[active[~a]] = k % 2 == 1
        active = active[a]
        k += 1
    return out


def _geometric_exact(t, shift, n: int, g: np.random.Generator) -> np.ndarray:
    """n draws of G = ⌊X / 2^shift⌋, X = U + t·V with P(X = x) ∝ e^{−x/t}; so P(G ≥ m) = e^{−m·2^shift/t}.

    ``t`` and ``shift`` are Python ints (one scale) or int64 arrays of length n (a scale per draw).
    U on {0, …, t−1} with P(U = u) ∝ e^{−u/t} (uniform proposal, accepted with
    Bernoulli(e^{−u/t}) ≥ e^{−1}); V with P(V ≥ v) = e^{−v} (the number of Bernoulli(e^{−1})
    successes before the first failure).  CKS Algorithm 2, steps 1–5.
    """
    per = isinstance(t, np.ndarray)
    U = np.zeros(n, dtype=np.int64)
    pending = np.flatnonzero(t > 1) if per else np.arange(n if t > 1 else 0)  # t = 1: U = 0 always
    while pending.size:
        tp = t[pending] if per else t
        u = g.integers(0, tp, size=pending.size)  # proof: dlap-uniform
        acc = _bernoulli_exp_frac(u, tp, g)  # proof: dlap-accept
        U[pending[acc]] = u[acc]
        pending = pending[~acc]
    V = np.zeros(n, dtype=np.int64)
    active = np.arange(n)
    while active.size:
        b = _bernoulli_exp_one(active.size, g)  # proof: dlap-geometric-v
        V[active[b]] += 1
        active = active[b]
    G = np.zeros(n, dtype=np.int64)
    fast = V < _T_FAST
    tf, sh = (t[fast], shift[fast]) if per else (t, shift)
    # X < 2^63 here: t ≤ 2^57, V < 32
    X = U[fast] + tf * V[fast]  # proof: dlap-x
    G[fast] = np.where(sh < 63, X >> np.minimum(sh, 62), 0)  # proof: dlap-floor
    for i in np.flatnonzero(~fast):  # V ≥ 32 (probability e^{-32}): exact Python ints
        ti, si = (int(t[i]), int(shift[i])) if per else (t, shift)
        gi = (int(U[i]) + ti * int(V[i])) >> si  # proof: dlap-floor-exact
        if gi >= 2**63:
            raise ValueError("discrete_laplace: a draw exceeded the int64 range (probability < e^-64)")
        G[i] = gi
    return G


@proven("primitives/discrete_laplace_sampler.md")
def discrete_laplace(scale, size=None, rng=None) -> np.ndarray:
    """Two-sided geometric noise: P(K = k) = (1 − r)/(1 + r) · r^|k|, r = exp(−1/scale), exactly.

    ``scale`` (a float, or an array broadcast against ``size``) is read as the exact rational
    t / 2^j it is in binary.  K = G₁ − G₂ with G₁, G₂ i.i.d. geometric, P(G ≥ m) = r^m, each
    drawn as ⌊X / 2^j⌋ with X exactly geometric of ratio e^{−1/t}, using only uniform integers
    and exact Bernoulli(e^{−γ}) trials (Canonne–Kamath–Steinke 2020, Algorithms 1–2): exact at
    every scale (no float exponential, no lost low bits, no cut tail).  Returned as int64;
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
    s = _scales(scale)
    if (s > MAX_DISCRETE_SCALE).any():
        raise ValueError(
            f"scale must be <= 2^57 for int64 outputs of the exact discrete sampler, got {s[s > MAX_DISCRETE_SCALE].ravel()[0]!r}"
        )
    shape = check_size(size, "size", broadcast=s.shape, itemsize=8 * 12)
    g = as_generator(rng)
    n = math.prod(shape)
    if s.size == 1:  # one scale: t, j as Python ints
        f = Fraction(float(s.ravel()[0]))  # exact: scale = t / 2^j
        t, shift = f.numerator, f.denominator.bit_length() - 1
    else:
        uniq, inv = np.unique(np.broadcast_to(s, shape).ravel(), return_inverse=True)
        tq = np.empty(uniq.size, dtype=np.int64)
        sh = np.empty(uniq.size, dtype=np.int64)
        for i, v in enumerate(uniq.tolist()):
            f = Fraction(v)  # exact: v = t / 2^j
            tq[i] = f.numerator
            sh[i] = f.denominator.bit_length() - 1
        t, shift = tq[inv], sh[inv]
    g1 = _geometric_exact(t, shift, n, g)
    g2 = _geometric_exact(t, shift, n, g)
    return (g1 - g2).reshape(shape)  # proof: dlap-sampler
