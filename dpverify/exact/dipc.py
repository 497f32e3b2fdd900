"""DiPC's kinds of examples beyond CheckDP's 17, decided exactly for every ε > 0 (and with δ).

DiPC (Barthe, Chadha, Jagannath, Sistla, Viswanathan, LICS 2020) decides ε-DP and (ε, δ)-DP for all ε of
programs with finite inputs and outputs: randomized response, histograms, report noisy max and the
sparse-vector variants of Lyu, Su and Li (VLDB 2017, Algorithms 1–6). Lyu's Algorithms 1, 4, 5 and 6 are
CheckDP's sparsevector, badsparsevector3, badsparsevector1 and badsparsevector2
(:mod:`dpverify.exact.programs.checkdp`); :data:`EXAMPLES` adds the others, written with the exact
primitives of :mod:`dpverify.exact.programs` (geometric noise of scale b for Lap(b/ε), integer queries) or
as finite laws in ε:

- ``svt_alg3`` — Lyu's Algorithm 3 (Roth 2011): ρ ~ scale 2, ν ~ scale 2c, the noisy query q + ν is output
  when it is above the noisy threshold, stop after c = 1 answers; claimed ε-DP, refuted (3 queries: ε′ = 3ε/2);
- ``noisymax_half`` — report noisy max with scale 1 (Lap(1/ε), the counting-query noise) when all queries may
  move by 1: refuted; under monotone neighbours (``noisymax_half_monotone``): proved;
- ``histogram`` — 2 bins, each released with scale 1, one bin moves by 1 (add/remove one record): proved;
  replace one record (``histogram_replace``: one bin +1, another −1): refuted, ε′ = 2ε;
- ``rr`` — binary randomized response, keep e^ε/(1+e^ε): proved; keep 3/4 (``rr_fixed``): holds exactly for
  ε ≥ log 3;
- (ε, δ): ``rr_leak`` — with probability 1/10 the true bit in the clear, else randomized response: proved at
  δ = 1/10, refuted at δ = 1/20 (``rr_leak_half_delta``); ``svt_alg5_delta`` / ``svt_alg5_delta_half`` —
  Lyu's Algorithm 5 (no query noise) at δ = 1/10 and 1/2: it fails exactly for ε above log(121/81), resp.
  2·log 3 (its noise shrinks as ε grows); ``noisymax_value_delta`` — the noisy maximum's value (CheckDP's
  badnoisymax, 3 queries) at δ = 1/10: fails for ε beyond an algebraic number (≈ 1.04).

A program law whose threshold-dependent outputs (a noisy value, a max value) are cut into a window and a
rest cell is not exact for a proof (its "proved" is reported as ``unknown``); its refutations stand (a
partition of the outputs is a post-processing). Release cells are exact for δ too (the ratio of two rows
is constant on a cell, so the hockey-stick sum over the cell is the cell's). Not written: Lyu's
Algorithm 2 with c ≥ 2 resamples the threshold after each answer, and a program path conditions on one
noise only (:class:`dpverify.exact.programs.ExactContext`); with c = 1 it is Algorithm 1.

Example
-------
>>> r = decide("histogram_replace")
>>> r["verdict"], r["expected"], r["epsilon_needed"]
('refuted', 'refuted', '2*epsilon')
"""

from __future__ import annotations

import itertools
import time

import sympy as sp

__all__ = ["EXAMPLES", "decide"]

EPS = sp.Symbol("epsilon", positive=True)
_E = sp.exp(EPS)


def _svt_alg3(ctx, q, T=1, c=1):
    """Lyu et al. Algorithm 3: output q[i] + ν (ν ~ Lap(2c/ε)) when it is ≥ T + ρ (ρ ~ Lap(2/ε)); stop after c."""
    thr, out, count = ctx.threshold(T, 2), [], 0
    for qi in q:
        if count >= c:
            break
        v = ctx.noisy_above(qi, 2 * c, thr)
        out.append(v)
        count += v is not None
    return tuple(out)


def _svt_alg5(ctx, q, T=1):
    """Lyu et al. Algorithm 5 (Stoddard et al. 2014): no noise on the queries, no cutoff."""
    thr = ctx.threshold(T, 2)
    return tuple(int(ctx.noisy_ge(qi, None, thr)) for qi in q)


def _noisymax_half(ctx, q):
    """Report noisy max with Lap(1/ε) (the counting-query scale) instead of Lap(2/ε)."""
    return (ctx.argmax(q, 1),)


def _noisymax_value(ctx, q):
    """The noisy maximum's value (CheckDP's badnoisymax), scale 2."""
    return (ctx.max_value(q, 2),)


def _histogram(ctx, q):
    """Every bin plus Lap(1/ε)."""
    return tuple(ctx.release(qi, 1) for qi in q)


def _replace_pairs(inputs):
    """Replace one record: one bin +1 and another −1 (both orders appear as (i, j) and (j, i))."""
    out = []
    for i, a in enumerate(inputs):
        for j, b in enumerate(inputs):
            d = sorted(y - x for x, y in zip(a, b))
            if d.count(0) == len(d) - 2 and d[0] == -1 and d[-1] == 1:
                out.append((i, j))
    return out


def _rr(keep):
    return sp.Matrix([[keep, 1 - keep], [1 - keep, keep]])


def _rr_leak(d0):
    """With probability d0 the bit in the clear (outputs 2, 3), else binary randomized response (outputs 0, 1)."""
    q = _E / (1 + _E)
    return sp.Matrix([[(1 - d0) * q, (1 - d0) * (1 - q), d0, 0], [(1 - d0) * (1 - q), (1 - d0) * q, 0, d0]])


def _grid(n, values):
    return list(itertools.product(range(values), repeat=n))


def _program(prog, inputs, relation):
    from dpverify.exact.programs import neighbour_pairs, program_law

    law = program_law(prog, inputs)
    return law, _replace_pairs(inputs) if relation == "replace" else neighbour_pairs(inputs, relation)


_TENTH, _HALF = sp.Rational(1, 10), sp.Rational(1, 2)
#: name → (build: () -> (law, pairs), the verdict found, δ (0: pure ε-DP))
EXAMPLES = {
    "svt_alg3": (lambda: _program(_svt_alg3, [(0,) * 3, (1,) * 3], "all_differ"), "refuted", 0),
    "noisymax_half": (lambda: _program(_noisymax_half, _grid(3, 2), "all_differ"), "refuted", 0),
    "noisymax_half_monotone": (lambda: _program(_noisymax_half, _grid(3, 2), "increasing"), "proved", 0),
    "histogram": (lambda: _program(_histogram, _grid(2, 3), "one_differ"), "proved", 0),
    "histogram_replace": (lambda: _program(_histogram, _grid(2, 3), "replace"), "refuted", 0),
    "rr": (lambda: (_rr(_E / (1 + _E)), None), "proved", 0),
    "rr_fixed": (lambda: (_rr(sp.Rational(3, 4)), None), "refuted", 0),
    "rr_leak": (lambda: (_rr_leak(_TENTH), None), "proved", _TENTH),
    "rr_leak_half_delta": (lambda: (_rr_leak(_TENTH), None), "refuted", _TENTH / 2),
    "svt_alg5_delta": (lambda: _program(_svt_alg5, _grid(2, 2), "all_differ"), "refuted", _TENTH),
    "svt_alg5_delta_half": (lambda: _program(_svt_alg5, _grid(2, 2), "all_differ"), "refuted", _HALF),
    "noisymax_value_delta": (lambda: _program(_noisymax_value, _grid(3, 2), "all_differ"), "refuted", _TENTH),
}


def decide(name: str) -> dict:
    """Decide one example of :data:`EXAMPLES` for every ε > 0: verdict, CPU seconds, the counterexample.

    Parameters
    ----------
    name : str
        A key of :data:`EXAMPLES`.

    Returns
    -------
    dict with ``example``, ``delta``, ``expected`` (the verdict found when this was written), ``verdict``,
    ``cpu_seconds``, ``size`` and, when refuted, ``epsilon_needed`` (of the counterexample's pair and outputs),
    ``pair_fails_for`` (that pair's ε-set) and ``fails_for`` (the ε-set where some pair fails; exact, then decimal).

    Example
    -------
    >>> decide("rr_leak")["verdict"]
    'proved'
    """
    from dpverify.exact import prove, render_set
    from dpverify.exact.programs.tails import prove_program
    from dpverify.exact.result import ProofResult

    if not isinstance(name, str) or name not in EXAMPLES:
        raise ValueError(f"name must be one of {sorted(EXAMPLES)}, got {name!r:.80}")
    build, expected, delta = EXAMPLES[name]
    t0 = time.process_time()
    law, pairs = build()
    if isinstance(law, sp.MatrixBase):
        res, shape = prove(law, epsilon=EPS, delta=delta), law.shape
    elif delta == 0:
        res, shape = prove_program(law, pairs), law.matrix.shape
    else:
        M = law.matrix
        res, shape = prove(M, epsilon=EPS, delta=delta, pairs=pairs), M.shape
        if res.verdict == "proved" and not law.exact:
            res = ProofResult("unknown", "proved on a window of the outputs only: " + res.reason, None, res.certificate)
    row = {"example": name, "delta": str(delta), "expected": expected, "verdict": res.verdict,
           "cpu_seconds": round(time.process_time() - t0, 2), "size": f"{shape[0]}x{shape[1]}"}
    ce = res.counterexample
    if ce is not None:
        row["epsilon_needed"] = str(ce.epsilon_needed)
        row["pair_fails_for"] = f"{ce.epsilon_fails} = {render_set(ce.epsilon_fails, 6)}"
        cert = res.certificate or {}
        row["fails_for"] = (f"{cert['epsilon_fails_any_pair']} = {cert['epsilon_fails_any_pair_decimal']}"
                            if "epsilon_fails_any_pair" in cert else row["pair_fails_for"])
    return row
