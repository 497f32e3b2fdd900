"""The catalogue: every mechanism the library produces, collected from the rooms.

Each room declares its mechanism families in its own ``mechanisms.py`` (``families() ->
list[Family]``).  :func:`families` finds the rooms through :func:`dpverify.rooms.rooms` (shipped
and installed) and :meth:`dpverify.rooms.Room.module`, imports each room's ``mechanisms`` module
only when asked, and never names a room; a room whose ``mechanisms.py`` raises is skipped with a
warning naming the room and the error (as claim discovery reports a broken room and carries on).
:func:`catalogue` is a sequence of :class:`~dpverify.mechanisms.Mechanism` objects — one per
family, at its default parameters, its relation the family's pairs — looked up by position, by
family name or by the default mechanism's own name (which starts with its family's name);
``.families`` gives the :class:`~dpverify.mechanisms.Family` objects by name.

Example
-------
>>> cat = catalogue()
>>> m = cat["rr.optimal_mechanism"]
>>> isinstance(m, Mechanism), m.epsilon, len(cat) == len(cat.families)
(True, 1.0, True)
>>> "rr.optimal_mechanism" in cat, cat[m.name] is m
(True, True)
"""

from __future__ import annotations

import importlib
import warnings
from collections.abc import Mapping, Sequence
from typing import Iterator

from dpverify.mechanisms.families import Family
from dpverify.mechanisms.protocol import Mechanism
from dpverify.validation import check_bool

__all__ = ["Catalogue", "catalogue", "families"]


def families(*, refresh: bool = False) -> dict[str, Family]:
    """Every room's families, by name, in the rooms' order (a fresh dict: add to a copy freely).

    A room whose ``mechanisms`` module fails to import, or whose ``families()`` raises, is left
    out with a :class:`UserWarning` naming the room and the error.  Raises ValueError when two
    families share a name, TypeError when a room's ``families()`` returns something other than
    Family objects.

    Example
    -------
    >>> fams = families()
    >>> "rr.optimal_mechanism" in fams and "pca.CorrectedPPCADP" in fams
    True
    """
    from dpverify.rooms import rooms

    out: dict[str, Family] = {}
    for r in rooms(refresh=check_bool(refresh, "refresh")):
        module = r.module("mechanisms")
        if module is None:
            continue
        try:
            declared = list(importlib.import_module(module).families())
        except (KeyboardInterrupt, SystemExit):
            raise
        except Exception as exc:  # a broken room must not take the catalogue down
            warnings.warn(f"room {r.name!r}: its mechanisms ({module}) raised {type(exc).__name__}: {exc}; "
                          "its mechanisms are left out of the catalogue", UserWarning, stacklevel=2)
            continue
        for fam in declared:
            if not isinstance(fam, Family):
                raise TypeError(f"room {r.name!r}: families() must return Family objects, got {type(fam).__name__}")
            if fam.name in out:
                raise ValueError(f"mechanism family {fam.name!r} registered twice (room {r.name!r})")
            out[fam.name] = fam
    return out


class Catalogue(Sequence):
    """A sequence of mechanisms, one per family at its defaults, with a mapping's lookup.

    ``cat[key]`` takes a position, a slice, a family name or the name of a family's default
    mechanism (``m.name`` of ``m`` in the catalogue); ``key in cat`` is True for those names (and
    for the mechanisms themselves); ``keys()``, ``get()`` and ``items()`` go by family name.

    Example
    -------
    >>> cat = catalogue()
    >>> all(isinstance(m, Mechanism) for m in cat)
    True
    >>> m = cat.get("primitives.randomized_response")
    >>> m.name, cat[m.name] is m, m.name in cat, "primitives" in cat
    ('primitives.randomized_response(k=2, epsilon=1.0)', True, True, False)
    >>> list(cat.keys())[:1] == cat.names()[:1], cat.get("nope") is None
    (True, True)
    >>> cat["nope"]
    Traceback (most recent call last):
    ...
    KeyError: "no mechanism family 'nope' in the catalogue (nor a family's default mechanism of that name)"
    """

    def __init__(self, fams: dict[str, Family]):
        if not isinstance(fams, Mapping) or not all(isinstance(f, Family) for f in fams.values()):
            raise TypeError(f"fams must be a mapping of family names to Family, got {type(fams).__name__}")
        self.families = dict(fams)
        self._names = list(self.families)
        self._built: dict[str, Mechanism] = {}

    def __len__(self) -> int:
        return len(self._names)

    def _build(self, family: str) -> Mechanism:
        if family not in self._built:
            self._built[family] = self.families[family].make()
        return self._built[family]

    def family_of(self, name: str) -> str | None:
        """The family a name stands for: the family itself, or the family whose default mechanism
        has that name (its name starts with the family's: ``family(k=v, ...)``); None otherwise.

        Example
        -------
        >>> cat = catalogue()
        >>> cat.family_of("rr.optimal_mechanism_delta(pi=(0.5, 0.5), epsilon=1.0, delta=0.05)")
        'rr.optimal_mechanism_delta'
        >>> cat.family_of("rr.optimal_mechanism(pi=(0.5, 0.5), epsilon=2.0, delta=0.0)") is None  # not a default
        True
        """
        if not isinstance(name, str):
            return None
        if name in self.families:
            return name
        prefixes = [f for f in self._names if name.startswith(f + "(")]
        for fam in sorted(prefixes, key=len, reverse=True):
            if self._build(fam).name == name:
                return fam
        return None

    def __getitem__(self, key):
        if isinstance(key, str):
            family = self.family_of(key)
            if family is None:
                raise KeyError(f"no mechanism family {key!r} in the catalogue "
                               "(nor a family's default mechanism of that name)")
            return self._build(family)
        if isinstance(key, slice):
            return [self[n] for n in self._names[key]]
        return self[self._names[key]]

    def __contains__(self, key) -> bool:
        if isinstance(key, str):
            return self.family_of(key) is not None
        return any(m is key or m == key for m in self)

    def __iter__(self) -> Iterator[Mechanism]:
        return (self._build(n) for n in self._names)

    def names(self) -> list[str]:
        """The family names, in order.

        Example
        -------
        >>> "pca.CorrectedPPCADP" in catalogue().names()
        True
        """
        return list(self._names)

    def keys(self) -> list[str]:
        """The family names, in order (as :meth:`names`: the keys of a mapping).

        Example
        -------
        >>> catalogue().keys() == catalogue().names()
        True
        """
        return self.names()

    def get(self, key, default=None):
        """``cat[key]`` for a family or default-mechanism name, ``default`` when there is none.

        Example
        -------
        >>> catalogue().get("no.such.family", "absent")
        'absent'
        """
        family = self.family_of(key)
        return default if family is None else self._build(family)

    def items(self) -> list[tuple[str, Mechanism]]:
        """(family name, default mechanism) pairs, in order.

        Example
        -------
        >>> name, m = catalogue().items()[0]
        >>> m.name.startswith(name + "(")
        True
        """
        return [(n, self._build(n)) for n in self._names]

    def __repr__(self) -> str:
        return f"Catalogue({len(self)} mechanisms)"


def catalogue(*, refresh: bool = False) -> Catalogue:
    """Every mechanism the library produces (and installed rooms add), as a :class:`Catalogue`.

    Example
    -------
    >>> catalogue().families["primitives.randomized_response"].defaults
    {'k': 2, 'epsilon': 1.0}
    """
    return Catalogue(families(refresh=check_bool(refresh, "refresh")))
