"""``dpverify audit MODULE:NAME [--epsilon E | --zcdp RHO] [--d D --d-prime D' | --search KIND --shape S
--low L --high H | --search MODULE:RELATION] --samples N [--full]``.

Thin: load the mechanism (a function, a factory or a class, from the current directory too), parse,
call :func:`dpverify.audit.audit`, print.  The pairs audited are ``--d``/``--d-prime``, the
candidates of ``--search`` over the domain of the mechanism's inputs, or — when neither is given —
the mechanism's own ``relation`` object (:mod:`dpverify.audit.cli_inputs`: a search never invents a
domain; ``--default-domain`` accepts the default [−10, 10] and the output says so).  Without
``--epsilon``/``--zcdp`` the claim is the one the mechanism states, in its own measure (a library
adapter's: the library's privacy map): ε by the ε audit, ρ by the zCDP audit, a δ(ε) curve or RDP by
:func:`~dpverify.audit.cli_inputs.audit_stated`.  ``--full`` spends the whole
budget on the final test (no early stop: the strongest bound).  Exit status 0 when the claim is not
refuted (verdict ``inconclusive``), 1 when it is refuted, 2 on bad input or when the mechanism (or the
statistic) fails: raises, calls ``sys.exit``/``os._exit``, gets a signal or crashes — the command runs
in a supervised child process (:mod:`dpverify.audit.supervised`), so such an end is one error line
naming the mechanism, never a silent 0 nor the "refuted" 1.  Ctrl-C gives 130.
"""

from __future__ import annotations

import argparse
import inspect
import json
import sys

from dpverify.audit.cli_inputs import audit_pairs, audit_stated, resolve, stated_claim
from dpverify.audit.cli_inputs import parse_params as _params
from dpverify.mechanisms.relations import KINDS

_STATISTICS = ("auto", "classifier", "pattern", "offgrid")  # a stated curve/RDP claim: cli_inputs.audit_stated
_SIGNATURE = ("a mechanism is `mechanism(data, rng, n)` — the input, a numpy Generator and the number of draws, "
              "returning n outputs — or an object with .sample(data, rng, n); a factory or class is built with "
              "--param KEY=VALUE")


_EPILOG = """exit status:
  0    the claim is not refuted (no violation found: verdict inconclusive)
  1    the claim is refuted
  2    an error: bad input, or the mechanism (or statistic) failed — it raised, called sys.exit or
       os._exit, was killed by a signal or crashed (one line on stderr names it and, where known,
       the call); the audit runs in a supervised child process, so it never ends silently;
       an internal error of dpverify also gives 2, after its traceback
  130  interrupted (Ctrl-C; 143 on SIGTERM); the audit's processes are ended"""


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
    obj = resolve(spec, "MECHANISM")
    if _is_mechanism(obj) and not params:
        return obj
    if not callable(obj):
        raise ValueError(f"MECHANISM: {spec!r} is not a callable mechanism(data, rng, n), a factory or a class")
    _wrong_signature(spec, obj, params)
    try:
        built = obj(**params)
    except TypeError as exc:
        raise ValueError(f"MECHANISM: cannot build {spec!r} from --param {params or '(none)'}: {exc}") from None
    if not _is_mechanism(built):
        raise ValueError(f"MECHANISM: {spec!r} built with --param gives {type(built).__name__}, "
                         "not a mechanism (a callable mechanism(data, rng, n) or an object with .sample)")
    return built


def _wrong_signature(spec: str, obj, given: dict) -> None:
    """One line when ``obj`` is a function meant as a mechanism with the wrong signature (it takes a
    generator, or needs positional arguments that ``--param`` does not give), not a factory."""
    if isinstance(obj, type) or not inspect.isfunction(obj):
        return
    params = inspect.signature(obj).parameters.values()
    takes_rng = any(p.name in ("rng", "random_state", "generator", "prng") for p in params)
    missing = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
               and p.default is p.empty and p.name not in given]
    if takes_rng or missing:
        raise ValueError(f"MECHANISM: {spec} is {obj.__name__}{inspect.signature(obj)}: {_SIGNATURE}")


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
    obj = resolve(spec, "--statistic")
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


def _claim(args, mech) -> str | None:
    """Fill ``args.epsilon``/``args.delta`` or ``args.zcdp`` from the mechanism's stated claim when no
    claim is given; the note that says so (None when the claim was given)."""
    if args.zcdp is not None and args.epsilon is not None:
        raise ValueError("give either --epsilon (an (ε, δ) claim) or --zcdp RHO (a ρ-zCDP claim), not both")
    if args.zcdp is not None or args.epsilon is not None:
        args.delta = 0.0 if args.delta is None else args.delta
        return None
    stated = stated_claim(mech)
    if stated is None:
        raise ValueError(f"--epsilon is required: {args.mechanism} states no claim (give --epsilon E, or --zcdp RHO "
                         "for a ρ-zCDP claim)")
    if args.delta is not None:
        raise ValueError("--delta goes with --epsilon: without --epsilon the claim is the mechanism's own")
    if stated[0] == "zcdp":
        args.zcdp, args.delta = stated[1], 0.0
        return f"claim: ρ = {stated[1]:g} (zCDP), as {args.mechanism} states (no --zcdp given)"
    if stated[0] in ("curve", "rdp"):  # audited by audit_stated (cli_inputs)
        args.stated, args.delta = stated, 0.0
        what = "a δ(ε) curve" if stated[0] == "curve" else f"(α = {stated[1]:g}, ε_R = {stated[2]:g})-RDP"
        return f"claim: {what}, as {args.mechanism} states (no --epsilon given)"
    args.epsilon, args.delta = stated[1], stated[2]
    return f"claim: ε = {stated[1]:g}, δ = {stated[2]:g}, as {args.mechanism} states (no --epsilon given)"


def _checked(args) -> None:
    """The budget, level and jobs flags, validated (ValueError naming the flag)."""
    from dpverify.audit.api import check_samples

    if args.samples is None or args.samples < 1000:
        raise ValueError(f"--samples must be an integer >= 1000, got {args.samples}")
    check_samples(args.samples, force=args.force, name="--samples")
    if not 0 < args.confidence < 1:
        raise ValueError(f"--confidence must lie in (0, 1), got {args.confidence}")
    if not 0 <= args.delta < 1:
        raise ValueError(f"--delta must lie in [0, 1), got {args.delta}")
    if args.jobs < 1:
        raise ValueError(f"--jobs must be >= 1, got {args.jobs}")


def cmd_audit(args: argparse.Namespace) -> int:
    """The command, supervised (:func:`dpverify.audit.supervised.supervise_command`): a mechanism that
    exits, calls ``os._exit``, gets a signal or crashes is one error line and exit status 2."""
    from dpverify.audit.errors import MechanismError
    from dpverify.audit.supervised import supervise_command

    try:
        return supervise_command(lambda: _audit_command(args), args.mechanism.rsplit(":", 1)[-1])
    except MechanismError as exc:
        print(f"dpverify audit: error: {exc}", file=sys.stderr)
        return 2
    except (ValueError, TypeError, OSError, MemoryError, OverflowError):
        raise  # bad input: dpverify.cli.main's one-line error, exit status 2
    except Exception as exc:  # a defect: its traceback, and exit status 2 (never the "refuted" 1)
        import traceback

        traceback.print_exception(exc, file=sys.stderr)
        print(f"dpverify audit: error: internal error {type(exc).__name__}: {exc} (please report it)", file=sys.stderr)
        return 2


def _audit_command(args: argparse.Namespace) -> int:
    from dpverify.validation import check_epsilon
    from dpverify.audit.search import domain_text
    from dpverify.mechanisms.convert import audited

    stat = load_statistic(args.statistic)
    mech = load_mechanism(args.mechanism, _params(args.param))
    notes = [_claim(args, mech)]
    if getattr(args, "stated", None):
        _checked(args)
        return audit_stated(args, mech, audit_pairs(args, mech), stat, [n for n in notes if n])
    claimed = check_epsilon(args.epsilon, "--epsilon") if args.zcdp is None else None
    _checked(args)
    pairs = audit_pairs(args, mech)
    domain = domain_text(pairs)
    if domain is not None and getattr(pairs, "default_domain", False):  # the default, accepted: said first
        notes.append(f"domain searched: {domain}")
    if claimed is not None:  # one protocol for every entry point (a zCDP audit states no ε)
        mech = audited(mech, epsilon=claimed, delta=args.delta)
    notes = [n for n in notes if n]
    if args.zcdp is not None:
        if args.jobs > 1:
            raise ValueError("--jobs applies to ε audits; a --zcdp audit runs in-process (drop --jobs)")
        if args.full:
            raise ValueError("--full applies to ε audits (a --zcdp audit has no early stop)")
        return _audit_zcdp(args, mech, pairs, stat, notes)
    r = _run(args, mech, pairs, stat, claimed)
    if r is None:
        return 2
    verdict = r.verdict(claimed)
    _print_audit(args, r, claimed, verdict.value, notes, domain)
    return 1 if verdict.value == "refuted" else 0


def _run(args: argparse.Namespace, mech, pairs, stat, claimed):
    """The ε audit, with a progress line on stderr; None (after one error line) when the mechanism fails."""
    from dpverify.progress import progress
    from dpverify.audit.api import audit
    from dpverify.audit.errors import MechanismError

    pool = None
    if args.jobs > 1:
        import multiprocessing
        import pickle
        from concurrent.futures import ProcessPoolExecutor

        from dpverify.audit.contained import ContainedExecutor
        from dpverify.audit.supervised import forget_channel  # workers close the supervisor's channel
        from dpverify.mechanisms.sampling import name_of

        try:  # the worker processes receive the mechanism and the statistic by pickling
            pickle.dumps((mech, stat))
        except Exception as exc:
            raise ValueError(f"--jobs {args.jobs} needs a mechanism and statistic that pickle (a module-level "
                             f"function or class, not a closure): {type(exc).__name__}: {exc}; use --jobs 1") from exc

        # fork, as the supervised child itself was made: the workers inherit the loaded mechanism;
        # a worker that dies is a MechanismError naming it, not a BrokenProcessPool traceback
        fork = "fork" in multiprocessing.get_all_start_methods()
        pool = ContainedExecutor(ProcessPoolExecutor(args.jobs, mp_context=multiprocessing.get_context(
            "fork" if fork else None), initializer=forget_channel), name_of(mech))
    try:
        # the budget is per input, so the draws over all inputs are only known as the audit goes:
        # the total follows the audit's plan
        with progress("auditing", 2 * args.samples, unit="draws", stream=sys.stderr) as tick:
            last = [0]

            def report(done, total):
                tick(done - last[0], total=total)
                last[0] = done

            return audit(mech, epsilon=claimed, delta=args.delta, pairs=pairs, samples=args.samples,
                         confidence=args.confidence, rng=args.seed, statistic=stat, progress=report,
                         force=args.force, executor=pool, stop_early=not args.full)
    except MechanismError as exc:
        print(f"dpverify audit: error: {exc}", file=sys.stderr)
        return None
    finally:
        if pool is not None:
            pool.shutdown()


def _print_audit(args: argparse.Namespace, r, claimed: float, verdict: str, notes: list, domain) -> None:
    """An audit's report on stdout (:mod:`dpverify.audit.render`): its JSON (``--json``, with the domain
    searched and where the claim came from) or the notes and the table; every string quoted exactly
    (:mod:`dpverify.console`: no markup, no emoji codes)."""
    from dpverify.audit.render import audit_json, print_audit
    from dpverify.audit.supervised import report_stream
    from dpverify.console import make_console, quote

    if args.json:
        out = audit_json(r, mechanism=args.mechanism, params=_params(args.param))
        if out.get("domain") is None:
            out["domain"] = domain
        out["claim_source"] = "stated by the mechanism" if any(n.startswith("claim:") for n in notes) else "--epsilon"
        out["notes"] = notes
        report_stream().write(json.dumps(out, indent=2, ensure_ascii=False) + "\n")
        return
    console = make_console(file=report_stream())
    for note in notes:
        console.print(quote(note), soft_wrap=True)
    print_audit(console, r, claimed=claimed, verdict=verdict, mechanism=args.mechanism)


def _audit_zcdp(args: argparse.Namespace, mech, pairs, stat, notes: list) -> int:
    """``--zcdp RHO``: audit the ρ-zCDP claim on the given pair, or on the first candidate pair only of a
    searched relation (the notes and the JSON's ``pair_choice`` say so: the other candidates are not audited)."""
    import time

    from dpverify.console import make_console, quote
    from dpverify.progress import progress
    from dpverify.validation import check_real
    from dpverify.audit.errors import MechanismError
    from dpverify.audit.render import print_zcdp, zcdp_json
    from dpverify.audit.renyi import audit_zcdp
    from dpverify.audit.supervised import report_stream

    rho = check_real(args.zcdp, "--zcdp", positive=True)
    if isinstance(stat, str) and stat != "auto":
        raise ValueError(f"--statistic {stat} is not available with --zcdp; give MODULE:FUNCTION or leave it out")
    pair = pairs[0] if isinstance(pairs, list) else pairs.candidates(args.seed)[0]
    choice = "the pair given"
    if not isinstance(pairs, list):  # a relation: its domain is not searched, one pair is audited
        choice = f"first candidate pair only: {_pair_text(pair)}"
        notes = [n.replace("domain searched: ", "domain (not searched by --zcdp): ", 1) for n in notes] + [
            f"{choice} (a --zcdp audit audits one pair; the relation's other candidates are not audited)"]
    t0 = time.perf_counter()
    try:
        with progress("auditing zCDP", None, stream=sys.stderr):  # one call: heartbeat lines off a terminal
            r = audit_zcdp(mech, rho=rho, pair=pair, samples=args.samples, confidence=args.confidence,
                           rng=args.seed, statistic=None if isinstance(stat, str) else stat)
    except MechanismError as exc:
        print(f"dpverify audit: error: {exc}", file=sys.stderr)
        return 2
    verdict = r.verdict().value
    if args.json:
        out = zcdp_json(r, pair=pair, samples=args.samples, seconds=time.perf_counter() - t0, seed=args.seed,
                        mechanism=args.mechanism, params=_params(args.param))
        out["pair_choice"], out["notes"] = choice, notes
        report_stream().write(json.dumps(out, indent=2, ensure_ascii=False) + "\n")
    else:
        console = make_console(file=report_stream())
        for note in notes:
            console.print(quote(note), soft_wrap=True)
        print_zcdp(console, r, pair=pair, mechanism=args.mechanism)
    return 1 if verdict == "refuted" else 0


def _pair_text(pair) -> str:
    """``d vs d'`` with arrays as lists."""
    return " vs ".join(str(x.tolist()) if hasattr(x, "tolist") else repr(x) for x in pair)


def register(subparsers) -> None:
    p = subparsers.add_parser("audit", help="black-box lower bound on a mechanism's ε from samples",
                              epilog=_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
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
                   help=f"search the pair under a neighbouring relation: {', '.join(KINDS)} over the domain of "
                        "--low/--high or --values (or the mechanism's own relation's), or MODULE:NAME, a relation "
                        "object (default, without --d/--d-prime: the mechanism's own relation)")
    p.add_argument("--shape", default=None,
                   help="input shape for --search KIND, e.g. 10 or (2,5) (default: the mechanism's own relation's)")
    p.add_argument("--bound", type=float, default=1.0, help="the relation's bound for --search (default 1)")
    p.add_argument("--low", type=float, default=None, help="the least value of an input entry (for --search KIND)")
    p.add_argument("--high", type=float, default=None, help="the largest value of an input entry (for --search KIND)")
    p.add_argument("--integer", action="store_true", help="input entries are integers (for --search KIND)")
    p.add_argument("--values", default=None, help="the finite set of entry values, e.g. 0,1,2 (for --search KIND)")
    p.add_argument("--default-domain", action="store_true", dest="default_domain",
                   help="where no domain is stated, accept any entries and draw random pairs from [-10, 10] "
                        "(the output says so)")
    p.add_argument("--full", action="store_true",
                   help="spend the whole budget on the final test: no early stop, the strongest bound")
    p.add_argument("--epsilon", type=float, default=None,
                   help="claimed ε (default: the mechanism's stated claim; required when it states none)")
    p.add_argument("--zcdp", type=float, default=None, metavar="RHO",
                   help="audit a ρ-zCDP claim instead: the δ(ε′) curve it implies, on the pair (or the first "
                        "candidate pair only of --search: the others are not audited); prints a lower bound on ρ")
    p.add_argument("--delta", type=float, default=None, help="claimed δ (with --epsilon; default 0)")
    p.add_argument("--samples", required=True, type=int, help="draws per input (at most 10^9, the work budget DPVERIFY_WORK_BUDGET, without --force)")
    p.add_argument("--force", action="store_true", help="allow more than 10^10 samples")
    p.add_argument("--confidence", type=float, default=0.99, help="1 − α (default 0.99)")
    p.add_argument("--seed", type=int, default=None, help="seed for reproducible audits")
    p.add_argument("--jobs", type=int, default=1,
                   help="worker processes for the final audit's draws (default 1: in-process; the result is the same)")
    p.add_argument("--statistic", default=None,
                   help=f"{', '.join(_STATISTICS)} (default auto) or MODULE:FUNCTION (a statistic, class or factory)")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.set_defaults(func=cmd_audit)
