"""What ``dpverify audit`` audits: the pairs (and the domain they are searched on) and the claim.

**Pairs.**  ``--d``/``--d-prime`` give one pair; ``--search KIND`` searches a
:class:`~dpverify.mechanisms.Neighbours` relation of that kind over the domain of the mechanism's
inputs; ``--search MODULE:NAME`` searches a relation object (its own domain); with neither, the
mechanism's own ``relation`` is searched.  The domain is part of the mechanism: a mechanism private on
[0, 1] need not be on [−10, 10].  ``--search KIND`` takes it from ``--low``/``--high`` (with
``--integer``) or ``--values``, else from the mechanism's own relation when that states one, and
refuses to search otherwise — unless ``--default-domain`` states that any entries are accepted (random
pairs then drawn from [−10, 10]), which the output then says.  The shape is ``--shape`` or the mechanism's own relation's; ``--search``
without either is an error.

**Claim.**  ``--epsilon`` (with ``--delta``) or ``--zcdp``; without them, the claim the mechanism
states (its ``epsilon``/``delta`` or its claim object, read by
:func:`~dpverify.mechanisms.as_mechanism`), and the output says so.

Example
-------
>>> from types import SimpleNamespace as NS
>>> args = NS(mechanism="m:f", search="replace", shape="5", bound=1.0, low=0.0, high=1.0, integer=False,
...           values=None, default_domain=False, d=None, d_prime=None)
>>> audit_pairs(args, lambda d, rng, n: rng.random(n)).describe_domain()
'5 real entries in [0, 1]'
"""

from __future__ import annotations

import ast
import importlib
import math
import os
import sys
from dataclasses import replace

from dpverify.mechanisms.domain import DEFAULT_DOMAIN, number_text
from dpverify.mechanisms.relations import KINDS, Neighbours

__all__ = ["audit_pairs", "literal", "parse_shape", "parse_values", "resolve", "stated_claim"]

_DEFAULT = f"[{number_text(DEFAULT_DOMAIN[0])}, {number_text(DEFAULT_DOMAIN[1])}]"
_HOW = ("--low L --high H (add --integer for integer entries), or --values V1,V2,..., or --search MODULE:NAME "
        f"(a relation object stating its domain); --default-domain accepts any entries (random pairs from "
        f"{_DEFAULT}) and says so")


def resolve(spec: str, flag: str):
    """The object named MODULE:NAME (modules in the current directory are found); ValueError naming ``flag``.

    >>> resolve("dpverify.mechanisms:Neighbours", "--search").__name__
    'Neighbours'
    """
    if not isinstance(flag, str):
        raise TypeError(f"flag must be text (the option named in messages, e.g. '--search'), got {flag!r}")
    if not isinstance(spec, str):
        raise TypeError(f"spec must be text MODULE:NAME (the value of {flag}), got {spec!r}")
    if ":" not in spec:
        raise ValueError(f"{flag} must be MODULE:NAME, got {spec!r}")
    mod_name, attr = spec.split(":", 1)
    if os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())  # user modules in the current directory
    try:
        obj = importlib.import_module(mod_name)
    except ImportError as exc:
        raise ValueError(f"{flag}: cannot import module {mod_name!r}: {exc}") from None
    for part in attr.split("."):
        if not hasattr(obj, part):
            raise ValueError(f"{flag}: {mod_name!r} has no attribute {attr!r}")
        obj = getattr(obj, part)
    return obj


def literal(text: str):
    """A Python/JSON literal (number, list, ...); anything else is passed as the string itself.

    >>> literal("[1, 2]"), literal("abc")
    ([1, 2], 'abc')
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be a string (a literal to read), got {text!r} ({type(text).__name__})")
    try:
        return ast.literal_eval(text)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return text


def parse_shape(text: str, name: str = "--shape") -> tuple:
    """``--shape``: ``10`` or ``(2,5)``; ValueError naming ``name`` (the option) otherwise.

    >>> parse_shape("5"), parse_shape("(2, 5)")
    ((5,), (2, 5))
    """
    if not isinstance(text, str):
        raise TypeError(f"{name} must be text such as 10 or (2,5), got {text!r} ({type(text).__name__})")
    v = literal(text)
    v = (v,) if isinstance(v, int) else v
    if not isinstance(v, tuple | list) or not v or not all(isinstance(s, int) and s > 0 for s in v):
        raise ValueError(f"{name} must be positive integers such as 10 or (2,5), got {text!r}")
    return tuple(v)


def parse_values(text: str, name: str = "--values") -> tuple:
    """``--values``: numbers separated by commas (``0,1,2`` or ``[0, 1, 2]``), at least two distinct;
    ValueError naming ``name`` (the option) otherwise.

    >>> parse_values("0,1,2"), parse_values("[0.5, 1]")
    ((0, 1, 2), (0.5, 1))
    """
    if not isinstance(text, str):
        raise TypeError(f"{name} must be text such as 0,1,2, got {text!r} ({type(text).__name__})")
    v = literal(text if text.strip().startswith(("[", "(")) else f"[{text}]")
    ok = isinstance(v, (list, tuple)) and all(isinstance(x, (int, float)) and not isinstance(x, bool) and (
        isinstance(x, int) or math.isfinite(x)) for x in v) and len(set(v)) >= 2
    if not ok:
        raise ValueError(f"{name} must be at least two distinct numbers such as 0,1,2, got {text!r}")
    return tuple(v)


_ARGS = ("mechanism", "search", "shape", "bound", "low", "high", "integer", "values", "default_domain", "d", "d_prime")


def _check_mechanism(mech, name: str) -> None:
    """A mechanism: a callable or an object with ``sample``; TypeError naming ``name`` otherwise."""
    if not (callable(mech) or hasattr(mech, "sample")):
        raise TypeError(f"{name} must be a mechanism (a callable or an object with sample()), got {mech!r} "
                        f"({type(mech).__name__})")


def _flags(args) -> list[str]:
    """The domain flags given."""
    return [f for f, v in (("--low", args.low), ("--high", args.high), ("--values", args.values),
                           ("--integer", args.integer or None)) if v is not None]


def _own(mech):
    """The mechanism's own relation when it is a :class:`Neighbours` (shape, domain), else None."""
    own = getattr(mech, "relation", None)
    return own if isinstance(own, Neighbours) else None


def _domain(args, own) -> dict:
    """The domain of ``--search KIND``: the flags, the mechanism's own, or the accepted default."""
    if args.values is not None:
        if args.low is not None or args.high is not None:
            raise ValueError("give --values or --low/--high, not both")
        return {"values": parse_values(args.values), "integer": bool(args.integer)}
    if args.low is not None or args.high is not None:
        if (args.low is None or args.high is None) and not args.default_domain:
            missing = "--high" if args.high is None else "--low"
            raise ValueError(f"{missing} is missing: --low and --high bound the entries together (or add "
                             f"--default-domain to leave that side unbounded, random pairs drawn within {_DEFAULT})")
        return {"low": args.low, "high": args.high, "integer": bool(args.integer),
                "default_domain": bool(args.default_domain)}
    if own is not None and (own.domain_stated or own.default_domain):
        return {"low": own.low, "high": own.high, "values": own.values, "default_domain": own.default_domain,
                "integer": own.integer or bool(args.integer)}
    if args.default_domain:
        return {"integer": bool(args.integer), "default_domain": True}
    raise ValueError(f"--search needs the domain of {args.mechanism}'s inputs (it states none): {_HOW}")


def _searchable(rel, args):
    """``rel`` when it states the domain it is searched on (or ``--default-domain`` accepts the default)."""
    if isinstance(rel, Neighbours) and not rel.domain_stated and not rel.default_domain:
        if not args.default_domain:
            raise ValueError(f"the relation of {args.mechanism} ({rel}) states no domain to search: "
                             f"give --search KIND with {_HOW}")
        return replace(rel, default_domain=True)
    return rel


def audit_pairs(args, mech):
    """The pairs to audit: ``--d``/``--d-prime``, a ``--search`` relation over its domain, or the
    mechanism's own relation (module docstring); ValueError naming the flag otherwise.

    >>> from types import SimpleNamespace as NS
    >>> args = NS(d=None, d_prime=None, search="l1", shape="3", bound=1.0, low=0.0, high=1.0, integer=False,
    ...           values=None, default_domain=False, mechanism="m:f")
    >>> rel = audit_pairs(args, lambda d, rng, n: rng.random(n))
    >>> rel.shape, rel.low, rel.high
    ((3,), 0.0, 1.0)
    """
    missing = [f for f in _ARGS if not hasattr(args, f)]
    if missing:
        raise TypeError(f"args must be the parsed options of dpverify audit, got {args!r} ({type(args).__name__}), "
                        f"which has no {', '.join(missing)}")
    _check_mechanism(mech, "mech")
    given = _flags(args)
    if args.search and (args.d is not None or args.d_prime is not None):
        raise ValueError("give either --d/--d-prime or --search, not both")
    if args.search and ":" in args.search:
        if given or args.shape is not None:
            raise ValueError(f"{', '.join(given + (['--shape'] if args.shape else []))} apply to --search KIND; "
                             f"the relation {args.search} states its own shape and domain")
        rel = resolve(args.search, "--search")
        if not hasattr(rel, "candidates"):
            raise ValueError(f"--search {args.search} is {type(rel).__name__}, not a relation (an object with "
                             "candidates(rng), e.g. dpverify.mechanisms.Neighbours(...))")
        return _searchable(rel, args)
    if args.search:
        if args.search not in KINDS:
            raise ValueError(f"unknown --search relation {args.search!r}; valid: {', '.join(KINDS)} or MODULE:NAME")
        own = _own(mech)
        if args.shape is None and own is None:
            raise ValueError(f"--search {args.search} needs --shape (the shape of one input, e.g. 5 or (2,5)): "
                             f"{args.mechanism} carries no relation that gives it")
        shape = parse_shape(args.shape) if args.shape is not None else own.shape
        return Neighbours(shape=shape, kind=args.search, bound=args.bound, **_domain(args, own))
    if given or args.shape is not None:
        raise ValueError(f"{', '.join(given + (['--shape'] if args.shape else []))} apply to --search")
    if args.d is not None and args.d_prime is not None:
        return [(literal(args.d), literal(args.d_prime))]
    own = getattr(mech, "relation", None)
    if args.d is None and args.d_prime is None and hasattr(own, "candidates"):
        return _searchable(own, args)  # the mechanism carries its relation: audit over its candidates
    raise ValueError("give the pair (--d and --d-prime) or a relation to search (--search KIND --shape S); "
                     f"{args.mechanism} carries no relation object (.relation with candidates()) to audit over")


def stated_claim(mech) -> tuple | None:
    """The claim the mechanism states: ``("dp", ε, δ)`` for a finite ε, ``("zcdp", ρ)``, or None.

    >>> from dpverify.audit.suite import Laplace
    >>> stated_claim(Laplace(0.5)), stated_claim(lambda d, rng, n: rng.random(n))
    (('dp', 0.5, 0.0), None)
    """
    from dpverify.mechanisms.convert import as_mechanism

    _check_mechanism(mech, "mech")
    try:
        m = as_mechanism(mech)
    except (TypeError, ValueError):
        return None
    rho = getattr(getattr(m, "claim", None), "rho", None)
    if rho is not None:
        return ("zcdp", float(rho))
    eps = getattr(m, "epsilon", None)
    if isinstance(eps, (int, float)) and math.isfinite(eps):
        return ("dp", float(eps), float(getattr(m, "delta", 0.0) or 0.0))
    return None
