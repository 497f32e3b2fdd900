"""Audit a whole privacy curve δ(ε): a lower bound on δ at every ε of a grid, simultaneously.

For a fixed pair (d, d′) and a fixed event S, (ε, δ(ε))-DP gives P(S) − e^ε Q(S) ≤ δ(ε) for every ε
(P, Q the laws of M(d), M(d′)).  On a *selection* sample the auditor picks, for each grid point ε_i,
the event (a threshold or likelihood-ordered union of bins of the statistic, in either order, or one
event per order pooled) under the rule of the single-δ audit (:func:`~dpverify.audit.selection.select_event`
with ``epsilon=ε_i``): split and confirm, a minimum count scaled to the estimation sample, and a rank by
the bound the event promises on fresh draws, P_lower − e^{ε_i}·Q_upper, with Q bounded above from its
selection count widened by the selection noise.  An event whose Q count is 0 on the selection draws
is charged the Q a fresh sample can still show, so at e^ε ≈ 22,000 it no longer wins on that zero
alone (it used to: δ_lb(10) was 0.0038 on a Gaussian whose δ(10) is 0.041).  On a fresh
*estimation* sample the auditor bounds every distinct chosen event's P from below and Q from above
with one-sided Clopper–Pearson bounds at level α/(2K) (K distinct selections, Bonferroni), so that with
probability ≥ 1 − α all the bounds

    δ_lb(ε_i) = max(0, max over the K selections of P_lower − e^{ε_i} Q_upper)  ≤  δ(ε_i)

hold at once (``dpverify/audit/proofs/curves.md``).  The claimed curve is refuted when δ_lb exceeds it at any
grid point.  At a grid point the chosen event maximises the promised P_lower − e^ε·Q_upper over the
events the single-δ audit ranks, so whenever the audit's event at (ε, δ(ε)) promises a refutation
(P_lower − δ(ε) > e^ε·Q_upper) the curve's does too; the price of simultaneity is the level α/(2K).

Example
-------
>>> import numpy as np
>>> gauss = lambda d, rng, n: rng.normal(float(d), 1.0, n)
>>> r = audit_delta_curve(gauss, pair=(0.0, 1.0), delta_curve=gaussian_delta_curve(2.0),
...                       epsilons=[0.0, 0.5, 1.0], samples=200_000, rng=0)
>>> r.verdict().value        # σ = 1 sold as σ = 2: refuted
'refuted'
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass
from typing import Callable

import numpy as np
from scipy import stats

from dpverify.validation import as_generator, check_confidence, check_elements, check_positive_int, check_real
from dpverify.audit.events import Binner
from dpverify.audit.intervals import clopper_pearson_lower, clopper_pearson_upper
from dpverify.audit.chunks import ChunkJob, CountEvent, Progress, chunk_bound, chunk_sizes, readonly, run_tasks
from dpverify.audit.screening import minimum_count
from dpverify.audit.selection import count_selection, select_event
from dpverify.budget import check_work, draws_in_memory
from dpverify.claims.model import Verdict, note_sampling
from dpverify.proofdocs import proven

__all__ = ["CurveAudit", "audit_delta_curve", "gaussian_delta_curve"]

# the event families each grid point chooses from: all of them, and thresholds alone (measured on the
# classical-σ Gaussian at ε = 10, 10^7 draws, seeds 0–9: the likelihood-ordered union of bins with no
# Q draw on its first half won a pooled pair on seed 1 and failed on fresh draws, δ_lb(10) 0.0 instead of
# 0.024 with the thresholds beside it; refuted in 9 of seeds 0–9 (30 % selection), the unions alone in 6
# of seeds 0–7)
FAMILIES = (("le", "gt", "bins"), ("le", "gt"))
MIN_COUNT_CAP = 400  # the most selection draws an event must hold (as the single-δ audit's final selection)
#: The most grid points one curve audit takes: each point costs a selection (about 3 ms at 2000 draws, 10,000
#: points 30 s) and its events share the level α/(number of points), so a finer grid only weakens every bound.
MAX_GRID_POINTS = 10_000
#: Bytes a held draw costs (both inputs' statistic values and the counting's temporaries).  Measured:
#: peak RSS of a Gaussian curve audit, 4·10^6 and 8·10^6 samples, 20.2 and 20.1 bytes a sample, 25 a
#: draw of its estimation part.  A part with more draws than fit the memory budget is drawn in chunks.
HELD_CURVE_BYTES = 25


@proven("audit/curves.md")
def gaussian_delta_curve(sigma: float, sensitivity: float = 1.0) -> Callable[[float], float]:
    """The exact δ(ε) of the Gaussian mechanism N(f(x), σ²) with ℓ2 sensitivity Δ (Balle & Wang, ICML 2018,
    Thm 8): δ(ε) = Φ(Δ/(2σ) − εσ/Δ) − e^ε Φ(−Δ/(2σ) − εσ/Δ).

    Example
    -------
    >>> round(gaussian_delta_curve(1.0)(0.0), 6)      # ε = 0: the TV distance 2Φ(1/2) − 1
    0.382925
    """
    s = check_real(sigma, "sigma", positive=True)
    d = check_real(sensitivity, "sensitivity", positive=True)

    def delta(eps: float) -> float:
        e = check_real(eps, "epsilon", nonneg=True)
        a, b = d / (2 * s), e * s / d
        return float(stats.norm.cdf(a - b) - math.exp(e) * stats.norm.cdf(-a - b))  # proof: gauss-curve

    return delta


@dataclass(frozen=True)
class CurveAudit:
    """Simultaneous lower bounds δ_lb(ε_i) with the claimed δ(ε_i) beside them.

    Example
    -------
    >>> r = CurveAudit((0.0, 1.0), (0.1, 0.0), (0.05, 0.01), 0.99, 1000, 1000)
    >>> r.refuted_at, r.verdict().value
    ((0.0,), 'refuted')
    """

    epsilons: tuple
    delta_lower: tuple
    claimed: tuple
    confidence: float
    n_selection: int
    n_estimation: int
    n_events: int = 0  # K, the distinct selections estimated (each bound at level α/(2K))

    @property
    def refuted_at(self) -> tuple:
        """The grid points where the lower bound exceeds the claim."""
        return tuple(e for e, lo, c in zip(self.epsilons, self.delta_lower, self.claimed) if lo > c)

    def verdict(self) -> Verdict:
        """``refuted`` when any grid point's bound exceeds the claimed curve, else ``inconclusive``."""
        return Verdict.REFUTED if self.refuted_at else Verdict.INCONCLUSIVE


@proven("audit/curves.md")
def audit_delta_curve(mechanism, *, pair, delta_curve, epsilons, samples: int, confidence: float = 0.99, rng=None,
                      statistic=None, selection_fraction: float = 0.2) -> CurveAudit:
    """Lower bounds on δ(ε) at every ε of ``epsilons``, valid together with probability ≥ ``confidence``.

    Parameters
    ----------
    mechanism : callable ``mechanism(data, rng, n)`` or object with ``sample``
    pair : (d, d′), the neighbouring inputs
    delta_curve : callable ε → claimed δ(ε)
    epsilons : grid of ε ≥ 0
    samples : draws per input (selection + estimation)
    statistic : None (scalar outputs) or a callable outputs → (n,) numbers
    selection_fraction : the share of ``samples`` drawn for the selection, the rest estimates (0.2:
        measured on the classical-σ Gaussian at ε = 10, 10^7 draws, seeds 0–19, it refutes δ = 0.01 in
        18 of 20 seeds, 16 with 0.3; a threshold needs few selection draws, the bound many)

    Example
    -------
    >>> gauss = lambda d, rng, n: rng.normal(float(d), 1.0, n)
    >>> r = audit_delta_curve(gauss, pair=(0.0, 1.0), delta_curve=gaussian_delta_curve(1.0),
    ...                       epsilons=[0.0, 1.0], samples=100_000, rng=0)
    >>> r.verdict().value, r.delta_lower[0] <= gaussian_delta_curve(1.0)(0.0)
    ('inconclusive', True)
    """
    note_sampling("audit")  # a claim that calls this rests on sampling: the claims engine records it
    if not callable(delta_curve):
        raise TypeError(f"delta_curve must be a callable ε -> δ, got {type(delta_curve).__name__}")
    eps = _grid(epsilons)
    samples = check_positive_int(samples, "samples")
    if samples < 100:
        raise ValueError(f"samples must be >= 100, got {samples}")
    check_work(2 * samples, f"samples = {samples}")
    conf = check_confidence(confidence)
    frac = check_real(selection_fraction, "selection_fraction")
    if not 0 < frac < 1:
        raise ValueError(f"selection_fraction must be in (0, 1), got {selection_fraction!r}")
    if not 1 <= int(samples * frac) < samples:
        raise ValueError(f"selection_fraction must leave at least one selection and one estimation draw of the "
                         f"samples = {samples}, got {selection_fraction!r}")
    if isinstance(pair, np.ndarray) and pair.ndim >= 1 and pair.shape[0] == 2:  # two inputs stacked on axis 0
        pair = (pair[0], pair[1])
    if not isinstance(pair, (tuple, list)) or len(pair) != 2:
        raise ValueError(f"pair must be (d, d_prime), got {pair!r}")
    claimed = tuple(float(delta_curve(float(e))) for e in eps)
    if any(not 0 <= c <= 1 for c in claimed):
        raise ValueError(f"delta_curve must return values in [0, 1], got {claimed}")
    g = as_generator(rng)
    entropy = int(g.integers(0, 2**63 - 1))
    data = (readonly(pair[0]), readonly(pair[1]))
    n_sel = int(samples * frac)
    n_est = samples - n_sel
    alpha = 1.0 - conf
    # a grid point whose claim is δ ≥ 1 cannot be refuted: it chooses no event and costs no level
    # (unless no point can be: then every point chooses, for the lower bounds alone)
    open_points = [e for e, c in zip(eps, claimed) if c < 1.0] or list(eps)
    chosen = _select(mechanism, data, statistic, open_points, n_sel, n_est, entropy, alpha)
    lower, k = _estimate(mechanism, data, statistic, eps, chosen, n_est, entropy, alpha)
    return CurveAudit(tuple(eps.tolist()), tuple(lower), claimed, conf, n_sel, n_est, k)


def _grid(epsilons) -> np.ndarray:
    """The grid of ε as a flat float array: real values in [0, 700], at most ``MAX_GRID_POINTS`` of them."""
    if isinstance(epsilons, (str, bytes, bool, np.bool_)):
        raise TypeError(f"epsilons must be a grid of real numbers, got {epsilons!r} of type {type(epsilons).__name__}")
    try:
        raw = np.asarray(epsilons)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"epsilons must be a grid of real numbers, got {type(epsilons).__name__}: {exc}") from None
    check_elements(raw, "epsilons")
    if raw.size > MAX_GRID_POINTS:
        raise ValueError(f"epsilons must have at most {MAX_GRID_POINTS} grid points, got {raw.size}")
    if raw.dtype.kind not in "iuf" and not (raw.dtype.kind == "O" and all(
            isinstance(v, numbers.Real) and not isinstance(v, (bool, np.bool_)) for v in raw.ravel().tolist())):
        raise TypeError(f"epsilons must be a grid of real numbers, got dtype {raw.dtype}: {epsilons!r}")
    eps = raw.astype(float).reshape(-1)
    if eps.size == 0 or not np.isfinite(eps).all() or (eps < 0).any() or (eps > 700).any():
        raise ValueError(f"epsilons must be a non-empty grid of finite values in [0, 700], got {epsilons!r}")
    return eps


def _select(mechanism, data, statistic, eps, n_sel, n_est, entropy, alpha) -> list:
    """Per grid point of ``eps``, the selections (:func:`~dpverify.audit.selection.select_event` with
    ``epsilon``; every event family, then thresholds only) whose events promise the largest δ_lb(ε)
    on ``n_est`` fresh draws; the distinct ones, in grid order (a grid point with no event holding
    enough selection draws chooses none)."""
    if n_sel > draws_in_memory(HELD_CURVE_BYTES):  # beyond the memory budget: chunks, bins fixed on the first
        binner, counts = count_selection(mechanism, data, n_sel, entropy, statistic, key=(40,), chunk_size=chunk_bound())
    else:
        t = [ChunkJob(mechanism, data[i], n_sel, entropy, (40, i), statistic).statistic_values() for i in (0, 1)]
        if t[0].dtype.kind != t[1].dtype.kind:
            t = [x.astype(float) for x in t]
        binner = Binner(np.concatenate(t), categorical=bool(getattr(statistic, "categorical", False)))
        counts = [binner.count_halves(x) for x in t]
    # the single-δ audit's rule: split and confirm, the minimum count scaled to the estimation sample,
    # Q bounded above from the selection count widened by its own noise (ranking only)
    min_count = minimum_count(n_sel, n_est, cap=MIN_COUNT_CAP)
    chosen: list = []
    for e in eps:
        for kinds in FAMILIES:
            sel = select_event(binner, counts, n_est=n_est, alpha=alpha / max(len(eps), 1), delta=0.0,
                               min_count=min_count, confirm=True, epsilon=float(e), kinds=kinds)
            if math.isfinite(sel.score) and not any(_same(sel, c) for c in chosen):
                chosen.append(sel)
    return chosen


def _same(a, b) -> bool:
    return a.choice == b.choice and len(a.events) == len(b.events) and all(
        e.same_as(f) for e, f in zip(a.events, b.events))


def _estimate(mechanism, data, statistic, eps, chosen, n_est, entropy, alpha) -> tuple[list, int]:
    """Fresh draws; two one-sided bounds per distinct selection at level α/(2K) (K selections,
    Bonferroni); δ_lb(ε_i) is the best over all K of P_lower − e^ε_i·Q_upper.  Returns (δ_lb per grid
    point, K)."""
    k = len(chosen)
    if k == 0:
        return [0.0] * len(eps), 0
    ev = tuple(e for sel in chosen for e in sel.events)
    if n_est > draws_in_memory(HELD_CURVE_BYTES):  # beyond the memory budget: counted in chunks
        sizes = chunk_sizes(n_est, chunk_bound())
        c = [np.sum(run_tasks([CountEvent(ChunkJob(mechanism, data[i], m, entropy, (41, i, j), statistic), ev)
                               for j, m in enumerate(sizes)], None, Progress(None, 0), sizes), axis=0).tolist()
             for i in (0, 1)]
    else:
        t = [ChunkJob(mechanism, data[i], n_est, entropy, (41, i), statistic).statistic_values() for i in (0, 1)]
        c = [[int(np.count_nonzero(e.contains(x))) for e in ev] for x in t]
    a = alpha / (2 * k)  # proof: curve-bonferroni
    bounds, pos = [], 0
    for sel in chosen:
        if sel.choice == "both" and a < 0.25:  # pooled orders: 2n trials, Poisson-binomial counts (validity, step 6)
            kp, kq = c[0][pos] + c[1][pos + 1], c[1][pos] + c[0][pos + 1]
            trials, level = 2 * n_est, 1.0 - math.exp(-a)  # proof: curve-pooled
        else:  # one order (a pooled pair at a level of 1/4 or more: its first event, in its order)
            first = 1 if sel.choice == "d_prime>d" else 0
            kp, kq, trials, level = c[first][pos], c[1 - first][pos], n_est, a
        bounds.append((float(clopper_pearson_lower(kp, trials, level)),
                       float(clopper_pearson_upper(kq, trials, level))))
        pos += len(sel.events)
    lower = [max(0.0, max(p_lo - math.exp(e) * q_hi for p_lo, q_hi in bounds)) for e in eps]  # proof: delta-lb
    return lower, k

