"""The statistical auditor: a lower bound on the ε a black-box mechanism really has.

Given a mechanism ``mechanism(data, rng, n)`` (n independent outputs along axis 0),
two neighbouring inputs ``d`` and ``d_prime`` and a claimed δ, the auditor

1. draws a *selection* sample from both inputs, counts it into bins of a scalar
   statistic of the output, and picks the event S (a union of bins: a threshold
   ``T ≤ t`` or ``T > t``, or the bins ordered by their observed likelihood ratio)
   and the direction (which input plays D) whose bound promises to be largest — or
   one event per direction, pooled (S1 likelier under D, S2 under D'), which doubles
   the trials for symmetric mechanisms;
2. draws a fresh, independent *estimation* sample, counts the draws in the event(s),
   and bounds P = Pr[M(D) ∈ S] from below and Q = Pr[M(D') ∈ S] from above (pooled:
   P = (Pr[M(D) ∈ S1] + Pr[M(D') ∈ S2])/2, Q the swap) with one-sided Clopper–Pearson
   intervals, each at level 1 − α/2 (Bonferroni over the two estimated quantities,
   α = 1 − confidence; level 1 − (1 − e^{−α/2}) when pooled);
3. reports ε_lb = ln((P_lower − δ) / Q_upper)  (0 when P_lower ≤ δ).

If the mechanism is (ε, δ)-DP then P ≤ e^ε Q + δ for every fixed S (and for the pooled
pair), and the events are fixed before the estimation sample is drawn, so
Pr[ε_lb > ε] ≤ α.  The argument is written out
in ``proofs/audit/auditor_validity.md``.

Reference: seed 002 (definition of (ε, δ)-DP); SPEC part D; Ding et al., CCS 2018
("Detecting violations of differential privacy") for the select/estimate split.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np
from scipy import stats

from dpverify._validation import (
    as_generator,
    check_confidence,
    check_delta,
    check_epsilon,
    check_positive_int,
    check_real,
)
from dpverify.claims.model import Verdict
from dpverify.proofdocs import proven

__all__ = [
    "AuditResult",
    "Event",
    "MechanismError",
    "clopper_pearson_lower",
    "clopper_pearson_upper",
    "epsilon_lower_bound",
    "PatternCode",
]

_DEFAULT_CHUNK = 1 << 19
_MAX_DISCRETE_BINS = 4096
_MAX_LUT = 1 << 22
_N_UNIFORM_EDGES = 1024
_N_TAIL_EDGES = 192
_CLASSIFIER_TRAIN = 50_000
_SEL_PENALTY = 1.0  # weight of the selection counts' own variance when ranking events


class MechanismError(RuntimeError):
    """The audited mechanism raised, or returned outputs of the wrong shape or with NaN/inf."""


# --------------------------------------------------------------------------- intervals


def _check_binomial(k, n, alpha):
    """Validated (k, n, alpha) of a Clopper–Pearson bound: integer 0 <= k <= n, n >= 1, alpha in (0, 1)."""
    out = []
    for name, v in (("k", k), ("n", n)):
        if isinstance(v, (str, bytes)):
            raise TypeError(f"{name} must be an integer count, got {v!r}")
        a = np.asarray(v)
        if a.dtype == bool or a.dtype.kind not in "iuf":
            raise TypeError(f"{name} must be an integer count, got {v!r}")
        a = a.astype(float)
        if not np.isfinite(a).all() or (a != np.round(a)).any():
            raise ValueError(f"{name} must be a finite integer count, got {v!r}")
        out.append(a)
    k, n = out
    if (n < 1).any():
        raise ValueError(f"n must be >= 1, got {n[n < 1].ravel()[0]!r}")
    if (k < 0).any() or (k > n).any():
        raise ValueError(f"k must satisfy 0 <= k <= n, got k={k.ravel().tolist()[:4]}, n={n.ravel().tolist()[:4]}")
    return k, n, check_confidence(alpha, "alpha")


@proven("proofs/audit/auditor_validity.md")
def clopper_pearson_lower(k, n, alpha: float):
    """One-sided Clopper–Pearson lower bound: Pr[p < lower] ≤ alpha for k ~ Bin(n, p).

    ``lower = Beta⁻¹(alpha; k, n − k + 1)``, and 0 when k = 0.  Vectorised over k, n.

    Example
    -------
    >>> round(float(clopper_pearson_lower(50, 100, 0.025)), 4)
    0.3983
    """
    k, n, alpha = _check_binomial(k, n, alpha)
    with np.errstate(invalid="ignore"):
        lo = stats.beta.ppf(alpha, np.maximum(k, 1e-300), n - k + 1)  # proof: cp-lower
    return np.where(k <= 0, 0.0, lo)


@proven("proofs/audit/auditor_validity.md")
def clopper_pearson_upper(k, n, alpha: float):
    """One-sided Clopper–Pearson upper bound: Pr[p > upper] ≤ alpha; 1 when k = n.

    Example
    -------
    >>> round(float(clopper_pearson_upper(0, 100, 0.05)), 4)
    0.0295
    """
    k, n, alpha = _check_binomial(k, n, alpha)
    with np.errstate(invalid="ignore"):
        hi = stats.beta.ppf(1.0 - alpha, k + 1, np.maximum(n - k, 1e-300))  # proof: cp-upper
    return np.where(k >= n, 1.0, hi)


def _wilson(phat, n, z, upper: bool):
    """Wilson score bound (used only to *rank* candidate events on the selection half)."""
    z2 = z * z
    centre = (phat + z2 / (2 * n)) / (1 + z2 / n)
    half = z * np.sqrt(np.maximum(phat * (1 - phat), 0.0) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    return centre + half if upper else centre - half


# --------------------------------------------------------------------------- statistics


@dataclass(frozen=True)
class PatternCode:
    """Statistic encoding each row of a small-integer output matrix as one int64.

    Entries must lie in ``low..high``; a row x becomes Σ_i (x_i − low)·B^(w−1−i) with
    B = high − low + 1, the same code in every chunk.  Lets the auditor treat vector
    outputs with few distinct patterns (sparse-vector answers ⊤/⊥/stopped, noisy-max
    indices of several rounds) as one discrete output.

    Example
    -------
    >>> PatternCode(0, 1)(np.array([[0, 1], [1, 0], [1, 1]])).tolist()
    [1, 2, 3]
    """

    low: int = -1
    high: int = 1

    def __call__(self, outputs) -> np.ndarray:
        a = np.asarray(outputs)
        a = a.reshape(a.shape[0], -1).astype(np.int64)
        if a.size and (a.min() < self.low or a.max() > self.high):
            raise ValueError(f"pattern entries must lie in {self.low}..{self.high}, got {a.min()}..{a.max()}")
        base = self.high - self.low + 1
        if base ** a.shape[1] >= 2**62:
            raise ValueError(f"too many distinct patterns to encode (base {base}, width {a.shape[1]})")
        weights = base ** np.arange(a.shape[1] - 1, -1, -1, dtype=np.int64)
        return (a - self.low) @ weights


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


def _fit_classifier(out_d: np.ndarray, out_dp: np.ndarray) -> _LinearScore:
    """Logistic regression on [z, z²] separating M(D) (label 1) from M(D') (label 0)."""
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


# --------------------------------------------------------------------------- events


@dataclass(frozen=True, eq=False)
class Event:
    """A set S of outputs, defined through a scalar statistic T of the output.

    ``kind`` is ``"le"`` (S = {T ≤ threshold}), ``"gt"`` (S = {T > threshold}), or
    ``"bins"`` (a union of bins of the statistic: the intervals between ``edges`` for
    continuous statistics, single ``values`` for discrete ones, plus the catch-all bin
    of values never seen during selection).  ``contains(t)`` decides membership.

    Example
    -------
    >>> from dpverify.audit.mechanisms import LaplaceMechanism
    >>> r = epsilon_lower_bound(LaplaceMechanism(1.0), 0.0, 1.0, samples=20_000, rng=0)
    >>> r.event.kind, r.event.description   # S = {T ≤ t}: small outputs are likelier under d = 0
    ('le', 'T ≤ 0.0291007')
    """

    kind: str
    threshold: float | None
    discrete: bool
    edges: np.ndarray = field(repr=False)
    mask: np.ndarray = field(repr=False)
    description: str = ""

    def contains(self, t) -> np.ndarray:
        """Boolean array: which statistic values lie in the event."""
        t = np.asarray(t)
        if self.kind == "le":
            return t <= self.threshold
        if self.kind == "gt":
            return t > self.threshold
        return self.mask[_bin_index(t, self.edges, self.discrete)]

    def __str__(self) -> str:
        return self.description


def _bin_index(t: np.ndarray, edges: np.ndarray, discrete: bool) -> np.ndarray:
    """Bin of each value: continuous — #edges < t (bins (e_{i-1}, e_i]); discrete — the
    position of t among ``edges`` (the distinct values) or len(edges) when unseen."""
    if not discrete:
        return np.searchsorted(edges, t, side="left")
    idx = np.searchsorted(edges, t, side="left")
    idx_c = np.minimum(idx, len(edges) - 1)
    return np.where(edges[idx_c] == t, idx_c, len(edges))


class _Binner:
    """Counts a chunk of statistic values into the bins fixed from the pilot sample."""

    def __init__(self, pilot: np.ndarray):
        self.discrete = pilot.dtype.kind in "biu"
        if self.discrete:
            values = np.unique(pilot)
            if len(values) > _MAX_DISCRETE_BINS:
                self.discrete = False
            else:
                self.edges = values.astype(np.int64)
                self.nbins = len(values) + 1  # + the bin of unseen values
                span = int(values[-1]) - int(values[0]) + 1
                self.lut = None
                if span <= _MAX_LUT:
                    lut = np.full(span, len(values), dtype=np.int64)
                    lut[values - values[0]] = np.arange(len(values))
                    self.lut = lut
                return
        s = np.sort(pilot.astype(float))
        n = len(s)
        uni = np.linspace(0, n - 1, _N_UNIFORM_EDGES).round().astype(np.int64)
        tail = np.unique(np.geomspace(1, max(1, n // 20), _N_TAIL_EDGES).round().astype(np.int64)) - 1
        idx = np.unique(np.concatenate([uni, tail, n - 1 - tail]))
        self.edges = np.unique(s[idx])
        self.nbins = len(self.edges) + 1

    def count(self, t: np.ndarray) -> np.ndarray:
        if self.discrete:
            if self.lut is not None and t.dtype.kind in "biu":
                off = t.astype(np.int64) - self.edges[0]
                inside = (off >= 0) & (off < len(self.lut))
                b = np.where(inside, self.lut[np.clip(off, 0, len(self.lut) - 1)], self.nbins - 1)
            else:
                b = _bin_index(t, self.edges, True)
            return np.bincount(b, minlength=self.nbins)
        s = np.sort(t)
        cum = np.searchsorted(s, self.edges, side="right")  # #{t ≤ e_i}
        return np.diff(np.concatenate([[0], cum, [len(t)]]))

    def count_halves(self, t: np.ndarray) -> np.ndarray:
        """Counts of the first and second half of the chunk separately, shape (2, nbins)."""
        h = len(t) // 2
        return np.stack([self.count(t[:h]), self.count(t[h:])])

    def describe(self, mask: np.ndarray) -> str:
        if self.discrete:
            vals = [str(v) for v, m in zip(self.edges.tolist(), mask[:-1]) if m]
            shown = ", ".join(vals[:12]) + (", …" if len(vals) > 12 else "")
            other = " or a value unseen in selection" if mask[-1] else ""
            return f"T ∈ {{{shown}}}{other} ({int(mask.sum())} of {self.nbins} bins)"
        return f"T in a union of {int(mask.sum())} of {self.nbins} intervals cut at selection quantiles"


# --------------------------------------------------------------------------- result


@dataclass(frozen=True)
class AuditResult:
    """What an audit found: ε_lb with the event and the numbers it rests on.

    ``epsilon`` is a lower bound on the mechanism's ε at the given δ, valid with
    probability ≥ ``confidence``.  ``direction`` is ``"d>d_prime"`` when the event is
    likelier under ``d`` (P is the law of M(d)), ``"d_prime>d"`` for the reverse, and
    ``"both"`` when both orders are pooled: S1 = ``event`` (likelier under d) and
    S2 = ``event_reverse`` (likelier under d'), P = (P_d(S1) + P_d'(S2))/2 and
    Q = (P_d'(S1) + P_d(S2))/2, every estimation draw counted once in each.
    ``count_p`` / ``count_q`` are the estimation counts out of ``n_trials`` trials
    (``n_estimation`` draws per input; 2·n_estimation trials when pooled);
    ``p_interval`` = (P_lower, 1) and ``q_interval`` = (0, Q_upper) are the one-sided
    Clopper–Pearson intervals, each at level α/2 (1 − e^{−α/2} when pooled).

    Example
    -------
    >>> from dpverify.audit.mechanisms import LaplaceMechanism
    >>> r = epsilon_lower_bound(LaplaceMechanism(1.0, scale_factor=0.5), 0.0, 1.0, samples=200_000, rng=0)
    >>> r.epsilon > 1.0, r.verdict(1.0).value   # half the noise: claim ε = 1 refuted
    (True, 'refuted')
    """

    epsilon: float
    event: Event
    direction: str
    count_p: int
    count_q: int
    n_estimation: int
    n_selection: int
    p_interval: tuple[float, float]
    q_interval: tuple[float, float]
    confidence: float
    delta: float
    seed_entropy: int
    selection_score: float
    n_trials: int = 0
    event_reverse: Event | None = None

    def __post_init__(self):
        if not self.n_trials:
            object.__setattr__(self, "n_trials", self.n_estimation)

    @property
    def p_hat(self) -> float:
        return self.count_p / self.n_trials

    @property
    def q_hat(self) -> float:
        return self.count_q / self.n_trials

    def refutes(self, claimed_epsilon: float) -> bool:
        """True when ε_lb > claimed ε (a refutation at the result's confidence)."""
        return self.epsilon > check_epsilon(claimed_epsilon, "claimed_epsilon")

    def verdict(self, claimed_epsilon: float) -> Verdict:
        """``refuted`` when ε_lb > claimed ε, else ``inconclusive`` (an audit never says "holds")."""
        return Verdict.REFUTED if self.refutes(claimed_epsilon) else Verdict.INCONCLUSIVE

    def as_dict(self) -> dict[str, Any]:
        return {
            "epsilon_lb": self.epsilon,
            "event": self.event.description,
            "event_reverse": None if self.event_reverse is None else self.event_reverse.description,
            "direction": self.direction,
            "count_p": self.count_p,
            "count_q": self.count_q,
            "n_estimation": self.n_estimation,
            "n_trials": self.n_trials,
            "n_selection": self.n_selection,
            "p_lower": self.p_interval[0],
            "q_upper": self.q_interval[1],
            "confidence": self.confidence,
            "delta": self.delta,
            "seed_entropy": self.seed_entropy,
        }


# --------------------------------------------------------------------------- sampling


@dataclass(frozen=True)
class _ChunkJob:
    """One chunk of work: draw n outputs with its own seed, map to the statistic, count.

    Picklable, so it can run in another process or on a Dask worker; the result depends
    only on (entropy, key), never on where it ran.
    """

    mechanism: Callable
    data: Any
    n: int
    entropy: int
    key: tuple
    statistic: Callable | None

    def outputs(self) -> np.ndarray:
        rng = np.random.default_rng(np.random.SeedSequence(self.entropy, spawn_key=self.key))
        try:
            out = self.mechanism(self.data, rng, self.n)
        except Exception as exc:  # re-raised with context; nothing is half-written
            raise MechanismError(f"mechanism raised {type(exc).__name__}: {exc}") from exc
        out = np.asarray(out)
        if out.ndim == 0 or out.shape[0] != self.n:
            raise MechanismError(f"mechanism returned shape {out.shape}, expected {self.n} outputs along axis 0")
        if out.dtype.kind not in "biuf":
            raise MechanismError(f"mechanism returned non-numeric outputs of dtype {out.dtype}")
        if out.dtype.kind == "f" and not np.isfinite(out).all():
            raise MechanismError("mechanism returned NaN or inf")
        return out

    def statistic_values(self) -> np.ndarray:
        out = self.outputs()
        if self.statistic is None:
            if out.ndim != 1:
                raise MechanismError(
                    f"mechanism outputs have shape {out.shape[1:]} per sample; pass statistic= (a callable "
                    "mapping outputs to one number each, e.g. a projection or PatternCode()) or statistic='classifier'"
                )
            return out.astype(np.int64) if out.dtype.kind == "b" else out
        try:
            t = np.asarray(self.statistic(out))
        except Exception as exc:
            raise MechanismError(f"statistic raised {type(exc).__name__}: {exc}") from exc
        if t.shape != (self.n,):
            raise MechanismError(f"statistic returned shape {t.shape}, expected ({self.n},)")
        if t.dtype.kind == "f" and not np.isfinite(t).all():
            raise MechanismError("statistic returned NaN or inf")
        if t.dtype.kind not in "biuf":
            raise MechanismError(f"statistic returned non-numeric values of dtype {t.dtype}")
        return t.astype(np.int64) if t.dtype.kind == "b" else t


@dataclass(frozen=True)
class _CountBins:
    job: _ChunkJob
    binner: _Binner

    def __call__(self) -> np.ndarray:
        return self.binner.count_halves(self.job.statistic_values())


@dataclass(frozen=True)
class _CountEvent:
    job: _ChunkJob
    events: tuple

    def __call__(self) -> np.ndarray:
        t = self.job.statistic_values()
        return np.array([np.count_nonzero(e.contains(t)) for e in self.events], dtype=np.int64)


def _run(tasks: list, executor, progress, done: list, total: int, sizes: list[int]):
    """Run the chunk tasks locally or on ``executor`` (anything with ``submit`` returning
    futures with ``.result()``: concurrent.futures executors, dask.distributed.Client)."""
    results = []
    if executor is None:
        for task, m in zip(tasks, sizes):
            results.append(task())
            done[0] += m
            if progress is not None:
                progress(done[0], total)
        return results
    futures = [executor.submit(task) for task in tasks]
    for fut, m in zip(futures, sizes):
        results.append(fut.result())
        done[0] += m
        if progress is not None:
            progress(done[0], total)
    return results


def _sizes(n: int, chunk: int) -> list[int]:
    k, r = divmod(n, chunk)
    return [chunk] * k + ([r] if r else [])


def _readonly(x):
    if isinstance(x, np.ndarray):
        y = x.copy()
        y.setflags(write=False)
        return y
    return x


# --------------------------------------------------------------------------- the auditor


@proven("proofs/audit/auditor_validity.md")
def epsilon_lower_bound(
    mechanism: Callable,
    d: Any,
    d_prime: Any,
    *,
    samples: int,
    confidence: float = 0.99,
    delta: float = 0.0,
    rng=None,
    statistic: Callable | str | None = None,
    selection_fraction: float = 0.5,
    chunk_size: int = _DEFAULT_CHUNK,
    executor=None,
    progress: Callable[[int, int], None] | None = None,
) -> AuditResult:
    """A lower bound on the ε of ``mechanism`` at δ, valid with probability ≥ ``confidence``.

    Parameters
    ----------
    mechanism : callable ``mechanism(data, rng, n)`` returning n independent outputs along
        axis 0 (numbers, or arrays when ``statistic`` maps them to numbers)
    d, d_prime : neighbouring inputs, passed unchanged (numpy arrays as read-only copies)
    samples : outputs drawn per input, split into selection and estimation parts
    confidence : 1 − α; the bound exceeds the true ε with probability at most α
    delta : the δ of the claim being audited, in [0, 1)
    rng : numpy Generator, int seed or None — every chunk gets its own child seed
        (SeedSequence spawn key), so for a given seed and ``chunk_size`` the result is
        the same whether chunks run locally, in threads, processes or on Dask workers
    statistic : None (outputs are scalars), a callable ``outputs -> (n,) numbers`` (a
        projection, :class:`PatternCode`, ...), or ``"classifier"`` (a logistic
        regression trained on part of the selection sample, DP-Sniper style)
    selection_fraction : share of ``samples`` used to choose the event (default one half)
    chunk_size : outputs per chunk; memory stays O(chunk_size)
    executor : optional ``concurrent.futures``-style executor (e.g. a dask Client)
    progress : optional callback ``progress(done, total)`` (samples drawn so far)

    Returns
    -------
    AuditResult with ``.epsilon``, ``.event``, counts, intervals and ``.verdict(claimed)``.

    Example
    -------
    >>> from dpverify.audit.mechanisms import LaplaceMechanism
    >>> r = epsilon_lower_bound(LaplaceMechanism(epsilon=1.0), 0.0, 1.0, samples=200_000, rng=0)
    >>> 0.9 < r.epsilon <= 1.0, r.verdict(1.0).value
    (True, 'inconclusive')
    """
    if not callable(mechanism):
        raise TypeError(f"mechanism must be callable mechanism(data, rng, n), got {type(mechanism).__name__}")
    samples = check_positive_int(samples, "samples")
    if samples < 2:
        raise ValueError(f"samples must be >= 2 (selection and estimation need one each), got {samples}")
    conf = check_confidence(confidence)
    delta = check_delta(delta)
    frac = check_real(selection_fraction, "selection_fraction")
    if not 0 < frac < 1:
        raise ValueError(f"selection_fraction must be in (0, 1), got {selection_fraction!r}")
    chunk_size = check_positive_int(chunk_size, "chunk_size")
    if statistic is not None and not callable(statistic) and statistic != "classifier":
        raise ValueError(f"statistic must be None, a callable or 'classifier', got {statistic!r}")
    if progress is not None and not callable(progress):
        raise TypeError(f"progress must be callable or None, got {type(progress).__name__}")
    if executor is not None and not hasattr(executor, "submit"):
        raise TypeError(f"executor must have a submit() method, got {type(executor).__name__}")

    g = as_generator(rng)
    entropy = int(g.integers(0, 2**63 - 1))
    n_sel = min(max(1, int(round(samples * frac))), samples - 1)
    n_est = samples - n_sel
    alpha = 1.0 - conf
    data = (_readonly(d), _readonly(d_prime))
    total = 2 * samples
    done = [0]

    # ---- selection: (optional classifier), pilot chunk -> bins, then all counts
    stat = statistic
    train_n = 0
    if statistic == "classifier":
        train_n = min(_CLASSIFIER_TRAIN, max(1, n_sel // 2))
        if n_sel - train_n < 1:
            raise ValueError(f"samples={samples} is too small for statistic='classifier'")
        outs = [_ChunkJob(mechanism, data[i], train_n, entropy, (0, i), None).outputs() for i in (0, 1)]
        stat = _fit_classifier(outs[0], outs[1])
        done[0] += 2 * train_n
    n_bin = n_sel - train_n
    sizes = _sizes(n_bin, chunk_size)
    jobs = [[_ChunkJob(mechanism, data[i], m, entropy, (1, i, j), stat) for j, m in enumerate(sizes)] for i in (0, 1)]
    pilot = [jobs[i][0].statistic_values() for i in (0, 1)]
    if pilot[0].dtype.kind != pilot[1].dtype.kind and "f" in (pilot[0].dtype.kind, pilot[1].dtype.kind):
        pilot = [p.astype(float) for p in pilot]
    binner = _Binner(np.concatenate(pilot))
    counts = []  # per input: (2, nbins) counts of the two halves of the selection sample
    for i in (0, 1):
        first = binner.count_halves(pilot[i])
        done[0] += sizes[0]
        rest = _run([_CountBins(job, binner) for job in jobs[i][1:]], executor, progress, done, total, sizes[1:])
        counts.append(np.sum([first, *rest], axis=0))

    z = stats.norm.ppf(1.0 - alpha / 2.0)
    best = {}  # direction -> (score, kind, mask, count_a, count_b, n_used) of its best event
    for direction, (a, b) in (("d>d_prime", (counts[0], counts[1])), ("d_prime>d", (counts[1], counts[0]))):
        for kind, mask, ca, cb, n_used in _candidates(a, b):
            # rank by the bound this event would give on n_est fresh samples, widened by the
            # selection counts' own noise (n_eff); ranking only — validity never depends on it
            n_eff = 1.0 / (_SEL_PENALTY / n_used + 1.0 / n_est)
            pl = _wilson(ca / n_used, n_eff, z, upper=False) - delta
            qu = _wilson(cb / n_used, n_eff, z, upper=True)
            with np.errstate(divide="ignore", invalid="ignore"):
                score = np.where(pl > 0, np.log(np.maximum(pl, 1e-300) / qu), -np.inf)
            if score.size == 0:
                continue
            j = int(np.argmax(score))
            if direction not in best or score[j] > best[direction][0]:
                best[direction] = (float(score[j]), kind, mask(j), float(ca[j]), float(cb[j]), n_used)
    choice = max(best, key=lambda k: best[k][0])
    score = best[choice][0]
    # the pooled "both orders" event: Ā = (P(S1) + Q(S2))/2 ≤ e^ε B̄ + δ, B̄ = (Q(S1) + P(S2))/2,
    # each count a sum over 2·n_est draws (proofs/audit/auditor_validity.md, step 6)
    a_pool = 1.0 - math.exp(-alpha / 2.0)  # level making Clopper–Pearson valid for Poisson-binomial sums
    if len(best) == 2 and alpha / 2.0 < 0.25:
        (_, _, _, a1, b1, n1), (_, _, _, a2, b2, n2) = best["d>d_prime"], best["d_prime>d"]
        zp = stats.norm.ppf(1.0 - a_pool)
        n_eff = 1.0 / (_SEL_PENALTY / (n1 + n2) + 1.0 / (2 * n_est))
        pl = _wilson((a1 / n1 + a2 / n2) / 2, n_eff, zp, upper=False) - delta
        qu = _wilson((b1 / n1 + b2 / n2) / 2, n_eff, zp, upper=True)
        pooled = math.log(pl / qu) if pl > 0 else -math.inf
        if pooled > score:
            choice, score = "both", pooled
    events = {d: _make_event(best[d][1], best[d][2], binner) for d in best}

    # ---- estimation: fresh samples, the chosen event(s), two Clopper–Pearson bounds (Bonferroni)
    est_sizes = _sizes(n_est, chunk_size)
    if choice == "both":
        ev = (events["d>d_prime"], events["d_prime>d"])  # S1 (likelier under d), S2 (likelier under d')
    else:
        ev = (events[choice],)
    c = []  # c[i][e]: draws of input i falling in event e
    for i in (0, 1):
        tasks = [
            _CountEvent(_ChunkJob(mechanism, data[i], m, entropy, (2, i, j), stat), ev)
            for j, m in enumerate(est_sizes)
        ]
        c.append(np.sum(_run(tasks, executor, progress, done, total, est_sizes), axis=0).astype(np.int64))
    if choice == "both":
        k = [int(c[0][0] + c[1][1]), int(c[1][0] + c[0][1])]  # proof: pooled-counts
        trials, level = 2 * n_est, a_pool
    else:
        first = 0 if choice == "d>d_prime" else 1
        k = [int(c[first][0]), int(c[1 - first][0])]
        trials, level = n_est, alpha / 2.0
    p_lo = float(clopper_pearson_lower(k[0], trials, level))
    q_hi = float(clopper_pearson_upper(k[1], trials, level))
    eps_lb = math.log((p_lo - delta) / q_hi) if p_lo > delta else 0.0  # proof: eps-lb
    event = ev[0]
    direction = choice
    return AuditResult(
        epsilon=max(0.0, eps_lb),
        event=event,
        direction=direction,
        count_p=k[0],
        count_q=k[1],
        n_estimation=n_est,
        n_trials=trials,
        event_reverse=ev[1] if len(ev) > 1 else None,
        n_selection=n_sel,
        p_interval=(p_lo, 1.0),
        q_interval=(0.0, q_hi),
        confidence=conf,
        delta=delta,
        seed_entropy=entropy,
        selection_score=score,
    )


def _candidates(a2: np.ndarray, b2: np.ndarray):
    """Candidate events as (kind, mask_of(j), count_a[j], count_b[j], n) families.

    ``a2``, ``b2`` are (2, nbins) counts of the two halves of the selection sample.
    Thresholds (prefixes/suffixes of the bins in their natural order) are scored on both
    halves.  For unions of bins ordered by likelihood ratio, the order is taken from the
    first half and the cut is scored on the second, so noise in thousands of small bins
    cannot make an arbitrary union look good.
    """
    a, b = a2.sum(axis=0), b2.sum(axis=0)
    n = max(int(a.sum()), 1)
    nb = len(a)
    ca, cb = np.cumsum(a)[:-1], np.cumsum(b)[:-1]

    def prefix(j):
        m = np.zeros(nb, bool)
        m[: j + 1] = True
        return m

    def suffix(j):
        m = np.zeros(nb, bool)
        m[j + 1 :] = True
        return m

    yield "le", prefix, ca, cb, n
    yield "gt", suffix, a.sum() - ca, b.sum() - cb, n
    n2 = int(a2[1].sum())
    if n2 < 1 or a2[0].sum() < 1:
        return
    order = np.argsort(-(a2[0] + 0.5) / (b2[0] + 0.5), kind="stable")

    def by_ratio(j):
        m = np.zeros(nb, bool)
        m[order[: j + 1]] = True
        return m

    yield "bins", by_ratio, np.cumsum(a2[1][order])[:-1], np.cumsum(b2[1][order])[:-1], n2


def _make_event(kind: str, mask: np.ndarray, binner: _Binner) -> Event:
    edges = binner.edges
    if kind == "bins":
        # a ratio-ordered union may happen to be a prefix/suffix; keep the general form
        return Event("bins", None, binner.discrete, edges, mask, binner.describe(mask))
    j = int(np.argmax(~mask)) - 1 if kind == "le" else int(np.argmax(mask)) - 1
    if binner.discrete:
        # prefix of sorted values v_0..v_j  <=>  T ≤ v_j ; but unseen values form the last bin,
        # so represent it as a bin mask (exact membership), described as a threshold
        t = edges[j]
        desc = f"T ≤ {t}" if kind == "le" else f"T > {t} (incl. values unseen in selection)"
        return Event("bins", None, True, edges, mask, desc)
    t = float(edges[j])
    desc = f"T ≤ {t:.6g}" if kind == "le" else f"T > {t:.6g}"
    return Event(kind, t, False, edges, mask, desc)
