"""The registry of every mechanism dpverify produces, as protocol objects with drawable parameters.

Each :class:`Produced` entry has a factory taking keyword parameters (ε, sizes, priors, seeds:
the ``space`` says which values are allowed, so a property test can draw them), and a
``pairs`` function giving the neighbouring inputs to check under the claimed relation (with the
statistic to audit them by, for vector outputs).  Finite mechanisms carry their exact pmf
(``output_distribution``), so they are checked exactly; the others are audited from samples.
``tests/audit/test_produced_mechanisms.py`` walks the whole registry.

Families: the primitives (:mod:`dpverify.primitives`), the rr room's optimal mechanisms, every
continual-release method of :func:`dpverify.continual.method_names` as a batch release and (when
online) as a stream, with each noise it supports, CorrectedPPCADP, and the auditor's correct
controls (:mod:`dpverify.audit.mechanisms`).  The families' factories live in
:mod:`dpverify.audit._produced_rooms`.

Example
-------
>>> reg = produced_mechanisms()
>>> entry = reg["primitives.randomized_response"]
>>> m = entry.factory(k=3, epsilon=1.0)
>>> m.epsilon, hasattr(m, "output_distribution"), len(entry.pairs(k=3, epsilon=1.0))
(1.0, True, 3)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

import numpy as np

__all__ = ["Pair", "Param", "Produced", "produced_mechanisms", "sample_finite"]


@dataclass(frozen=True)
class Param:
    """The allowed values of one factory parameter.

    kind ``"float"`` / ``"int"``: ``low <= x <= high``; ``"choice"``: one of ``choices``;
    ``"prior"``: a probability vector whose length is in ``low..high`` (all entries > 0).

    Example
    -------
    >>> Param("float", 0.1, 2.0).kind
    'float'
    """

    kind: str
    low: float | None = None
    high: float | None = None
    choices: tuple = ()

    def __post_init__(self):
        if self.kind not in ("float", "int", "choice", "prior"):
            raise ValueError(f"kind must be 'float', 'int', 'choice' or 'prior', got {self.kind!r}")
        if self.kind == "choice" and not self.choices:
            raise ValueError("a 'choice' parameter needs choices")
        if self.kind != "choice" and not (self.low is not None and self.high is not None and self.low <= self.high):
            raise ValueError(f"parameter range must have low <= high, got {self.low!r}..{self.high!r}")


@dataclass(frozen=True)
class Pair:
    """Neighbouring inputs (d, d′) under the mechanism's relation, and the statistic to audit them by.

    Example
    -------
    >>> Pair(0.0, 1.0).statistic is None
    True
    """

    d: Any
    d_prime: Any
    statistic: Callable | None = None


@dataclass(frozen=True)
class Produced:
    """One registered family: ``factory(**params)`` -> a protocol object; ``pairs(**params)`` -> [Pair].

    ``samples`` is the per-input budget of a default statistical check (sampling cost differs by
    three orders of magnitude between a vectorised primitive and a looped stream).

    Example
    -------
    >>> e = produced_mechanisms()["primitives.laplace_mechanism"]
    >>> e.factory(epsilon=0.5, sensitivity=1.0).name
    'primitives.laplace_mechanism(epsilon=0.5, sensitivity=1.0)'
    """

    name: str
    factory: Callable[..., Any]
    space: Mapping[str, Param]
    pairs: Callable[..., list]
    samples: int = 40_000
    note: str = field(default="", compare=False)

    def __post_init__(self):
        if not callable(self.factory) or not callable(self.pairs):
            raise TypeError("factory and pairs must be callable")


def sample_finite(support: np.ndarray, probs: np.ndarray, rng: np.random.Generator, n: int) -> np.ndarray:
    """n i.i.d. draws from the pmf ``probs`` on ``support`` (inverse CDF, vectorised).

    Example
    -------
    >>> sample_finite(np.array([0, 1]), np.array([0.0, 1.0]), np.random.default_rng(0), 3).tolist()
    [1, 1, 1]
    """
    cdf = np.cumsum(probs)
    idx = np.minimum(np.searchsorted(cdf / cdf[-1], rng.random(n), side="right"), len(probs) - 1)
    return np.asarray(support)[idx]


def produced_mechanisms() -> dict[str, Produced]:
    """A fresh dict of every registered family, by name (add an entry to a copy to test a variant).

    Example
    -------
    >>> names = produced_mechanisms()
    >>> "rr.optimal_mechanism" in names and "pca.CorrectedPPCADP" in names
    True
    """
    from dpverify.audit import _produced_rooms as rooms

    entries = [*rooms.primitive_entries(), *rooms.rr_entries(), *rooms.continual_entries(),
               rooms.pca_entry(), *rooms.control_entries()]
    out: dict[str, Produced] = {}
    for e in entries:
        if e.name in out:
            raise ValueError(f"produced mechanism {e.name!r} registered twice")
        out[e.name] = e
    return out
