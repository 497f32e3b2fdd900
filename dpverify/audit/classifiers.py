"""Learned statistics for vector outputs: classifiers on feature maps, and the white-box
log-likelihood ratio.

A statistic T maps each output to one number; any T fixed before the estimation sample is
drawn gives valid events (``dpverify/audit/proofs/auditor_validity.md``), so classifiers are trained
on selection samples only (``dpverify/audit/proofs/selection.md``).  DP-Sniper (Bichsel et al.,
S&P 2021) thresholds a classifier's score; here the threshold (or union of score bins) is
chosen by the same event search as for any statistic.

A fitted logistic model also gives a *sparse* variant (:func:`sparse_logistic`): the coefficients
whose Wald statistic is below 3 in absolute value are set to zero.  On outputs where few of many
features carry the signal (RAPPOR's bits: 7 of 20 differ between the best pair's Bloom filters) the
noise weights of the full model interleave the score's levels, so its extreme event mixes output
states of different likelihood ratios; the sparse score keeps the levels apart.  The audit scores
both and keeps the better on draws that played no part in the fit.

Feature maps (:class:`FeatureMap`): the raw output with *flag values* (values that repeat
exactly, e.g. the ⊥/aborted markers −1000, −2000 of sparse-vector outputs) replaced by NaN,
the sorted non-flag values, per-flag counts and the first index of each flag.

Example
-------
>>> import numpy as np
>>> x = np.random.default_rng(0).normal(size=(500, 2))
>>> x[::3, 0] = -1000.0                         # a ⊥ marker in a third of the rows
>>> fm = FeatureMap.fit(x)
>>> fm.flags.tolist(), fm.discrete, fm(x[:1]).shape   # 2 raw + 2 sorted + 1 count + 1 first index
([-1000.0], False, (1, 6))
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import special

from dpverify.audit.white_box import LogLikelihoodRatio  # re-exported: it used to live here
from dpverify.validation import check_generator

__all__ = ["FeatureMap", "LogLikelihoodRatio", "fit_score", "sparse_logistic"]

_MAX_FLAGS = 4
_FLAG_SHARE = 0.01
_SPARSE_Z = 3.0  # |Wald z| below which sparse_logistic drops a coefficient
_WALD_ROWS = 50_000  # training rows (at most) the Wald standard errors are computed on
_LINEAR = ("logistic", "sparse logistic")


@dataclass(frozen=True)
class _LinearScore:
    """score(x) = w · [z, z²] + b with z the standardised flattened output (a fitted classifier)."""

    mean: np.ndarray
    std: np.ndarray
    w: np.ndarray
    b: float

    def __call__(self, outputs) -> np.ndarray:
        x = np.asarray(outputs, dtype=float).reshape(len(outputs), -1)
        z = (x - self.mean) / self.std
        k = z.shape[1]
        return z @ self.w[:k] + (z * z) @ self.w[k:] + self.b


def fit_classifier(out_d: np.ndarray, out_dp: np.ndarray) -> _LinearScore:
    """Logistic regression on [z, z²] separating M(D) (label 1) from M(D') (label 0).

    The auditor's ``statistic="classifier"``: the fitted score maps outputs to one number each
    (higher = more like M(D)); z is the output standardised on the training draws.

    Parameters
    ----------
    out_d, out_dp : numpy.ndarray
        Training outputs of M(D) and M(D'), one row (or value) per draw, at least one of each.

    Returns
    -------
    callable
        ``score(outputs) -> numpy.ndarray`` of shape (len(outputs),).

    Example
    -------
    >>> rng = np.random.default_rng(0)
    >>> score = fit_classifier(rng.laplace(0.0, 1.0, 500), rng.laplace(1.0, 1.0, 500))
    >>> bool(score(np.array([-2.0]))[0] > score(np.array([3.0]))[0])   # small outputs look like M(D)
    True
    >>> fit_classifier(np.zeros(0), np.zeros(3))
    Traceback (most recent call last):
    ...
    ValueError: out_d must hold at least one output, got shape (0,)
    """
    for name, out in (("out_d", out_d), ("out_dp", out_dp)):
        if np.ndim(out) < 1 or len(out) < 1:
            raise ValueError(f"{name} must hold at least one output, got shape {np.shape(out)}")
    if np.shape(out_d)[1:] != np.shape(out_dp)[1:]:
        raise ValueError(f"out_d and out_dp must have the same output shape, got {np.shape(out_d)[1:]} and {np.shape(out_dp)[1:]}")
    from sklearn.linear_model import LogisticRegression

    x = np.concatenate([out_d, out_dp]).astype(float).reshape(len(out_d) + len(out_dp), -1)
    y = np.concatenate([np.ones(len(out_d)), np.zeros(len(out_dp))])
    mean = x.mean(axis=0)
    std = x.std(axis=0)
    std[std == 0] = 1.0
    z = (x - mean) / std
    feats = np.hstack([z, z * z])
    model = LogisticRegression(max_iter=500).fit(feats, y)
    return _LinearScore(mean, std, model.coef_[0].copy(), float(model.intercept_[0]))




def check_outputs(x, name: str, *, finite: bool = True) -> np.ndarray:
    """Outputs of a mechanism as a non-empty numeric array (rows = outputs), finite unless ``finite=False``
    (the classifiers read NaN entries as flags): refused by name otherwise."""
    from dpverify.validation import check_elements

    if isinstance(x, (str, bytes)) or not isinstance(x, (np.ndarray, list, tuple)):
        raise TypeError(f"{name} must be an array of outputs, got {type(x).__name__}")
    check_elements(x, name)
    a = x if isinstance(x, np.ndarray) else np.asarray(x)
    if a.dtype.kind not in "biuf":
        raise TypeError(f"{name} must be a numeric array of outputs, got dtype {a.dtype}")
    if a.ndim == 0 or len(a) == 0:
        raise ValueError(f"{name} must hold at least one output, got shape {a.shape}")
    if finite and a.dtype.kind == "f" and not np.isfinite(a).all():
        raise ValueError(f"{name} must be finite, got a NaN or infinite output")
    return a


@dataclass(frozen=True, eq=False)
class FeatureMap:
    """Features of flattened vector outputs: raw (flags → NaN), sorted, flag counts, first flag index.

    Example
    -------
    >>> fm = FeatureMap.fit(np.array([[1, 0, -1], [0, 0, 1]]))
    >>> fm.discrete, fm(np.array([[1, 0, -1]])).shape   # 3 raw + 3 sorted + 3 counts + 3 first-index
    (True, (1, 12))
    """

    width: int
    flags: np.ndarray
    discrete: bool = False

    def __post_init__(self):
        from dpverify.validation import check_bool, check_positive_int

        check_positive_int(self.width, "width")
        if not isinstance(self.flags, np.ndarray):
            raise TypeError(f"flags must be a numpy array of flag values, got {type(self.flags).__name__}")
        if self.flags.ndim != 1 or self.flags.dtype.kind not in "iuf":  # ±inf and NaN may be flags
            raise ValueError(f"flags must be a 1-D array of numbers, got shape {self.flags.shape}, dtype {self.flags.dtype}")
        check_bool(self.discrete, "discrete")

    @classmethod
    def fit(cls, outputs) -> "FeatureMap":
        """Flags: up to four values that make up ≥ 1 % of the entries of ``outputs``.  When they cover
        (almost) every entry the outputs are discrete: the raw values are kept, the flags only counted."""
        x = np.asarray(outputs, dtype=float).reshape(len(outputs), -1)
        vals, freq = np.unique(x, return_counts=True)
        share = freq / max(x.size, 1)
        order = np.argsort(-share, kind="stable")
        top = order[:_MAX_FLAGS][share[order[:_MAX_FLAGS]] >= _FLAG_SHARE]
        return cls(x.shape[1], np.sort(vals[top]), bool(share[top].sum() > 0.99))

    def _scan(self, outputs):
        """The outputs as a float matrix, which entries are flags, and per flag its count and first
        index in each row (the width when absent): the one pass every feature builder shares."""
        x = np.asarray(outputs, dtype=float).reshape(len(outputs), -1)
        if x.shape[1] != self.width:
            raise ValueError(f"outputs have width {x.shape[1]}, the feature map was fitted on width {self.width}")
        is_flag = np.zeros(x.shape, bool)
        counts = np.empty((len(x), len(self.flags)))
        firsts = np.empty((len(x), len(self.flags)))
        for i, v in enumerate(self.flags):
            eq = x == v
            is_flag |= eq
            counts[:, i] = np.count_nonzero(eq, axis=1)
            firsts[:, i] = np.where(counts[:, i] > 0, eq.argmax(axis=1), self.width)
        return x, is_flag, counts, firsts

    def _holes(self, x, is_flag):
        """Entries the linear model sees as 0 plus an indicator: NaN, and the flags of value outputs."""
        return np.isnan(x) if self.discrete else is_flag | np.isnan(x)

    def __call__(self, outputs) -> np.ndarray:
        x, is_flag, counts, firsts = self._scan(outputs)
        raw = x if self.discrete else np.where(is_flag, np.nan, x)
        srt = np.sort(raw, axis=1)  # NaN (flags) sort last
        return np.hstack([raw, srt, counts, firsts])

    def linear_score(self, outputs, w: np.ndarray, b: float) -> np.ndarray:
        """``self.linear(outputs) @ w + b`` without building the feature matrix.

        >>> g = np.random.default_rng(0)
        >>> x = np.where(g.random((200, 3)) < 0.3, -1000.0, g.normal(size=(200, 3)))
        >>> fm = FeatureMap.fit(x)
        >>> w = g.normal(size=fm.linear(x).shape[1])   # 3 raw + 3 flag indicators + count + first index
        >>> bool(np.allclose(fm.linear_score(x, w, 0.5), fm.linear(x) @ w + 0.5))
        True
        """
        wd, k = self.width, len(self.flags)
        if len(w) != 2 * wd + 2 * k:
            raise ValueError(f"{len(w)} weights do not fit the feature map of width {wd} with {k} flags")
        x, is_flag, counts, firsts = self._scan(outputs)
        hole = self._holes(x, is_flag)
        return (np.where(hole, 0.0, x) @ w[:wd] + hole @ w[wd:2 * wd] + counts @ w[2 * wd:2 * wd + k]
                + firsts @ w[2 * wd + k:] + float(b))

    def linear(self, outputs) -> np.ndarray:
        """The linear model's features, ``_linear_features(self(outputs), width)``, built in place
        (no sorted block: the final audit applies it to every draw).

        >>> fm = FeatureMap.fit(np.array([[1.0, -1000.0], [2.0, 3.0]] * 60))
        >>> x = np.array([[1.0, -1000.0], [2.0, 3.0]])
        >>> bool(np.array_equal(fm.linear(x), _linear_features(fm(x), fm.width)))
        True
        """
        x, is_flag, counts, firsts = self._scan(outputs)
        hole = self._holes(x, is_flag)
        return np.hstack([np.where(hole, 0.0, x), hole, counts, firsts])


@dataclass(frozen=True, eq=False)
class _ModelScore:
    """score(x) = a fitted classifier's log-odds of "output came from D" on the feature map."""

    features: FeatureMap
    model: Any
    name: str

    def __call__(self, outputs) -> np.ndarray:
        from threadpoolctl import threadpool_limits

        if self.name in _LINEAR:  # the pipeline's affine map, folded: one matrix-vector product
            scaler, lr = self.model[0], self.model[-1]
            w = lr.coef_[0] / scaler.scale_
            return self.features.linear_score(outputs, w, float(lr.intercept_[0]) - float(scaler.mean_ @ w))
        f = self.features(outputs)
        with threadpool_limits(1):  # chunks may already run in parallel; OpenMP on top oversubscribes
            return np.asarray(self.model.decision_function(f), dtype=float)


def _linear_features(f: np.ndarray, width: int) -> np.ndarray:
    """For the linear model: the raw block (flags → 0), its flag indicators and the flag counts/first
    indices; the sorted block is left to the trees (it is collinear with the raw one)."""
    raw = f[:, :width]
    return np.hstack([np.nan_to_num(raw, nan=0.0), np.isnan(raw).astype(float), f[:, 2 * width:]])


def fit_score(out_d, out_dp, kind: str, *, rng: np.random.Generator) -> _ModelScore:
    """Train ``kind`` ("logistic" or "boosting") to tell M(D) (label 1) from M(D') (label 0).

    Example
    -------
    >>> g = np.random.default_rng(0)
    >>> s = fit_score(g.normal(1, 1, (500, 2)), g.normal(0, 1, (500, 2)), "logistic", rng=g)
    >>> bool(s(np.array([[3.0, 3.0]]))[0] > s(np.array([[-3.0, -3.0]]))[0])
    True
    """
    from sklearn.ensemble import HistGradientBoostingClassifier
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    from threadpoolctl import threadpool_limits

    out_d, out_dp = check_outputs(out_d, "out_d", finite=False), check_outputs(out_dp, "out_dp", finite=False)
    if out_d.shape[1:] != out_dp.shape[1:]:
        raise ValueError(f"out_d and out_dp must hold outputs of one shape, got {out_d.shape[1:]} and {out_dp.shape[1:]}")
    if kind not in ("logistic", "boosting"):
        raise ValueError(f"kind must be 'logistic' or 'boosting', got {kind!r}")
    check_generator(rng, "rng")
    fm = FeatureMap.fit(np.concatenate([out_d[:2000], out_dp[:2000]]))
    features = fm.linear if kind == "logistic" else fm
    x = np.vstack([features(out_d), features(out_dp)])
    y = np.concatenate([np.ones(len(out_d)), np.zeros(len(out_dp))])
    seed = int(rng.integers(0, 2**31 - 1))
    if kind == "logistic":
        model = make_pipeline(StandardScaler(), LogisticRegression(max_iter=300, C=1.0))
    elif kind == "boosting":
        keep = np.random.default_rng(seed).permutation(len(x))[:60_000]  # trees: 60k rows
        x, y = x[keep], y[keep]
        model = HistGradientBoostingClassifier(max_iter=40, learning_rate=0.2, max_leaf_nodes=31,
                                               early_stopping=False, random_state=seed)
    else:
        raise ValueError(f"kind must be 'logistic' or 'boosting', got {kind!r}")
    with threadpool_limits(1):  # measured 10x faster than OpenMP on a loaded 2-core machine
        model.fit(x, y)
    return _ModelScore(fm, model, kind)


def sparse_logistic(score: _ModelScore, out_d, out_dp) -> _ModelScore | None:
    """``score`` (a logistic model fitted on ``out_d``, ``out_dp``) with every coefficient whose Wald
    statistic |w_j| / se_j is below 3 set to zero; None when that drops no coefficient or all of them.

    Derived features can be exact linear functions of others (the count of ones among 0/1 outputs is
    the sum of the raw bits), and then a coefficient has no standard error of its own.  So the fitted
    linear predictor is first written over the features that are linearly independent of the ones
    before them (raw values first; ``_independent``), which represents it exactly; the standard
    errors are those of the maximum-likelihood fit in that basis: the inverse Fisher information
    Σ p̂(1 − p̂) z zᵀ over the training rows (z the standardised features and an intercept), computed
    on at most 50,000 rows and scaled to the whole training set.  A function of the training draws
    only, so the sparse score is as valid a statistic as the full one.

    Example
    -------
    >>> g = np.random.default_rng(0)
    >>> def bits(p):   # 20 independent bits; only the first 5 depend on the input
    ...     return (g.random((20_000, 20)) < np.r_[np.full(5, p), np.full(15, 0.5)]).astype(np.int64)
    >>> a, b = bits(0.55), bits(0.45)
    >>> full = fit_score(a, b, "logistic", rng=g)
    >>> sp = sparse_logistic(full, a, b)
    >>> w = sp.model[-1].coef_[0]
    >>> sp.name, np.flatnonzero(w).tolist()    # the five bits that carry the signal
    ('sparse logistic', [0, 1, 2, 3, 4])
    >>> x = np.vstack([a, b])
    >>> bool(np.corrcoef(full(x), sp(x))[0, 1] > 0.9)
    True
    """
    import copy

    from threadpoolctl import threadpool_limits

    if not isinstance(score, _ModelScore) or score.name != "logistic":
        raise ValueError(f"score must be a fitted logistic score (fit_score(..., 'logistic')), got "
                         f"{getattr(score, 'name', type(score).__name__)!r}")
    out_d, out_dp = check_outputs(out_d, "out_d", finite=False), check_outputs(out_dp, "out_dp", finite=False)
    for nm, out in (("out_d", out_d), ("out_dp", out_dp)):
        if int(np.prod(out.shape[1:], dtype=np.int64)) != score.features.width:
            raise ValueError(f"{nm} must hold outputs of width {score.features.width} (the fitted model's), "
                             f"got shape {out.shape}")
    scaler, lr = score.model[0], score.model[-1]
    n_fit = len(out_d) + len(out_dp)
    half = _WALD_ROWS // 2
    with threadpool_limits(1):  # one thread: as in fit_score, and the same rounding in every process
        z = scaler.transform(np.vstack([score.features.linear(out_d[:half]), score.features.linear(out_dp[:half])]))
        if not np.isfinite(z).all() or float(np.max(np.abs(z), initial=0.0)) > 1e150 / math.sqrt(len(z) + 1):
            raise ValueError("out_d and out_dp must be small enough for the model's standardised features to stay "
                             "finite, got outputs that overflow them")
        eta = z @ lr.coef_[0] + lr.intercept_[0]  # the fitted linear predictor
        # the intercept first, then the features independent of it and of each other (on these rows)
        full = np.hstack([np.ones((len(z), 1)), z])
        cols = _independent(full)
        design = full[:, cols]
        if not np.isfinite(eta).all():
            raise ValueError("out_d and out_dp must be small enough for the model's linear predictor to stay "
                             "finite, got outputs that overflow it")
        v = np.linalg.lstsq(design, eta, rcond=None)[0]  # the same predictor over the independent columns
        p = special.expit(design @ v)
        info = (design * (p * (1.0 - p))[:, None]).T @ design * (n_fit / len(z))  # Fisher information, n_fit rows
        try:
            se = np.sqrt(np.clip(np.diag(np.linalg.inv(info)), 1e-300, None))
        except np.linalg.LinAlgError:  # numerically singular: no standard errors, no sparse variant
            return None
    keep = np.abs(v) >= _SPARSE_Z * se
    feat, keep_f, v_f = cols[1:] - 1, keep[1:], v[1:]  # the features (column 0 is the intercept)
    if keep_f.all() or not keep_f.any():
        return None
    w = np.zeros(lr.coef_.shape[1])
    w[feat[keep_f]] = v_f[keep_f]
    model = copy.deepcopy(score.model)
    model[-1].coef_, model[-1].intercept_ = w[None, :], np.array([v[0]])
    return _ModelScore(score.features, model, "sparse logistic")


def _independent(z: np.ndarray, tol: float = 1e-9) -> np.ndarray:
    """Indices of the columns of ``z`` linearly independent of the kept columns before them: greedy
    Cholesky on the Gram matrix, a column dropped when its squared residual after projection on the
    kept ones is ≤ ``tol`` times its squared norm (zero columns included).  O(K³) for K columns.

    >>> z = np.array([[1.0, 0.0, 1.0, 2.0], [0.0, 1.0, 1.0, 0.0], [1.0, 1.0, 2.0, 5.0]])
    >>> _independent(z).tolist()     # column 2 is the sum of columns 0 and 1
    [0, 1, 3]
    """
    from scipy.linalg import solve_triangular

    g = z.T @ z
    k_all = g.shape[0]
    low = np.zeros((k_all, k_all))  # the Cholesky factor of the kept columns' Gram matrix, grown in place
    kept: list[int] = []
    for j in range(k_all):
        if g[j, j] <= 0:
            continue
        k = len(kept)
        c = solve_triangular(low[:k, :k], g[kept, j], lower=True) if k else np.zeros(0)  # L·c = G[kept, j]
        r2 = g[j, j] - c @ c
        if r2 <= tol * g[j, j]:
            continue
        low[k, :k], low[k, k] = c, math.sqrt(r2)
        kept.append(j)
    return np.asarray(kept, dtype=np.int64)
