"""The work of the library's FDA stream, measured: the most nodes it holds and the most node
operations one push makes (the O(log n) state and work that Alg. 5 of Cai, Wu and Wang's paper promises).

:func:`trace_stream` runs the stream of :func:`dpverify.continual.stream` with its descent path
instrumented (:class:`CountingPath` counts the pops and appends made on it).

Example
-------
>>> import numpy as np
>>> out, held, ops = trace_stream(7, np.ones(7, dtype=int), "discrete", seed=0)
>>> out.shape, held <= 3, ops <= 4
((7,), True, True)
"""

from __future__ import annotations

import warnings

import numpy as np

from dpverify.validation import check_elements, check_nonneg_int

__all__ = ["CountingPath", "trace_stream"]


class CountingPath(list):
    """The stream's descent path (a list of nodes), counting the node operations made on it.

    Example
    -------
    >>> p = CountingPath([0]); p.append(1); _ = p.pop()
    >>> p.ops, p.most
    (2, 2)
    """

    def __init__(self, items):
        if not isinstance(items, (list, tuple, np.ndarray)):
            raise TypeError(f"items must be a list, tuple or 1-D array of path nodes, got {type(items).__name__}")
        if isinstance(items, np.ndarray):
            check_elements(items, "items")
            if items.ndim != 1:
                raise ValueError(f"items must be a 1-D array of path nodes, got shape {items.shape}")
        for i, x in enumerate(items):
            if isinstance(x, (float, np.floating)) and not np.isfinite(x):
                raise ValueError(f"items must hold path nodes, got {x!r} at index {i}")
        super().__init__(items)
        self.ops = 0
        self.most = len(self)

    def pop(self, *args):
        self.ops += 1
        return super().pop(*args)

    def append(self, item):
        self.ops += 1
        super().append(item)
        self.most = max(self.most, len(self))


def trace_stream(n: int, a, noise: str, seed: int):
    """Run the library's FDA stream; return releases, the most nodes held and the most node operations per push.

    The stream keeps the nodes of the current descent path (``_path``, one sentinel entry besides the
    nodes); each push is instrumented by counting the pops and appends made on that path.

    Example
    -------
    >>> trace_stream(3, [1, 0, 2], "discrete", seed=0)[0].shape
    (3,)
    """
    from dpverify.continual.api import stream

    check_nonneg_int(seed, "seed")
    with warnings.catch_warnings():  # noise="laplace" is compared on purpose (the float caveat is not news here)
        warnings.simplefilter("ignore", UserWarning)
        s = stream(n, 1.0, "fda", rng=seed, noise=noise)
    out, work, state = [], 0, 0
    for x in a:
        path = CountingPath(s._path)
        s._path = path
        out.append(s.push(int(x)))
        work = max(work, path.ops)  # children merged (pops) + the new node (append)
        state = max(state, path.most - 1)  # nodes held, the sentinel not counted
    return np.array(out), state, work
