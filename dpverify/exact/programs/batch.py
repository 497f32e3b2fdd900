"""A program run on many draws at once: the vectorised sampler of a program's law.

:class:`SampleContext` runs a program once per draw (a Python loop); :func:`batch_outputs` runs it on
``n`` draws together.  Every noise is drawn as a numpy array over the draws that reach it; at a
branch (a comparison, a ``None`` slot, an argmax) the draws that disagree with the first one are set
aside with the noise they have drawn so far, and later the program is run again on them from the
start, *replaying* that noise (so every earlier branch goes the same way) and drawing fresh noise
past it.  A program is deterministic given its noise, so each draw's output is the output of one
scalar run with the same noise: the law of the batch sampler is the program's law.  The noise is
the same two-sided geometric as :class:`SampleContext`'s (a difference of two geometric draws with
success probability 1 − r, r = e^{−ε/b}).

The outputs come back as column indices of a :class:`~.law.ProgramLaw` (:func:`batch_columns`),
the form the statistical auditor counts.  ``tests/exact/test_programs.py`` checks the batch
sampler's frequencies against the exact law.

Example
-------
>>> import numpy as np
>>> from dpverify.exact.programs import program_law
>>> from dpverify.exact.programs.checkdp import sparsevector
>>> law = program_law(sparsevector, [(0, 1), (1, 0)], T=1, NN=1)
>>> cols = batch_columns(law, (0, 1), 1.0, np.random.default_rng(0), 1000)
>>> cols.shape, bool((cols >= 0).all())
((1000,), True)
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from dpverify.exact.programs.context import noise_scale
from dpverify.validation import check_generator, check_positive_int, check_real

__all__: list[str] = []  # internal: the public face is ProgramLaw.sampler(epsilon)

_MAX_DRAWS = 10 ** 7  # per call: the arrays of one call stay within a few hundred MB


class _Val:
    """A value that differs between the draws of a run (an array over the run's draws, by position)."""

    __slots__ = ("run", "arr", "id", "kind", "inc", "parent")

    def __init__(self, run, arr, id_=None, kind=None, inc=None, parent=None):
        self.run, self.arr, self.id, self.kind, self.inc, self.parent = run, arr, id_, kind, inc, parent

    def now(self):
        """The values of the draws still on the current path."""
        return self.arr[self.run.pos]


class _Run:
    """One pass of the program over a set of draws (``noise``: the columns drawn before, replayed)."""

    def __init__(self, owner, idx, noise):
        self.owner, self.idx, self.noise = owner, idx, noise  # noise[k]: array over idx
        self.pos = np.arange(len(idx))                         # the positions still on this path
        self.k, self.ids = 0, 0

    # -- noise and branching
    def _z(self, b):
        if b is None:
            return 0
        k = self.k
        self.k += 1
        if k < len(self.noise):
            return self.noise[k][self.pos]
        full = np.zeros(len(self.idx), dtype=np.int64)
        full[self.pos] = self.owner.draw(b, len(self.pos))
        self.noise.append(full)
        return full[self.pos]

    def _split(self, labels):
        """Keep the draws whose label equals the first draw's; set the others aside for a replay."""
        labels = np.broadcast_to(np.asarray(labels), (len(self.pos),))
        first = labels[0]
        keep = labels == first
        if not keep.all():
            for lab in np.unique(labels[~keep]):
                sel = self.pos[labels == lab]
                self.owner.stack.append((self.idx[sel], [col[sel] for col in self.noise]))
            self.pos = self.pos[keep]
        return first

    def _arr(self, v):
        return v.now() if isinstance(v, _Val) else int(v)

    def _new(self, values, kind, inc=None, parent=None, counted=True):
        full = np.zeros(len(self.idx), dtype=np.int64)
        full[self.pos] = values
        fi = None
        if inc is not None:
            fi = np.zeros(len(self.idx), dtype=np.int64)
            fi[self.pos] = inc
        self.ids += counted
        return _Val(self, full, self.ids - 1 if counted else None, kind, fi, parent)

    # -- the primitives (the same names and meaning as SampleContext's)
    def threshold(self, T, b):
        return self._new(int(T) + self._z(noise_scale(b)), "thr", counted=False)  # not an output: no id

    def noisy_ge(self, x, b, thr) -> bool:
        return bool(self._split(int(x) + self._z(noise_scale(b)) >= self._arr(thr)))

    def noisy_gap(self, x, b, thr, at_least=0):
        g = int(x) + self._z(noise_scale(b)) - self._arr(thr) + np.zeros(len(self.pos), dtype=np.int64)
        ok = g >= at_least
        if not self._split(ok):
            return None
        return self._new(g[ok], "gap")

    def noisy_above(self, x, b, thr, at_least=0):
        v = int(x) + self._z(noise_scale(b)) + np.zeros(len(self.pos), dtype=np.int64)
        ok = v - self._arr(thr) >= at_least
        if not self._split(ok):
            return None
        return self._new(v[ok], "value")

    def release(self, x, b, after=None):
        b = noise_scale(b)
        inc = int(x) + self._z(b) + np.zeros(len(self.pos), dtype=np.int64)
        base = 0 if after is None else after.now()
        return self._new(base + inc, "release" if b is not None else "point", inc, None if after is None else after.id)

    def _winner(self, values, b):
        noisy = [int(v) + self._z(noise_scale(b)) + np.zeros(len(self.pos), dtype=np.int64) for v in values]
        j = np.zeros(len(self.pos), dtype=np.int64)
        best = noisy[0].copy()
        for i in range(1, len(noisy)):
            up = noisy[i] > best
            j[up], best[up] = i, noisy[i][up]
        jj = int(self._split(j))
        keep = j == jj
        return jj, best[keep]

    def argmax(self, values, b) -> int:
        return self._winner(values, b)[0]

    def max_value(self, values, b):
        jj, best = self._winner(values, b)
        return self._new(best, "maxval")


class _Batch:
    def __init__(self, rng, epsilon):
        self.rng, self.epsilon, self.stack = rng, float(epsilon), []

    def draw(self, b, m: int):
        p = -math.expm1(-self.epsilon / float(b))  # 1 − r, as SampleContext._z
        return self.rng.geometric(p, m).astype(np.int64) - self.rng.geometric(p, m).astype(np.int64)


def _check(q, epsilon, rng, n):
    check_generator(rng, "rng")
    check_real(epsilon, "epsilon", positive=True)
    n = check_positive_int(n, "n", maximum=_MAX_DRAWS)
    q = tuple(int(x) for x in np.asarray(q).ravel())
    return q, n


def batch_outputs(program, q, epsilon: float, rng, n: int, **params):
    """Run ``program(ctx, q, **params)`` on ``n`` draws of its noise at ``epsilon``, vectorised.

    Returns a list of ``(draw indices, output tuple, run)``: every draw of ``indices`` took the same path
    and its output is the tuple with each varying slot (a ``_Val``) read at the draw's position.

    Example
    -------
    >>> import numpy as np
    >>> from dpverify.exact.programs.checkdp import noisymax
    >>> parts = batch_outputs(noisymax, (0, 30, 0), 1.0, np.random.default_rng(0), 100)
    >>> sorted(out for _, out, _ in parts)
    [(1,)]
    """
    q, n = _check(q, epsilon, rng, n)
    owner = _Batch(rng, epsilon)
    owner.stack.append((np.arange(n), []))
    done = []
    while owner.stack:
        idx, noise = owner.stack.pop()
        run = _Run(owner, idx, noise)
        out = tuple(program(run, q, **params))
        done.append((idx[run.pos], out, run))
    return done


def batch_columns(law, q, epsilon: float, rng, n: int) -> np.ndarray:
    """The column index (of ``law``, a :class:`~.law.ProgramLaw`) of each of ``n`` runs of its program on ``q``.

    −1 marks an output no input of the law can produce (as :meth:`~.law.ProgramLaw.column_of`).

    Example
    -------
    >>> import numpy as np
    >>> from dpverify.exact.programs import program_law
    >>> from dpverify.exact.programs.checkdp import partialsum
    >>> law = program_law(partialsum, [(0,), (1,)])
    >>> batch_columns(law, (0,), 1.0, np.random.default_rng(1), 5).tolist()
    [0, 1, 0, 1, 0]
    """
    q, n = _check(q, epsilon, rng, n)
    cols = np.full(n, -1, dtype=np.int64)
    for idx, out, run in batch_outputs(law.program, q, epsilon, rng, n, **law.params):
        if len(idx):
            cols[idx] = _columns_of(law, out, run)
    return cols


def _columns_of(law, out, run) -> np.ndarray:
    """The columns of the draws on one path (``run.pos``), slot by slot through the law's cells.

    Each varying slot's cell is coded as a small integer (values clipped to the slot's window, one
    code below and one above it); the codes of all slots form one mixed-radix code per draw, and each
    code present is looked up once."""
    shape = tuple(("$", v.kind, v.parent) if isinstance(v, _Val) else ("=", v) for v in out)
    m = len(run.pos)
    code, stride, slots = np.zeros(m, dtype=np.int64), 1, []
    for i, v in enumerate(out):
        if not isinstance(v, _Val):
            continue
        w = (v.inc if v.kind in ("release", "point") else v.arr)[run.pos]
        if v.kind == "point":
            lo, hi = int(w.min()), int(w.max())
            c = w
        else:
            lo, hi = law.partitions.get((shape, i), (0, -1))
            c = np.clip(w, lo - 1, hi + 1)
            lo, hi = lo - 1, hi + 1
        span = hi - lo + 1
        if stride * span > 1 << 24:
            raise ValueError(f"an output with {stride * span} cell combinations: past the sampler's table of 2^24")
        code += (c - lo) * stride
        slots.append((i, v.kind, lo, span, stride))
        stride *= span
    present = np.flatnonzero(np.bincount(code, minlength=stride))
    table = np.full(stride, -1, dtype=np.int64)
    for k in present:
        cells = {}
        for i, kind, lo, span, st in slots:
            c = lo + (int(k) // st) % span
            if kind == "point":
                cells[i] = ("pt", c)
            elif c == lo or c == lo + span - 1:  # below or above the window
                cells[i] = (("<",) if c == lo else (">",)) if kind == "release" else ("rest",)
            else:
                cells[i] = ("=", c)
        table[k] = law.column_index(tuple((sh, cells[i]) if i in cells else sh for i, sh in enumerate(shape)))
    return table[code]
