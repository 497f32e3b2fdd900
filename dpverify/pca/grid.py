"""The utility grid of Gu, Zhang and Song's Figs. 3–6 as the room's claims run it, and the noise-scale sweep.

:func:`figure_grid` evaluates PPCA, PPCA-DP and PCA-based PPDP on one data set at ε ∈
:data:`EPSILONS`: a quick subsample by default (a few k, 2 runs, :data:`QUICK_ROWS` rows), the
paper's full grid (all rows, every k, 5 runs) with ``thorough=True``.  Results are cached per
process, so the claims of Figs. 3–6 share one evaluation.  :func:`method_table` reads one
method's curve out of the rows; :func:`svm_noise_sweep` measures the SVM accuracy under other
readings of the noise scale eq. (16) lost in extraction.

Example
-------
>>> rows, setup = figure_grid("magic")
>>> sorted(method_table(rows, "ppca-dp")) == list(EPSILONS), setup["ks"]
(True, [1, 4, 7, 10])
"""

from __future__ import annotations

import functools
import math

import numpy as np

from dpverify.validation import check_bool, check_epsilon, check_nonneg_int, check_positive_int, check_real

__all__ = ["EPSILONS", "QUICK_ROWS", "figure_grid", "figure_grids", "method_table", "svm_noise_sweep"]

#: the privacy budgets of Figs. 3–6
EPSILONS = (0.1, 0.5, 1.0)
#: training rows of the quick grid (the test set is subsampled to 4000 rows)
QUICK_ROWS = 2000
#: the data sets of Figs. 3–6
DATASETS = ("adult", "magic")


@functools.lru_cache(maxsize=4)
def figure_grid(dataset: str, thorough: bool = False):
    """``(rows, setup)``: the :class:`~dpverify.pca.evaluate.EvalRow` s of one data set's grid and how
    it was run (rows, ks, runs, seed).

    Example
    -------
    >>> rows, setup = figure_grid("magic")
    >>> sorted({r.method for r in rows}), setup["runs"]
    (['pca-ppdp', 'ppca', 'ppca-dp'], 2)
    """
    from dpverify.pca.evaluate import evaluate

    if check_bool(thorough, "thorough"):
        rows = evaluate(dataset, methods=("ppca", "ppca-dp", "pca-ppdp"), epsilons=EPSILONS, runs=5, rng=5, jobs=2)
        return rows, {"rows": "all", "ks": "1..p", "runs": 5, "seed": 5}
    ks = (1, 5, 9, 21) if dataset == "adult" else (1, 4, 7, 10)
    rows = evaluate(dataset, methods=("ppca", "ppca-dp", "pca-ppdp"), epsilons=EPSILONS, ks=ks, runs=2,
                    max_rows=QUICK_ROWS, max_test_rows=4000, rng=5)
    return rows, {"rows": QUICK_ROWS, "test_rows": 4000, "ks": list(ks), "runs": 2, "seed": 5}


def figure_grids(thorough: bool = False) -> dict:
    """``{dataset: figure_grid(dataset, thorough)}`` for Adult and MAGIC.

    Example
    -------
    >>> sorted(figure_grids())
    ['adult', 'magic']
    """
    thorough = check_bool(thorough, "thorough")
    return {d: figure_grid(d, thorough) for d in DATASETS}


def method_table(rows, method: str, what: str = "mse_mean") -> dict:
    """``{epsilon: [(k, value), ...]}`` for one method, sorted by k (epsilon None for PPCA).

    Example
    -------
    >>> from types import SimpleNamespace as Row
    >>> rows = [Row(method="ppca-dp", epsilon=1.0, k=k, mse_mean=0.1 * k) for k in (3, 1)]
    >>> method_table(rows, "ppca-dp")
    {1.0: [(1, 0.1), (3, 0.30000000000000004)]}
    """
    if not isinstance(method, str):
        raise TypeError(f"method must be a method's name (text), got {method!r}")
    if isinstance(rows, (str, bytes)) or not hasattr(rows, "__iter__"):
        raise TypeError(f"rows must be a sequence of evaluation rows, got {type(rows).__name__}")
    t: dict = {}
    for r in rows:
        if not all(hasattr(r, a) for a in ("method", "epsilon", "k", what)):
            raise TypeError(f"rows must hold evaluation rows (method, epsilon, k, {what}), got {type(r).__name__}")
        if r.method == method:
            t.setdefault(r.epsilon, []).append((r.k, getattr(r, what)))
    return {e: sorted(v) for e, v in t.items()}


def _multipliers(multipliers) -> list[float]:
    """The noise-scale multipliers of :func:`svm_noise_sweep`: 1 to 100 finite reals > 0."""
    if isinstance(multipliers, (str, bytes)) or not hasattr(multipliers, "__iter__") or np.ndim(multipliers) != 1:
        raise TypeError(f"multipliers must be a sequence of numbers > 0, got {multipliers!r}")
    if not 1 <= len(multipliers) <= 100:
        raise ValueError(f"multipliers must hold 1 to 100 values, got {len(multipliers)}")
    return [check_real(m, "multipliers", positive=True) for m in multipliers]


def svm_noise_sweep(dataset: str, multipliers=(1.0, 0.1, 0.01, 0.001), ks=None, epsilon: float = 1.0,
                    runs: int = 2, max_rows: int = 2000, max_test_rows: int = 4000, rng: int = 5) -> dict:
    """SVM accuracy of PPCA-DP for other readings of the lost noise scale of eq. (16), and of the baseline.

    Alg. 2's noise Lap(Δ/ε) lost Δ in extraction; dpverify reads Δ = √(k p).  Readings such as Δ = k,
    √k or 1 are the multipliers √(k/p), … of that scale; each multiplier m publishes with
    Δ = m·√(k p).  Returns ``{"ks", "majority_rate", "baseline": [...], "ppca_dp": {m: [...]}}``.

    Example
    -------
    >>> r = svm_noise_sweep("magic", multipliers=(1.0,), ks=(1,), runs=1, max_rows=300, max_test_rows=300)
    >>> sorted(r)
    ['baseline', 'ks', 'majority_rate', 'ppca_dp']
    """
    from dpverify.pca import PCABasedPPDP, PPCADP
    from dpverify.pca.evaluate import load_split, svm_accuracy

    mults = _multipliers(multipliers)
    epsilon = check_epsilon(epsilon)
    runs = check_positive_int(runs, "runs", maximum=1000)
    # a budget up front: the datasets have < 10^6 rows, so a larger cap only means "all rows"
    max_rows = check_positive_int(max_rows, "max_rows", maximum=10 ** 6)
    max_test_rows = check_positive_int(max_test_rows, "max_test_rows", maximum=10 ** 6)
    g = np.random.default_rng(check_nonneg_int(rng, "rng"))
    X, y, Xt, yt, _ = load_split(dataset)
    if max_rows < 2:
        raise ValueError(f"max_rows must be >= 2 (a covariance needs two records), got {max_rows}")
    i = np.sort(g.choice(X.shape[0], size=min(max_rows, X.shape[0]), replace=False))
    j = np.sort(g.choice(Xt.shape[0], size=min(max_test_rows, Xt.shape[0]), replace=False))
    X, y, Xt, yt = X[i], y[i], Xt[j], yt[j]
    p = X.shape[1]
    if ks is not None and (isinstance(ks, (str, bytes)) or not hasattr(ks, "__iter__") or np.ndim(ks) != 1):
        raise TypeError(f"ks must be a sequence of component counts in 1..{p}, got {ks!r}")
    ks = [check_positive_int(k, "ks", maximum=p) for k in ks] if ks is not None else [
        1, max(2, p // 4), max(3, p // 2), p]

    def acc(mech):
        pubs = mech.publish_many(X, runs, rng=g)
        return float(np.mean([svm_accuracy(P, y, Xt, yt, reference=X) for P in pubs]))

    out = {"ks": ks, "majority_rate": float(max(yt.mean(), 1 - yt.mean())),
           "baseline": [acc(PCABasedPPDP(k, epsilon)) for k in ks], "ppca_dp": {}}
    for m in mults:
        out["ppca_dp"][m] = [acc(PPCADP(k, epsilon, sensitivity=m * math.sqrt(k * p))) for k in ks]
    return out
