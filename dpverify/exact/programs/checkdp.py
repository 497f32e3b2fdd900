"""The 17 benchmark programs of CheckDP (Wang, Ding, Kifer, Zhang, CCS 2020), with geometric noise.

Each function transcribes the C file of the same name in CheckDP's ``examples/`` directory
(github.com/cmla-psu/checkdp), line by line: ``Lap(b/ε)`` becomes geometric noise of scale ``b``
(r = e^{−ε/b}), queries and the threshold ``T`` are integers.  Two changes, both forced by integer
noise: "below threshold" is the output ``None`` instead of CheckDP's 0 or −100 (a discrete gap or
noisy value can equal 0 or −100 with positive probability, a continuous one cannot), and smartsum's
claim ``CHECK: 2 * epsilon`` is expressed by doubling the scales (Lap(1/ε) with budget 2ε is scale 2
in units of the ε checked).  ``ALL`` maps each name to (program, adjacency, correct?).

Example
-------
>>> import numpy as np
>>> from dpverify.exact.programs import SampleContext
>>> noisymax(SampleContext(np.random.default_rng(0), 1.0), (0, 30, 0))
(1,)
"""

from __future__ import annotations

from fractions import Fraction

__all__ = ["ALL"]


def _svt(ctx, q, T, NN, thr_scale, query_scale, bounded=True):
    T_bar = ctx.threshold(T, thr_scale)
    out, count = [], 0
    for qi in q:
        if bounded and count >= NN:
            break
        if ctx.noisy_ge(qi, query_scale, T_bar):
            out.append(1)
            count += 1
        else:
            out.append(0)
    return tuple(out)


def sparsevector(ctx, q, T, NN):
    """sparsevector.c: eta_1 = Lap(2/ε), eta_2 = Lap(4NN/ε), stop after NN true answers."""
    return _svt(ctx, q, T, NN, 2, 4 * NN)


def svt_increasing(ctx, q, T, NN):
    """svt_increasing.c (and svt_decreasing.c): eta_2 = Lap(2NN/ε); monotone neighbours only."""
    return _svt(ctx, q, T, NN, 2, 2 * NN)


def badsparsevector1(ctx, q, T, NN):
    """badsparsevector1.c: no noise on the queries, no bound on the true answers."""
    return _svt(ctx, q, T, NN, 2, None, bounded=False)


def badsparsevector2(ctx, q, T, NN):
    """badsparsevector2.c: eta_2 = Lap(2/ε), no bound on the true answers."""
    return _svt(ctx, q, T, NN, 2, 2, bounded=False)


def badsparsevector3(ctx, q, T, NN):
    """badsparsevector3.c: eta_1 = Lap(4/ε), eta_2 = Lap(4/(3ε)) (does not scale with NN)."""
    return _svt(ctx, q, T, NN, 4, Fraction(4, 3))


def _gap(ctx, q, T, NN, slot):
    T_bar = ctx.threshold(T, 2)
    out, count = [], 0
    for qi in q:
        if count >= NN:
            break
        v = slot(qi, 4 * NN, T_bar)
        out.append(v)
        count += v is not None
    return tuple(out)


def gapsparsevector(ctx, q, T, NN):
    """gapsparsevector.c: output the gap q[i] + eta_2 − T_bar when it is ≥ 0."""
    return _gap(ctx, q, T, NN, ctx.noisy_gap)


def badgapsparsevector(ctx, q, T, NN):
    """badgapsparsevector.c: output the noisy query q[i] + eta_2 itself (sensitive)."""
    return _gap(ctx, q, T, NN, ctx.noisy_above)


def numsparsevector(ctx, q, T, NN):
    """numsparsevector.c: eta_1 = Lap(3/ε), eta_2 = Lap(6NN/ε), output q[i] + Lap(3NN/ε) when above."""
    T_bar = ctx.threshold(T, 3)
    out, count = [], 0
    for qi in q:
        if count >= NN:
            break
        if ctx.noisy_ge(qi, 6 * NN, T_bar):
            out.append(ctx.release(qi, 3 * NN))
            count += 1
        else:
            out.append(None)
    return tuple(out)


def _adaptive(ctx, q, T, NN, leak):
    T_bar = ctx.threshold(T, 2)
    out, cost = [], 2 * NN  # cost in units of ε
    for qi in q:
        top = (ctx.noisy_above if leak else ctx.noisy_gap)(qi, 8 * NN, T_bar, at_least=16)
        if top is not None:
            out.append(top)
            cost += 1
        else:
            mid = ctx.noisy_gap(qi, 4 * NN, T_bar)
            out.append(mid)
            cost += 2 if mid is not None else 0
        if cost > 4 * NN - 2:
            break
    return tuple(out)


def adaptivesparsevector(ctx, q, T, NN):
    """adaptivesparsevector.c: gap with Lap(8NN/ε) if ≥ 16, else gap with Lap(4NN/ε) if ≥ 0; a cost budget."""
    return _adaptive(ctx, q, T, NN, leak=False)


def badadaptivesparsevector(ctx, q, T, NN):
    """badadaptivesparsevector.c: the first branch outputs the noisy query q[i] + eta_3 itself."""
    return _adaptive(ctx, q, T, NN, leak=True)


def noisymax(ctx, q):
    """noisymax.c: argmax of q[i] + Lap(2/ε) (a later index wins only if strictly larger)."""
    return (ctx.argmax(q, 2),)


def badnoisymax(ctx, q):
    """badnoisymax.c: releases the noisy maximum value instead of its index."""
    return (ctx.max_value(q, 2),)


def partialsum(ctx, q):
    """partialsum.c: sum(q) + Lap(1/ε)."""
    return (ctx.release(sum(q), 1),)


def badpartialsum(ctx, q):
    """badpartialsum.c: sum(q) + Lap(1/(2ε))."""
    return (ctx.release(sum(q), Fraction(1, 2)),)


def _smartsum(ctx, q, T, M, reset_noise):
    nxt, total, out = None, 0, []
    for i, qi in enumerate(q):
        if i > T:
            break
        if (i + 1) % M == 0:
            nxt = ctx.release(total + qi, reset_noise)  # next = sum + q[i] + eta_1
            total = 0
        else:
            nxt = ctx.release(qi, 2, after=nxt)  # next = next + q[i] + eta_2
            total += qi
        out.append(nxt)
    return tuple(out)


def smartsum(ctx, q, T, M):
    """smartsum.c (CHECK: 2ε): Lap(1/ε) at every step, the block sum restarted every M steps."""
    return _smartsum(ctx, q, T, M, 2)


def badsmartsum(ctx, q, T, M):
    """badsmartsum.c: eta_1 = 0 at the block ends (the exact block sum is released)."""
    return _smartsum(ctx, q, T, M, None)


#: name → (program, CheckDP adjacency, correct per CheckDP)
ALL = {
    "sparsevector": (sparsevector, "all_differ", True),
    "gapsparsevector": (gapsparsevector, "all_differ", True),
    "numsparsevector": (numsparsevector, "all_differ", True),
    "adaptivesparsevector": (adaptivesparsevector, "all_differ", True),
    "svt_increasing": (svt_increasing, "increasing", True),
    "svt_decreasing": (svt_increasing, "decreasing", True),
    "noisymax": (noisymax, "all_differ", True),
    "partialsum": (partialsum, "one_differ", True),
    "smartsum": (smartsum, "one_differ", True),
    "badsparsevector1": (badsparsevector1, "all_differ", False),
    "badsparsevector2": (badsparsevector2, "all_differ", False),
    "badsparsevector3": (badsparsevector3, "all_differ", False),
    "badgapsparsevector": (badgapsparsevector, "all_differ", False),
    "badadaptivesparsevector": (badadaptivesparsevector, "all_differ", False),
    "badnoisymax": (badnoisymax, "all_differ", False),
    "badpartialsum": (badpartialsum, "one_differ", False),
    "badsmartsum": (badsmartsum, "one_differ", False),
}
