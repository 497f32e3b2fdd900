"""White-box statistics: the exact likelihood ratio, when the mechanism states its output law.

A mechanism may state how its outputs are distributed — ``log_density(data, outputs)`` (a density)
or ``law(data) -> (support, probs)`` (a finite pmf).  The log-likelihood ratio T = log p_D − log p_D′
is then known exactly, and by the Neyman–Pearson lemma its level sets {T > t} are the most powerful
events of each size: the selection needs only a threshold, not an order of bins learned from draws.
On a rare informative output (a pmf entry of 0.2 % whose ratio is large) the exact order matters
most: an order estimated from a few selection draws misplaces it.  Like every statistic fixed before
the estimation draws, it leaves the bounds valid whatever the stated law is
(``dpverify/audit/proofs/auditor_validity.md``); a wrong stated law only weakens the events.

- :class:`LogLikelihoodRatio` — from ``log_density``;
- :class:`LawRatio` — from ``law`` (scalar numeric outputs).

Example
-------
>>> from dpverify.audit.controls import FiniteMechanism
>>> m = FiniteMechanism(((0.5, 0.498, 0.002), (0.5, 0.4999, 0.0001)))
>>> [name for name, _ in white_box_statistics(m, (0, 1), np.zeros(3, dtype=np.int64))]
['exact likelihood ratio']
>>> LawRatio(m, 0, 1)(np.array([0, 2])).round(3).tolist()      # log(0.002/0.0001) on the rare output
[0.0, 2.996]
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass
from typing import Any

import numpy as np

from dpverify.mechanisms.domain import check_finite_input
from dpverify.validation import check_elements

__all__ = ["LawRatio", "LogLikelihoodRatio", "white_box_statistics"]

_SMALL_SUPPORT = 8  # a stated law with at most this many outputs is looked up by comparisons, not a search


def _table(mechanism, d, d_prime):
    """The sorted union of the two supports and log p − log q on it (±1e300 where one side is 0)."""
    sp, p = mechanism.law(d)
    sq, q = mechanism.law(d_prime)
    sp, sq = np.asarray(sp).reshape(-1), np.asarray(sq).reshape(-1)
    p, q = np.asarray(p, dtype=float).reshape(-1), np.asarray(q, dtype=float).reshape(-1)
    if sp.dtype.kind not in "biuf" or sq.dtype.kind not in "biuf" or len(sp) != len(p) or len(sq) != len(q):
        raise ValueError("law must give numeric supports with one probability each")
    u = np.unique(np.concatenate([sp, sq]))
    pu, qu = np.zeros(len(u)), np.zeros(len(u))
    np.add.at(pu, np.searchsorted(u, sp), p)
    np.add.at(qu, np.searchsorted(u, sq), q)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.log(pu) - np.log(qu)
    t = np.where(np.isnan(t), 0.0, t)  # impossible under both: never drawn
    return u, np.round(np.clip(t, -1e300, 1e300), 9)


@dataclass(frozen=True, eq=False)
class LawRatio:
    """T(o) = log P[M(D) = o] − log P[M(D′) = o] from the stated pmf ``mechanism.law`` (scalar outputs;
    an output outside both supports gets 0).  Rounded to 1e-9, as :class:`LogLikelihoodRatio`.

    >>> from dpverify.audit.controls import FiniteMechanism
    >>> LawRatio(FiniteMechanism(((0.75, 0.25), (0.25, 0.75))), 0, 1)(np.array([0, 1, 5])).round(4).tolist()
    [1.0986, -1.0986, 0.0]
    """

    mechanism: Any
    d: Any
    d_prime: Any

    def __post_init__(self):
        _check_stated(self, "law")

    def __call__(self, outputs) -> np.ndarray:
        u, t = self._stated()
        x = np.asarray(outputs).reshape(len(outputs))
        if len(u) <= _SMALL_SUPPORT:  # a few outputs: one comparison each (the same values as below)
            out = np.zeros(len(x))
            for j in range(len(u)):
                out[u[j] == x] = t[j]
            return out
        i = np.minimum(np.searchsorted(u, x), len(u) - 1)
        return np.where(u[i] == x, t[i], 0.0)

    def _stated(self):
        """The table of the stated law (:func:`_table`), read once: the statistic is fixed at its first
        use, as the audit's validity asks of every statistic."""
        table = self.__dict__.get("_table_cache")
        if table is None:
            table = _table(self.mechanism, self.d, self.d_prime)
            object.__setattr__(self, "_table_cache", table)  # a frozen dataclass: its fields stay unchanged
        return table


@dataclass(frozen=True, eq=False)
class LogLikelihoodRatio:
    """The white-box statistic T(o) = log p_D(o) − log p_D'(o), from ``mechanism.log_density``.

    By the Neyman–Pearson lemma its level sets are the most powerful events, so the
    auditor's threshold search on T approaches the true ε of the pair.  Values are rounded
    to 1e-9 so that rounding noise in the densities does not act as a side channel.

    Example
    -------
    >>> class Lap:
    ...     def log_density(self, data, outputs):
    ...         return -np.abs(np.asarray(outputs) - data)
    >>> LogLikelihoodRatio(Lap(), 0.0, 1.0)(np.array([-5.0, 5.0])).tolist()
    [1.0, -1.0]
    """

    mechanism: Any
    d: Any
    d_prime: Any

    def __post_init__(self):
        _check_stated(self, "log_density")

    def __call__(self, outputs) -> np.ndarray:
        a = np.asarray(self.mechanism.log_density(self.d, outputs), dtype=float)
        b = np.asarray(self.mechanism.log_density(self.d_prime, outputs), dtype=float)
        with np.errstate(invalid="ignore"):
            t = a - b
        # both −∞: the output is impossible under both (never drawn); +∞/−∞ kept as extreme scores
        t = np.where(np.isnan(t), 0.0, t)
        # rounded to 1e-9: the last bits of a density evaluation carry the floating-point
        # artefacts of the sampler (Mironov 2012), which the "offgrid" statistic audits on purpose
        return np.round(np.clip(t, -1e300, 1e300), 9)


def _check_stated(stat, hook: str) -> None:
    """The mechanism states its law through ``hook`` (a method); numeric inputs ``d``, ``d_prime`` are finite."""
    if not callable(getattr(stat.mechanism, hook, None)):
        raise TypeError(f"mechanism must state its output law through a method {hook}(), got {stat.mechanism!r:.80} "
                        f"({type(stat.mechanism).__name__})")
    check_finite_input(stat.d, "d")
    check_finite_input(stat.d_prime, "d_prime")


def white_box_statistics(mechanism: Any, pair, out) -> list[tuple[str, Any]]:
    """The exact likelihood-ratio statistics the mechanism's stated law allows: ``"log-likelihood
    ratio"`` (``log_density``) and ``"exact likelihood ratio"`` (``law``, scalar numeric outputs whose
    stated law can be evaluated at both inputs).

    >>> white_box_statistics(lambda d, rng, n: rng.random(n), (0, 1), np.zeros(3))
    []
    """
    if isinstance(mechanism, (numbers.Number, str, bytes, np.generic)):  # None: no mechanism, no hook
        raise TypeError(f"mechanism must be a mechanism (an object, e.g. with law() or log_density()), got "
                        f"{mechanism!r:.80} ({type(mechanism).__name__})")
    if isinstance(pair, np.ndarray) and pair.ndim >= 1:
        check_elements(pair, "pair")
        pair = tuple(pair)
    if not isinstance(pair, (tuple, list)) or len(pair) != 2:
        raise ValueError(f"pair must be (d, d_prime), got {pair!r:.80}")
    check_finite_input(pair[0], "pair[0]"), check_finite_input(pair[1], "pair[1]")
    o = np.asarray(None if isinstance(out, (str, bytes)) else out)
    check_elements(o, "out")
    if o.dtype.kind not in "biuf" or o.ndim == 0 or (o.dtype.kind == "f" and not np.isfinite(o).all()):
        raise ValueError(f"out must be an array of the mechanism's finite numeric outputs, got {out!r:.80}")
    stats: list[tuple[str, Any]] = []
    if callable(getattr(mechanism, "log_density", None)):
        stats.append(("log-likelihood ratio", LogLikelihoodRatio(mechanism, pair[0], pair[1])))
    if o.ndim == 1 and callable(getattr(mechanism, "law", None)):
        try:
            _table(mechanism, pair[0], pair[1])
        except Exception:  # a law that does not apply to these inputs: no white-box statistic from it
            return stats
        stats.append(("exact likelihood ratio", LawRatio(mechanism, pair[0], pair[1])))
    return stats
