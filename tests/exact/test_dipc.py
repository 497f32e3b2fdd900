"""DiPC's kinds of examples (dpverify.exact.dipc): verdicts for every ε > 0, with δ, cross-checked numerically."""

import numpy as np
import pytest
import sympy as sp

from dpverify.exact.dipc import EPS, EXAMPLES, decide

FAST = [n for n in EXAMPLES if n != "noisymax_value_delta"]
#: exact values found (independent checks: rr_fixed holds iff 3/4 ≤ e^ε·1/4; the numeric route below)
EXACT = {"histogram_replace": ("epsilon_needed", "2*epsilon"), "rr_fixed": ("fails_for", "Interval.open(0, log(3))"),
         "svt_alg5_delta": ("fails_for", "Interval.open(-4*log(3) + 2*log(11), oo)"),
         "svt_alg3": ("epsilon_needed", "3*epsilon/2")}


@pytest.mark.parametrize("name", FAST)
def test_each_example_gives_the_verdict_found(name):
    r = decide(name)
    assert r["verdict"] == r["expected"], r
    assert ("fails_for" in r) == (r["verdict"] == "refuted")
    if name in EXACT:
        key, value = EXACT[name]
        assert r[key].startswith(value), r


@pytest.mark.slow
def test_noisymax_value_with_delta():
    r = decide("noisymax_value_delta")
    assert r["verdict"] == "refuted" and r["fails_for"].startswith("Interval.open(2*log(CRootOf(")


def _delta_at(name, e):
    """The largest hockey-stick divergence over the example's pairs at ε = e, in floats (a second route)."""
    law, pairs = EXAMPLES[name][0]()
    law = law if isinstance(law, sp.MatrixBase) else law.matrix
    M = np.array(law.subs(EPS, e).evalf(30).tolist(), dtype=float)
    pairs = pairs if pairs is not None else [(0, 1), (1, 0)]
    return max(np.maximum(M[i] - np.exp(e) * M[j], 0).sum() for i, j in pairs)


def test_svt_alg5_fail_boundary_matches_a_numeric_route():
    """Fails for ε > log(121/81) ≈ 0.40134 at δ = 1/10: the float δ(ε) crosses 1/10 there."""
    b = float(sp.log(sp.Rational(121, 81)))
    assert _delta_at("svt_alg5_delta", b - 1e-3) < 0.1 < _delta_at("svt_alg5_delta", b + 1e-3)
    assert abs(_delta_at("rr_leak", 0.7) - 0.1) < 1e-12  # the leak's δ is exactly 1/10 at every ε


def test_a_fixed_program_flips_the_verdict(monkeypatch):
    """histogram_replace with scale 2 (Lap(2/ε): two bins move) is proved: the verdict follows the program."""
    import itertools

    from dpverify.exact.programs import program_law

    def histogram2(ctx, q):
        return tuple(ctx.release(qi, 2) for qi in q)

    inputs = list(itertools.product(range(3), repeat=2))
    pairs = [(i, j) for i, a in enumerate(inputs) for j, b in enumerate(inputs)
             if sorted(y - x for x, y in zip(a, b)) == [-1, 1]]
    monkeypatch.setitem(EXAMPLES, "histogram_replace", (lambda: (program_law(histogram2, inputs), pairs), "refuted", 0))
    r = decide("histogram_replace")
    assert r["verdict"] == "proved" and r["verdict"] != r["expected"]


def test_bad_name():
    with pytest.raises(ValueError, match="name must be one of"):
        decide("nope")
