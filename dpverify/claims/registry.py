"""The claim registry: rooms register claims; the engine finds the rooms and never names one.

A room registers its claims in its claims modules (``claims/`` package, or ``claims.py``,
``claims_*.py``, ``*_claims.py``: :func:`dpverify.rooms.is_claims_file`) with the
:func:`claim` decorator.  :func:`all_claims` imports those modules for every room
:func:`dpverify.rooms.rooms` finds (the shipped ones and those installed through the
``dpverify.rooms`` entry-point group), so a new room appears in ``dpverify verify`` and
in reports without changes here.

Claims also come from files, folders and dotted modules outside the package
(:func:`load_sources`, see ``docs/own-claims.md``), without importing any room.

This module gathers the registry's public API: the store (:mod:`dpverify.claims.store`:
registration and validation) and the discovery (:mod:`dpverify.claims.sources`).

Example
-------
>>> all(c.id.startswith("rr.") for c in all_claims("rr."))   # doctest: +SKIP
True
"""

from __future__ import annotations

import re
from typing import Iterable

from dpverify.claims.checks import check_items, check_text
from dpverify.claims.model import Claim
from dpverify.claims.sources import SourceError, is_claims_file, load_room, load_rooms, load_sources
from dpverify.claims.store import (
    DuplicateClaimError,
    claim,
    claim_ids,
    import_failure,
    lookup,
    register,
    registered,
    registered_since,
    select,
    snapshot,
    source_of,
    unregister,
)
from dpverify.rooms import ENTRY_POINT_GROUP, problems, reserved_namespaces, rooms

__all__ = [
    "ENTRY_POINT_GROUP",
    "DuplicateClaimError",
    "SourceError",
    "all_claims",
    "claim",
    "claim_ids",
    "get_claim",
    "import_failure",
    "is_claims_file",
    "load_room",
    "load_rooms",
    "load_sources",
    "register",
    "registered_since",
    "reserved_namespaces",
    "select",
    "snapshot",
    "source_of",
    "unregister",
]


def all_claims(prefix: str | None = None, *, skip: Iterable[str] = ()) -> list[Claim]:
    """Every registered claim (rooms loaded), sorted by id, optionally filtered by id prefix.

    ``skip`` names rooms not to import (``dpverify verify`` skips an installed room whose
    claims modules exit, are killed or block when imported in a supervised child); the
    entry points that give no room are still reported.
    """
    if prefix is not None:
        check_text(prefix, "prefix")
    skip = frozenset(check_items(skip, str, "skip"))
    if not skip:
        load_rooms()
    else:
        for r in rooms():
            if r.name not in skip:
                load_room(r)
        for name, module, why in problems():
            import_failure(name if re.match(r"^[A-Za-z_]\w*$", name) else "entry_point", module, ValueError(why))
    return select(registered(), prefix)


def get_claim(claim_id: str) -> Claim:
    """The claim of this id (the rooms are loaded when it is not registered yet); KeyError otherwise."""
    c = lookup(check_text(claim_id, "claim_id"))
    if c is None:
        load_rooms()
        c = lookup(claim_id)
    if c is None:
        raise KeyError(f"no claim with id {claim_id!r}")
    return c
