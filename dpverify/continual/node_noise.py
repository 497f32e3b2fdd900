"""Counter-addressed node noise: the noise of tree node (level j, index i) is a pure function of (key, j, i).

A mechanism that releases through a tree whose nodes may end *after* the
current time (the subtraction tree of :mod:`dpverify.continual.elders`) needs
the noise of future nodes now, and again later, without storing it.  Here the
noise of node (j, i) (i >= 1) is read from the Philox-4x64 counter-based
generator of numpy under a secret 128-bit key drawn once from the caller's
``numpy.random.Generator``: level j is the counter's second word, node i owns
the 64-bit words 2i and 2i+1 of that level's word stream.  Any range of nodes
of a level is therefore produced in one vectorised call (batch release), and a
single node or a short run of nodes again at any later time (streaming
release, O(1) state per level).

Each word w gives U = (floor(w / 2^11) + 1) / 2^53 in (0, 1] (53 random bits,
as numpy's doubles) and E = -log U, a standard exponential.

- ``"laplace"``: node i reads words 2i, 2i+1; b (E1 - E2) is the Laplace(b) law
  (a difference of two independent Exp(1/b) variables);
- ``"discrete"``: node i reads words Bi .. Bi+B-1 (B = 1 when the scale is
  below 256 and no factors are given, else 8) as the start of its own word
  stream (continued, in the rare case it needs more, by the Philox counter
  (c, level, i, 1), c = 0, 1, ...) and applies the library's exact sampler
  :func:`dpverify.primitives.sampling.discrete_laplace_words`: the two-sided
  geometric law P(K = m) ∝ exp(-|m| / b) exactly, at every scale
  (``dpverify/primitives/proofs/discrete_laplace_sampler.md``).

Example
-------
>>> import numpy as np
>>> nn = NodeNoise.from_rng(np.random.default_rng(0), scale=2.0, noise="discrete")
>>> bool((nn.nodes(1, 5, 4) == nn.nodes(1, 5, 4)).all())     # the same node, the same noise
True
>>> bool((nn.nodes(0, 3, 4)[1:] == nn.nodes(0, 4, 3)).all())   # nodes are addressed, not sequential
True
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from dpverify.primitives.sampling import discrete_laplace_words
from dpverify.validation import as_generator, check_nonneg_int, check_positive_int, check_real

__all__ = ["NodeNoise"]

_NOISES = ("laplace", "discrete")
_TWO53 = 2.0**-53
_WORDS = 8  # words of a node's own stream read in one vectorised call (discrete noise; 1 below scale 256)


@dataclass(frozen=True)
class NodeNoise:
    """Noise of scale ``scale`` for every node (level, index >= 1), addressed by a 128-bit key.

    Example
    -------
    >>> nn = NodeNoise(key=(1, 2), scale=1.0, noise="laplace")
    >>> nn.nodes(0, 1, 3).shape
    (3,)
    """

    key: tuple
    scale: float
    noise: str = "laplace"

    def __post_init__(self):
        key = self.key
        if isinstance(key, np.ndarray) and key.shape == (2,) and key.dtype.kind in "iu":
            key = tuple(int(x) for x in key)
            object.__setattr__(self, "key", key)
        if not isinstance(key, (tuple, list)) or len(key) != 2 or any(
                isinstance(x, (bool, np.bool_)) or not isinstance(x, (int, np.integer)) for x in key):
            raise TypeError(f"key must be two 64-bit integers, got {key!r}")
        for x in key:
            if not 0 <= int(x) < 2**64:
                raise ValueError(f"key must be two 64-bit integers, got {key!r}")
        check_real(self.scale, "scale", positive=True)
        if self.noise not in _NOISES:
            raise ValueError(f"noise must be one of {_NOISES}, got {self.noise!r}")

    @classmethod
    def from_rng(cls, rng, *, scale: float, noise: str = "laplace") -> "NodeNoise":
        """A fresh secret key from ``rng`` (one draw of two 64-bit words).

        Example
        -------
        >>> NodeNoise.from_rng(0, scale=1.0).noise
        'laplace'
        """
        g = as_generator(rng)
        k = g.integers(0, 2**64, size=2, dtype=np.uint64)
        return cls(key=(int(k[0]), int(k[1])), scale=float(scale), noise=noise)

    def words(self, level: int, start: int, count: int, per: int = 2) -> np.ndarray:
        """The ``(count, per)`` uint64 words of nodes ``start .. start+count-1``: node i owns words per·i .. per·i+per-1.

        Example
        -------
        >>> NodeNoise(key=(1, 2), scale=1.0).words(0, 3, 2, per=8).shape
        (2, 8)
        """
        level = check_nonneg_int(level, "level")
        start = check_positive_int(start, "start")
        count = check_nonneg_int(count, "count")
        per = check_positive_int(per, "per")
        block, skip = divmod(per * start, 4)  # Philox-4x64 emits 4 words per counter value
        bg = np.random.Philox(key=np.array(self.key, dtype=np.uint64), counter=[block, level, 0, 0])
        return bg.random_raw(skip + per * count)[skip:].reshape(count, per)

    def extra_words(self, level: int, node: int):
        """A callable giving the further words of node ``node``'s discrete stream (Philox counter (c, level, node, 1)).

        Example
        -------
        >>> more = NodeNoise(key=(1, 2), scale=1.0).extra_words(0, 5)
        >>> isinstance(more(), int)
        True
        """
        bg = np.random.Philox(key=np.array(self.key, dtype=np.uint64), counter=[0, level, node, 1])
        return bg.random_raw

    def exponentials(self, level: int, start: int, count: int) -> tuple[np.ndarray, np.ndarray]:
        """The two standard exponentials of nodes ``start .. start+count-1`` of ``level``.

        Example
        -------
        >>> e1, e2 = NodeNoise(key=(1, 2), scale=1.0).exponentials(0, 1, 4)
        >>> bool((e1 >= 0).all() and (e2 >= 0).all())
        True
        """
        w = self.words(level, start, count)  # node i owns words 2i, 2i+1 of the level's word stream
        e = -np.log(((w >> np.uint64(11)).astype(np.float64) + 1.0) * _TWO53)  # U in (0, 1], E = -log U
        return e[:, 0], e[:, 1]

    def nodes(self, level: int, start: int, count: int, factors=None) -> np.ndarray:
        """Noise of nodes ``start .. start+count-1`` of ``level`` (float, or int64 for ``"discrete"``).

        ``factors`` (optional, one non-negative number per node) multiplies the
        scale node by node (0: no noise).  Each node's noise depends on (key, level, node) only.

        Example
        -------
        >>> NodeNoise(key=(1, 2), scale=3.0, noise="discrete").nodes(2, 7, 2).dtype
        dtype('int64')
        """
        count = check_nonneg_int(count, "count")
        b = self.scale
        if factors is not None:
            b = self.scale * np.asarray(factors, dtype=float)
            if b.shape != (count,) or not (np.isfinite(b).all() and (b >= 0).all()):
                raise ValueError(f"factors must be {count} finite non-negative numbers")
        if self.noise == "laplace":
            e1, e2 = self.exponentials(level, start, count)
            return b * (e1 - e2)  # proof: node-noise-laplace
        w = self.words(level, start, count, 1 if factors is None and b < 256.0 else _WORDS)
        if factors is None:
            return discrete_laplace_words(b, w, lambda i: self.extra_words(level, start + i))  # proof: node-noise-discrete
        out = np.zeros(count, dtype=np.int64)
        on = np.flatnonzero(b > 0)  # factor 0: no noise
        if on.size:
            more = lambda i: self.extra_words(level, start + int(on[i]))  # noqa: E731
            out[on] = discrete_laplace_words(b[on], w[on], more)  # proof: node-noise-discrete
        return out
