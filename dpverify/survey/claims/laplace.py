"""The survey's Laplace mechanism: M(D) = f(D) + Lap(Δf/ε) is ε-DP (id ``primitives.laplace_dp``).

The supremum of the output log-density ratio is derived by regions (sympy), checked on a grid,
and tied to the library: :func:`~dpverify.primitives.additive.laplace_scale` is the scale and
:func:`~dpverify.primitives.additive.laplace_mechanism` draws with it.
"""

from __future__ import annotations

import math

import numpy as np
import sympy as sp

from dpverify.claims import Outcome, Source, Verdict, claim
from dpverify.primitives.additive import laplace_mechanism, laplace_scale
from dpverify.survey.derivations import laplace_log_ratio_sup
from dpverify.toolkit import symbolic_equal

S_LAP = Source("002", "拉普拉斯机制", "M(D) = f(D) + Lap(Δf/ε)")


@claim("primitives.laplace_dp", source=S_LAP, method="symbolic", expected="holds",
       statement="M(D) = f(D) + Lap(Δf/ε) provides ε-DP: the output density ratio on neighbours is at most "
                 "e^{ε|f(D) − f(D')|/Δf} ≤ e^ε",
       proof="survey/laplace_dp.md")
def _laplace_dp(thorough: bool = False) -> Outcome:
    sup, (left, mid, right) = laplace_log_ratio_sup()
    s, b = sp.symbols("s b", positive=True)
    region_ok = symbolic_equal(left, s / b).equal is True and symbolic_equal(right, -s / b).equal is True
    # the middle region lies between: (mid − (−s/b)) and (s/b − mid) are non-negative for every u > 0
    mid_ok = all(sp.simplify(e).is_nonnegative for e in (s / b - mid, mid + s / b))
    # the library's scale: with b = laplace_scale(Δ, ε) and |shift| = Δ the sup must be ≤ ε
    rows = []
    worst = -math.inf
    for delta_f, eps in [(1.0, 1.0), (2.0, 0.5), (0.3, 0.1), (5.0, 3.0)]:
        bval = laplace_scale(delta_f, eps)
        val = float(sup.subs({s: delta_f, b: bval}))
        # numeric cross-check of the same sup on a grid through the library's sampler law
        xs = np.linspace(-20 * bval, 20 * bval + delta_f, 20001)
        num = float(np.max((np.abs(xs - delta_f) - np.abs(xs)) / bval))
        worst = max(worst, val / eps)
        rows.append([delta_f, eps, val, num])
    # the mechanism really uses this scale: same seed, same draws as value + rng.laplace(0, Δ/ε)
    same = np.allclose(laplace_mechanism([3.0, 4.0], 2.0, 0.5, rng=11),
                       np.array([3.0, 4.0]) + np.random.default_rng(11).laplace(0.0, 4.0, 2))
    ok = region_ok and bool(mid_ok) and worst <= 1 + 1e-12 and same and all(abs(r[2] - r[3]) < 1e-9 for r in rows)
    return Outcome(Verdict.HOLDS if ok else Verdict.REFUTED,
                   {"sup_log_ratio": sup, "left_region": left, "right_region": right,
                    "cases[Δf, ε, sup_sympy, sup_grid]": rows, "max_sup_over_eps": worst, "mechanism_uses_scale": same})
