"""The claim registry: rooms register claims; the engine discovers rooms.

A room registers its claims in ``dpverify/<room>/claims.py`` (or modules
``claims_*.py`` beside it) with the :func:`claim` decorator.  Discovery imports
those modules for every subpackage of :mod:`dpverify`, so a new room appears
in ``dpverify verify`` and in reports without changes here.

Claims also come from outside the package (see ``docs/own-claims.md``):

- an installed package adds a room through the ``dpverify.rooms`` entry-point
  group (name: the room, value: the module whose import registers its claims);
  it is loaded with the shipped rooms by :func:`load_rooms`;
- :func:`load_sources` imports files, folders (their files matching
  :data:`CLAIM_FILE_PATTERNS`) and dotted modules, and returns just their
  claims, without importing the shipped rooms.

Ids are ``<room>.<name>``.  The room is the namespace: a source outside the
package may not use a shipped room's name, an entry point's claims must use
its own name, and one id registered by two sources is an error naming both.
"""

from __future__ import annotations

import functools
import importlib
import importlib.util
import inspect
import math
import pkgutil
import re
import traceback
from pathlib import Path
from typing import Callable, Iterable

from dpverify.claims.model import CheckFn, Claim, Method, Source, Verdict

_REGISTRY: dict[str, Claim] = {}
_SOURCES: dict[str, str] = {}  # claim id -> the file (or module) that registered it
_LOADED = False
_ROOM_OF_LOADING: list[str | None] = []  # the room an entry point being imported may register

#: The entry-point group through which an installed package adds a room.
ENTRY_POINT_GROUP = "dpverify.rooms"

_ID_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*\.\S+$")
_PACKAGE_DIR = Path(__file__).resolve().parent.parent


class DuplicateClaimError(ValueError):
    """Two sources registered one claim id."""


@functools.lru_cache(maxsize=1)
def shipped_rooms() -> frozenset[str]:
    """The rooms shipped in the package (their names are reserved); imports nothing."""
    return frozenset(m.name for m in pkgutil.iter_modules([str(_PACKAGE_DIR)])
                     if m.ispkg and not m.name.startswith("_") and m.name != "claims")


def _origin(fn: Callable) -> str:
    """The file that defines a check (resolved), else its module's name."""
    code = getattr(inspect.unwrap(fn), "__code__", None)
    if code is not None and code.co_filename and not code.co_filename.startswith("<"):
        try:
            return str(Path(code.co_filename).resolve())
        except OSError:
            return code.co_filename
    return str(getattr(fn, "__module__", None) or "<unknown>")


def _in_package(origin: str) -> bool:
    try:
        return Path(origin).resolve().is_relative_to(_PACKAGE_DIR)
    except (OSError, ValueError):
        return origin.startswith("dpverify.")


def _validate(c: Claim) -> None:
    """Every registration check, each error naming the claim."""
    if not isinstance(c.id, str) or not _ID_RE.match(c.id):
        raise ValueError(f"claim id must be '<room>.<name>' (room: a Python identifier), got {c.id!r}")
    who = f"claim {c.id!r}"
    if not isinstance(c.method, Method):
        raise ValueError(f"{who}: unknown method {c.method!r}; one of {[m.value for m in Method]}")
    if not isinstance(c.expected, Verdict):
        raise ValueError(f"{who}: unknown expected verdict {c.expected!r}")
    if c.expected is Verdict.ERROR:
        raise ValueError(f"{who}: expected verdict cannot be 'error' (an error is never as expected)")
    t = c.timeout
    if isinstance(t, bool) or not isinstance(t, (int, float)) or math.isnan(t) or not t > 0 or math.isinf(t):
        raise ValueError(f"{who}: timeout must be a finite number of seconds > 0, got {t!r}")
    if not isinstance(c.source, Source):
        raise TypeError(f"{who}: source must be a Source, got {type(c.source).__name__}")
    if not isinstance(c.statement, str) or not c.statement.strip():
        raise ValueError(f"{who}: statement must be a non-empty string")
    _check_signature(c)


def _check_signature(c: Claim) -> None:
    """``check(thorough=False) -> Outcome``: it must accept ``thorough`` and not be annotated otherwise."""
    who = f"claim {c.id!r}"
    if not callable(c.check):
        raise TypeError(f"{who}: check must be callable, got {type(c.check).__name__}")
    try:
        sig = inspect.signature(c.check)
    except (TypeError, ValueError):
        return  # builtins and the like: checked when run
    params = sig.parameters.values()
    if not any(p.kind is p.VAR_KEYWORD for p in params) and (
        "thorough" not in sig.parameters
        or sig.parameters["thorough"].kind not in (inspect.Parameter.KEYWORD_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    ):
        raise TypeError(f"{who}: check must accept the keyword argument 'thorough', signature is {sig}")
    ann = sig.return_annotation
    if ann is inspect.Signature.empty:
        return
    from dpverify.claims.model import Outcome

    ok = (
        "Outcome" in ann if isinstance(ann, str)
        else isinstance(ann, type) and issubclass(ann, Outcome)
    )
    if not ok:
        raise TypeError(f"{who}: check must return an Outcome, but it is annotated to return {ann!r}")


def register(c: Claim) -> Claim:
    """Add a claim after validating it (errors name the claim).

    The same id from two sources is a :class:`DuplicateClaimError` naming both;
    a file imported a second time (e.g. by pytest under another module name)
    replaces its own claims.
    """
    if not isinstance(c, Claim):
        raise TypeError(f"register expects a Claim, got {type(c).__name__}")
    _validate(c)
    origin = _origin(c.check)
    room = _ROOM_OF_LOADING[-1] if _ROOM_OF_LOADING else None
    if room is not None and c.room != room:
        raise ValueError(f"claim {c.id!r} (from {origin}): the installed room {room!r} may only register "
                         f"ids '{room}.<name>'")
    if c.room in shipped_rooms() and not _in_package(origin):
        raise ValueError(f"claim {c.id!r} (from {origin}): the room {c.room!r} is a room shipped with dpverify; "
                         "choose another room name as the id's prefix")
    old = _REGISTRY.get(c.id)
    if old is not None and old.check is not c.check:
        same_file = _SOURCES.get(c.id) == origin
        reimport = same_file and getattr(old.check, "__globals__", None) is not getattr(c.check, "__globals__", None)
        if not reimport:
            raise DuplicateClaimError(
                f"claim id {c.id!r} registered twice: by {_SOURCES.get(c.id, '?')} and by {origin}")
    _REGISTRY[c.id] = c
    _SOURCES[c.id] = origin
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

    Bad input is an error at registration naming the claim: an id without a
    room prefix, an unknown method or verdict, a timeout that is not a finite
    positive number, a check that does not accept ``thorough`` or is annotated
    to return something other than an :class:`Outcome`.

    Example
    -------
    >>> from dpverify.claims import claim, Outcome, Verdict, Source
    >>> @claim("demo.one_plus_one", source=Source("none", "§0"), statement="1 + 1 = 2",
    ...        method="exact computation")
    ... def _check(thorough=False):
    ...     return Outcome(Verdict.HOLDS if 1 + 1 == 2 else Verdict.REFUTED, {"sum": 1 + 1})
    >>> unregister("demo.one_plus_one")
    """
    if not isinstance(id, str) or not _ID_RE.match(id):
        raise ValueError(f"claim id must be '<room>.<name>' (room: a Python identifier), got {id!r}")
    try:
        m = Method(method)
    except ValueError:
        raise ValueError(f"claim {id!r}: unknown method {method!r}; one of {[x.value for x in Method]}") from None
    try:
        v = Verdict(expected)
    except ValueError:
        raise ValueError(f"claim {id!r}: unknown expected verdict {expected!r}; one of "
                         f"{[x.value for x in Verdict if x is not Verdict.ERROR]}") from None
    try:
        src = source if isinstance(source, Source) else Source(*source)
    except TypeError as exc:
        raise TypeError(f"claim {id!r}: source must be a Source or (seed, section, equation): {exc}") from None

    def deco(fn: CheckFn) -> CheckFn:
        register(Claim(id=id, source=src, statement=statement, method=m, expected=v, check=fn,
                       proof=proof, figure=figure, timeout=timeout))
        return fn

    return deco


def unregister(claim_id: str) -> None:
    """Remove a claim (used by tests that register throw-away claims)."""
    _REGISTRY.pop(claim_id, None)
    _SOURCES.pop(claim_id, None)


def load_rooms() -> None:
    """Import every shipped room's ``claims`` / ``claims_*`` modules and the installed rooms (once)."""
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
        except (KeyboardInterrupt, GeneratorExit):
            raise
        except BaseException:  # a claims file that raises, exits or skips is an error result
            _register_import_failure(mod.name, f"dpverify.{mod.name}")
            continue
        for sub in subs:
            if sub == "claims" or sub.startswith("claims_"):
                try:
                    importlib.import_module(f"dpverify.{mod.name}.{sub}")
                except (KeyboardInterrupt, GeneratorExit):
                    raise
                except BaseException:  # a claims file that raises, exits or skips is an error result
                    _register_import_failure(mod.name, f"dpverify.{mod.name}.{sub}")
    load_installed_rooms()
    _LOADED = True


def installed_rooms() -> dict[str, str]:
    """The rooms installed packages declare: ``{room: module}`` from the ``dpverify.rooms`` entry points."""
    from importlib.metadata import entry_points

    return {ep.name: ep.value for ep in entry_points(group=ENTRY_POINT_GROUP)}


def load_installed_rooms() -> list[Claim]:
    """Import the module of every ``dpverify.rooms`` entry point; return the claims they registered.

    A module that fails to import becomes a failing claim ``<room>.import:<module>``.
    """
    out: list[Claim] = []
    for room, module in sorted(installed_rooms().items()):
        if not _ID_RE.match(room + ".x") or room in shipped_rooms():
            _register_import_failure(room, module, ValueError(
                f"entry point {room!r} = {module!r}: the room name must be a Python identifier "
                f"and not a shipped room ({', '.join(sorted(shipped_rooms()))})"))
            continue
        before = dict(_REGISTRY)
        _ROOM_OF_LOADING.append(room)
        try:
            mod = importlib.import_module(module.split(":", 1)[0])
            if hasattr(mod, "__path__"):
                for sub in pkgutil.iter_modules(mod.__path__):
                    if sub.name == "claims" or sub.name.startswith("claims_"):
                        importlib.import_module(f"{mod.__name__}.{sub.name}")
        except (KeyboardInterrupt, GeneratorExit):
            raise
        except BaseException:  # a claims file that raises, exits or skips is an error result
            _register_import_failure(room, module)
        finally:
            _ROOM_OF_LOADING.pop()
        out += [c for cid, c in _REGISTRY.items() if before.get(cid) is not c]
    return sorted(out, key=lambda c: c.id)


def _register_import_failure(room: str, module: str, exc: BaseException | None = None) -> Claim:
    """A claims module that cannot be imported shows up as an ``error`` result, not a crash."""
    tb = "".join(traceback.format_exception(exc)) if exc is not None else traceback.format_exc()
    last = (tb.strip().splitlines() or ["?"])[-1]

    def check(thorough: bool = False):
        raise ImportError(f"{module} failed to import: {last}\n{tb}")

    c = Claim(
        id=f"{room}.import:{module}",
        source=Source("dpverify", module),
        statement=f"the claims module {module} imports",
        method=Method.EXACT,
        expected=Verdict.HOLDS,
        check=check,
    )
    _REGISTRY[c.id] = c  # no validation: the room name may be what failed
    _SOURCES[c.id] = module
    return c


def source_of(claim_id: str) -> str | None:
    """The file (or module) that registered a claim."""
    return _SOURCES.get(claim_id)


def all_claims(prefix: str | None = None) -> list[Claim]:
    """Every registered claim (rooms loaded), sorted by id, optionally filtered by id prefix."""
    load_rooms()
    return select(sorted(_REGISTRY.values(), key=lambda c: c.id), prefix)


def select(claims: Iterable[Claim], prefix: str | None) -> list[Claim]:
    """The claims whose id equals or starts with ``prefix`` (all when it is empty)."""
    claims = list(claims)
    return [c for c in claims if c.id == prefix or c.id.startswith(prefix)] if prefix else claims


def get_claim(claim_id: str) -> Claim:
    if claim_id in _REGISTRY:
        return _REGISTRY[claim_id]
    load_rooms()
    try:
        return _REGISTRY[claim_id]
    except KeyError:
        raise KeyError(f"no claim with id {claim_id!r}") from None


def claim_ids(claims: Iterable[Claim]) -> list[str]:
    return [c.id for c in claims]


# files, folders and modules outside the package (dpverify/claims/sources.py)
from dpverify.claims.sources import (  # noqa: E402
    CLAIM_FILE_PATTERNS,
    SourceError,
    _claims_of,
    is_claims_file,
    load_sources,
)

__all__ = [
    "CLAIM_FILE_PATTERNS",
    "ENTRY_POINT_GROUP",
    "DuplicateClaimError",
    "SourceError",
    "all_claims",
    "claim",
    "get_claim",
    "installed_rooms",
    "is_claims_file",
    "load_installed_rooms",
    "load_rooms",
    "load_sources",
    "register",
    "select",
    "shipped_rooms",
    "source_of",
    "unregister",
]
_ = _claims_of  # re-exported for the pytest plugin
