"""Exact kernels of the auditor's bins (:class:`~dpverify.audit.events.Binner`, :class:`~dpverify.audit.events.Event`).

- :func:`edge_ranks` — the ranks of a sorted pilot sample that become a continuous statistic's bin
  edges: a pure function of the sample's size, computed once per size (an audit bins many samples of
  one size, and the exceedance self-test runs a thousand audits);
- :func:`in_bins` — whether values lie in a union of the bins (e_{i−1}, e_i] of sorted edges: a union
  of a few runs of adjacent bins is decided by two comparisons per run, not by a binary search per
  value.  The answer is the same as ``mask[np.searchsorted(edges, t, side="left")]``, the bin of each
  value looked up in the mask (for finite values: a run of bins i..j is the interval
  e_{i−1} < t ≤ e_j, with e_{−1} = −∞ and e_{len(edges)} = +∞);
- :func:`in_values` — the same for a discrete statistic's bins (one value each, and the bin of values
  never seen): with a few values, one comparison per value instead of a binary search per draw.

Example
-------
>>> edges = np.array([0.0, 1.0, 2.0])
>>> mask = np.array([True, False, True, True])        # t <= 0, or t > 1
>>> in_bins(np.array([-3.0, 0.0, 0.5, 1.0, 1.5, 9.0]), edges, mask).tolist()
[True, True, False, False, True, True]
"""

from __future__ import annotations

import functools

import numpy as np

from dpverify.validation import check_elements, check_positive_int

__all__ = ["edge_ranks", "in_bins", "in_values"]

N_UNIFORM_EDGES = 1024  # evenly spaced ranks of the sorted pilot
N_TAIL_EDGES = 192  # geometrically spaced ranks into each tail
MAX_RUNS = 8  # a union of more runs of bins is looked up by a binary search per value


def edge_ranks(n: int) -> np.ndarray:
    """The ranks (0-based, increasing, distinct) of a sorted pilot of ``n`` values whose values become a
    continuous statistic's bin edges: ``N_UNIFORM_EDGES`` evenly spaced and ``N_TAIL_EDGES``
    geometrically spaced into each tail.  Read-only (one array per size, shared).

    >>> r = edge_ranks(100_000)
    >>> int(r[0]), int(r[-1]), len(r) > 1024, r.flags.writeable
    (0, 99999, True, False)
    """
    return _edge_ranks(check_positive_int(n, "n"))


@functools.lru_cache(maxsize=64)
def _edge_ranks(n: int) -> np.ndarray:
    tail = np.unique(np.geomspace(1, max(1, n // 20), N_TAIL_EDGES).round().astype(np.int64)) - 1
    idx = np.unique(np.concatenate([np.linspace(0, n - 1, N_UNIFORM_EDGES).round().astype(np.int64), tail,
                                    n - 1 - tail]))
    idx.flags.writeable = False
    return idx


def in_bins(t, edges, mask) -> np.ndarray:
    """Whether each value of ``t`` lies in the union of the bins ``mask`` marks: bin i is (e_{i−1}, e_i]
    of the increasing ``edges`` (bin 0 is t ≤ e_0, the last bin t > e_{−1}), so ``mask`` has one entry
    per bin, ``len(edges) + 1``.  The same as ``mask[np.searchsorted(edges, t, side="left")]`` for
    finite values (``t`` and ``edges`` must be finite).

    >>> in_bins(np.array([1, 5]), np.array([2.0, 4.0]), np.array([False, True, False])).tolist()
    [False, False]
    """
    for name, a in (("t", t), ("edges", edges)):
        if not isinstance(a, np.ndarray) or a.dtype.kind not in "iuf":
            raise TypeError(f"{name} must be a numpy array of numbers, got {type(a).__name__}")
        check_elements(a, name)
        if a.dtype.kind == "f" and not np.isfinite(a).all():
            raise ValueError(f"{name} must hold finite numbers, got NaN or infinite values")
    if edges.ndim != 1 or np.any(edges[1:] <= edges[:-1]):
        raise ValueError(f"edges must be a 1-d array of increasing numbers, got shape {edges.shape}")
    if not isinstance(mask, np.ndarray) or mask.dtype != bool or mask.shape != (len(edges) + 1,):
        raise ValueError(f"mask must be a boolean array with one entry per bin of edges ({len(edges) + 1}), got "
                         f"{getattr(mask, 'shape', type(mask).__name__)}")
    step = np.diff(np.concatenate([[False], mask, [False]]).astype(np.int8))
    starts, ends = np.flatnonzero(step == 1), np.flatnonzero(step == -1) - 1  # the runs of bins i..j
    if len(starts) > MAX_RUNS:
        return mask[np.searchsorted(edges, t, side="left")]
    out = np.zeros(t.shape, bool)
    for i, j in zip(starts.tolist(), ends.tolist()):
        if i == 0 and j == len(edges):
            out[...] = True
        elif i == 0:
            out |= t <= edges[j]
        elif j == len(edges):
            out |= t > edges[i - 1]
        else:
            out |= (t > edges[i - 1]) & (t <= edges[j])
    return out


MAX_VALUES = 4  # a discrete statistic with more values is looked up by a binary search per value


def in_values(t, values, mask) -> np.ndarray:
    """Whether each value of ``t`` lies in the union of the discrete bins ``mask`` marks: bin i holds the
    value ``values[i]`` (distinct, increasing), the last bin every other value, so ``mask`` has
    ``len(values) + 1`` entries.  The same as looking each value's bin up by a binary search
    (:class:`~dpverify.audit.events.Event` of a discrete statistic).

    >>> in_values(np.array([0, 1, 2, 7]), np.array([0, 1, 2]), np.array([False, True, False, True])).tolist()
    [False, True, False, True]
    """
    for name, a in (("t", t), ("values", values)):
        if not isinstance(a, np.ndarray) or a.dtype.kind not in "iu":
            raise TypeError(f"{name} must be a numpy array of integers, got {type(a).__name__}")
        check_elements(a, name)
    if values.ndim != 1 or np.any(values[1:] <= values[:-1]):
        raise ValueError(f"values must be a 1-d array of increasing integers, got shape {values.shape}")
    if not isinstance(mask, np.ndarray) or mask.dtype != bool or mask.shape != (len(values) + 1,):
        raise ValueError(f"mask must be a boolean array with one entry per bin of values ({len(values) + 1}), got "
                         f"{getattr(mask, 'shape', type(mask).__name__)}")
    if len(values) > MAX_VALUES or not len(values):
        idx = np.searchsorted(values, t, side="left")
        idx_c = np.minimum(idx, max(len(values) - 1, 0))
        return mask[np.where(values[idx_c] == t, idx_c, len(values))] if len(values) else np.full(t.shape, mask[0])
    seen, out = np.zeros(t.shape, bool), np.zeros(t.shape, bool)
    for j in range(len(values)):
        eq = t == values[j]
        seen |= eq
        if mask[j]:
            out |= eq
    return out | ~seen if mask[-1] else out
