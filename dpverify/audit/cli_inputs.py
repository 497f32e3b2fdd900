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
:func:`~dpverify.mechanisms.as_mechanism`), in its own measure, and the output says so: (ε, δ) by the
ε audit, ρ-zCDP by the zCDP audit, a δ(ε) curve or (α, ε_R)-RDP by :func:`audit_stated`.  A library
adapter's mechanism (``dpverify.audit.adapters:opendp``) states the library's own privacy map.

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
from typing import Any

from dpverify.mechanisms.domain import DEFAULT_DOMAIN, number_text
from dpverify.mechanisms.relations import KINDS, Neighbours

__all__ = ["CURVE_EPSILONS", "audit_pairs", "audit_stated", "literal", "parse_params", "parse_shape", "parse_values",
           "resolve", "stated_claim"]

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


def parse_params(items) -> dict:
    """``--param KEY=VALUE`` items as a dict; values int, float, bool (true/false), else the text itself.

    >>> parse_params(["scale=2", "T=int", "exact=true"])
    {'scale': 2, 'T': 'int', 'exact': True}
    """
    if items is not None and (not isinstance(items, (list, tuple)) or not all(isinstance(i, str) for i in items)):
        raise TypeError(f"items must be a list of KEY=VALUE strings, got {items!r}")
    out = {}
    for item in items or []:
        if "=" not in item:
            raise ValueError(f"--param must be KEY=VALUE, got {item!r}")
        k, v = item.split("=", 1)
        out[k.strip()] = _value(v)
    return out


def _value(text: str):
    """A --param value: int, float, bool (true/false), else the string itself."""
    low = text.strip().lower()
    if low in ("true", "false"):
        return low == "true"
    for cast in (int, float):
        try:
            return cast(text)
        except ValueError:
            pass
    return text


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
    """The claim the mechanism states, in its own measure: ``("dp", ε, δ)`` for a finite ε, ``("zcdp", ρ)``,
    ``("rdp", α, ε_R)``, ``("curve", δ(ε))`` for a claimed privacy profile, or None.

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
    claim = getattr(m, "claim", None)
    rho = getattr(claim, "rho", None)
    if rho is not None:
        return ("zcdp", float(rho))
    if claim is not None and getattr(claim, "renyi_epsilon", None) is not None:
        return ("rdp", float(claim.alpha), float(claim.renyi_epsilon))
    eps = getattr(m, "epsilon", None)
    if isinstance(eps, (int, float)) and math.isfinite(eps):
        return ("dp", float(eps), float(getattr(m, "delta", 0.0) or 0.0))
    curve = getattr(claim, "delta_curve", None)
    return ("curve", curve) if callable(curve) else None


#: the ε grid of a stated δ(ε) curve's audit (points whose claimed δ is 1 cost nothing)
CURVE_EPSILONS = (0.05, 0.1, 0.25, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0, 8.0)


def audit_stated(args, mech, pairs, stat, notes: list) -> int:
    """``dpverify audit`` of a stated δ(ε) curve (:func:`~dpverify.audit.curves.audit_delta_curve` on
    :data:`CURVE_EPSILONS`) or (α, ε_R)-RDP claim (:func:`~dpverify.audit.renyi.audit_rdp`), on the
    pair given or the first candidate pair of a relation; prints the result (JSON with ``--json``) and
    returns the exit status (1: refuted).  ``args.stated`` is the :func:`stated_claim` tuple.

    Example
    -------
    >>> from argparse import Namespace
    >>> audit_stated(Namespace(jobs=1), None, [(0, 1)], "auto", [])
    Traceback (most recent call last):
    ...
    TypeError: args must be the parsed options of dpverify audit with a stated claim, got Namespace(jobs=1) (Namespace), which has no full, seed, samples, confidence, json, mechanism, stated
    """
    import json
    import time

    from dpverify.audit.curves import audit_delta_curve
    from dpverify.audit.renyi import audit_rdp
    from dpverify.audit.supervised import report_stream

    missing = [f for f in ("jobs", "full", "seed", "samples", "confidence", "json", "mechanism", "stated")
               if not hasattr(args, f)]
    if missing:
        raise TypeError(f"args must be the parsed options of dpverify audit with a stated claim, got {args!r:.80} "
                        f"({type(args).__name__}), which has no {', '.join(missing)}")
    _check_mechanism(mech, "mech")
    if not isinstance(notes, list) or not all(isinstance(n, str) for n in notes):
        raise TypeError(f"notes must be a list of strings, got {notes!r:.80}")
    if stat is None or not (isinstance(stat, str) or callable(stat)):
        raise TypeError(f"stat must be 'auto' or a statistic (a callable), got {stat!r:.80}")
    if type(pairs).__name__ == "ndarray" and getattr(pairs, "ndim", 0) >= 2 and pairs.shape[1] == 2:
        if pairs.shape[0] > 10_000 or pairs.dtype.kind not in "iuf":
            raise TypeError(f"pairs must be at most 10,000 real (d, d') pairs, got an array {pairs.shape} of {pairs.dtype}")
        pairs = [(p[0], p[1]) for p in pairs]  # an array of pairs, one per row
    if not (isinstance(pairs, list) and pairs and all(isinstance(p, (tuple, list)) and len(p) == 2 for p in pairs)) \
            and not hasattr(pairs, "candidates"):
        raise TypeError(f"pairs must be a non-empty list of (d, d') pairs or a relation, got {pairs!r:.80}")
    if args.jobs > 1 or args.full:
        raise ValueError("--jobs and --full apply to ε audits; the stated curve or RDP claim is audited in-process")
    if isinstance(stat, str) and stat != "auto":
        raise ValueError(f"--statistic {stat} is not available for a stated curve or RDP claim; give MODULE:FUNCTION")
    pair = pairs[0] if isinstance(pairs, list) else pairs.candidates(args.seed)[0]
    statistic = None if isinstance(stat, str) else stat
    t0, kind = time.perf_counter(), args.stated[0]
    r: Any
    out: dict[str, Any]
    common = dict(pair=pair, samples=args.samples, confidence=args.confidence, rng=args.seed, statistic=statistic)
    if kind == "curve":
        r = audit_delta_curve(mech, delta_curve=args.stated[1], epsilons=list(CURVE_EPSILONS), **common)
        out = {"claim": "delta_curve", "epsilons": list(r.epsilons), "claimed_delta": list(r.claimed),
               "delta_lower": list(r.delta_lower), "refuted_at": list(r.refuted_at)}
    else:
        r = audit_rdp(mech, alpha=args.stated[1], epsilon=args.stated[2], **common)
        out = {"claim": "rdp", "alpha": r.alpha, "renyi_epsilon": r.epsilon, "renyi_epsilon_lower": r.epsilon_lb}
    verdict = r.verdict().value
    out.update(verdict=verdict, mechanism=args.mechanism, pair=[_plain(x) for x in pair], samples=args.samples,
               confidence=args.confidence, seconds=time.perf_counter() - t0, notes=notes)
    if args.json:
        report_stream().write(json.dumps(out, indent=2, ensure_ascii=False) + "\n")
    else:
        from dpverify.console import make_console, quote

        console = make_console(file=report_stream())
        for note in notes:
            console.print(quote(note), soft_wrap=True)
        console.print(quote(f"verdict: {verdict} ({kind} claim, pair {out['pair']}, {args.samples:,} draws per input)"),
                      soft_wrap=True)
    return 1 if verdict == "refuted" else 0


def _plain(x):
    """A JSON-ready value of an input."""
    return x.tolist() if hasattr(x, "tolist") else x
