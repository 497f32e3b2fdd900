"""The registry of every mechanism dpverify produces: a compatibility view of the catalogue.

The families now live with their rooms (each room's ``mechanisms.py``) and are collected by
:func:`dpverify.mechanisms.catalogue`; :class:`Produced` is :class:`dpverify.mechanisms.Family`,
and :func:`produced_mechanisms` returns the catalogue's families by name.

Example
-------
>>> reg = produced_mechanisms()
>>> entry = reg["primitives.randomized_response"]
>>> m = entry.factory(k=3, epsilon=1.0)
>>> m.epsilon, hasattr(m, "output_distribution"), len(entry.pairs(k=3, epsilon=1.0))
(1.0, True, 3)
"""

from __future__ import annotations

from dpverify.mechanisms.catalogue import families
from dpverify.mechanisms.families import Family, Pair, Param
from dpverify.mechanisms.sampling import sample_finite

__all__ = ["Pair", "Param", "Produced", "produced_mechanisms", "sample_finite"]

#: the registry's entry type: a mechanism family
Produced = Family


def produced_mechanisms() -> dict[str, Family]:
    """A fresh dict of every family, by name (add an entry to a copy to test a variant).

    Example
    -------
    >>> names = produced_mechanisms()
    >>> "rr.optimal_mechanism" in names and "pca.CorrectedPPCADP" in names
    True
    """
    return families()
