"""The claim registry: rooms register claims; the engine discovers rooms.

A room registers its claims in ``dpverify/<room>/claims.py`` (or modules
``claims_*.py`` beside it) with the :func:`claim` decorator.  Discovery imports
those modules for every subpackage of :mod:`dpverify`, so a new room appears
in ``dpverify verify`` and in reports without changes here.
"""

from __future__ import annotations

import importlib
import pkgutil
import traceback
from typing import Callable, Iterable

from dpverify.claims.model import CheckFn, Claim, Method, Source, Verdict

_REGISTRY: dict[str, Claim] = {}
_LOADED = False


class DuplicateClaimError(ValueError):
    """Two claims were registered under one id."""


def register(c: Claim) -> Claim:
    """Add a claim; its id must be new and start with its room's name."""
    if not isinstance(c, Claim):
        raise TypeError(f"register expects a Claim, got {type(c).__name__}")
    if c.id in _REGISTRY and _REGISTRY[c.id].check is not c.check:
        raise DuplicateClaimError(f"claim id {c.id!r} registered twice")
    if "." not in c.id:
        raise ValueError(f"claim id must be '<room>.<name>', got {c.id!r}")
    if c.expected is Verdict.ERROR:
        raise ValueError(f"claim {c.id!r}: expected verdict cannot be 'error' (an error is never as expected)")
    _REGISTRY[c.id] = c
    return c


def claim(
    id: str,
    *,
    source: Source | tuple,
    statement: str,
    method: Method | str,
    expected: Verdict | str = Verdict.HOLDS,
    proof: str | None = None,
    figure: Callable | None = None,
    timeout: float = 300.0,
) -> Callable[[CheckFn], CheckFn]:
    """Decorator registering ``check(thorough: bool = False) -> Outcome`` as a claim.

    Example
    -------
    >>> from dpverify.claims import claim, Outcome, Verdict, Source
    >>> @claim("demo.one_plus_one", source=Source("none", "§0"), statement="1 + 1 = 2",
    ...        method="exact computation")
    ... def _check(thorough=False):
    ...     return Outcome(Verdict.HOLDS if 1 + 1 == 2 else Verdict.REFUTED, {"sum": 1 + 1})
    >>> unregister("demo.one_plus_one")
    """
    src = source if isinstance(source, Source) else Source(*source)

    def deco(fn: CheckFn) -> CheckFn:
        register(
            Claim(
                id=id,
                source=src,
                statement=statement,
                method=Method(method),
                expected=Verdict(expected),
                check=fn,
                proof=proof,
                figure=figure,
                timeout=timeout,
            )
        )
        return fn

    return deco


def unregister(claim_id: str) -> None:
    """Remove a claim (used by tests that register throw-away claims)."""
    _REGISTRY.pop(claim_id, None)


def load_rooms() -> None:
    """Import every room's ``claims`` / ``claims_*`` modules (once)."""
    global _LOADED
    if _LOADED:
        return
    import dpverify

    for mod in pkgutil.iter_modules(dpverify.__path__):
        if not mod.ispkg or mod.name.startswith("_") or mod.name == "claims":
            continue
        try:
            pkg = importlib.import_module(f"dpverify.{mod.name}")
            subs = [s.name for s in pkgutil.iter_modules(pkg.__path__)]
        except Exception:
            _register_import_failure(mod.name, f"dpverify.{mod.name}")
            continue
        for sub in subs:
            if sub == "claims" or sub.startswith("claims_"):
                try:
                    importlib.import_module(f"dpverify.{mod.name}.{sub}")
                except Exception:
                    _register_import_failure(mod.name, f"dpverify.{mod.name}.{sub}")
    _LOADED = True


def _register_import_failure(room: str, module: str) -> None:
    """A room whose claims cannot be imported shows up as a failing claim, not a crash."""
    tb = traceback.format_exc()

    def check(thorough: bool = False):
        raise ImportError(f"{module} failed to import:\n{tb}")

    register(
        Claim(
            id=f"{room}.import:{module}",
            source=Source("dpverify", module),
            statement=f"the claims module {module} imports",
            method=Method.EXACT,
            expected=Verdict.HOLDS,
            check=check,
        )
    )


def all_claims(prefix: str | None = None) -> list[Claim]:
    """Every registered claim (rooms loaded), sorted by id, optionally filtered by id prefix."""
    load_rooms()
    out = sorted(_REGISTRY.values(), key=lambda c: c.id)
    if prefix:
        out = [c for c in out if c.id == prefix or c.id.startswith(prefix)]
    return out


def get_claim(claim_id: str) -> Claim:
    load_rooms()
    try:
        return _REGISTRY[claim_id]
    except KeyError:
        raise KeyError(f"no claim with id {claim_id!r}") from None


def claim_ids(claims: Iterable[Claim]) -> list[str]:
    return [c.id for c in claims]
