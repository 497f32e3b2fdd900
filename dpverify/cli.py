"""The ``dpverify`` command: thin -- it parses, calls the library, prints.

The engine's commands are listed in :data:`ENGINE_COMMANDS` with the module that implements
them; the rooms' commands and glossary words come from the rooms' declarations
(:func:`dpverify.rooms.rooms`: ``Room.commands``, ``Room.glossary``), so this module names no
room.  A module is imported only when its command runs, so ``dpverify --help`` and
``dpverify --version`` import no room (no scipy, sympy or cvxpy): a room's ``room.py`` is read
without importing its package.  A command module provides ``register(subparsers)``; each parser
it adds sets ``func(args) -> int`` via ``set_defaults``.

Example
-------
>>> {"verify", "claims", "report", "audit"} <= set(commands())
True
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import importlib.util
import sys
import textwrap
import types
import warnings
from pathlib import Path
from typing import Sequence

from dpverify.rooms import rooms

DESCRIPTION = """\
The statements of differential-privacy papers and libraries, checked by machine: run
claims, the shipped papers' or your own (verify), write the report (report), audit a
mechanism from samples (audit), prove a finite mechanism for every ε (prove), and the
subjects' own commands. `dpverify COMMAND --help` describes each."""

#: the engine's words, shown at the end of ``dpverify --help`` with the rooms' words
ENGINE_GLOSSARY: tuple[tuple[str, str], ...] = (
    ("claim", "one statement of a paper (or of dpverify itself) with a machine check, an id such as "
              "rr.model2.standard_form, a source and the verdict expected"),
    ("source", "where a claim comes from: Source(paper, section, equation); for the shipped papers, paper is "
               "the key listed under paper, for your own any text such as \"Balle & Wang, ICML 2018\""),
    ("evidence", "the numbers, formulas and counterexamples a check returns beside its verdict"),
    ("baseline", "a file of recorded verdicts and evidence (`verify --update-baseline FILE`); `verify --baseline "
                 "FILE` fails when a verdict or a number drifts from it"),
    ("--seed", "an RNG seed (integer): the same seed gives the same noise and the same numbers"),
    ("verdicts", "holds: the statement is true as printed; erratum: wrong as printed, the corrected statement "
                 "holds; refuted: false (with a counterexample or an audited lower bound); inconclusive: neither "
                 "confirmed nor refuted (e.g. not reproduced); error: the check raised or timed out"),
    ("self-test", "a claim about dpverify itself (planted bugs, controls): not a paper's statement"),
    ("ε, δ", "privacy parameters: --epsilon > 0 (the privacy budget), --delta in [0, 1) (the probability with "
             "which ε may be exceeded); (ε, 0)-DP is pure DP"),
    ("e^ε", "the exponential of ε, the likelihood-ratio bound of ε-DP (written e^ε, never E)"),
    ("lower bound", "the auditor's ε lower bound: with the stated confidence the mechanism's true ε is at least "
                    "this; above the claimed ε means refuted"),
    ("direction", 'which way round an audit found its event: "d>d_prime" (the event is likelier under D), '
                  '"d_prime>d" (likelier under D\'), or "both" (the two orders pooled into one test, each draw '
                  "counted once in each order)"),
)

EXIT_STATUS = """\
exit status: 0 every verdict as expected (or: the command succeeded); 1 a verdict differs
(or an audit refuted its claim); 2 bad input or an error (one line on stderr).
"""

#: the engine's commands: command -> (module implementing it, one-line help shown by ``dpverify --help``)
ENGINE_COMMANDS: dict[str, tuple[str, str]] = {
    "verify": ("dpverify.claims.cli", "run every registered claim's check and print the verdicts"),
    "claims": ("dpverify.claims.cli", "list the registered claims with their sources"),
    "report": ("dpverify.report.cli", "write the self-contained HTML + JSON audit report"),
    "audit": ("dpverify.audit.cli", "black-box lower bound on a mechanism's ε from samples"),
    "prove": ("dpverify.exact.cli", "exact proof or counterexample of ε-DP of a finite law, for every ε > 0"),
    "conform": ("dpverify.conform.cli", "check a DP library's measurements against their own stated privacy"),
    "completion": ("dpverify.completion", "print a shell completion script (bash or zsh)"),
}


def commands() -> dict[str, tuple[str, str]]:
    """Every command: the engine's, then each room's (``Room.commands``); an engine command wins a clash."""
    out = dict(ENGINE_COMMANDS)
    for r in rooms():
        for c in r.commands:
            out.setdefault(c.name, (c.module, c.help))
    return out


def glossary_words() -> list[tuple[str, str]]:
    """The glossary: the engine's words, the rooms and papers found, and each room's own words."""
    found = rooms()
    with_claims = ", ".join(r.name for r in found)
    papers = sorted({(p.key, p.citation, r.name) for r in found for p in r.papers})
    words = [ENGINE_GLOSSARY[0],
             ("room", f"a folder holding one subject's code, claims and proofs: {with_claims}; "
                      "`--only PREFIX.` selects the claims of one id prefix"),
             ("paper", f"the {len(papers)} papers checked, by the key their claims' sources give: "
                       + "; ".join(f"{k}: {c} (room {r})" for k, c, r in papers)),
             *ENGINE_GLOSSARY[1:]]
    for r in found:
        words += [w for w in r.glossary if w[0] not in {x[0] for x in words}]
    return words


def glossary() -> str:
    """The text shown at the end of ``dpverify --help`` (and in the documentation's glossary)."""
    lines = ["glossary:"]
    for word, meaning in glossary_words():
        body = textwrap.wrap(meaning, 90 - 14)
        lines.append(f"  {word:<11} {body[0] if body else ''}".rstrip() if len(word) <= 11
                     else f"  {word}  {body[0] if body else ''}")
        lines += [" " * 14 + ln for ln in body[1:]]
    return "\n".join(lines) + "\n\n" + EXIT_STATUS


def __getattr__(name: str):
    """``GLOSSARY`` and ``COMMANDS``, computed from the rooms found when first read."""
    if name == "GLOSSARY":
        return glossary()
    if name == "COMMANDS":
        return commands()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _version() -> str:
    from dpverify import __version__

    return __version__


def _chosen(argv: Sequence[str], table: dict[str, tuple[str, str]]) -> str | None:
    """The command named in ``argv`` (the first word that is not an option), if any."""
    for a in argv:
        if a == "--":
            return None
        if not a.startswith("-"):
            return a if a in table else None
    return None


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The parser; only the module of the command named in ``argv`` is imported.

    With ``argv=None`` every command module is imported (the full parser, for
    documentation and tests).
    """
    table = commands()
    p = argparse.ArgumentParser(prog="dpverify", description=DESCRIPTION, epilog=glossary(),
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--version", action="version", version=f"dpverify {_version()}",
                   help="print the version and exit")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")
    wanted = None if argv is None else _chosen(argv, table)
    wanted_module = table[wanted][0] if wanted else None
    loaded: set[str] = set()
    for name, (module, helptext) in table.items():
        if argv is not None and module != wanted_module:
            sub.add_parser(name, help=helptext, add_help=False)  # listed in --help, never parsed
            continue
        if module in loaded:
            continue
        loaded.add(module)
        importlib.import_module(module).register(sub)
    return p


def _wants_help(argv: Sequence[str]) -> bool:
    """Whether ``argv`` names a command and asks for its help (``-h``/``--help`` before any ``--``)."""
    for a in argv:
        if a == "--":
            return False
        if a in ("-h", "--help"):
            return True
    return False


def _packages(module: str) -> list[str]:
    """The packages ``dpverify CMD --help`` need not run: ``module``'s parents and dpverify's subpackages."""
    parts = module.split(".")
    names = [".".join(parts[:i]) for i in range(2, len(parts))]
    base = Path(__file__).resolve().parent
    for init in sorted(base.glob("*/**/__init__.py")):
        if "__pycache__" not in init.parts:
            names.append(".".join(("dpverify", *init.parent.relative_to(base).parts)))
    return list(dict.fromkeys(names))


@contextlib.contextmanager
def _packages_unrun(module: str):
    """Import ``module`` for its parser only: no package's ``__init__`` file is run.

    A command's help needs only the arguments its ``register`` adds, while a package's
    ``__init__`` (``dpverify.claims``, ``dpverify.audit``, ``dpverify.exact``, a room) imports the
    whole subject (scipy, sympy).  Inside this context the command module's parent packages and
    dpverify's subpackages not yet imported are stand-ins that only know where their files are, so
    ``dpverify CMD --help`` costs the modules the command imports itself.  A command module that
    needs a name from a package's ``__init__`` raises ImportError here, and its help is then built
    the normal way.  On leaving, the stand-ins and every module imported under them are forgotten
    again, so nothing run later can see a stand-in (modules outside them, such as numpy, stay:
    they cannot be loaded twice).
    """
    before = set(sys.modules)
    stand_ins: list[str] = []
    try:
        for name in _packages(module):
            if name in sys.modules or name.rpartition(".")[0] not in sys.modules:
                continue
            spec = importlib.util.find_spec(name)
            if spec is None or spec.submodule_search_locations is None:
                continue
            stand_in = types.ModuleType(name)
            stand_in.__path__ = list(spec.submodule_search_locations)
            stand_in.__spec__ = spec
            sys.modules[name] = stand_in
            stand_ins.append(name)
        yield
    finally:
        for name in set(sys.modules) - before:
            if any(name == s or name.startswith(s + ".") for s in stand_ins):
                del sys.modules[name]


def _help(argv: Sequence[str]) -> int | None:
    """``dpverify CMD ... --help`` answered without running the packages' ``__init__`` files.

    Returns the exit status when the help (or a usage error) was printed, None when it could
    not be answered so (the command module needs its package: then the full import runs).
    """
    table = commands()
    wanted = _chosen(argv, table)
    if wanted is None:
        return None
    module, _ = table[wanted]
    p = argparse.ArgumentParser(prog="dpverify", description=DESCRIPTION, epilog=glossary(),
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")
    try:
        with _packages_unrun(module):
            for name, (mod, helptext) in table.items():
                if mod != module:
                    sub.add_parser(name, help=helptext, add_help=False)
            importlib.import_module(module).register(sub)
            p.parse_args(argv)
    except SystemExit as stop:  # the help was printed (0), or a usage error (2)
        return int(stop.code or 0)
    except Exception:  # noqa: BLE001 -- the module needs its package: answer with the full import
        return None
    return None


def _describe(exc: BaseException) -> str:
    """One line for an error a user can act on (no traceback)."""
    if isinstance(exc, MemoryError):
        return "out of memory" + (f": {exc}" if str(exc) else "") + " (try smaller sizes or fewer jobs)"
    if isinstance(exc, OverflowError):
        return f"a number is too large to compute with ({exc}); use smaller values"
    if isinstance(exc, OSError) and not isinstance(exc, FileNotFoundError):
        what = exc.strerror or str(exc) or type(exc).__name__
        where = f": {exc.filename!r}" if exc.filename else ""
        return f"{what}{where}"
    return str(exc) or type(exc).__name__


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``dpverify ARGV``; return the exit status (see the glossary's "exit status").

    A ValueError, TypeError, OSError (missing file, full disk, a directory where a file
    was expected), MemoryError or OverflowError becomes one line
    ``dpverify CMD: error: ...`` on stderr and exit status 2.  Warnings raised while the
    command runs are shown after it succeeds, never before an error.
    """
    argv = list(sys.argv[1:] if argv is None else argv)
    if _wants_help(argv):
        status = _help(argv)
        if status is not None:
            return status
    parser = build_parser(argv)
    args = parser.parse_args(argv)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("default")
        try:
            status = int(args.func(args) or 0)
        except (ValueError, TypeError, OSError, MemoryError, OverflowError) as exc:
            print(f"dpverify {args.command}: error: {_describe(exc)}", file=sys.stderr)
            return 2
    for w in caught:
        sys.stderr.write(warnings.formatwarning(w.message, w.category, w.filename, w.lineno))
    return status


if __name__ == "__main__":
    raise SystemExit(main())
