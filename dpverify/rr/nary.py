"""The n-ary utility optimum of Zhou, Lu and Wu's model (19)–(20), in closed form, with its dual certificate.

The paper leaves the closed form open (§4, §5).  Derived here (see
``rr/nary_optimum.md``), with E = e^ε and Π_k the sum of the k largest
priors:

    u*(ε, δ) = δ + (1 − δ) · M*,     M* = max_{1≤k≤n} E Π_k / (E + k − 1).

An optimal mechanism is P* = δ I + (1 − δ) P_k where k attains M*, S is the
set of the k most likely inputs and P_k is k-ary randomized response on S:
row i ∈ S puts E/(E+k−1) on i and 1/(E+k−1) on each other output of S; a row
i ∉ S puts 1/k on each output of S; outputs outside S get 0.

Optimality is proven by an explicit dual solution of the LP (20) (per-output
constraints p_{aj} − E p_{cj} ≤ δ with multipliers λ_{acj} ≥ 0, row sums with
multipliers μ_i):

    μ_i = (E π_i − M*) / (E − 1) for i ∈ S, 0 otherwise;
    λ_{i c i} = μ_c / E for i, c ∈ S distinct;  λ_{i c i} = π_i μ_c / M* for i ∉ S, c ∈ S;
    all other λ = 0.

Its objective Σ μ_i + δ Σ λ equals u*.  P* also satisfies the *standard*
(ε, δ)-LDP definition (a δ-mixture with the identity of an ε-LDP matrix), so
u* is the optimum under both definitions.

Reference: Zhou, Lu, Wu 2019, §4, model (19)–(20).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from dpverify.validation import check_budget, check_delta, check_epsilon, check_probability_vector, check_real
from dpverify.toolkit.lp import rationals, to_fraction
from dpverify.proofdocs import proven

__all__ = [
    "ExactOptimum",
    "extreme_points",
    "exact_optimum",
    "optimal_mechanism",
    "optimal_support",
    "optimal_utility",
    "verify_certificate_exact",
]


def _check_pi(pi: Any, *, matrix: bool = False) -> np.ndarray:
    p = check_probability_vector(pi, "pi")
    if p.size < 2:
        raise ValueError(f"pi must have at least 2 entries (n >= 2), got {p.size}")
    if matrix:  # an n×n mechanism and two temporaries of that size
        check_budget(3 * 8.0 * p.size**2, f"pi with {p.size} entries (an n×n mechanism)")
    return p


@proven("rr/nary_optimum.md")
def optimal_support(pi: Any, epsilon: float) -> tuple[np.ndarray, float]:
    """(S, M*): the k most likely inputs attaining M* = max_k E Π_k / (E + k − 1), and M*.

    Ties in π are broken by index; ties in M* by the smallest k.

    Example
    -------
    >>> from dpverify.rr.nary import optimal_support
    >>> S, M = optimal_support([0.5, 0.3, 0.2], 1.0)
    >>> S.tolist(), round(M, 6)
    ([0, 1], 0.584847)
    """
    p = _check_pi(pi)
    einv = math.exp(-check_epsilon(epsilon))  # 1/E, no overflow for large ε
    order = np.argsort(-p, kind="stable")
    k = np.arange(1, p.size + 1)
    # M_k = E Π_k / (E + k − 1), divided through by E
    Mk = np.cumsum(p[order]) / (1 + (k - 1) * einv)  # proof: nary-Mk
    kstar = int(np.argmax(Mk)) + 1
    return np.sort(order[:kstar]), float(Mk[kstar - 1])


@proven("rr/nary_optimum.md")
def optimal_utility(pi: Any, epsilon: float, delta: float = 0.0) -> float:
    """u* = δ + (1 − δ) max_k E Π_k / (E + k − 1) of model (19)–(20).

    Example
    -------
    >>> from dpverify.rr.nary import optimal_utility
    >>> round(optimal_utility([0.2, 0.8], 0.1, 0.15), 12)   # the paper's worked example
    0.83
    """
    dlt = check_delta(delta)
    _, M = optimal_support(pi, epsilon)
    return dlt + (1 - dlt) * M  # proof: nary-u


@proven("rr/nary_optimum.md")
def optimal_mechanism(pi: Any, epsilon: float, delta: float = 0.0) -> tuple[np.ndarray, float]:
    """A utility-optimal (ε, δ)-LDP design matrix for prior ``pi`` and its utility.

    Works for any n ≥ 2 (n = 2 is the paper's models I and II).  The matrix
    satisfies (ε, δ)-LDP under both the per-output definition of the paper
    and the standard definition over sets of outputs.

    Parameters
    ----------
    pi : array_like, shape (n,)
        Input distribution.
    epsilon : float
        ε > 0.
    delta : float
        δ ∈ [0, 1).

    Returns
    -------
    (P, u) : (ndarray of shape (n, n), float)
        The design matrix ``P[i, j] = Pr(report j | true i)`` and u* = Σ π_i P[i, i].

    Example
    -------
    >>> from dpverify.rr import optimal_mechanism
    >>> P, u = optimal_mechanism([0.2, 0.8], 0.1, 0.15)   # the paper's §3 example
    >>> P.round(6).tolist(), round(u, 12)
    ([[0.15, 0.85], [0.0, 1.0]], 0.83)

    Reference: Zhou, Lu, Wu 2019, eqs. (4), (15), model (19)–(20); derivation in
    ``rr/nary_optimum.md``.

    Notes
    -----
    Entries 1/(e^ε + k − 1) underflow to 0 in float64 for ε beyond ~745, and
    the float matrix then stops being ε-LDP (the checker will say so); use
    :func:`exact_optimum` for such ε.
    """
    p = _check_pi(pi, matrix=True)
    eps = check_epsilon(epsilon)
    dlt = check_delta(delta)
    S, _ = optimal_support(p, eps)
    einv, n, k = math.exp(-eps), p.size, S.size
    P0 = np.zeros((n, n))
    P0[:, S] = 1.0 / k  # rows outside S: uniform on S  # proof: nary-kRR
    P0[np.ix_(S, S)] = einv / (1 + (k - 1) * einv)  # k-RR on S: 1/(E+k−1) off the diagonal  # proof: nary-kRR
    P0[S, S] = 1 / (1 + (k - 1) * einv)  # E/(E+k−1) on the diagonal  # proof: nary-kRR
    P = dlt * np.eye(n) + (1 - dlt) * P0  # proof: nary-mixture
    return P, float(p @ np.diag(P))


# ----------------------------------------------------------------------------- exact certificate


@dataclass(frozen=True)
class ExactOptimum:
    """The closed-form optimum in exact arithmetic with its dual solution.

    ``lam`` maps (a, c, j) to λ_{acj}, the multiplier of p_{aj} − E p_{cj} ≤ δ
    (only non-zero entries are stored).
    """

    P: tuple[tuple[Fraction, ...], ...]
    u: Fraction
    S: tuple[int, ...]
    mu: tuple[Fraction, ...]
    lam: dict


def _fractions(pi: Any, name: str) -> list[Fraction]:
    if hasattr(pi, "__len__") and not isinstance(pi, (str, bytes)):  # the n×n rationals, before parsing n entries
        check_budget(64.0 * len(pi) ** 2, f"{name} with {len(pi)} entries (an n×n mechanism of rationals)")
    out = rationals(pi, name)
    if any(x < 0 for x in out) or sum(out) != 1:
        raise ValueError(f"{name} must be a probability vector of rationals summing to 1, got {pi!r}")
    if len(out) < 2:
        raise ValueError(f"{name} must have at least 2 entries, got {len(out)}")
    return out


def _exact_E_delta(E: Any, delta: Any) -> tuple[Fraction, Fraction]:
    E, d = to_fraction(E, "E"), to_fraction(delta, "delta")
    if not E > 1:
        raise ValueError(f"E = e^epsilon must be > 1, got {E}")
    if not 0 <= d < 1:
        raise ValueError(f"delta must be in [0, 1), got {d}")
    return E, d


def exact_optimum(pi: Any, E: Any, delta: Any = 0) -> ExactOptimum:
    """The closed form and its dual certificate in rational arithmetic (E = e^ε > 1 rational).

    Example
    -------
    >>> from fractions import Fraction as F
    >>> from dpverify.rr.nary import exact_optimum, verify_certificate_exact
    >>> opt = exact_optimum([F(1, 2), F(3, 10), F(1, 5)], F(3), F(1, 10))
    >>> opt.u, all(verify_certificate_exact([F(1, 2), F(3, 10), F(1, 5)], F(3), F(1, 10), opt).values())
    (Fraction(16, 25), True)
    """
    p = _fractions(pi, "pi")
    E, d = _exact_E_delta(E, delta)
    n = len(p)
    order = sorted(range(n), key=lambda i: (-p[i], i))
    best_k, M, acc = 1, None, Fraction(0)
    for k in range(1, n + 1):
        acc += p[order[k - 1]]
        Mk = E * acc / (E + k - 1)
        if M is None or Mk > M:
            best_k, M = k, Mk
    S = sorted(order[:best_k])
    inS = [i in S for i in range(n)]
    k = best_k
    P = [[Fraction(0)] * n for _ in range(n)]
    for i in range(n):
        for j in S:
            P[i][j] = (E if i == j else 1) / (E + k - 1) if inS[i] else Fraction(1, k)
    P = [[(d if i == j else 0) + (1 - d) * P[i][j] for j in range(n)] for i in range(n)]
    mu = [(E * p[i] - M) / (E - 1) if inS[i] else Fraction(0) for i in range(n)]
    lam = {}
    for i in range(n):
        for c in S:
            if c == i:
                continue
            v = mu[c] / E if inS[i] else p[i] * mu[c] / M
            if v:
                lam[(i, c, i)] = v
    u = sum(p[i] * P[i][i] for i in range(n))
    return ExactOptimum(tuple(map(tuple, P)), u, tuple(S), tuple(mu), lam)


def verify_certificate_exact(pi: Any, E: Any, delta: Any, opt: ExactOptimum) -> dict[str, bool]:
    """Check, exactly and without using how ``opt`` was built, that it is an optimal primal–dual pair.

    LP (20) as a maximisation: max Σ π_i p_ii s.t. p_{aj} − E p_{cj} ≤ δ (λ_{acj} ≥ 0),
    Σ_j p_ij = 1 (μ_i free), p ≥ 0.  Its dual: min Σ μ_i + δ Σ λ s.t. for every
    (i, j) the reduced cost r_ij = μ_i + Σ_c λ_{icj} − E Σ_a λ_{aij} − π_i [i = j] ≥ 0.
    Returns the individual conditions (all must be True).

    Example
    -------
    >>> from fractions import Fraction as F
    >>> pi, E = [F(1, 5), F(4, 5)], F(11, 10)
    >>> opt = exact_optimum(pi, E)
    >>> verify_certificate_exact(pi, E, 0, opt)["zero_gap"]
    True
    >>> doubled = ExactOptimum(opt.P, opt.u, opt.S, tuple(2 * m for m in opt.mu), opt.lam)
    >>> verify_certificate_exact(pi, E, 0, doubled)["zero_gap"]    # a wrong dual value is caught
    False
    """
    if not isinstance(opt, ExactOptimum):
        raise TypeError(f"opt must be an ExactOptimum (from exact_optimum), got {type(opt).__name__}")
    p = _fractions(pi, "pi")
    E, d = _exact_E_delta(E, delta)
    n = len(p)
    P, mu, lam = opt.P, opt.mu, opt.lam
    if len(P) != n or any(len(r) != n for r in P) or len(mu) != n:
        raise ValueError("certificate dimensions do not match pi")
    from dpverify.toolkit.lp import exact_lp_certificate  # the one exact verifier (dpverify.toolkit)

    keys = [(a, c, j) for a in range(n) for c in range(n) if a != c for j in range(n)]
    row = {k: r for r, k in enumerate(keys)}
    if any(key not in row for key in lam):
        return {"primal_feasible": False, "dual_feasible": False, "complementary_slackness": False, "zero_gap": False}
    A_ub = {}
    for r, (a, c, j) in enumerate(keys):  # p_aj − E p_cj ≤ δ
        A_ub[(r, a * n + j)] = Fraction(1)
        A_ub[(r, c * n + j)] = -E
    A_eq = {(i, i * n + j): Fraction(1) for i in range(n) for j in range(n)}  # Σ_j p_ij = 1
    cvec = [p[i] if i == j else Fraction(0) for i in range(n) for j in range(n)]
    y_ub = [lam.get(k, Fraction(0)) for k in keys]
    cert = exact_lp_certificate(cvec, A_ub, [d] * len(keys), A_eq, [Fraction(1)] * n,
                                [P[i][j] for i in range(n) for j in range(n)], y_ub, list(mu))
    cert["zero_gap"] = cert["zero_gap"] and sum(p[i] * P[i][i] for i in range(n)) == opt.u
    return cert


# ----------------------------------------------------------------------------- extreme points (small n)


def extreme_points(n: int, epsilon: float, delta: float = 0.0, *, tol: float = 1e-9) -> np.ndarray:
    """All vertices of the per-output (ε, δ)-LDP polytope of n × n design matrices (small n only).

    The polytope {P ≥ 0, rows sum to 1, p_aj − e^ε p_cj ≤ δ} lives in n² variables; a vertex is a
    feasible point where n² linearly independent constraints are active (the n row sums and
    n² − n of the n³ − n² + n² inequalities).  All subsets are enumerated with batched solves, so
    this is meant for n ≤ 3 (n = 3: C(27, 6) = 296 010 systems).

    Returns an array of shape (V, n, n).  The LP optimum is the maximum of Σ π_i p_ii over them
    (the extreme-point method of Zhou, Lu, Wu 2019, §4).

    Example
    -------
    >>> from dpverify.rr.nary import extreme_points
    >>> V = extreme_points(2, 1.0)
    >>> len(V)                                  # A, B, C, D of Fig. 1
    4
    """
    import itertools

    from dpverify.validation import check_positive_int

    n = check_positive_int(n, "n")
    if not 2 <= n <= 3:
        raise ValueError(f"n must be 2 or 3 for vertex enumeration, got {n}")
    eps = check_epsilon(epsilon)
    dlt = check_delta(delta)
    tol = check_real(tol, "tol", nonneg=True)
    if not tol < 1e-3:
        raise ValueError(f"tol must be in [0, 1e-3) (a feasibility tolerance), got {tol!r}")
    # rows p_aj − e^ε p_cj ≤ δ, scaled by e^−ε for large ε (e^ε overflows float64 beyond 709.78)
    scale = 1.0 if eps <= 34.5 else math.exp(-eps)
    E = math.exp(eps) if scale == 1.0 else 1.0
    nx = n * n
    G, h = [], []  # inequalities G x ≤ h
    for a in range(n):
        for c in range(n):
            if a != c:
                for j in range(n):
                    row = np.zeros(nx)
                    row[a * n + j], row[c * n + j] = scale, -E
                    G.append(row)
                    h.append(scale * dlt)
    for k in range(nx):
        row = np.zeros(nx)
        row[k] = -1.0
        G.append(row)
        h.append(0.0)
    G, h = np.array(G), np.array(h)
    Aeq = np.kron(np.eye(n), np.ones((1, n)))
    combos = np.array(list(itertools.combinations(range(len(G)), nx - n)))
    verts = []
    for start in range(0, len(combos), 20000):
        C = combos[start : start + 20000]
        M = np.concatenate([np.broadcast_to(Aeq, (len(C), n, nx)), G[C]], axis=1)
        rhs = np.concatenate([np.ones((len(C), n)), h[C]], axis=1)
        ok = np.abs(np.linalg.det(M)) > 1e-9
        if not ok.any():
            continue
        X = np.linalg.solve(M[ok], rhs[ok][..., None])[..., 0]
        feas = np.all(X @ G.T <= h + tol, axis=1)
        verts.append(X[feas])
    V = np.concatenate(verts) if verts else np.zeros((0, nx))
    _, first = np.unique(np.round(V, 9), axis=0, return_index=True)  # the same vertex from several bases
    return V[np.sort(first)].reshape(-1, n, n)
