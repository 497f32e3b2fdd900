"""The continual room's mechanisms, as catalogue families (:func:`families`).

Every continual-release method of :func:`dpverify.continual.method_names` as a batch release
and (when it has an online form) as a stream, with each noise it supports, on count streams of
T = 2^log2_steps steps; neighbours: one count a_t changes by 1.  Audited through the statistic
Σ_{s ≥ t} out[:, s] (the totals a change at t moves).

Example
-------
>>> fams = {f.name: f for f in families()}
>>> m = fams["continual.release[fda, laplace]"].make(epsilon=1.0, log2_steps=2)
>>> m.name, m.sample(m.relation.candidates()[0][0], np.random.default_rng(0), 3).shape
('continual.release[fda, laplace](epsilon=1.0, T=4)', (3, 4))
"""

from __future__ import annotations

import warnings
from functools import partial

import numpy as np

from dpverify.audit.controls import SuffixSum
from dpverify.mechanisms import Call, Family, FunctionMechanism, Pair, Pairs, Param, family_name
from dpverify.validation import check_bool, check_nonneg_int
from dpverify.continual.checks import check_eps, check_noise
from dpverify.continual.methods import get_method

__all__ = ["continual", "families", "stream_pairs"]

EPS = Param("float", 0.1, 3.0)


def _release(d, rng, n, method, noise, epsilon):
    from dpverify.continual import release

    return np.stack([release(d, epsilon, method, rng, noise=noise) for _ in range(n)])


def _stream(d, rng, n, method, noise, epsilon):
    from dpverify.continual import stream

    out = np.empty((n, len(d)), dtype=float)
    for i in range(n):
        s = stream(len(d), epsilon, method, rng, noise=noise)
        out[i] = [s.push(int(a)) for a in d]
    return out


#: Count streams of at most 2^24 steps (each audit draw releases the whole stream).
MAX_LOG2_STEPS = 24


def _check_steps(log2_steps) -> int:
    return check_nonneg_int(log2_steps, "log2_steps", maximum=MAX_LOG2_STEPS)


def stream_pairs(*, epsilon, log2_steps, seed=0, **_) -> list[Pair]:
    """A random count stream and the same stream with one count raised by 1, with its statistic.

    Example
    -------
    >>> p = stream_pairs(epsilon=1.0, log2_steps=2)[0]
    >>> int(np.abs(p.d_prime - p.d).sum())
    1
    """
    check_eps(epsilon)
    log2_steps, seed = _check_steps(log2_steps), check_nonneg_int(seed, "seed")
    g = np.random.default_rng(seed)
    a = g.integers(0, 3, 2**log2_steps)
    t = int(g.integers(0, a.size))
    b = a.copy()
    b[t] += 1
    return [Pair(a, b, SuffixSum(t))]


def continual(*, epsilon, log2_steps, seed=0, method, noise, online):
    """One continual-release method as a mechanism on count streams (T = 2^log2_steps steps).

    Example
    -------
    >>> m = continual(epsilon=1.0, log2_steps=2, method="naive", noise="discrete", online=False)
    >>> m.name, m.sample(np.array([1, 0, 2, 1]), np.random.default_rng(0), 2).shape
    ('continual.release[naive, discrete](epsilon=1.0, T=4)', (2, 4))
    """
    epsilon, log2_steps = check_eps(epsilon), _check_steps(log2_steps)
    m = get_method(method)
    noise, online = check_noise(noise), check_bool(online, "online")
    if online and m.stream is None:
        raise ValueError(f"method {method!r} has no online form: online must be False")
    fn = _stream if online else _release
    kind = "stream" if online else "release"
    rel = Pairs(tuple((p.d, p.d_prime) for p in stream_pairs(epsilon=epsilon, log2_steps=log2_steps, seed=seed)),
                description="one count a_t changes by 1 (add/remove one record)")
    return FunctionMechanism(Call(fn, (("method", method), ("noise", noise), ("epsilon", epsilon))), epsilon, 0.0,
                             family_name(f"continual.{kind}[{method}, {noise}]", dict(epsilon=epsilon, T=2**log2_steps)),
                             rel)


def _supports(method: str, noise: str) -> bool:
    from dpverify.continual import release

    with warnings.catch_warnings():  # the probe's float-noise warning says nothing about support
        warnings.simplefilter("ignore", UserWarning)
        try:
            release([0, 1], 1.0, method, 0, noise=noise)
        except ValueError:
            return False
    return True


def families() -> list[Family]:
    """The room's mechanism families (read by :func:`dpverify.mechanisms.catalogue`).

    Example
    -------
    >>> names = [f.name for f in families()]
    >>> "continual.release[fda, discrete]" in names and "continual.stream[fenwick, laplace]" in names
    True
    """
    from dpverify.continual import method_names
    from dpverify.continual.methods import get_method

    space = {"epsilon": EPS, "log2_steps": Param("int", 1, 3), "seed": Param("int", 0, 2**31)}
    out = []
    for method in method_names():
        m = get_method(method)
        for noise in ("laplace", "discrete"):
            if not _supports(method, noise):
                continue
            for online in (False, True) if m.stream is not None else (False,):
                kind = "stream" if online else "release"
                out.append(Family(f"continual.{kind}[{method}, {noise}]",
                                  partial(continual, method=method, noise=noise, online=online),
                                  space, stream_pairs, samples=2_000, default={"log2_steps": 2}))
    return out
