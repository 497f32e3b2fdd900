"""The catalogue: every mechanism the library produces, collected from the rooms.

Each room declares its mechanism families in its own ``mechanisms.py`` (``families() ->
list[Family]``).  :func:`families` finds the rooms through :func:`dpverify.rooms.rooms` (shipped
and installed) and :meth:`dpverify.rooms.Room.module`, imports each room's ``mechanisms`` module
only when asked, and never names a room.  :func:`catalogue` is a sequence of
:class:`~dpverify.mechanisms.Mechanism` objects — one per family, at its default parameters,
its relation the family's pairs — looked up by position or by family name; ``.families`` gives
the :class:`~dpverify.mechanisms.Family` objects by name.

Example
-------
>>> cat = catalogue()
>>> m = cat["rr.optimal_mechanism"]
>>> isinstance(m, Mechanism), m.epsilon, len(cat) == len(cat.families)
(True, 1.0, True)
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from typing import Iterator

from dpverify.mechanisms.families import Family
from dpverify.mechanisms.protocol import Mechanism

__all__ = ["Catalogue", "catalogue", "families"]


def families(*, refresh: bool = False) -> dict[str, Family]:
    """Every room's families, by name, in the rooms' order (a fresh dict: add to a copy freely).

    Raises ValueError when two families share a name, TypeError when a room's ``families()``
    returns something other than Family objects.

    Example
    -------
    >>> fams = families()
    >>> "rr.optimal_mechanism" in fams and "pca.CorrectedPPCADP" in fams
    True
    """
    from dpverify.rooms import rooms

    out: dict[str, Family] = {}
    for r in rooms(refresh=refresh):
        module = r.module("mechanisms")
        if module is None:
            continue
        declared = importlib.import_module(module).families()
        for fam in declared:
            if not isinstance(fam, Family):
                raise TypeError(f"room {r.name!r}: families() must return Family objects, got {type(fam).__name__}")
            if fam.name in out:
                raise ValueError(f"mechanism family {fam.name!r} registered twice (room {r.name!r})")
            out[fam.name] = fam
    return out


class Catalogue(Sequence):
    """A sequence of mechanisms, one per family at its defaults; ``cat["family.name"]`` looks one up.

    Example
    -------
    >>> cat = catalogue()
    >>> all(isinstance(m, Mechanism) for m in cat)
    True
    >>> cat["nope"]
    Traceback (most recent call last):
    ...
    KeyError: "no mechanism family 'nope' in the catalogue"
    """

    def __init__(self, fams: dict[str, Family]):
        self.families = dict(fams)
        self._names = list(self.families)
        self._built: dict[str, Mechanism] = {}

    def __len__(self) -> int:
        return len(self._names)

    def __getitem__(self, key):
        if isinstance(key, str):
            if key not in self.families:
                raise KeyError(f"no mechanism family {key!r} in the catalogue")
            if key not in self._built:
                self._built[key] = self.families[key].make()
            return self._built[key]
        if isinstance(key, slice):
            return [self[n] for n in self._names[key]]
        return self[self._names[key]]

    def __iter__(self) -> Iterator[Mechanism]:
        return (self[n] for n in self._names)

    def names(self) -> list[str]:
        """The family names, in order."""
        return list(self._names)

    def __repr__(self) -> str:
        return f"Catalogue({len(self)} mechanisms)"


def catalogue(*, refresh: bool = False) -> Catalogue:
    """Every mechanism the library produces (and installed rooms add), as a :class:`Catalogue`.

    Example
    -------
    >>> catalogue().families["primitives.randomized_response"].defaults
    {'k': 2, 'epsilon': 1.0}
    """
    return Catalogue(families(refresh=refresh))
