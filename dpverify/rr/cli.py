"""``dpverify rr``: the utility-optimal randomized response design matrix for a prior.

Example
-------
``dpverify rr --epsilon 0.1 --delta 0.15 --pi 0.2,0.8`` prints the regime, the optimal design
matrix, u*, the HiGHS LP optimum with its certificate and the exact LDP checker's verdict under
both definitions; ``--json`` prints the same as JSON.

Exit status: 0 when the matrix passes the exact LDP check under both definitions and the LP
optimum is certified; 1 when either fails (e.g. ε ≳ 700, where the float entries underflow);
2 on bad input.
"""

from __future__ import annotations

import argparse
import json

#: the float tolerance of the exact LDP checker (dpverify.audit.check_ldp's atol): a smallest δ
#: within it of 0 (or of the δ asked for) is float rounding, and is shown as 0 (or as that δ)
TOL = 1e-12


def _parse_pi(text: str) -> list[float]:
    parts = [t.strip() for t in text.split(",")]
    try:
        return [float(t) for t in parts]
    except ValueError:
        raise ValueError(f"--pi must be comma-separated numbers, got {text!r}") from None


def _regime(S: list[int], n: int) -> str:
    k = len(S)
    if n == 2:
        if k == 2:
            return "1/(e^eps+1) <= pi0 <= e^eps/(e^eps+1): symmetric randomized response"
        return "pi0 >= e^eps/(e^eps+1): report 0" if S == [0] else "pi0 <= 1/(e^eps+1): report 1"
    if k == 1:
        return f"k = 1: always report the most likely value {S[0]}"
    return f"k = {k}: {k}-ary randomized response on the {k} most likely values {S}"


def cmd_rr(args: argparse.Namespace) -> int:
    from dpverify.audit import check_ldp
    from dpverify.rr import optimal_mechanism, optimal_support, solve_lp

    pi = _parse_pi(args.pi)
    P, u = optimal_mechanism(pi, args.epsilon, args.delta)
    S, _ = optimal_support(pi, args.epsilon)
    S = [int(i) for i in S]
    checks = {d: check_ldp(P, args.epsilon, args.delta, d, atol=TOL) for d in ("standard", "per_output")}
    lp = solve_lp(pi, args.epsilon, args.delta) if len(pi) <= 40 else None
    out = {
        "epsilon": args.epsilon,
        "delta": args.delta,
        "pi": pi,
        "regime": _regime(S, len(pi)),
        "support": S,
        "u_star": u,
        "P": P.tolist(),
        "lp_u": None if lp is None else lp.u,
        "lp_certified": None if lp is None else lp.certificate.ok(1e-8),
        # the smallest δ the float matrix satisfies at this ε, rounded to 0 below the checker's tolerance
        "ldp": {d: {"holds": r.holds, "required_delta": _honest(r.required_delta, args.delta),
                    "required_delta_float": r.required_delta, "tolerance": TOL} for d, r in checks.items()},
    }
    status = 0 if all(r.holds for r in checks.values()) and (lp is None or lp.certificate.ok(1e-8)) else 1
    if args.json:
        print(json.dumps(out, indent=2))
        return status
    from rich.table import Table

    from dpverify.console import line, make_console, quote

    con = make_console()
    con.print(line(("Regime", "bold"), ": ", out["regime"]))
    con.print(line(("u*", "bold"), f" = {u:.12g}",
                   "" if lp is None else f"   (HiGHS LP: {lp.u:.12g}, certified: {out['lp_certified']})"))
    t = Table(title=quote(f"optimal design matrix P[i, j] = Pr(report j | true i), ε = {args.epsilon:g}, "
                          f"δ = {args.delta:g}"))
    t.add_column(quote("true \\ report"))
    for j in range(len(pi)):
        t.add_column(str(j), justify="right")
    for i, row in enumerate(P):
        t.add_row(str(i), *(f"{x:.6g}" for x in row))
    con.print(t)
    c = Table(title="exact LDP checker")
    for col in ("definition", "holds", "smallest δ at this ε"):
        c.add_column(col)
    for d, r in checks.items():
        c.add_row(quote(d), str(r.holds), _delta_text(r.required_delta, args.delta))
    con.print(c)
    con.print(quote(f"(smallest δ within {TOL:g}, the checker's float tolerance, of 0 or of the given δ is float "
                    "rounding and shown as that value)"))
    if not all(r.holds for r in checks.values()):
        con.print(line(("the float matrix fails the LDP check", "red"), ": for ε beyond ~700 its entries "
                       "1/(e^ε+k−1) underflow to 0; use dpverify.rr.exact_optimum for an exact design matrix"))
    return status


def _honest(x: float, delta: float) -> float:
    """The smallest δ, with float rounding of 0 or of the given δ (within TOL) shown as that value."""
    if abs(x) <= TOL:
        return 0.0
    return float(delta) if abs(x - delta) <= TOL else float(x)


def _delta_text(x: float, delta: float) -> str:
    return f"{_honest(x, delta):.6g}"


def register(subparsers) -> None:
    p = subparsers.add_parser("rr", help="utility-optimal randomized response for a prior (Zhou, Lu, Wu 2019)",
                              description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--epsilon", type=float, required=True, metavar="EPS", help="privacy budget ε > 0")
    p.add_argument("--delta", type=float, default=0.0, metavar="DELTA", help="δ in [0, 1) (default 0: pure ε-LDP)")
    p.add_argument("--pi", required=True, metavar="P0,P1,...",
                   help="the prior: probabilities of the true values, comma-separated, summing to 1, e.g. 0.2,0.8")
    p.add_argument("--json", action="store_true", help="print JSON to stdout instead of tables")
    p.set_defaults(func=cmd_rr)
