"""``dpverify audit MODULE:NAME (--epsilon E | --zcdp RHO) [--d D --d-prime D' | --search KIND --shape S] --samples N``.

Thin: load the mechanism (a function, a factory or a class, from the current directory too), parse,
call :func:`dpverify.audit.audit`, print.  The pairs audited are ``--d``/``--d-prime``, the
candidates of ``--search``, or — when neither is given — the mechanism's own ``relation`` object
(a :class:`~dpverify.mechanisms.Mechanism` carries one).  Exit status 0 when the claim is not
refuted (verdict ``inconclusive``), 1 when it is refuted, 2 on bad input.
"""

from __future__ import annotations

import argparse
import ast
import importlib
import inspect
import json
import os
import sys

_STATISTICS = ("auto", "classifier", "pattern", "offgrid")
_RELATIONS = ("linf", "l1", "add_remove", "replace")


def _resolve(spec: str, flag: str):
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


def _value(text: str):
    """--param values: int, float, bool (true/false), else the string itself."""
    low = text.strip().lower()
    if low in ("true", "false"):
        return low == "true"
    for cast in (int, float):
        try:
            return cast(text)
        except ValueError:
            pass
    return text


def _params(items) -> dict:
    out = {}
    for item in items or []:
        if "=" not in item:
            raise ValueError(f"--param must be KEY=VALUE, got {item!r}")
        k, v = item.split("=", 1)
        out[k.strip()] = _value(v)
    return out


def _is_mechanism(obj) -> bool:
    if isinstance(obj, type):
        return False
    return hasattr(obj, "sample") or (callable(obj) and _arity(obj) >= 3)


def _arity(fn) -> int:
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return 3
    if any(p.kind == p.VAR_POSITIONAL for p in params):
        return 3
    return sum(p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) for p in params)


def load_mechanism(spec: str, params: dict):
    """A mechanism from MODULE:NAME — used as is, or built by calling a factory/class with ``params``.

    Example
    -------
    >>> load_mechanism("dpverify.audit.suite:SVT1", {"epsilon": 0.5}).epsilon
    0.5
    """
    obj = _resolve(spec, "MECHANISM")
    if _is_mechanism(obj) and not params:
        return obj
    if not callable(obj):
        raise ValueError(f"MECHANISM: {spec!r} is not a callable mechanism(data, rng, n), a factory or a class")
    try:
        built = obj(**params)
    except TypeError as exc:
        raise ValueError(f"MECHANISM: cannot build {spec!r} from --param {params or '(none)'}: {exc}") from None
    if not _is_mechanism(built):
        raise ValueError(f"MECHANISM: {spec!r} built with --param gives {type(built).__name__}, "
                         "not a mechanism (a callable mechanism(data, rng, n) or an object with .sample)")
    return built


def load_statistic(spec: str | None):
    """``--statistic``: a name, or MODULE:NAME of a statistic, a statistic class or a factory.

    Example
    -------
    >>> load_statistic("dpverify.audit.floating_point:fp_attack_statistic")   # a factory, called
    OffGrid(exponent=-53)
    >>> load_statistic("dpverify.audit:PatternCode")                          # a class, built
    PatternCode(low=-1, high=1, columns=(), clip=False)
    """
    if spec is None or spec in _STATISTICS:
        return spec or "auto"
    if ":" not in spec:
        raise ValueError(f"unknown --statistic {spec!r}; valid: {', '.join(_STATISTICS)} or MODULE:FUNCTION")
    obj = _resolve(spec, "--statistic")
    if isinstance(obj, type) or (callable(obj) and _arity(obj) == 0):
        obj = obj()  # a statistic class (PatternCode) or a factory (fp_attack_statistic) with defaults
    elif callable(obj):
        try:
            made = obj()
        except TypeError:
            made = None
        if made is not None and callable(made):
            obj = made
    if not callable(obj):
        raise ValueError(f"--statistic {spec!r} is not a function mapping outputs to numbers")
    return obj


def _literal(text: str):
    """A Python/JSON literal (number, list, ...); anything else is passed as the string itself."""
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return text


def _shape(text: str) -> tuple:
    v = _literal(text)
    v = (v,) if isinstance(v, int) else v
    if not isinstance(v, tuple | list) or not v or not all(isinstance(s, int) and s > 0 for s in v):
        raise ValueError(f"--shape must be positive integers such as 10 or (2,5), got {text!r}")
    return tuple(v)


def _pairs(args: argparse.Namespace, mech):
    """The pairs to audit: ``--d``/``--d-prime``, a ``--search`` relation, or the mechanism's own relation."""
    from dpverify.audit.search import Neighbours

    if args.search:
        if args.search not in _RELATIONS:
            raise ValueError(f"unknown --search relation {args.search!r}; valid: {', '.join(_RELATIONS)}")
        if args.d is not None or args.d_prime is not None:
            raise ValueError("give either --d/--d-prime or --search, not both")
        return Neighbours(shape=_shape(args.shape or "1"), kind=args.search, bound=args.bound)
    if args.d is not None and args.d_prime is not None:
        return [(_literal(args.d), _literal(args.d_prime))]
    own = getattr(mech, "relation", None)
    if args.d is None and args.d_prime is None and hasattr(own, "candidates"):
        return own  # the mechanism carries its relation: audit over its candidates
    raise ValueError("give the pair (--d and --d-prime) or a relation to search (--search KIND --shape S); "
                     f"{args.mechanism} carries no relation object (.relation with candidates()) to audit over")


def cmd_audit(args: argparse.Namespace) -> int:
    from dpverify.progress import progress
    from dpverify.validation import check_epsilon
    from dpverify.audit.api import MAX_SAMPLES, audit
    from dpverify.audit.errors import MechanismError
    from dpverify.mechanisms.convert import audited

    if args.zcdp is not None and args.epsilon is not None:
        raise ValueError("give either --epsilon (an (ε, δ) claim) or --zcdp RHO (a ρ-zCDP claim), not both")
    if args.zcdp is None and args.epsilon is None:
        raise ValueError("--epsilon is required (or --zcdp RHO for a ρ-zCDP claim)")
    claimed = check_epsilon(args.epsilon, "--epsilon") if args.zcdp is None else None
    if args.samples is None or args.samples < 1000:
        raise ValueError(f"--samples must be an integer >= 1000, got {args.samples}")
    if args.samples > MAX_SAMPLES and not args.force:
        raise ValueError(f"--samples {args.samples} exceeds 10^10 draws per input; add --force to run it anyway")
    if not 0 < args.confidence < 1:
        raise ValueError(f"--confidence must lie in (0, 1), got {args.confidence}")
    if not 0 <= args.delta < 1:
        raise ValueError(f"--delta must lie in [0, 1), got {args.delta}")
    stat = load_statistic(args.statistic)
    mech = load_mechanism(args.mechanism, _params(args.param))
    pairs = _pairs(args, mech)
    if claimed is not None:  # one protocol for every entry point (a zCDP audit states no ε)
        mech = audited(mech, epsilon=claimed, delta=args.delta)
    if args.jobs < 1:
        raise ValueError(f"--jobs must be >= 1, got {args.jobs}")
    if args.zcdp is not None:
        if args.jobs > 1:
            raise ValueError("--jobs applies to ε audits; a --zcdp audit runs in-process (drop --jobs)")
        return _audit_zcdp(args, mech, pairs, stat)
    pool = None
    if args.jobs > 1:
        import pickle
        from concurrent.futures import ProcessPoolExecutor

        try:  # the worker processes receive the mechanism and the statistic by pickling
            pickle.dumps((mech, stat))
        except Exception as exc:
            raise ValueError(f"--jobs {args.jobs} needs a mechanism and statistic that pickle (a module-level "
                             f"function or class, not a closure): {type(exc).__name__}: {exc}; use --jobs 1") from exc

        pool = ProcessPoolExecutor(args.jobs)
    try:
        # the budget is per input, so the draws over all inputs are only known as the audit goes:
        # the total follows the audit's plan
        with progress("auditing", 2 * args.samples, unit="draws", stream=sys.stderr) as tick:
            last = [0]

            def report(done, total):
                tick(done - last[0], total=total)
                last[0] = done

            r = audit(mech, epsilon=claimed, delta=args.delta, pairs=pairs, samples=args.samples,
                      confidence=args.confidence, rng=args.seed, statistic=stat, progress=report, force=args.force,
                      executor=pool)
    except MechanismError as exc:
        print(f"dpverify audit: error: {exc}", file=sys.stderr)
        return 2
    finally:
        if pool is not None:
            pool.shutdown()
    verdict = r.verdict(claimed)
    _print_audit(args, r, claimed, verdict.value)
    return 1 if verdict.value == "refuted" else 0


def _print_audit(args: argparse.Namespace, r, claimed: float, verdict: str) -> None:
    """An audit's report on stdout: its JSON (``--json``) or a table."""
    from rich.console import Console
    from rich.table import Table

    if args.json:
        json.dump({"mechanism": args.mechanism, "params": _params(args.param), **r.as_dict()}, sys.stdout,
                  indent=2, ensure_ascii=False)
        print()
    else:
        t = Table(title=f"audit of {args.mechanism} (claimed ε = {claimed:g}, δ = {r.delta:g})")
        t.add_column("quantity")
        t.add_column("value", overflow="fold")
        style = "red" if verdict == "refuted" else "cyan"
        rows = [("verdict", f"[{style}]{verdict}[/]"), ("ε lower bound", f"{r.epsilon:.6g}"),
                ("confidence", f"{r.confidence:g}"), ("pair", f"{_literal_text(r.pair[0])} vs {_literal_text(r.pair[1])}"),
                ("statistic", r.statistic), ("event", r.event.description), ("direction", r.direction),
                ("count P / Q", f"{r.count_p} / {r.count_q} of {r.trials} / {r.trials_q or r.trials} draws"),
                ("test", "conditional on the total (Poisson draw counts)" if r.test == "poisson"
                 else "two Clopper–Pearson bounds"),
                ("P lower, Q upper", f"{r.p_interval[0]:.6g}, {r.q_interval[1]:.6g}"),
                ("samples used (per input)", f"{r.samples_used:,} of {r.samples:,}"), ("time", f"{r.seconds:.2f} s")]
        for k, v in rows:
            t.add_row(k, v)
        Console().print(t)


def _audit_zcdp(args: argparse.Namespace, mech, pairs, stat) -> int:
    """``--zcdp RHO``: audit the ρ-zCDP claim on the given pair (or the first candidate of --search)."""
    import time

    from rich.console import Console
    from rich.table import Table

    from dpverify.progress import progress
    from dpverify.validation import check_real
    from dpverify.audit.errors import MechanismError
    from dpverify.audit.renyi import audit_zcdp

    rho = check_real(args.zcdp, "--zcdp", positive=True)
    if isinstance(stat, str) and stat != "auto":
        raise ValueError(f"--statistic {stat} is not available with --zcdp; give MODULE:FUNCTION or leave it out")
    pair = pairs[0] if isinstance(pairs, list) else pairs.candidates(args.seed)[0]
    t0 = time.perf_counter()
    try:
        with progress("auditing zCDP", None, stream=sys.stderr):  # one call: heartbeat lines off a terminal
            r = audit_zcdp(mech, rho=rho, pair=pair, samples=args.samples, confidence=args.confidence,
                           rng=args.seed, statistic=None if isinstance(stat, str) else stat)
    except MechanismError as exc:
        print(f"dpverify audit: error: {exc}", file=sys.stderr)
        return 2
    from dpverify import __version__

    c = r.curve
    verdict = r.verdict().value
    if args.json:
        out = {"mechanism": args.mechanism, "params": _params(args.param), "claim": "zcdp", "rho": r.rho,
               "rho_lb": r.rho_lb, "verdict": verdict, "confidence": c.confidence,
               "pair": [_jsonable(pair[0]), _jsonable(pair[1])], "epsilons": list(c.epsilons),
               "delta_lower": list(c.delta_lower), "claimed_delta": list(c.claimed), "refuted_at": list(c.refuted_at),
               "samples": args.samples, "seconds": time.perf_counter() - t0, "seed": args.seed, "version": __version__}
        json.dump(out, sys.stdout, indent=2, ensure_ascii=False)
        print()
    else:
        t = Table(title=f"zCDP audit of {args.mechanism} (claimed ρ = {rho:g})")
        for col in ("ε′", "δ lower bound", "claimed δ(ε′)"):
            t.add_column(col)
        for e, lo, cl in zip(c.epsilons, c.delta_lower, c.claimed):
            mark = " [red]refuted[/]" if lo > cl else ""
            t.add_row(f"{e:.4g}", f"{lo:.4g}", f"{cl:.4g}{mark}")
        Console().print(t)
        style = "red" if verdict == "refuted" else "cyan"
        Console().print(f"verdict: [{style}]{verdict}[/]; ρ ≥ {r.rho_lb:.6g} with confidence {c.confidence:g}; pair "
                        f"{_literal_text(pair[0])} vs {_literal_text(pair[1])}")
    return 1 if verdict == "refuted" else 0


def _jsonable(x):
    return x.tolist() if hasattr(x, "tolist") else x


def _literal_text(x) -> str:
    return str(x.tolist()) if hasattr(x, "tolist") else repr(x)


def register(subparsers) -> None:
    p = subparsers.add_parser("audit", help="black-box lower bound on a mechanism's ε from samples")
    p.add_argument("mechanism", metavar="MODULE:NAME",
                   help="a mechanism(data, rng, n), an object with .sample, or a factory/class (see --param); "
                        "modules in the current directory are found")
    p.add_argument("--param", action="append", metavar="KEY=VALUE",
                   help="argument for a factory or class (repeatable; int, float, true/false or text)")
    p.add_argument("--d", default=None,
                   help="input D (a Python literal, e.g. 0 or [1,2,3]); without --d/--d-prime and --search, the "
                        "pairs are the candidates of the mechanism's own relation (its .relation object)")
    p.add_argument("--d-prime", default=None, dest="d_prime", help="neighbouring input D'")
    p.add_argument("--search", default=None, metavar="RELATION",
                   help=f"search the pair under a neighbouring relation: {', '.join(_RELATIONS)} (default, without "
                        "--d/--d-prime: the mechanism's own relation)")
    p.add_argument("--shape", default=None, help="input shape for --search, e.g. 10 or (2,5)")
    p.add_argument("--bound", type=float, default=1.0, help="the relation's bound for --search (default 1)")
    p.add_argument("--epsilon", type=float, default=None, help="claimed ε (required unless --zcdp)")
    p.add_argument("--zcdp", type=float, default=None, metavar="RHO",
                   help="audit a ρ-zCDP claim instead: the δ(ε′) curve it implies, on the pair (or the first "
                        "candidate of --search); prints a lower bound on ρ")
    p.add_argument("--delta", type=float, default=0.0, help="claimed δ (default 0)")
    p.add_argument("--samples", required=True, type=int, help="draws per input (at most 10^10 without --force)")
    p.add_argument("--force", action="store_true", help="allow more than 10^10 samples")
    p.add_argument("--confidence", type=float, default=0.99, help="1 − α (default 0.99)")
    p.add_argument("--seed", type=int, default=None, help="seed for reproducible audits")
    p.add_argument("--jobs", type=int, default=1,
                   help="worker processes for the final audit's draws (default 1: in-process; the result is the same)")
    p.add_argument("--statistic", default=None,
                   help=f"{', '.join(_STATISTICS)} (default auto) or MODULE:FUNCTION (a statistic, class or factory)")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.set_defaults(func=cmd_audit)
