"""The console and JSON forms of an audit (:class:`~dpverify.audit.report.AuditReport`) and of a zCDP
audit, with what their numbers mean: the verdict (an inconclusive audit certifies nothing), the stop
(an early stop's bound may be far below a full audit's), the draw counts (pooled or Poisson counts can
exceed the per-input budget).  The event and statistic words are :mod:`dpverify.audit.words`'s.

Every string that comes from a mechanism, an event, a pair or an error reaches ``rich`` as
:class:`rich.text.Text`, never as markup, so ``[red]`` in a name prints as ``[red]``.

Example
-------
>>> from types import SimpleNamespace as NS
>>> stop_text(NS(stop_reason="refuted at the quick check", early_stop=True))[:60]
'refuted at the quick check: this bound comes from an early s'
"""

from __future__ import annotations

from typing import Any

import numpy as np

from dpverify.validation import check_epsilon, check_nonneg_int, check_positive_int, check_real

__all__ = ["audit_json", "draws_text", "meaning_text", "print_audit", "print_zcdp", "stop_text", "zcdp_json"]

VERDICTS = ("refuted", "inconclusive")  # what an audit can say (never "holds")
_REPORT = ("epsilon", "confidence", "samples", "stop_reason", "early_stop", "count_p", "count_q", "trials",
           "trials_q", "direction", "test", "stages")


def _report(report, needed=_REPORT):
    """``report``, checked to carry the fields the words read."""
    missing = [a for a in needed if not hasattr(report, a)]
    if missing:
        raise TypeError(f"report must be an AuditReport, got {type(report).__name__} without {', '.join(missing)}")
    return report


def _verdict(verdict) -> str:
    if verdict not in VERDICTS:
        raise ValueError(f"verdict must be one of {', '.join(VERDICTS)}, got {verdict!r}")
    return verdict


def _name(mechanism, params=None):
    if mechanism is not None and not isinstance(mechanism, str):
        raise TypeError(f"mechanism must be a name (a string) or None, got {type(mechanism).__name__} {mechanism!r}")
    if params is not None and not isinstance(params, dict):
        raise TypeError(f"params must be a dict or None, got {type(params).__name__} {params!r}")
    return mechanism


def stop_text(report) -> str:
    """Why the audit stopped, and — after an early stop — what a full audit would add.

    >>> from types import SimpleNamespace as NS
    >>> stop_text(NS(stop_reason="whole budget spent", early_stop=False))
    'whole budget spent'
    """
    _report(report, ("stop_reason", "early_stop"))
    reason = report.stop_reason or "not recorded"
    if not report.early_stop:
        return reason
    return (f"{reason}: this bound comes from an early stop; a full audit (--full, stop_early=False) spends the "
            "whole budget on one final test for the strongest bound")


def meaning_text(report, claimed: float, verdict: str) -> str:
    """What the verdict proves, and what it does not.

    >>> from types import SimpleNamespace as NS
    >>> meaning_text(NS(epsilon=0.8, confidence=0.99, samples=10**5), 1.0, "inconclusive")[:47]
    'no violation found at this budget (100,000 draw'
    """
    _report(report, ("epsilon", "confidence", "samples"))
    claimed = check_epsilon(claimed, "claimed")
    if _verdict(verdict) == "refuted":
        return (f"the claim ε = {claimed:g} is false: the mechanism's ε is at least {report.epsilon:.6g} on this "
                f"pair, with confidence {report.confidence:g}")
    return (f"no violation found at this budget ({report.samples:,} draws per input); this does not certify DP: "
            f"it shows only that ε ≥ {report.epsilon:.6g} (confidence {report.confidence:g})")


def draws_text(report) -> str:
    """The final test's counts and the draws behind them, in words (why a pooled count can exceed the
    per-input budget; why a Poisson test's draw counts are random).

    >>> from types import SimpleNamespace as NS
    >>> r = NS(count_p=60, count_q=20, trials=200, trials_q=200, direction="both", test="binomial",
    ...        stages=(NS(n=100, bound=1.0),))
    >>> draws_text(r)[:60]
    'P: 60 of 200 draws, Q: 20 of 200 draws in the event; both or'
    """
    _report(report, ("count_p", "count_q", "trials", "trials_q", "direction", "test", "stages"))
    tq = report.trials_q or report.trials
    text = f"P: {report.count_p:,} of {report.trials:,} draws, Q: {report.count_q:,} of {tq:,} draws in the event"
    n = max(report.stages, key=lambda s: s.bound).n if report.stages else 0
    if report.direction == "both":
        text += ("; both orders pooled: each count runs over the draws at both inputs (P counts M(d) in S1 and M(d') "
                 "in S2, Q the swap), so it can exceed the per-input budget")
    else:
        first, second = ("d", "d'") if report.direction == "d>d_prime" else ("d'", "d")
        text += f"; P counts draws of M({first}), Q draws of M({second})"
    if report.test == "poisson":
        text += (f"; the conditional test draws a Poisson-distributed number of samples at each input (at most "
                 f"{n:,} each, this test's share of the budget), so the totals are random")
    elif report.direction == "both":
        text += f" ({n:,} draws at each input)"
    return text


def audit_json(report, *, mechanism: str | None = None, params: dict | None = None) -> dict[str, Any]:
    """The audit as a JSON-ready dict (:meth:`~dpverify.audit.report.AuditReport.to_json`), with the
    mechanism's name and parameters first when given.

    >>> from dpverify.audit import audit
    >>> lap = lambda d, rng, n: d + rng.geometric(0.7, n) - rng.geometric(0.7, n)  # two-sided geometric: ln(1/0.3)-DP
    >>> r = audit(lap, epsilon=1.3, pairs=[(0.0, 1.0), (1.0, 0.0)], samples=20_000, rng=0)
    >>> d = audit_json(r, mechanism="lap")
    >>> d["mechanism"], d["early_stop"], [c["d_prime"] for c in d["candidates"]]
    ('lap', False, [1.0, 0.0])
    """
    _name(mechanism, params)
    if not callable(getattr(report, "to_json", None)):
        raise TypeError(f"report must be an AuditReport, got {type(report).__name__}")
    head: dict[str, Any] = {}
    if mechanism is not None:
        head["mechanism"] = mechanism
    if params is not None:
        head["params"] = dict(params)
    return {**head, **report.to_json()}


def _console(console):
    if not callable(getattr(console, "print", None)):
        raise TypeError(f"console must be a rich Console (with print), got {type(console).__name__}")


def _pair(pair) -> tuple:
    if not (isinstance(pair, (list, tuple)) or isinstance(pair, np.ndarray) and pair.ndim >= 1) or len(pair) != 2:
        raise ValueError(f"pair must be (d, d'), two inputs, got {pair!r}"[:300])
    for d in pair:
        if isinstance(d, (float, np.floating, np.ndarray)) and np.asarray(d).dtype.kind == "f" \
                and np.asarray(d).size <= 10**6 and not np.isfinite(d).all():
            raise ValueError(f"pair must hold finite inputs, got {pair!r}"[:300])
    return tuple(pair)


def _zcdp(result):
    """A zCDP audit's curve, checked to be one."""
    if not all(hasattr(result, a) for a in ("rho", "rho_lb", "curve", "verdict")):
        raise TypeError(f"result must be a ZCDPAudit (audit_zcdp's result), got {type(result).__name__}")
    return result.curve


def _plain(x):
    """An input as JSON-ready values (arrays and numpy numbers as lists and numbers, tuples as lists)."""
    x = x.tolist() if hasattr(x, "tolist") else x
    return [_plain(v) for v in x] if isinstance(x, (list, tuple)) else x


def _literal(x) -> str:
    return str(x.tolist()) if hasattr(x, "tolist") else repr(x)


def print_audit(console, report, *, claimed: float, verdict: str, mechanism: str | None = None) -> None:
    """Print an audit's table on a ``rich`` console; every string from the mechanism, the event or the
    pair is :class:`rich.text.Text` (printed as it is, brackets included).

    >>> import io
    >>> from rich.console import Console
    >>> from dpverify.audit import audit
    >>> geo = lambda d, rng, n: d + rng.geometric(0.7, n) - rng.geometric(0.7, n)  # two-sided geometric: ln(1/0.3)-DP
    >>> r = audit(geo, epsilon=1.3, pairs=[(0.0, 1.0)], samples=20_000, rng=0)
    >>> c = Console(file=io.StringIO(), width=200, record=True)
    >>> print_audit(c, r, claimed=1.3, verdict=r.verdict().value, mechanism="m[red]")
    >>> out = c.export_text()
    >>> "audit of m[red]" in out, "does not certify DP" in out
    (True, True)
    """
    from rich.table import Table
    from rich.text import Text

    _console(console)
    _report(report, _REPORT + ("pair", "pairs", "delta", "statistic", "event", "p_interval", "q_interval"))
    claimed, verdict = check_epsilon(claimed, "claimed"), _verdict(verdict)
    mechanism = _name(mechanism)
    name = f"audit of {mechanism} " if mechanism else "audit "
    t = Table(title=Text(f"{name}(claimed ε = {claimed:g}, δ = {report.delta:g})"))
    t.add_column("quantity")
    t.add_column("value", overflow="fold")
    rows = [("verdict", Text(verdict, style="red" if verdict == "refuted" else "cyan")),
            ("what it means", meaning_text(report, claimed, verdict)),
            ("ε lower bound", f"{report.epsilon:.6g}"), ("confidence", f"{report.confidence:g}"),
            ("stopped", stop_text(report)),
            ("pair", f"{_literal(report.pair[0])} vs {_literal(report.pair[1])}")]
    if getattr(report, "domain", None) is not None:
        rows.append(("domain", str(report.domain)))
    rows += [("candidate pairs", f"{len(report.pairs):,} (each with its screening score in the JSON output)"),
             ("statistic", f"{report.statistic}: {report.subject}" if getattr(report, "subject", "") else
              report.statistic),
             ("event", report.event_text or report.event.description),
             ("direction", {"both": "both orders pooled (S1 likelier under d, S2 under d')",
                            "d>d_prime": "the event is likelier under d"}.get(report.direction,
                                                                              "the event is likelier under d'")),
             ("counts", draws_text(report)),
             ("test", "conditional on the total (Poisson draw counts)" if report.test == "poisson"
              else "two Clopper–Pearson bounds"),
             ("P lower, Q upper", f"{report.p_interval[0]:.6g}, {report.q_interval[1]:.6g}"),
             ("samples used", f"{report.samples_used:,} of {report.samples:,} per input (screening, selection and "
                              "estimation together; the counts above are the final test's draws)"),
             ("time", f"{report.seconds:.2f} s")]
    for k, v in rows:
        t.add_row(Text(k), v if isinstance(v, Text) else Text(str(v)))
    console.print(t)


def zcdp_json(result, *, pair, samples: int, seconds: float, seed=None, mechanism: str | None = None,
              params: dict | None = None) -> dict[str, Any]:
    """A zCDP audit (:func:`~dpverify.audit.renyi.audit_zcdp`) as a JSON-ready dict.

    >>> from dpverify.audit.curves import CurveAudit
    >>> from dpverify.audit.renyi import ZCDPAudit
    >>> r = ZCDPAudit(0.5, 0.02, CurveAudit((0.0,), (0.1,), (0.2,), 0.99, 100, 100))
    >>> zcdp_json(r, pair=(0.0, 1.0), samples=200, seconds=0.1)["verdict"]
    'inconclusive'
    """
    from dpverify import __version__

    c = _zcdp(result)
    _name(mechanism, params)
    samples = check_positive_int(samples, "samples")
    seconds = check_real(seconds, "seconds", nonneg=True)
    pair = _pair(pair)
    if seed is not None:
        seed = check_nonneg_int(seed, "seed")
    head: dict[str, Any] = {}
    if mechanism is not None:
        head["mechanism"] = mechanism
    if params is not None:
        head["params"] = dict(params)
    verdict = result.verdict().value
    return {**head, "claim": "zcdp", "rho": result.rho, "rho_lb": result.rho_lb, "verdict": verdict,
            "meaning": _zcdp_meaning(result, verdict), "confidence": c.confidence,
            "pair": [_plain(pair[0]), _plain(pair[1])], "epsilons": list(c.epsilons),
            "delta_lower": list(c.delta_lower), "claimed_delta": list(c.claimed), "refuted_at": list(c.refuted_at),
            "samples": samples, "seconds": seconds, "seed": seed, "version": __version__}


def _zcdp_meaning(result, verdict: str) -> str:
    c = result.curve
    if verdict == "refuted":
        return (f"the claim ρ = {result.rho:g} is false: ρ ≥ {result.rho_lb:.6g} with confidence {c.confidence:g} "
                "(a lower bound of δ(ε') exceeds the curve the claim implies)")
    return (f"no violation found at this budget; this does not certify zCDP: it shows only that ρ ≥ "
            f"{result.rho_lb:.6g} (confidence {c.confidence:g})")


def print_zcdp(console, result, *, pair, mechanism: str | None = None) -> None:
    """Print a zCDP audit's δ(ε') table and verdict on a ``rich`` console (names and pairs as
    :class:`rich.text.Text`).

    >>> import io
    >>> from rich.console import Console
    >>> from dpverify.audit.curves import CurveAudit
    >>> from dpverify.audit.renyi import ZCDPAudit
    >>> c = Console(file=io.StringIO(), width=200, record=True)
    >>> print_zcdp(c, ZCDPAudit(0.5, 0.6, CurveAudit((0.0,), (0.3,), (0.2,), 0.99, 100, 100)), pair=(0, 1),
    ...            mechanism="m[/]")
    >>> out = c.export_text()
    >>> "zCDP audit of m[/]" in out, "refuted" in out
    (True, True)
    """
    from rich.table import Table
    from rich.text import Text

    _console(console)
    c, pair = _zcdp(result), _pair(pair)
    _name(mechanism)
    t = Table(title=Text(f"zCDP audit of {mechanism or 'the mechanism'} (claimed ρ = {result.rho:g})"))
    for col in ("ε′", "δ lower bound", "claimed δ(ε′)"):
        t.add_column(col)
    for e, lo, cl in zip(c.epsilons, c.delta_lower, c.claimed):
        mark = Text(f"{cl:.4g}")
        if lo > cl:
            mark.append(" refuted", style="red")
        t.add_row(f"{e:.4g}", f"{lo:.4g}", mark)
    console.print(t)
    verdict = result.verdict().value
    line = Text("verdict: ")
    line.append(verdict, style="red" if verdict == "refuted" else "cyan")
    line.append(f"; {_zcdp_meaning(result, verdict)}; pair {_literal(pair[0])} vs {_literal(pair[1])}")
    console.print(line)
