"""Utility of the published data, as Gu, Zhang and Song's §3 measures it (Figs. 2–6).

* **MSE** ("matrix low-rank approximation error"): mean over all n·p entries of
  (X′ − X)², both mapped by the min–max scaling of the original data (so every
  feature is on [0, 1] and the methods are compared in one unit).
* **SVM accuracy**: a linear SVM (scikit-learn ``LinearSVC``, squared hinge, C = 1,
  primal solver) trained on the published rows with the records' labels and
  tested on held-out *original* data, all scaled by the training data's min–max map.
  Held-out data: Adult — ``adult.test`` (16,281 rows); MAGIC — a stratified
  30 % split fixed by seed 0 (the rest, 13,314 rows, is what gets published).
* ``explained_variance``: cumulative eigenvalue share of the min–max-normalised
  data (Fig. 2).

Every grid cell is averaged over ``runs`` independent publications (the paper: 5).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from dpverify.validation import (as_generator, check_bool, check_elements, check_epsilon, check_finite_array,
                                 check_positive_int)
from dpverify.pca.ppca import check_data, fit_ppca, minmax_normalise

__all__ = ["EvalRow", "METHODS", "at_majority_rate", "evaluate", "majority_rate", "explained_variance", "load_split", "make_mechanism",
           "mse", "svm_accuracy"]

#: method names accepted by :func:`make_mechanism` / :func:`evaluate`
METHODS = ("ppca", "ppca-dp", "pca-ppdp", "ppca-dp-corrected")


def load_split(dataset: str):
    """``(X_train, y_train, X_test, y_test, bounds)`` for "adult" or "magic" (see module docstring).

    Example
    -------
    >>> Xtr, ytr, Xte, yte, bounds = load_split('magic')
    >>> Xtr.shape[1], Xte.shape[1], len(bounds[0])
    (10, 10, 10)
    """
    from dpverify import datasets

    if dataset == "adult":
        X, y = datasets.load_adult()
        Xt, yt = datasets.load_adult(split="test")
        return X, y, Xt, yt, datasets.ADULT_BOUNDS
    if dataset == "magic":
        from sklearn.model_selection import train_test_split

        X, y = datasets.load_magic()
        X, Xt, y, yt = train_test_split(X, y, test_size=0.3, random_state=0, stratify=y)
        return X, y, Xt, yt, datasets.MAGIC_BOUNDS
    raise ValueError(f"dataset must be 'adult' or 'magic', got {dataset!r}")


def make_mechanism(method: str, k: int, epsilon: float | None, bounds=None):
    """The mechanism object for a method name (``epsilon`` is ignored by "ppca").

    Example
    -------
    >>> make_mechanism('ppca-dp', 2, 1.0)
    PPCADP(k=2, epsilon=1.0, sensitivity=None)
    """
    from dpverify.pca import PPCA, PPCADP, CorrectedPPCADP, PCABasedPPDP
    from dpverify.pca.noise import bounds_length

    if bounds is not None:
        bounds_length(bounds)  # checked whenever given; only "ppca-dp-corrected" uses them
    if method == "ppca":
        return PPCA(k)
    if method == "ppca-dp":
        return PPCADP(k, epsilon)
    if method == "pca-ppdp":
        return PCABasedPPDP(k, epsilon)
    if method == "ppca-dp-corrected":
        if bounds is None:
            raise ValueError("method 'ppca-dp-corrected' needs public bounds")
        return CorrectedPPCADP(k, epsilon, bounds)
    raise ValueError(f"method must be one of {METHODS}, got {method!r}")


def _scaling(X: np.ndarray, name: str) -> tuple[np.ndarray, np.ndarray]:
    _, lo, span = minmax_normalise(X, name)
    return lo, span


def mse(published, original) -> float:
    """Mean squared entrywise error after min–max scaling both by the original's map.

    Example
    -------
    >>> mse([[0.0, 10.0], [2.0, 20.0]], [[0.0, 10.0], [2.0, 30.0]])
    0.0625
    """
    X = check_data(original, "original")
    P = check_finite_array(published, "published", shape=X.shape)
    lo, span = _scaling(X, "original")
    with np.errstate(over="ignore"):
        err = float(np.mean(((P - X) / span) ** 2))
    if not np.isfinite(err):
        raise ValueError("published is too far from original: the scaled squared error overflows float64")
    return err


def svm_accuracy(published, y_train, X_test, y_test, *, reference=None) -> float:
    """Accuracy on (X_test, y_test) of a LinearSVC trained on (published, y_train).

    ``reference`` (default: ``published``) fixes the min–max scaling applied to both;
    the evaluation passes the original training data (the scaling is not part of the release).

    Example
    -------
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(200, 2)); y = (X[:, 0] > 0).astype(int)
    >>> svm_accuracy(X[:100], y[:100], X[100:], y[100:]) > 0.9
    True
    """
    from sklearn.svm import LinearSVC

    P = check_data(published, "published")
    Xt = check_data(X_test, "X_test", min_rows=1)
    if Xt.shape[1] != P.shape[1]:
        raise ValueError(f"X_test must have {P.shape[1]} columns, got {Xt.shape[1]}")
    ytr = _labels(y_train, "y_train")
    yte = _labels(y_test, "y_test")
    if ytr.shape != (P.shape[0],) or yte.shape != (Xt.shape[0],):
        raise ValueError(f"y_train/y_test must have lengths {P.shape[0]}/{Xt.shape[0]}, got {ytr.shape}/{yte.shape}")
    lo, span = _scaling(check_data(reference, "reference") if reference is not None else P,
                        "reference" if reference is not None else "published")
    clf = LinearSVC(C=1.0, dual=False, max_iter=2000).fit((P - lo) / span, ytr)
    return float(clf.score((Xt - lo) / span, yte))


def _labels(y, name: str) -> np.ndarray:
    """Class labels: a 1-d array of integers, bools or text (a float label must be an integer value)."""
    if y is None or isinstance(y, (str, bytes)):
        raise TypeError(f"{name} must be an array of class labels, got {y!r}")
    arr = np.asarray(y)
    check_elements(arr, name)
    def label(v) -> bool:
        if isinstance(v, (str, bool, int, np.integer, np.bool_)):
            return True
        return isinstance(v, (float, np.floating)) and float(v).is_integer() and abs(float(v)) < 2**53

    if arr.ndim != 1 or arr.dtype.kind == "c" or arr.dtype.kind in "fO" and not all(map(label, arr.tolist())):
        raise ValueError(f"{name} must be a 1-d array of class labels (integers or text), got "
                         f"{arr.dtype} of shape {arr.shape}")
    return arr


def explained_variance(X) -> np.ndarray:
    """Cumulative share of the eigenvalues of the min–max-normalised data (Fig. 2).

    Example
    -------
    >>> from dpverify.datasets import load_magic
    >>> int(np.argmax(explained_variance(load_magic()[0]) >= 0.9)) + 1
    4
    """
    Xn, _, _ = minmax_normalise(check_data(X))
    return np.cumsum(fit_ppca(Xn, 1).explained_variance_ratio)


@dataclass(frozen=True)
class EvalRow:
    """One grid cell: mean and standard deviation over ``runs`` publications.

    Example
    -------
    >>> rows = evaluate('magic', methods=('ppca',), ks=[2], runs=1, svm=False, max_rows=300, rng=0)
    >>> isinstance(rows[0], EvalRow), rows[0].method, rows[0].k
    (True, 'ppca', 2)
    """

    dataset: str
    method: str
    epsilon: float | None
    k: int
    runs: int
    mse_mean: float
    mse_std: float
    acc_mean: float | None
    acc_std: float | None
    majority_rate: float | None = None   # share of the test set's most frequent label
    test_size: int | None = None


def majority_rate(y) -> float:
    """The share of the most frequent label: the accuracy of always predicting that label.

    Example
    -------
    >>> majority_rate([0, 1, 1, 1])
    0.75
    """
    y = np.asarray(y)
    check_elements(y, "y")
    if y.ndim != 1 or y.size == 0:
        raise ValueError(f"y must be a non-empty 1-d array of labels, got shape {y.shape}")
    if y.dtype.kind in "fc" and not np.isfinite(y).all():
        raise ValueError("y must hold finite labels, got NaN or an infinity")
    return float(np.unique(y, return_counts=True)[1].max() / y.size)


def at_majority_rate(row: "EvalRow") -> bool:
    """Whether the row's mean SVM accuracy is the majority-class rate (to one test record).

    Then the classifier predicted one class for every record in every run.

    Example
    -------
    >>> r = EvalRow("x", "ppca-dp", 1.0, 1, 5, 0.1, 0.0, 0.75, 0.0, majority_rate=0.75, test_size=4)
    >>> at_majority_rate(r), at_majority_rate(EvalRow("x", "ppca", None, 1, 5, 0.1, 0.0, None, None))
    (True, False)
    """
    if not isinstance(row, EvalRow):
        raise TypeError(f"row must be an EvalRow (from evaluate), got {type(row).__name__}")
    if row.acc_mean is None or row.majority_rate is None or not row.test_size:
        return False
    return abs(row.acc_mean - row.majority_rate) < 0.5 / row.test_size


def _run_cell(task) -> EvalRow:
    """One grid cell (module-level so that worker processes can run it)."""
    dataset, m, e, k, runs, seed, svm, X, y, Xt, yt, bounds = task
    pubs = make_mechanism(m, k, e, bounds).publish_many(X, runs, np.random.default_rng(seed))
    errs = [mse(P, X) for P in pubs]
    accs = [svm_accuracy(P, y, Xt, yt, reference=X) for P in pubs] if svm else None
    return EvalRow(dataset, m, e, k, runs, float(np.mean(errs)), float(np.std(errs)),
                   None if accs is None else float(np.mean(accs)),
                   None if accs is None else float(np.std(accs)),
                   majority_rate(yt), int(len(yt)))


def _seed_sequence(rng) -> np.random.SeedSequence:
    if rng is None or isinstance(rng, np.random.Generator):
        return np.random.SeedSequence(int(as_generator(rng).integers(2 ** 63)))
    as_generator(rng)  # validates an int seed
    return np.random.SeedSequence(int(rng))


def evaluate(dataset: str, *, methods=("ppca", "ppca-dp", "pca-ppdp"), epsilons=(0.1, 0.5, 1.0),
             ks=None, runs: int = 5, svm: bool = True, max_rows: int | None = None,
             max_test_rows: int | None = None, rng=None, jobs: int = 1, progress=None) -> list[EvalRow]:
    """The paper's grid: every method × ε × k, ``runs`` publications each, MSE and SVM accuracy.

    ``ks`` defaults to 1..p; ``max_rows`` publishes a seeded random subsample and
    ``max_test_rows`` tests on one (for quick checks).  PPCA ignores ε (one row per k with
    ``epsilon=None``).  Every cell draws from its own child of ``SeedSequence(rng)``, so the
    result does not depend on ``jobs`` (worker processes); ``progress(done, total)`` is
    called after every cell.

    Example
    -------
    >>> rows = evaluate("magic", methods=("ppca",), ks=(2,), runs=1, svm=False, max_rows=500, rng=0)
    >>> rows[0].method, rows[0].k, rows[0].mse_mean < 0.05
    ('ppca', 2, True)
    """
    for name, seq in (("methods", methods), ("epsilons", epsilons), ("ks", () if ks is None else ks)):
        if isinstance(seq, (str, bytes)) or not hasattr(seq, "__len__") or np.ndim(seq) != 1 or len(seq) > 1000:
            raise TypeError(f"{name} must be a sequence (of at most 1000 entries), got {seq!r}")
    for m in methods:
        if not isinstance(m, str) or m not in METHODS:
            raise ValueError(f"methods must be drawn from {METHODS}, got {m!r}")
    eps_list = [check_epsilon(e, "epsilons") for e in epsilons]
    runs = check_positive_int(runs, "runs", maximum=10_000)
    jobs = check_positive_int(jobs, "jobs", maximum=1024)
    svm = check_bool(svm, "svm")
    if progress is not None and not callable(progress):
        raise TypeError(f"progress must be callable(done, total) or None, got {type(progress).__name__}")
    ss = _seed_sequence(rng)
    g = np.random.default_rng(ss.spawn(1)[0])          # subsampling stream
    X, y, Xt, yt, bounds = load_split(dataset)
    if max_rows is not None:
        max_rows = check_positive_int(max_rows, "max_rows")
        if max_rows < X.shape[0]:
            idx = np.sort(g.choice(X.shape[0], size=max_rows, replace=False))
            X, y = X[idx], y[idx]
    if max_test_rows is not None:
        max_test_rows = check_positive_int(max_test_rows, "max_test_rows")
        if max_test_rows < Xt.shape[0]:
            idx = np.sort(g.choice(Xt.shape[0], size=max_test_rows, replace=False))
            Xt, yt = Xt[idx], yt[idx]
    p = X.shape[1]
    ks = list(range(1, p + 1)) if ks is None else [check_positive_int(k, "ks", maximum=p) for k in ks]
    cells = [(m, None if m == "ppca" else e, k) for m in methods for e in (eps_list[:1] if m == "ppca" else eps_list)
             for k in ks]
    cell_seeds = ss.spawn(len(cells))                   # one independent stream per cell
    tasks = [(dataset, m, e, k, runs, cell_seeds[i], svm, X, y, Xt, yt, bounds) for i, (m, e, k) in enumerate(cells)]
    out: list[EvalRow] = []
    if jobs == 1:
        results = map(_run_cell, tasks)
    else:
        from concurrent.futures import ProcessPoolExecutor

        pool = ProcessPoolExecutor(max_workers=jobs)
        results = pool.map(_run_cell, tasks)
    try:
        for row in results:
            out.append(row)
            if progress is not None:
                progress(len(out), len(cells))
    finally:
        if jobs > 1:
            pool.shutdown()
    return out


def timed_evaluate(dataset: str, **kw) -> tuple[list[EvalRow], float]:
    """:func:`evaluate` plus its wall-clock seconds (for the CLI and benchmarks)."""
    t = time.perf_counter()
    rows = evaluate(dataset, **kw)
    return rows, time.perf_counter() - t
