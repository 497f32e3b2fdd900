"""The ``dpverify`` command: thin -- it parses, calls the library, prints.

Commands are listed in :data:`COMMANDS` with the module that implements them;
a module is imported only when its command runs, so ``dpverify --help`` and
``dpverify --version`` import no room (no scipy, sympy or cvxpy).  A command
module provides ``register(subparsers)``; each parser it adds sets
``func(args) -> int`` via ``set_defaults``.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from typing import Sequence

#: command -> (module implementing it, one-line help shown by ``dpverify --help``)
COMMANDS: dict[str, tuple[str, str]] = {
    "verify": ("dpverify.claims.cli", "run every registered claim's check and print the verdicts"),
    "claims": ("dpverify.claims.cli", "list the registered claims with their sources"),
    "report": ("dpverify.report.cli", "write the self-contained HTML + JSON audit report"),
    "audit": ("dpverify.audit.cli", "black-box lower bound on a mechanism's ε from samples"),
    "continual": ("dpverify.continual.cli", "continual release of running counts (seeds 000, 004)"),
    "rr": ("dpverify.rr.cli", "utility-optimal randomized response for a prior (seed 003)"),
    "pca-evaluate": ("dpverify.pca.cli", "seed 001 utility grid: MSE and SVM accuracy (Figs. 3-6)"),
    "pca-audit": ("dpverify.pca.cli", "audit a pca-room mechanism on the Thm 3 neighbouring pairs"),
}


def _version() -> str:
    from dpverify import __version__

    return __version__


def _chosen(argv: Sequence[str]) -> str | None:
    """The command named in ``argv`` (the first word that is not an option), if any."""
    for a in argv:
        if a == "--":
            return None
        if not a.startswith("-"):
            return a if a in COMMANDS else None
    return None


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The parser; only the module of the command named in ``argv`` is imported.

    With ``argv=None`` every command module is imported (the full parser, for
    documentation and tests).
    """
    p = argparse.ArgumentParser(prog="dpverify", description=__doc__.splitlines()[0])
    p.add_argument("--version", action="version", version=f"dpverify {_version()}")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")
    wanted = None if argv is None else _chosen(argv)
    wanted_module = COMMANDS[wanted][0] if wanted else None
    loaded: set[str] = set()
    for name, (module, helptext) in COMMANDS.items():
        if argv is not None and module != wanted_module:
            sub.add_parser(name, help=helptext, add_help=False)  # listed in --help, never parsed
            continue
        if module in loaded:
            continue
        loaded.add(module)
        importlib.import_module(module).register(sub)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(argv)
    args = parser.parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except (ValueError, TypeError, FileNotFoundError) as exc:
        print(f"dpverify {args.command}: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    raise SystemExit(main())
