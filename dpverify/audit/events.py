"""Events of the auditor: sets S of outputs defined through a scalar statistic T.

:class:`PatternCode` turns small-integer output vectors into one code per row (exact when the codes fit
in 62 bits, a fixed 63-bit hash otherwise — any fixed function of the output gives a valid event,
collisions only merge patterns); :class:`Binner` counts statistic values into bins fixed from a pilot
sample — for categorical statistics (pattern codes) the ``max_patterns`` most frequent values of the
pilot each get a bin and every other value falls into one "other" bin, stated in the event's
description (no silent degradation); :func:`candidate_events` lists the candidate events (thresholds
and likelihood-ratio-ordered unions of bins) with a minimum-count rule (``dpverify/audit/proofs/selection.md``).

Example
-------
>>> PatternCode(0, 1)(np.array([[0, 1], [1, 0], [1, 1]])).tolist()
[1, 2, 3]
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np

from dpverify.audit.binning import edge_ranks, in_bins, in_values
from dpverify.audit.words import event_form, event_words, number_text
from dpverify.validation import check_bool, check_elements, check_positive_int

__all__ = ["Event", "PatternCode"]

_MAX_DISCRETE_BINS = 4096
_MAX_PATTERNS = 1 << 16
_MAX_LUT = 1 << 22
_MAX_UNION_GROUPS = 32  # the union family of a many-bin statistic works on this many groups of bins
_HASH_MULT = np.uint64(0x9E3779B97F4A7C15)


@dataclass(frozen=True)
class PatternCode:
    """Statistic encoding each row of a small-integer output matrix as one int64.

    Entries must lie in ``low..high``; with B = high − low + 1 and width w, a row x becomes
    Σ_i (x_i − low)·B^(w−1−i) when B^w < 2^62 (exact, one code per pattern), and otherwise
    a fixed 63-bit multiplicative hash of the row (the same in every chunk and run).  Lets
    the auditor treat vector outputs with many distinct patterns (sparse-vector answers
    ⊤/⊥/stopped, Bloom-filter bits) as one categorical output; the binner keeps the most
    frequent patterns and pools the rest into a stated "other" bin.

    Example
    -------
    >>> PatternCode(0, 1)(np.array([[0, 1], [1, 0], [1, 1]])).tolist()
    [1, 2, 3]
    >>> int(PatternCode(0, 1)(np.zeros((1, 80), int))[0]) >= 0   # 2^80 patterns: hashed
    True

    ``columns`` codes only those columns of the flattened output (the code block of an output that
    also releases values, e.g. the ⊤/⊥ half of SVT34Parallel); ``clip`` floors every entry and clips
    it into ``low..high`` instead of refusing it (a fixed map, so values never seen when the code was
    chosen still get a code):

    >>> PatternCode(0, 1, columns=(1,))(np.array([[0.5, 1], [7.25, 0]])).tolist()
    [1, 0]
    >>> PatternCode(-2, 2, clip=True)(np.array([[0.5], [-7.0], [9.0]])).tolist()
    [2, 0, 4]
    """

    low: int = -1
    high: int = 1
    columns: tuple = ()
    clip: bool = False
    categorical: ClassVar[bool] = True

    def __post_init__(self):
        for name, v in (("low", self.low), ("high", self.high)):
            if not isinstance(v, (int, np.integer)) or isinstance(v, bool):
                raise TypeError(f"{name} must be an integer, got {v!r}")
        if self.low > self.high:
            raise ValueError(f"low must be <= high, got low={self.low}, high={self.high}")
        object.__setattr__(self, "clip", check_bool(self.clip, "clip"))  # np.bool_ too, kept as a bool
        if not isinstance(self.columns, tuple) or not all(
                isinstance(j, (int, np.integer)) and not isinstance(j, bool) and j >= 0 for j in self.columns):
            raise ValueError(f"columns must be a tuple of non-negative column indices, got {self.columns!r}")

    def __call__(self, outputs) -> np.ndarray:
        a = _numeric(outputs, "outputs", "biuf")
        if a.ndim == 0:
            raise ValueError(f"outputs must have one row per output (shape (n,) or (n, k)), got {outputs!r:.80}")
        if a.shape[0] == 0:
            return np.zeros(0, dtype=np.int64)
        if self.columns:
            a = a.reshape(a.shape[0], -1)
            if max(self.columns) >= a.shape[1]:
                raise ValueError(f"columns={self.columns} is out of range for outputs of width {a.shape[1]}")
            a = a[:, list(self.columns)]
        if self.clip:
            a = np.clip(np.floor(np.asarray(a, dtype=float)), self.low, self.high)
        if a.dtype.kind == "f" and a.size and not np.array_equal(a, np.round(a)):
            bad = a.flat[int(np.argmax(a.ravel() != np.round(a.ravel())))]
            raise ValueError(f"outputs must hold integers (pattern entries), got {bad.item()!r}")
        if a.size and (a.min() < self.low or a.max() > self.high):
            raise ValueError(f"outputs must hold pattern entries in low..high = {self.low}..{self.high}, got "
                             f"{a.min().item()!r}..{a.max().item()!r}")
        a = a.reshape(a.shape[0], -1).astype(np.int64)
        base = self.high - self.low + 1
        if base ** a.shape[1] < 2**62:
            weights = base ** np.arange(a.shape[1] - 1, -1, -1, dtype=np.int64)
            return (a - self.low) @ weights
        h = np.zeros(a.shape[0], dtype=np.uint64)
        with np.errstate(over="ignore"):
            for j in range(a.shape[1]):  # h <- (h xor (x_j + 1)) * M  (mod 2^64), a fixed hash
                h = (h ^ (a[:, j] - self.low + 1).astype(np.uint64)) * _HASH_MULT
        return (h >> np.uint64(1)).astype(np.int64)


@dataclass(frozen=True, eq=False)
class Event:
    """A set S of outputs, defined through a scalar statistic T of the output.

    ``kind`` is ``"le"`` (S = {T ≤ threshold}), ``"gt"`` (S = {T > threshold}), or
    ``"bins"`` (a union of bins of the statistic: the intervals between ``edges`` for
    continuous statistics, single ``values`` for discrete ones, plus the catch-all bin
    of values never seen during selection).  ``contains(t)`` decides membership.

    Example
    -------
    >>> from dpverify.audit import epsilon_lower_bound
    >>> from dpverify.audit.controls import LaplaceMechanism
    >>> r = epsilon_lower_bound(LaplaceMechanism(1.0), 0.0, 1.0, samples=20_000, rng=0)
    >>> r.event.kind, r.event.description   # S = {T ≤ t}: small outputs are likelier under d = 0
    ('le', 'T ≤ 0.029100713336106858')
    >>> r.event.describe("the released value"), r.event.to_json()["form"]
    ('the released value is at most 0.029100713336106858', 'at_most')
    """

    kind: str
    threshold: float | None
    discrete: bool
    edges: np.ndarray = field(repr=False)
    mask: np.ndarray = field(repr=False)
    description: str = ""

    def contains(self, t) -> np.ndarray:
        """Boolean array: which statistic values ``t`` (finite real numbers) lie in the event."""
        t = _numeric(t, "t", "iuf")
        if t.dtype.kind == "f" and not np.isfinite(t).all():
            raise ValueError(f"t must be finite statistic values, got {t!r:.80}")
        if self.kind == "le":
            return t <= self.threshold
        if self.kind == "gt":
            return t > self.threshold
        if len(self.mask) == len(self.edges) + 1 and (not self.discrete or t.dtype.kind == self.edges.dtype.kind
                                                       == "i"):  # a few runs of bins, or a few values: compared
            return in_values(t, self.edges, self.mask) if self.discrete else in_bins(t, self.edges, self.mask)
        return self.mask[_bin_index(t, self.edges, self.discrete)]

    def same_as(self, other: "Event") -> bool:
        """The same set of outputs, by definition (kind, threshold, bins and their mask).

        >>> b = Binner(np.arange(3), categorical=True)
        >>> e = make_event("bins", np.array([True, False, False, False]), b)
        >>> e.same_as(make_event("bins", np.array([True, False, False, False]), b)), e.same_as(make_event(
        ...     "bins", np.array([True, True, False, False]), b))
        (True, False)
        """
        return (self.kind == other.kind and self.threshold == other.threshold and self.discrete == other.discrete
                and np.array_equal(self.edges, other.edges) and np.array_equal(self.mask, other.mask))

    def __str__(self) -> str:
        return self.description

    def to_json(self) -> dict:
        """The set in machine form: ``form`` is ``"at_most"``/``"above"`` (``threshold``: T ≤ t, T > t),
        ``"one_of"``/``"none_of"`` (``values``: T is one of them / any value but them), ``"intervals"``
        (``intervals``: T lies in one of the (lo, hi], ``None`` for ∓∞), ``"everything"`` or ``"nothing"``.

        >>> b = Binner(np.array([0, 1, 2]))
        >>> make_event("gt", np.array([False, True, True, True]), b).to_json()
        {'form': 'none_of', 'values': [0], 'description': 'T is not 0'}
        """
        return event_form(self)

    def describe(self, subject: str = "T") -> str:
        """The set in exact words about ``subject`` (what T is: "the released value", "the classifier's
        score", ...; :func:`dpverify.audit.words.statistic_subject` names the audit's statistics).

        >>> b = Binner(np.arange(-8, 12))
        >>> m = np.r_[np.arange(-8, 12) % 2 == 0, False]
        >>> make_event("bins", m, b).describe("the released value")
        'the released value is an even integer from -8 to 10'
        """
        return event_words(self, subject)


def _numeric(x, name: str, kinds: str) -> np.ndarray:
    """``x`` as an array of the dtype ``kinds`` whose copy fits the memory budget; TypeError naming ``name``."""
    a = np.asarray(None if isinstance(x, (str, bytes)) else x)
    check_elements(a, name)
    if a.dtype.kind not in kinds:
        raise TypeError(f"{name} must be an array of {'integers' if 'f' not in kinds else 'numbers'}, got {x!r:.80}")
    return a


def _bin_index(t: np.ndarray, edges: np.ndarray, discrete: bool) -> np.ndarray:
    """Bin of each value: continuous — #edges < t (bins (e_{i-1}, e_i]); discrete — the
    position of t among ``edges`` (the distinct values) or len(edges) when unseen."""
    if not discrete:
        return np.searchsorted(edges, t, side="left")
    idx = np.searchsorted(edges, t, side="left")
    idx_c = np.minimum(idx, len(edges) - 1)
    return np.where(edges[idx_c] == t, idx_c, len(edges))


class Binner:
    """Counts a chunk of statistic values into the bins fixed from the pilot sample.

    Ordered integer statistics with more than 4,096 distinct pilot values are cut at
    quantiles like continuous ones; categorical ones (``categorical=True``: pattern codes)
    keep their ``max_patterns`` most frequent values and pool the rest into the last bin.

    Parameters
    ----------
    pilot : 1-d numpy array of numbers
        The pilot sample of the statistic; an integer dtype makes the bins single values.
    categorical : bool, optional
        Unordered codes (pattern codes): adjacent bins are unrelated.
    max_patterns : int, optional
        How many of a categorical pilot's most frequent values get a bin of their own.

    Example
    -------
    >>> b = Binner(np.array([0, 1, 1, 2]))
    >>> b.nbins, b.count(np.array([1, 1, 2, 7])).tolist()   # 7 falls in the bin of unseen values
    (4, [0, 2, 1, 1])
    >>> Binner(np.array([]))
    Traceback (most recent call last):
    ...
    ValueError: pilot must be a non-empty 1-d array, got shape (0,)
    """

    def __init__(self, pilot: np.ndarray, categorical: bool = False, max_patterns: int = _MAX_PATTERNS):
        if not isinstance(pilot, np.ndarray) or pilot.ndim != 1 or pilot.size == 0:
            raise ValueError(f"pilot must be a non-empty 1-d array, got shape {np.shape(pilot)}")
        if pilot.dtype.kind not in "biuf":
            raise TypeError(f"pilot must hold numbers, got dtype {pilot.dtype}")
        max_patterns = check_positive_int(max_patterns, "max_patterns")
        self.discrete = pilot.dtype.kind in "biu"
        self.categorical = bool(categorical)  # unordered codes: adjacent bins are unrelated
        self.n_distinct, self.pooled = 0, False
        if self.discrete:
            values, freq = np.unique(pilot, return_counts=True)
            self.n_distinct = len(values)
            if categorical and len(values) > max_patterns:
                keep = np.sort(np.argsort(-freq, kind="stable")[:max_patterns])
                values, self.pooled = values[keep], True
            if len(values) > _MAX_DISCRETE_BINS and not categorical:
                self.discrete = False
            else:
                self.edges = values.astype(np.int64)
                self.nbins = len(values) + 1  # + the bin of unseen values
                span = int(values[-1]) - int(values[0]) + 1
                self.lut = np.full(span, len(values), dtype=np.int64) if span <= _MAX_LUT else None
                if self.lut is not None:
                    self.lut[values - values[0]] = np.arange(len(values))
                return
        s = pilot.astype(float)  # a copy, sorted in place (np.sort would copy it again)
        s.sort()
        self.edges = np.unique(s[edge_ranks(len(s))])
        self.nbins = len(self.edges) + 1

    def count(self, t: np.ndarray) -> np.ndarray:
        if len(self.edges) <= 4 and (t.dtype.kind == "i" or not self.discrete and t.dtype.kind in "iuf"):
            if self.discrete:  # a few edges: one comparison each instead of a table or a sort (the same counts)
                hits = [np.count_nonzero(t == e) for e in self.edges]
                return np.array(hits + [len(t) - sum(hits)], dtype=np.int64)
            return np.diff(np.array([0, *(np.count_nonzero(t <= e) for e in self.edges), len(t)], dtype=np.int64))
        if self.discrete:
            if self.lut is not None and t.dtype.kind in "biu":
                off = t.astype(np.int64) - self.edges[0]
                inside = (off >= 0) & (off < len(self.lut))
                b = np.where(inside, self.lut[np.clip(off, 0, len(self.lut) - 1)], self.nbins - 1)
            else:
                b = _bin_index(t, self.edges, True)
            return np.bincount(b, minlength=self.nbins)
        s = np.sort(t)
        cum = np.searchsorted(s, self.edges, side="right")  # #{t ≤ e_i}
        return np.diff(np.concatenate([[0], cum, [len(t)]]))

    def count_halves(self, t: np.ndarray) -> np.ndarray:
        """Counts of the first and second half of the chunk separately, shape (2, nbins)."""
        h = len(t) // 2
        return np.stack([self.count(t[:h]), self.count(t[h:])])

    def describe(self, mask: np.ndarray) -> str:
        """The union of the bins ``mask`` marks, in exact words about T (every value named, or runs
        that name every member; the pooled bin of a categorical statistic said as such).

        >>> Binner(np.array([0, 1, 2, 5])).describe(np.array([True, False, True, False, False]))
        'T is 0 or 2'
        """
        mask = np.asarray(mask, bool)
        words = event_words(Event("bins", None, self.discrete, self.edges, mask), "T")
        if self.discrete and self.pooled and mask[-1]:
            words += " (the pooled 'other' bin: a pattern outside the pilot's most frequent, is in the event)"
        return words


def candidate_events(a2: np.ndarray, b2: np.ndarray, ordered: bool = True):
    """Candidate events as (kind, mask_of(j), count_a[j], count_b[j], n) families.

    ``a2``, ``b2`` are (2, nbins) counts of the two halves of the selection sample.
    Thresholds (prefixes/suffixes of the bins in their natural order) are scored on both
    halves.  For unions of bins ordered by likelihood ratio, the order is taken from the
    first half and the cut is scored on the second, so noise in thousands of small bins
    cannot make an arbitrary union look good; for an ``ordered`` statistic with more than 64
    bins the unions are of ≈ 32 groups of adjacent bins.
    """
    a, b = a2.sum(axis=0), b2.sum(axis=0)
    n = max(int(a.sum()), 1)
    nb = len(a)
    ca, cb = np.cumsum(a)[:-1], np.cumsum(b)[:-1]
    # mask_of(j): the prefix of the bins 0..j, the suffix after j, the j + 1 likeliest groups' bins
    yield "le", functools.partial(np.less_equal, np.arange(nb)), ca, cb, n
    yield "gt", functools.partial(np.greater, np.arange(nb)), a.sum() - ca, b.sum() - cb, n
    n2 = int(a2[1].sum())
    if n2 < 1 or a2[0].sum() < 1:
        return
    # many bins of an ordered statistic: the union family works on ≈ 32 groups of adjacent bins of
    # equal pooled count, so that its order is not fitted to the noise of thousands of sparse bins
    # (categorical codes keep one bin per pattern: neighbouring codes are unrelated patterns)
    group = np.arange(nb)
    if ordered and nb > _MAX_UNION_GROUPS * 2:
        pooled = np.cumsum(a + b)
        group = np.minimum((pooled - 1) * _MAX_UNION_GROUPS // max(int(pooled[-1]), 1), _MAX_UNION_GROUPS - 1)
    ng = int(group.max()) + 1
    g0 = [np.bincount(group, weights=x, minlength=ng) for x in (a2[0], b2[0], a2[1], b2[1])]
    order = np.argsort(-(g0[0] + 0.5) / (g0[1] + 0.5), kind="stable")
    rank = np.empty(ng, np.int64)
    rank[order] = np.arange(ng)
    yield "bins", functools.partial(np.less_equal, rank[group]), np.cumsum(g0[2][order])[:-1], np.cumsum(g0[3][order])[:-1], n2


def make_event(kind: str, mask: np.ndarray, binner: Binner) -> Event:
    """The :class:`Event` a selected candidate stands for: a threshold or a union of ``binner``'s bins.

    Parameters
    ----------
    kind : {"le", "gt", "bins"}
        ``"le"``: S = {T ≤ t} (``mask`` a prefix of the bins); ``"gt"``: S = {T > t} (``mask`` a
        suffix); ``"bins"``: the union of the bins ``mask`` marks (as :func:`candidate_events` gives).
    mask : 1-d array of bool, shape (binner.nbins,)
        Which bins lie in S (a shorter mask covers the first bins only).  For ``"le"``/``"gt"`` it
        must mark some but not all bins.
    binner : Binner
        The bins the mask refers to.

    Returns
    -------
    Event

    Example
    -------
    >>> b = Binner(np.linspace(0.0, 1.0, 101))
    >>> e = make_event("le", np.arange(b.nbins) < 51, b)
    >>> e.kind, e.description
    ('le', 'T ≤ 0.5')
    >>> make_event("gt", np.ones(4, bool), Binner(np.arange(3)))
    Traceback (most recent call last):
    ...
    ValueError: mask must mark some but not all bins for kind='gt'
    """
    if kind not in ("le", "gt", "bins"):
        raise ValueError(f"kind must be 'le', 'gt' or 'bins', got {kind!r}")
    if not isinstance(binner, Binner):
        raise TypeError(f"binner must be a Binner, got {type(binner).__name__}")
    mask = np.asarray(mask)
    if mask.dtype != bool:
        raise TypeError(f"mask must be a boolean array, got dtype {mask.dtype}")
    if mask.ndim != 1 or not 1 <= mask.size <= binner.nbins:
        raise ValueError(f"mask must be 1-d with one entry per bin of binner (at most {binner.nbins}), got shape {mask.shape}")
    if kind != "bins" and (mask.all() or not mask.any()):
        raise ValueError(f"mask must mark some but not all bins for kind={kind!r}")
    edges = binner.edges
    if kind == "bins":
        # a ratio-ordered union may happen to be a prefix/suffix; keep the general form
        return Event("bins", None, binner.discrete, edges, mask, binner.describe(mask))
    j = int(np.argmax(~mask)) - 1 if kind == "le" else int(np.argmax(mask)) - 1
    if binner.discrete:
        # prefix of sorted values v_0..v_j: T is one of them (values unseen in selection form the last
        # bin, so a suffix holds them too): a bin mask (exact membership), described by its values
        return Event("bins", None, True, edges, mask, binner.describe(mask))
    t = float(edges[j])
    desc = f"T ≤ {number_text(t)}" if kind == "le" else f"T > {number_text(t)}"
    return Event(kind, t, False, edges, mask, desc)
