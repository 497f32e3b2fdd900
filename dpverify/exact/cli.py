"""``dpverify prove MODULE:FN [--pairs P] [--delta D] [--low A] [--high B] [--json]``; ``dpverify prove --catalogue``.

Thin: ``MODULE:FN`` names a function that takes a positive sympy symbol ε and returns the law (a
``sympy.Matrix``, rows inputs, columns outputs; modules in the current directory are found); the
command calls :func:`dpverify.exact.prove` and prints the verdict (or its JSON). Exit status 0 proved,
1 refuted or unknown, 2 bad input. sympy is imported only when the command runs. ``--catalogue``
prints :func:`dpverify.exact.catalogue.prove_catalogue`: the families proved for every ε > 0 and the
ones that fall back to points, each with its reason (exit 1 if a symbolic law is not proved).
"""

from __future__ import annotations

import argparse
import ast

__all__ = ["cmd_prove", "law_from", "register"]


def law_from(spec: str, eps):
    """The law built by ``MODULE:FN`` called with the positive symbol ``eps`` (modules in the current directory found).

    Example
    -------
    >>> import sympy as sp
    >>> law_from("dpverify.exact.cli:_example_law", sp.Symbol("epsilon", positive=True)).shape
    (2, 2)
    """
    from dpverify.audit.cli_inputs import resolve

    fn = resolve(spec, "MODULE:FN")
    if not callable(fn):
        raise TypeError(f"MODULE:FN must name a function of epsilon returning a sympy Matrix, got {type(fn).__name__}")
    return fn(eps)


def _example_law(eps):
    """Binary randomized response (the law of ``dpverify prove dpverify.exact.cli:_example_law``)."""
    import sympy as sp

    q = sp.exp(eps) / (1 + sp.exp(eps))
    return sp.Matrix([[q, 1 - q], [1 - q, q]])


def _catalogue(args) -> int:
    import json

    from dpverify.console import line, make_console
    from dpverify.exact.catalogue import prove_catalogue

    s = prove_catalogue()
    if args.json:
        print(json.dumps(s.to_dict(), indent=2, ensure_ascii=False))
    else:
        con = make_console()
        for text in s.lines():
            con.print(line(text))
    return 1 if s.with_status("refuted") or s.with_status("unknown") else 0


def cmd_prove(args) -> int:
    """``dpverify prove``: 0 proved, 1 refuted or unknown, 2 bad input."""
    if args.catalogue:
        if args.law is not None:
            raise ValueError(f"give either MODULE:FN or --catalogue, not both (got {args.law!r})")
        return _catalogue(args)
    if args.law is None:
        raise ValueError("MODULE:FN is required (or --catalogue)")
    import sympy as sp

    from dpverify.exact import prove

    eps = sp.Symbol("epsilon", positive=True)
    names = {"epsilon": eps, "eps": eps, "exp": sp.exp, "log": sp.log, "oo": sp.oo}
    delta = sp.sympify(args.delta, locals=names) if args.delta else 0
    pairs = None
    if args.pairs:
        try:
            pairs = ast.literal_eval(args.pairs)
        except (ValueError, SyntaxError):
            raise ValueError(f"--pairs must be a list of (i, j) pairs, e.g. '[(0, 1), (1, 0)]', got {args.pairs!r}") \
                from None
    domain = None
    if args.low is not None or args.high is not None:
        lo = sp.sympify(args.low, locals=names) if args.low is not None else sp.Integer(0)
        hi = sp.sympify(args.high, locals=names) if args.high is not None else sp.oo
        domain = sp.Interval(lo, hi, lo == 0, hi is sp.oo)
    r = prove(law_from(args.law, eps), epsilon=eps, delta=delta, pairs=pairs, domain=domain)
    if args.json:
        print(r.to_json())
    else:
        print(f"{r.verdict}: {r.reason}")
    return 0 if r.verdict == "proved" else 1


def register(subparsers) -> None:
    """Add the ``prove`` command to the ``dpverify`` parser."""
    p = subparsers.add_parser(
        "prove", help="exact proof (or counterexample) of ε-DP of a finite law for every ε > 0",
        description="Prove that the finite law returned by MODULE:FN(epsilon) (a sympy Matrix: rows inputs, "
                    "columns outputs, entries rational in exp(epsilon)) is (epsilon, delta)-DP for every epsilon "
                    "in the domain, or give an exact counterexample. Exit status: 0 proved, 1 refuted or unknown, "
                    "2 bad input.", formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("law", metavar="MODULE:FN", nargs="?", default=None,
                   help="a function of a positive sympy symbol epsilon returning the law")
    p.add_argument("--catalogue", action="store_true",
                   help="prove every catalogue family with a symbolic law for all epsilon > 0; list the ones "
                        "that fall back to points, with the reason")
    p.add_argument("--delta", default=None, help="delta: a number or an expression in epsilon (default 0)")
    p.add_argument("--pairs", default=None, help="ordered pairs of neighbouring rows, e.g. '[(0, 1), (1, 0)]' "
                                                 "(default: every pair)")
    p.add_argument("--low", default=None, help="least epsilon of the domain (default: epsilon > 0)")
    p.add_argument("--high", default=None, help="largest epsilon of the domain (default: none)")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.set_defaults(func=cmd_prove)

