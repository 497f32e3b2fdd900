"""A certified bound on the variance of one step's rounding error (helper of the bracket).

With ``Y`` one step's privacy loss and ``Z = ceil_h(Y) - Y`` in ``[0, h)`` (or ``W = Y - floor_h(Y)
= h - Z``), ``Var Z = Var W <= E (Z - h/2)^2 = h^2/4 - E g(Y)`` with
``g(y) = (ceil_h y - y)(y - floor_h y) >= 0``.  :func:`rounding_variance` bounds ``E g(Y)`` from
below: on a fine grid of the output ``x`` (``L`` is monotone in ``x``), a cell whose loss interval
holds no grid point contributes its exact mass times the smaller of ``g`` at its two ends (``g`` is
concave between grid points), any other cell contributes 0; the round-off of ``L`` (through the
Lipschitz constant ``h`` of ``g``), of the masses (``ndtr``, 2e-13 relative) and of the sum is
subtracted.  A smooth loss law gives ``Var Z`` near ``h^2 / 12``, a third of Hoeffding's
``h^2 / 4``; Bernstein's inequality then narrows the bracket's de-biasing term (proof
``proofs/bracket.md``, step 6).

Example
-------
>>> from dpverify.conform.pld import step_law
>>> v = rounding_variance(step_law(1.0, 0.01, 1e-4, "remove", tail=1e-12))
>>> bool(1e-8 / 12 <= v < 1e-8 / 4)
True
"""

from __future__ import annotations

import math

import numpy as np

from dpverify.conform.cells import NDTR_REL, U, component_cells

__all__: list[str] = []   # helpers of dpverify.conform.bracket, not API

_U, _NDTR_REL = U, NDTR_REL  # the same assumptions as dpverify.conform.pld (proof, assumption 2)


def _loss_parts(x, sigma, q, order):
    """(loss, |a|) at ``x``: ``a = (2x - 1) / (2 sigma^2)``, loss ``+-log(1 - q + q e^a)``."""
    a = (2.0 * x - 1.0) / (2.0 * sigma ** 2)
    value = a if q == 1.0 else np.logaddexp(math.log1p(-q), math.log(q) + a)
    return (value if order == "remove" else -value), np.abs(a)


def _x_ends(law):
    """The outputs ``x`` whose losses are the two ends of the law's grid (clipped far out)."""
    n = law.upper.size
    v = np.array([law.k0 * law.h, (law.k0 + n - 1) * law.h])
    v = v if law.order == "remove" else -v
    with np.errstate(invalid="ignore", divide="ignore"):
        a = v if law.q == 1.0 else np.log(np.expm1(v) + law.q) - math.log(law.q)
    x = law.sigma ** 2 * a + 0.5
    far = 40.0 * law.sigma + 1.0
    x = np.where(np.isfinite(x), x, -far)      # outside L's range: x -> -infinity (both orders)
    lo, hi = float(np.min(x)), float(np.max(x))
    return max(lo, -far), min(hi, far + 1.0)


def _masses(x, sigma, q, order):
    """Per cell ``(x_k, x_{k+1}]``: the output law's mass and its round-off allowance."""
    m, err = np.zeros(x.size - 1), np.zeros(x.size - 1)
    for w, _, _, lower, upper, mc in component_cells(x, sigma, q, order):
        small = np.minimum(lower, upper)
        m += w * np.clip(mc, 0.0, None)
        err += w * ((_NDTR_REL + 4 * _U) * (small[:-1] + small[1:]) + 4 * _U * np.abs(mc))
    return m, err


def rounding_variance(law, points: int | None = None) -> float:
    """An upper bound ``v`` on ``Var(ceil_h Y - Y)`` (and ``Var(Y - floor_h Y)``) for ``law``'s loss.

    ``law`` is a :class:`dpverify.conform.pld.StepLaw`; always ``v <= h^2 / 4``.  ``points``: the
    ``x`` cells (default: enough that a cell's loss interval, at most ``dx / sigma^2`` long, is
    about ``h / 4``, between ``2^16`` and ``2^19``).
    """
    h, sigma, q, order = law.h, law.sigma, law.q, law.order
    xa, xb = _x_ends(law)
    if not xb > xa:
        return h * h / 4.0
    if points is None:
        want = 4.0 * (xb - xa) / (sigma ** 2 * h)
        points = 1 << int(min(max(math.ceil(math.log2(max(want, 2.0))), 16), 19))
    x = np.linspace(xa, xb, points + 1)
    m, m_err = _masses(x, sigma, q, order)
    y, a = _loss_parts(x, sigma, q, order)
    t = y / h
    fl = np.floor(t)
    frac = t - fl
    phi = frac * (1.0 - frac)                                   # g(y) / h^2
    # round-off of t = L(x) / h: L within 16u (1 + |a| + |log q|), the division and floor 4u |t|
    t_err = 16 * _U * (1.0 + a + abs(math.log(q))) / h + 4 * _U * (1.0 + np.abs(t))
    low = np.minimum(phi[:-1], phi[1:]) - np.maximum(t_err[:-1], t_err[1:])
    low = np.where(fl[:-1] == fl[1:], np.clip(low, 0.0, None), 0.0)  # a grid point inside: 0
    total = float(np.sum(m * low)) * (1 - 4 * math.log2(points + 1) * _U)
    total -= 0.25 * float(np.sum(m_err))                         # phi <= 1/4
    return float(h * h * (0.25 - max(total, 0.0)))
