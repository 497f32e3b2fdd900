"""A throw-away set of claims for the report tests (registered by a fixture, removed after).

They cover what a report must show: a formula (sympy), a fraction, a seed, a
confidence level, a long array, a figure, a counterexample, a crash with its
traceback, a figure function that fails, a proof link, known and unknown seeds.
Each check computes its verdict (none is a constant).
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import sympy as sp

from dpverify.claims import Outcome, Source, Verdict, claim, unregister

PREFIX = "zzreport."
IDS = ("zzreport.formula", "zzreport.cex", "zzreport.crash", "zzreport.badfig")
FIGURE_COLOR = "#1f77b4"  # matplotlib's first colour: the browser test looks for it in the screenshot


def _figure(outcome):
    from matplotlib.figure import Figure

    d = outcome.figure_data
    fig = Figure(figsize=(5, 3))
    ax = fig.add_subplot()
    ax.plot(d["n"], d["bound"], "o-", color=FIGURE_COLOR, linewidth=3)
    ax.set_xlabel("samples")
    ax.set_ylabel("ε lower bound")
    return fig


def _formula(thorough: bool = False) -> Outcome:
    eps = sp.Symbol("epsilon", positive=True)
    p = sp.exp(eps) / (1 + sp.exp(eps))
    ok = sp.simplify(p - 1 / (1 + sp.exp(-eps))) == 0
    rng = np.random.default_rng(1234)
    n = np.array([10, 100, 1000, 10000])
    bound = np.log1p(n) / np.log1p(n[-1]) + 0.02 * rng.random(4)
    return Outcome(
        Verdict.HOLDS if ok else Verdict.REFUTED,
        {"p_true": p, "mse_ratio": Fraction(26, 32), "seed": 1234, "confidence": 0.95, "grid": np.arange(40)},
        figure_data={"n": n, "bound": bound},
    )


def _cex(thorough: bool = False) -> Outcome:
    # "the RR optimum is at p = 1/2": evaluate the utility at p = 1/2 and at p = 0.3
    util = {p: -abs(p - 0.3) for p in (0.5, 0.3)}
    better = max(util, key=util.get)
    verdict = Verdict.HOLDS if better == 0.5 else Verdict.REFUTED
    return Outcome(verdict, {"counterexample": {"p": better, "utility": util[better]}, "seed": [1, 2]})


def _crash(thorough: bool = False) -> Outcome:
    raise RuntimeError("kaput <b>not bold</b>")


def _bad_figure(outcome):
    raise ValueError("this figure cannot be drawn")


def _badfig(thorough: bool = False) -> Outcome:
    x = float(np.inf)
    return Outcome(Verdict.HOLDS if x > 1e308 else Verdict.REFUTED, {"x": x}, figure_data={"x": [1.0]})


def register_demo() -> tuple[str, ...]:
    claim("zzreport.formula", source=Source("004", "§4.2", "Thm 5.4 / eq. (5.11)"),
          statement="p = e^ε/(1+e^ε) equals 1/(1+e^−ε)", method="symbolic", figure=_figure)(_formula)
    claim("zzreport.cex", source=Source("003_fd0dbb2a33bed91b.txt", "§3", "eq. (7)"),
          statement="the RR optimum is at p = 1/2", method="solver cross-check", expected="erratum",
          proof="audit/hockey_stick.md")(_cex)
    claim("zzreport.crash", source=Source("seed-x"), statement="a check that crashes", method="property")(_crash)
    claim("zzreport.badfig", source=Source("seed-x"), statement="a figure that fails", method="property",
          figure=_bad_figure)(_badfig)
    return IDS


def unregister_demo() -> None:
    for i in IDS:
        unregister(i)
