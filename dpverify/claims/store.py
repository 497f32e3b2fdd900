"""The store of registered claims: the :func:`claim` decorator, validation (once), and what was added.

Rooms register claims by importing their claims modules (:mod:`dpverify.claims.sources` finds
them); each registration is validated here, in one place, with errors that name the claim.

Ids are ``<namespace>.<name>``.  The namespaces of the rooms shipped with dpverify are reserved
(:func:`dpverify.rooms.reserved_namespaces`): a claim defined outside the package may not use
one, an installed room's claims must use its own namespaces, and one id registered by two
sources is a :class:`DuplicateClaimError` naming both.

Example
-------
>>> before = snapshot()
>>> @claim("zzstore.one", source=Source("none", "§0"), statement="1 = 1", method="exact computation")
... def _one(thorough=False):
...     return Outcome(Verdict.HOLDS)
>>> [c.id for c in registered_since(before)]
['zzstore.one']
>>> unregister("zzstore.one")
"""

from __future__ import annotations

import contextlib
import inspect
import os
import re
import traceback
from pathlib import Path
from typing import Callable, Iterable, Iterator, Mapping

from dpverify.claims.checks import check_instance, check_items, check_mapping, check_text, shown
from dpverify.claims.model import AUDIT_VERDICTS, CheckFn, Claim, Method, Outcome, Source, Verdict, check_timeout
from dpverify.rooms import PACKAGE_DIR, proof_name, reserved_namespaces

__all__ = [
    "DuplicateClaimError",
    "claim",
    "claim_ids",
    "import_failure",
    "in_package",
    "installed_room",
    "lookup",
    "registered",
    "registered_since",
    "register",
    "select",
    "snapshot",
    "source_of",
    "unregister",
]

_REGISTRY: dict[str, Claim] = {}
_SOURCES: dict[str, str] = {}  # claim id -> the file (or module) that registered it
_LOADING: list[tuple[str, tuple[str, ...]]] = []  # (installed room, its namespaces) being imported

ID_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*\.\S+$")


class DuplicateClaimError(ValueError):
    """Two sources registered one claim id."""


def _origin(fn: Callable) -> str:
    """The file that defines a check (resolved), else its module's name."""
    code = getattr(inspect.unwrap(fn), "__code__", None)
    if code is not None and code.co_filename and not code.co_filename.startswith("<"):
        try:
            return str(Path(code.co_filename).resolve())
        except OSError:
            return code.co_filename
    return str(getattr(fn, "__module__", None) or "<unknown>")


def in_package(origin: str) -> bool:
    """Whether a file (or dotted module) lies inside the dpverify package."""
    if isinstance(origin, os.PathLike):
        origin = os.fspath(origin)
    check_text(origin, "origin")
    try:
        return Path(origin).resolve().is_relative_to(PACKAGE_DIR)
    except (OSError, ValueError):
        return origin.startswith("dpverify.")


def _validate(c: Claim) -> None:
    """Every check of a claim's fields, each error naming the claim (the only place they are checked)."""
    _validate_fields(c)
    _check_signature(c)


def _validate_fields(c: Claim) -> None:
    """The checks of a claim's fields but its check function (run when :func:`claim` is called)."""
    if not isinstance(c.id, str) or not ID_RE.match(c.id):
        raise ValueError(f"claim id must be '<room>.<name>' (room: a Python identifier), got {shown(c.id)}")
    who = f"claim {c.id!r}"
    if not isinstance(c.method, Method):
        raise ValueError(f"{who}: unknown method {c.method!r}; one of {[m.value for m in Method]}")
    if not isinstance(c.expected, Verdict):
        raise ValueError(f"{who}: unknown expected verdict {c.expected!r}; one of "
                         f"{[x.value for x in Verdict if x is not Verdict.ERROR]}")
    if c.expected is Verdict.ERROR:
        raise ValueError(f"{who}: expected verdict cannot be 'error' (an error is never as expected)")
    if c.method is Method.AUDIT and c.expected not in AUDIT_VERDICTS:
        raise ValueError(f"{who}: method 'audit' with expected verdict {c.expected.value!r}: an audit can never "
                         f"establish {c.expected.value!r} (finding no violation proves nothing); an audit claim "
                         "expects 'refuted' or 'inconclusive'")
    check_timeout(c.timeout, f"{who}: timeout")
    if not isinstance(c.source, Source):
        raise TypeError(f"{who}: source must be a Source or (seed, section, equation), got {c.source!r}")
    if not isinstance(c.statement, str):
        raise TypeError(f"{who}: statement must be a non-empty string, got {shown(c.statement)} of type "
                        f"{type(c.statement).__name__}")
    if not c.statement.strip():
        raise ValueError(f"{who}: statement must be a non-empty string, got {c.statement!r}")
    if c.proof is not None:
        if not isinstance(c.proof, str):
            raise TypeError(f"{who}: proof must be None or a name '<room>/<file>.md', got {shown(c.proof)} of type "
                            f"{type(c.proof).__name__}")
        try:
            proof_name(c.proof)
        except ValueError:
            raise ValueError(f"{who}: a proof is named '<room>/<file>.md', got {c.proof!r}") from None
    if c.figure is not None and not callable(c.figure):
        raise TypeError(f"{who}: figure must be None or a function figure(outcome), got {shown(c.figure)}")


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
    ok = "Outcome" in ann if isinstance(ann, str) else isinstance(ann, type) and issubclass(ann, Outcome)
    if not ok:
        raise TypeError(f"{who}: check must return an Outcome, but it is annotated to return {ann!r}")


def _check_namespace(c: Claim, origin: str) -> None:
    if _LOADING:
        room, spaces = _LOADING[-1]
        if c.namespace not in spaces:
            raise ValueError(f"claim {c.id!r} (from {origin}): the installed room {room!r} may only register "
                             + " or ".join(f"ids '{ns}.<name>'" for ns in spaces))
    if c.namespace in reserved_namespaces() and not in_package(origin):
        raise ValueError(f"claim {c.id!r} (from {origin}): the namespace {c.namespace!r} belongs to the room "
                         f"{c.room!r} shipped with dpverify; choose another name as the id's prefix")


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
    _check_namespace(c, origin)
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


def _coerce(kind, value):
    """``kind(value)`` when it is one of its values, else ``value`` (then :func:`_validate` names it)."""
    try:
        return kind(value)
    except (ValueError, TypeError):
        return value


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
    room prefix, an unknown method or verdict, ``method="audit"`` with an
    expected verdict an audit cannot reach (``holds``, ``erratum``), a timeout that is not a finite
    positive number, a proof not named ``"<room>/<file>.md"``, a check that does
    not accept ``thorough`` or is annotated to return something other than an
    :class:`Outcome`.

    Example
    -------
    >>> from dpverify.claims import claim, Outcome, Verdict, Source
    >>> @claim("demo.one_plus_one", source=Source("none", "§0"), statement="1 + 1 = 2",
    ...        method="exact computation")
    ... def _check(thorough=False):
    ...     return Outcome(Verdict.HOLDS if 1 + 1 == 2 else Verdict.REFUTED, {"sum": 1 + 1})
    >>> unregister("demo.one_plus_one")
    """
    src = source if isinstance(source, Source) or not isinstance(source, tuple) else _coerce(
        lambda t: Source(*t), source)
    fields = dict(id=id, source=src, statement=statement, method=_coerce(Method, method),
                  expected=_coerce(Verdict, expected), proof=proof, figure=figure, timeout=timeout)
    _validate_fields(Claim(check=_no_check, **fields))  # bad fields are an error here, decorated or not

    def deco(fn: CheckFn) -> CheckFn:
        register(Claim(check=fn, **fields))
        return fn

    return deco


def _no_check(thorough: bool = False) -> Outcome:
    """The stand-in check of a claim whose fields :func:`claim` validates before it has its check."""
    raise NotImplementedError("a stand-in: the claim's check is given to the decorator")


def unregister(claim_id: str) -> None:
    """Remove a claim (used by tests that register throw-away claims)."""
    check_text(claim_id, "claim_id")
    _REGISTRY.pop(claim_id, None)
    _SOURCES.pop(claim_id, None)


def import_failure(room: str, module: str, exc: BaseException | None = None) -> Claim:
    """Register a claims module that cannot be imported as a claim whose check raises (an ``error`` result).

    The claim's id is ``<room>.import:<module>``; its check raises the import's traceback
    (the exception being handled, or ``exc``).
    """
    check_text(room, "room")
    check_text(module, "module")
    if exc is not None:
        check_instance(exc, BaseException, "exc")
    tb = "".join(traceback.format_exception(exc)) if exc is not None else traceback.format_exc()
    last = (tb.strip().splitlines() or ["?"])[-1]

    def check(thorough: bool = False):
        raise ImportError(f"{module} failed to import: {last}\n{tb}")

    c = Claim(id=f"{room}.import:{module}", source=Source("dpverify", module),
              statement=f"the claims module {module} imports", method=Method.EXACT,
              expected=Verdict.HOLDS, check=check)
    _REGISTRY[c.id] = c  # no validation: the room name may be what failed
    _SOURCES[c.id] = module
    return c


def installed_room(name: str, namespaces: Iterable[str]) -> contextlib.AbstractContextManager[None]:
    """While importing an installed room's modules: its claims must use its own namespaces.

    Example
    -------
    >>> with installed_room("zzroom", ["zzroom"]):
    ...     pass
    """
    return _installed_room(check_text(name, "name"), tuple(check_items(namespaces, str, "namespaces")))


@contextlib.contextmanager
def _installed_room(name: str, namespaces: tuple[str, ...]) -> Iterator[None]:
    _LOADING.append((name, namespaces))
    try:
        yield
    finally:
        _LOADING.pop()


def snapshot() -> dict[str, Claim]:
    """The registered claims now (a copy), to find out later what an import added."""
    return dict(_REGISTRY)


def registered_since(before: Mapping[str, Claim], files: str | os.PathLike | Iterable[str | os.PathLike] = ()
                     ) -> list[Claim]:
    """The claims registered (or replaced) since ``before``, and those registered by ``files`` (one file
    or a list of files), by id."""
    check_mapping(before, "before")
    one = isinstance(files, (str, os.PathLike))  # one file, not its characters
    files = {os.fspath(f) for f in ([files] if one else check_items(files, (str, os.PathLike), "files"))}
    return sorted((c for cid, c in _REGISTRY.items() if _SOURCES.get(cid) in files or before.get(cid) is not c),
                  key=lambda c: c.id)


def registered() -> list[Claim]:
    """Every claim registered so far (no discovery), sorted by id."""
    return sorted(_REGISTRY.values(), key=lambda c: c.id)


def lookup(claim_id: str) -> Claim | None:
    """The registered claim of this id, if any (no discovery)."""
    check_text(claim_id, "claim_id")
    return _REGISTRY.get(claim_id)


def source_of(claim_id: str) -> str | None:
    """The file (or module) that registered a claim."""
    check_text(claim_id, "claim_id")
    return _SOURCES.get(claim_id)


def select(claims: Iterable[Claim], prefix: str | None) -> list[Claim]:
    """The claims whose id equals or starts with ``prefix`` (all when it is empty)."""
    claims = check_items(claims, Claim, "claims")
    if prefix is not None:
        check_text(prefix, "prefix")
    return [c for c in claims if c.id == prefix or c.id.startswith(prefix)] if prefix else claims


def claim_ids(claims: Iterable[Claim]) -> list[str]:
    """The ids of claims, in order."""
    return [c.id for c in check_items(claims, Claim, "claims")]
