"""k-ary Fenwick trees with the optimal diagonal (the k-ary FDA), for any n and any k >= 2.

Beyond the paper (Cai, Wu and Wang's §6 leaves "further improvement" open).  Write t in
base k and let v = v_k(t) be its number of trailing zero digits.  Node t sums
the counts ``a_j`` for ``t - k^v < j <= t`` (for k = 2 this is the Fenwick
node of eq. 5.5); release t adds the nodes on its descent path
``t, t - k^{v(t)}, ...`` (eq. 5.6 with ``lowbit`` replaced by ``k^{v_k(t)}``),
so it uses as many nodes as the digit sum of t.  Equivalently: the complete
k-ary tree with the last child of every node removed.  The strategy M is
unit lower triangular, W = B·M, and the diagonal weighting Σ of (5.8) gives
the problem (5.10) with these M and B.

The tree is :mod:`dpverify.continual.kary_tree`, the optimal diagonal
:mod:`dpverify.continual.kary_optimum` (both re-exported here); this module holds the method:
its exact MSE, strategy, batch release and :class:`KaryStream`.

Example
-------
>>> import numpy as np
>>> from dpverify.continual.kary import kary_weights
>>> from dpverify.continual.fda import fda_weights
>>> bool(np.allclose(kary_weights(11, 2), fda_weights(11)))
True
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from dpverify.continual.checks import check_eps, check_n, check_noise, check_result
from dpverify.continual.kary_optimum import (  # noqa: F401  (public names, also importable from here)
    best_branching,
    check_objective,
    kary_errors,
    kary_minimax_value,
    kary_optimum,
    kary_weights,
    resolve_branching,
)
from dpverify.continual.kary_tree import (  # noqa: F401
    check_branching,
    kary_column_sq_norms,
    kary_digits,
    kary_levels,
    kary_node_span,
    kary_node_sums,
    kary_path_sums,
    kary_recombination,
    kary_strategy_matrix,
)
from dpverify.continual.streams import CHUNK, BoundedStream, draw_run
from dpverify.validation import as_generator, check_budget, check_counts
from dpverify.proofdocs import proven

__all__ = [
    "check_branching",
    "kary_levels",
    "kary_digits",
    "kary_node_span",
    "kary_strategy_matrix",
    "kary_recombination",
    "kary_column_sq_norms",
    "kary_errors",
    "kary_optimum",
    "kary_minimax_value",
    "kary_weights",
    "kary_path_sums",
    "kary_expected_mse",
    "kary_strategy",
    "kary_release",
    "KaryStream",
    "best_branching",
]


@proven("continual/kary_recursion.md")
def kary_expected_mse(
    n: int, epsilon: float, *, branching: int | None = None, objective: str = "total", noise: str = "laplace"
) -> np.ndarray:
    """Exact MSE of each release of the weighted k-ary tree: ``Σ_{path(t)} var_i``, no Monte Carlo.

    ``noise="laplace"``: node variance ``2/(ε λ_i)²``; ``"discrete"``: two-sided geometric with
    ``r = exp(-ε λ_i)``, variance ``2r/(1-r)²``.

    Example
    -------
    >>> from dpverify.continual.fda import fda_weights
    >>> from dpverify.continual.fenwick import weighted_expected_mse   # k = 2: FDA on the Fenwick forest of n
    >>> bool(np.allclose(kary_expected_mse(20, 1.0, branching=2), weighted_expected_mse(fda_weights(20), 1.0)))
    True
    """
    n = check_n(n, per_node=64, what=f"kary_expected_mse(n={n})")
    eps = check_eps(epsilon)
    k = resolve_branching(n, branching, objective)
    lam = kary_weights(n, k, objective)
    if noise == "laplace":
        var = 2.0 / (eps * lam) ** 2  # proof: kary-var
    elif noise == "discrete":
        var = 2.0 * np.exp(-eps * lam) / np.expm1(-eps * lam) ** 2
    else:
        raise ValueError(f"noise must be 'laplace' or 'discrete', got {noise!r}")
    return check_result(kary_path_sums(var, k), epsilon)


def kary_strategy(n: int, *, branching: int | None = None, objective: str = "total"):
    """``(R, A) = (B Σ⁻¹, Σ M)`` of the weighted k-ary tree (R @ A = W, max column l1 of A <= 1).

    Example
    -------
    >>> R, A = kary_strategy(5, branching=3)
    >>> bool(np.allclose((R @ A).toarray(), np.tril(np.ones((5, 5)))))
    True
    """
    n = check_n(n, per_node=lambda k: 24 * k.bit_length() + 64, what=f"kary_strategy(n={n})")
    k = resolve_branching(n, branching, objective)
    lam = kary_weights(n, k, objective)
    M = kary_strategy_matrix(n, k)
    B = kary_recombination(n, k)
    return (B @ sp.diags(1.0 / lam)).tocsr(), (sp.diags(lam) @ M).tocsr()


@proven("continual/kary_recursion.md")
def kary_release(counts, epsilon: float, rng=None, noise: str = "laplace", *, branching: int | None = None,
                 objective: str = "total") -> np.ndarray:
    """Batch release ``B Σ⁻¹ (Σ M a + Lap(1/ε))``; ``noise="discrete"``: ``B (M a + DLap(1/(ελ)))``, integers.

    Example
    -------
    >>> out = kary_release([1, 0, 2, 5], 1.0, rng=0, branching=3)
    >>> out.shape
    (4,)
    """
    a = check_counts(counts, "counts")
    if a.size < 1:
        raise ValueError("counts must be non-empty")
    eps = check_eps(epsilon)
    g = as_generator(rng)
    k = resolve_branching(a.size, branching, objective)
    lam = kary_weights(a.size, k, objective)
    c = kary_node_sums(a, k)
    check_noise(noise)
    z = np.concatenate([draw_run(lam[lo : lo + CHUNK], eps, g, noise) for lo in range(0, a.size, CHUNK)])
    if noise == "discrete":
        return kary_path_sums(c + z, k)  # integer nodes, DLap(1/(ελ_i)) each
    # ε-DP: every column sum of ΣM is <= 1, so Lap(1/ε) on ΣMa suffices
    y = lam * c + z  # proof: kary-release
    return kary_path_sums(y / lam, k)


class KaryStream(BoundedStream):
    """Online k-ary release: ``push(a_t)`` returns the noisy s_t in O(log_k n) work.

    Keeps, per level j, the true count since the last multiple of k^j (node t
    of level v is ``acc[v]``) and the noisy release at the last multiple of
    k^j (the base ``ŝ_{t - k^v}`` of eq. 5.6).  Noise is drawn from ``rng`` in
    chunks of :data:`~dpverify.continual.streams.CHUNK` nodes in node order, as
    the batch release draws it, so the same seed gives the same releases.

    Example
    -------
    >>> s = KaryStream(4, 1.0, rng=0, branching=3)
    >>> len([s.push(c) for c in (1, 0, 2, 1)]), s.remaining
    (4, 0)
    """

    def __init__(self, n: int, epsilon: float, rng=None, noise: str = "laplace", *, branching: int | None = None,
                 objective: str = "total"):
        super().__init__(n, epsilon, rng, noise)
        self.k = resolve_branching(self.n, branching, objective)
        # the weights of all n nodes are precomputed (about 17 bytes a node at the peak): refuse beyond the budget
        check_budget(24 * self.n, f"the kary-fda stream of n={self.n} releases (O(n) precomputed weights)")
        self._lam = kary_weights(self.n, self.k, objective)
        L = kary_levels(self.n, self.k)
        self._acc = [0] * (L + 1)
        self._base = [0 if noise == "discrete" else 0.0] * (L + 1)
        self._buf = None
        self._lo = 0

    def _draw(self, lo: int) -> None:
        # the same chunks, in the same order, as kary_release (lo a multiple of CHUNK)
        self._buf = draw_run(self._lam[lo : lo + CHUNK], self.epsilon, self._rng, self.noise)
        self._lo = lo

    def push(self, a_t) -> float:
        """Add the count of release t = pushes + 1; return the noisy s_t (refuses push n + 1)."""
        a = self.admit(a_t)
        if self._buf is None or self.t - self._lo >= self._buf.size:
            self._draw(self.t)
        t = self.t + 1
        v, r = 0, t
        while r % self.k == 0:
            v, r = v + 1, r // self.k
        acc = self._acc
        for j in range(len(acc)):
            acc[j] += a
        c = acc[v]  # node t covers the counts since the last multiple of k^v
        lam = self._lam[t - 1]
        if self.noise == "laplace":
            s = self._base[v] + (lam * c + self._buf[t - 1 - self._lo]) / lam
        else:
            s = self._base[v] + (c + int(self._buf[t - 1 - self._lo]))
        for j in range(v + 1):
            acc[j] = 0
            self._base[j] = s
        self.t = t
        return s

    def push_many(self, counts) -> np.ndarray:
        """Push a chunk of counts; return their noisy running totals, vectorised.

        The same noise, node sums and additions as one :meth:`push` per count (equal integers
        under discrete noise, equal floats under Laplace noise), so also :func:`kary_release`.

        Example
        -------
        >>> a, b = KaryStream(9, 1.0, rng=4, branching=3), KaryStream(9, 1.0, rng=4, branching=3)
        >>> a.push_many([1, 0, 2, 1]).tolist() + [a.push(3)] == [b.push(x) for x in (1, 0, 2, 1, 3)]
        True
        """
        return self._in_pieces(counts)

    def _chunk(self, a: np.ndarray) -> np.ndarray:
        lo, m, k = self.t + 1, a.size, self.k
        c, P = self._tree_nodes(a, lo, k, self._acc)
        z = self._run_noise(lo - 1, m)
        if self.noise == "laplace":
            lam = self._lam[lo - 1 : lo - 1 + m]
            x = (lam * c + z) / lam
        else:
            x = c + z
        out = self._tree_fill(x, lo, k, self._base)
        hi, total = lo + m - 1, int(P[-1])  # the new state: as after one push per count
        p = 1
        for j in range(len(self._acc)):
            mj = hi - hi % p  # the last multiple of k^j
            if mj >= lo:
                self._acc[j] = total - int(P[mj - lo])
                self._base[j] = out[mj - lo].item()
            else:
                self._acc[j] += total
            p *= k
        self.t = hi
        return out

def _register():
    from dpverify.continual.methods import ContinualMethod, register_method

    register_method(
        ContinualMethod(
            name="kary-fda",
            description="k-ary Fenwick tree with the optimal diagonal (options branching=k, objective='total'|'minimax')",
            expected_mse=kary_expected_mse,
            strategy=kary_strategy,
            release=kary_release,
            stream=KaryStream,
            online=True,
            reference="beyond Cai, Wu, Wang 2016: k-ary analogue of Thm 5.4 (proof continual/kary_recursion.md)",
        )
    )


_register()
