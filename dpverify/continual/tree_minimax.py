"""Minimax per-node weights on a tree strategy past the conic solver: the dual over release weights, on an active set.

The minimax program of :mod:`dpverify.continual.weights`

    min_d max_t Σ_v B_tv² / d_v²   s.t.  Σ_{v ∋ s} |A_vs| d_v <= 1 for every count s

has the Lagrangian dual max over release weights λ (a distribution on the releases) of
h(λ) = min_d Σ_t λ_t Σ_v B_tv² / d_v², and for a fixed λ the inner problem is the total program
with node costs c_v(λ) = Σ_t λ_t B_tv², solved in closed form on the tree
(:mod:`dpverify.continual.tree_weights`).  h is concave and its gradient is the vector of release
variances at the inner optimum d(λ), so the multiplicative ascent λ_t ← λ_t (var_t / h)^p (p <= 4,
halved when a step would lower h) climbs to the optimum.  At the optimum only a few releases carry
weight (144 of 8191 at n = 8191), so the ascent runs on a candidate set C of releases and the
sub-forest their nodes span (cheap), and the whole tree is solved only to check the candidates:
every release gets a floor weight (1e-250 of the largest; the candidates keep at least 1e-20 of it),
the full d(λ) is the primal point, and releases above the bound join C.  The floor makes the
nodes no candidate uses share the budget left on their paths; with exactly zero weight they get none.

When the candidates' d(λ) starves releases (a candidate node that takes its whole budget above
nodes only other releases use), more steps on the whole tree give primal points that starve none.
The result is certified like the total solve: d(λ_p) of the best primal λ_p seen is rounded to exact
feasibility (:func:`~dpverify.continual.tree_weights.tree_total_at`), the primal is its largest
release variance, and the bound is :func:`~dpverify.continual.weights.dual_bound` at (λ, μ(λ)) of
the best bound λ seen, valid for every λ and μ >= 0.  Proof: ``continual/weights_duality.md``
(item 5).  Measured: certified gap 1e-8 at n = 8191 (0.2 s, the conic solve 1.7 s) and at
2^16 (6.6 s); at 2^20 the bound converges in about 14 s CPU but the primal reaches a gap of 5e-6
only after 20 rounds (390 s CPU): the candidates' d starves about 10^5 releases and the
whole-tree ascent that repairs it is slow.

Example
-------
>>> from dpverify.continual.elders_tree import elders_strategy_parts
>>> from dpverify.continual.tree_weights import elders_parents
>>> from dpverify.continual.weights import optimal_weights
>>> R, A, offsets = elders_strategy_parts(60, 5)
>>> res = tree_minimax_weights(R, A, elders_parents(offsets, 5))
>>> ref = optimal_weights(R, A, "minimax")
>>> res.certified, abs(res.objective / ref.objective - 1) < 1e-6
(True, True)
"""

from __future__ import annotations

import numpy as np

from dpverify.validation import check_positive_int, check_real
from dpverify.continual.tree_weights import tree_parts, tree_total_at
from dpverify.continual.weights import WeightsResult, dual_bound

__all__ = ["tree_minimax_weights"]

_FLOOR_IN = 1e-20  # weight of a candidate release, relative to the largest, at least
_FLOOR_OUT = 1e-250  # weight of every other release (relative): the free nodes share their paths' slack
_INNER_TOL = 1e-8  # the candidate problem is solved to this relative gap before the whole tree is checked


class _Forest:
    """The inner total solve on a (sub-)forest: c(λ) → e (= a d) top-down, and the release variances."""

    def __init__(self, B2, a, keep, levels):
        self.B2, self.B2T = B2.tocsr(), B2.T.tocsr()
        self.a, self.keep, self.levels, self.size = a, keep, levels, a.size

    def split(self, lam):
        """e of the total optimum for release weights λ (the recursion of tree_weights, no multipliers)."""
        c2 = (self.B2T @ lam) * self.a * self.a
        cb, sb = np.cbrt(c2), np.zeros(self.size)
        S = np.zeros(self.size)
        for v, p, up in self.levels:  # bottom-up: K_v = (c'^(1/3) + S^(1/3))^3, S_parent += K_v
            sb[v] = np.cbrt(S[v])
            S += np.bincount(p[up], weights=(cb[v[up]] + sb[v[up]]) ** 3, minlength=self.size)
        b, e, rest = np.zeros(self.size), np.zeros(self.size), np.ones(self.size)
        for v, p, up in reversed(self.levels):  # top-down: the budget left by the parent, split by cube roots
            b[v] = 1.0
            b[v[up]] = b[p[up]] * rest[p[up]]  # b_p - e_p computed as b_p S^(1/3) / K^(1/3): no cancellation
            tot = np.where(cb[v] + sb[v] > 0, cb[v] + sb[v], 1.0)
            e[v] = b[v] * cb[v] / tot
            rest[v] = np.where(cb[v] + sb[v] > 0, sb[v] / tot, 1.0)
        return e

    def value(self, lam):
        """``(h(λ), var)``: the inner optimum Σ_t λ_t var_t and every release's variance at d(λ)."""
        e = self.split(lam)
        with np.errstate(divide="ignore", invalid="ignore"):
            x = np.where(self.keep & (e > 0), (self.a / np.where(e > 0, e, 1.0)) ** 2, 0.0)
            x[self.keep & (e <= 0)] = np.inf
        var = self.B2 @ x
        on = lam > 0  # a release of weight 0 adds nothing, even where its variance is infinite
        return float(lam[on] @ var[on]), var


def _levels(parts, nodes=None):
    """Per depth, bottom-up: (rows, their parents, has-a-parent mask), renumbered to ``nodes`` when given."""
    depth, parent, measuring = parts["depth"], parts["parent"], parts["measuring"]
    sel = measuring if nodes is None else measuring & nodes
    index = None
    if nodes is not None:
        index = np.full(parent.size, -1, dtype=np.int64)
        index[np.flatnonzero(nodes)] = np.arange(int(nodes.sum()))
    out = []
    for D in range(int(depth.max(initial=0)), -1, -1):
        v = np.flatnonzero((depth == D) & sel)
        p = parent[v]
        up = p >= 0
        if index is not None:
            v, p = index[v], np.where(up, index[np.maximum(p, 0)], -1)
        out.append((v, np.where(up, p, 0), up))
    return out


def _sub_forest(parts, cand):
    """The forest of the nodes the candidate releases use and their ancestors (the others carry no cost)."""
    B2c = parts["B2"][cand]
    nodes = np.zeros(parts["parent"].size, dtype=bool)
    nodes[np.unique(B2c.indices)] = True
    cur = np.flatnonzero(nodes)
    while cur.size:
        up = parts["parent"][cur]
        up = np.unique(up[up >= 0])
        cur = up[~nodes[up]]
        nodes[cur] = True
    sub = np.flatnonzero(nodes)
    return _Forest(B2c[:, sub], parts["a"][sub], parts["keep"][sub], _levels(parts, nodes))


def _ascend(forest, lam, iters: int, tol: float, p_max: float = 4.0) -> dict:
    """Multiplicative ascent λ_t ← λ_t (var_t/h)^p on the forest's releases.

    Returns the λ of the best bound (``lam``, ``lo``, its ``var``), the λ of the best primal
    (``lam_hi``, ``hi``) and the last iterate (``last``).  A step that lowers h by more than rounding
    is refused and p halved; p grows back to ``p_max``.
    """
    h, var = forest.value(lam)
    out = {"lam": lam, "lo": h, "var": var, "lam_hi": lam, "hi": float(var.max()), "last": lam}
    p, last = p_max, (h, out["hi"], 0)
    for it in range(iters):
        if out["hi"] - out["lo"] <= tol * out["hi"] or p < 1e-9 or it - last[2] > 50:  # done, or 50 idle steps
            break
        if out["lo"] > last[0] * (1 + 1e-13) or out["hi"] < last[1] * (1 - 1e-10):
            last = (out["lo"], out["hi"], it)
        z = np.log(lam) + p * np.log(np.minimum(var, 1e300) / h)
        z = np.maximum(z - z.max(), np.log(_FLOOR_IN))
        new = np.exp(z)
        new /= new.sum()
        h2, var2 = forest.value(new)
        if float(var2.max()) < out["hi"]:
            out["hi"], out["lam_hi"] = float(var2.max()), new
        if h2 < h * (1 - 1e-12):
            p *= 0.5
            continue
        lam, h, var, p = new, h2, var2, min(1.5 * p, p_max)
        out["last"] = lam
        if h > out["lo"]:
            out.update(lam=lam, lo=h, var=var)
    return out


def _full_weights(n: int, cand, lam_c):
    lam = np.full(n, _FLOOR_OUT)
    lam[cand] = np.maximum(lam_c / lam_c.max(), _FLOOR_IN)
    return lam / lam.sum()


def _candidates(var, size: int):
    """The ``size`` releases of largest variance (sorted indices)."""
    size = min(size, var.size)
    return np.sort(np.argpartition(-var, size - 1)[:size])


def _search(parts, full, tol: float, size: int, rounds: int, warm: int, tick):
    """``(λ of the best primal, λ of the best bound)`` over rounds of: ascend on the candidates, check on the
    whole tree, add the releases above the bound; after a round that missed, ``warm // 2`` more steps on the
    whole tree (their d(λ) give no release zero budget: a primal where the candidates' d starves releases)."""
    n = parts["B2"].shape[0]
    run = _ascend(full, np.full(n, 1.0 / n), warm, tol)  # steps on the whole tree pick the candidates
    primal, dual = (run["hi"], run["lam_hi"]), (run["lo"], run["lam"])
    cand = _candidates(run["var"], size)
    lam_c = run["lam"][cand]
    for rnd in range(rounds):
        lam_c = _ascend(_sub_forest(parts, cand), lam_c / lam_c.sum(), 3000, _INNER_TOL)["lam"]
        lam = _full_weights(n, cand, lam_c)
        h, var = full.value(lam)
        primal, dual = min(primal, (float(var.max()), lam), key=_first), max(dual, (h, lam), key=_first)
        gap = (primal[0] - dual[0]) / primal[0]
        tick(note=f"round {rnd + 1}: {cand.size} candidates, gap {gap:.1e}")
        if gap <= tol / 2:
            break
        run = _ascend(full, run["last"], max(warm // 2, 1), tol)
        primal, dual = min(primal, (run["hi"], run["lam_hi"]), key=_first), max(dual, (run["lo"], run["lam"]), key=_first)
        over = np.setdiff1d(np.flatnonzero(var > h * (1 - 1e-3)), cand)  # near or above the bound, not yet in C
        if over.size == 0:
            over = np.setdiff1d(_candidates(var, cand.size + size // 4), cand)
        new = over[np.argsort(-var[over], kind="stable")[:size]]  # at most `size` more, the largest first
        cand = np.union1d(cand, new)
        lam_c = lam[cand]
    return primal[1], dual[1]


def _first(item):
    return item[0]


def tree_minimax_weights(R, A, parent, *, tol: float = 1e-6, candidates: int = 5000, warm: int = 20,
                         rounds: int = 20) -> WeightsResult:
    """The minimax-MSE optimum on a tree strategy (see the module docstring), certified by its dual.

    ``parent[v]``: the row of v's parent node (-1 for a root), as for
    :func:`~dpverify.continual.tree_weights.tree_optimal_weights`.  ``candidates``: the size of the
    first candidate set, picked after ``warm`` ascent steps on the whole tree; ``rounds``: the most
    checks on the whole tree.  The result is certified
    (``result.certified``) when its relative gap is at most ``tol``; if the search stops short, the
    returned weights are still exactly feasible and the gap is what it is.

    Example
    -------
    >>> from dpverify.continual.elders_tree import elders_strategy_parts
    >>> from dpverify.continual.tree_weights import elders_parents
    >>> R, A, offsets = elders_strategy_parts(30, 3)
    >>> r = tree_minimax_weights(R, A, elders_parents(offsets, 3))
    >>> r.kind, r.certified, r.relative_gap < 1e-6
    ('minimax', True, True)
    """
    from dpverify.progress import progress

    tol = check_real(tol, "tol", positive=True)
    if not tol < 1:
        raise ValueError(f"tol must be in (0, 1), got {tol!r}")
    candidates = check_positive_int(candidates, "candidates")
    rounds = check_positive_int(rounds, "rounds", maximum=1000)
    warm = check_positive_int(warm, "warm", maximum=10_000)
    parts = tree_parts(R, A, parent)
    B2, keep = parts["B2"], parts["keep"]
    full = _Forest(B2, parts["a"], keep, _levels(parts))
    with progress("minimax weights", total=rounds, every=2.0) as tick:
        lam_p, lam = _search(parts, full, tol, candidates, rounds, warm, tick)
    d, s, _ = tree_total_at(parts, B2.T @ lam_p)  # proof: minimax-primal
    x = np.zeros(d.size)
    x[keep] = 1.0 / d[keep] ** 2
    primal = float((B2 @ x).max())
    _, _, mu = tree_total_at(parts, B2.T @ lam)  # the multipliers of the bound's λ (its d is not used)
    return WeightsResult(d, primal, dual_bound(R, A, mu, lam), "minimax", s, tol, mu)  # proof: minimax-certificate
