"""``dpverify conform opendp``: every measurement constructor of the installed OpenDP, against its own claim.

The constructors are found by introspecting ``opendp.measurements`` (``make_*``).  Those with a driver here
are built over a small grid (scales, integer/real domains, input distances ``d_in``, output measures) and
checked by :func:`dpverify.conform.rows.check`: the claim is OpenDP's own privacy map at ``d_in`` in the
measurement's own output measure (:func:`dpverify.mechanisms.adapters.stated.opendp_claim`); the outputs
are OpenDP's own, drawn through its Python API, as cells (finite outputs; integers with two tail cells;
reals binned); the sample is matched to closed-form laws and the loss bounded from below with confidence.

Driven (where the installed release has them): ``make_laplace`` (real and integer), ``make_geometric``,
``make_gaussian`` (real and integer), ``make_noise`` (the generic constructor behind both: real and integer
under each output measure), ``make_randomized_response_bool``, ``make_randomized_response``,
``make_randomized_response_bitvec`` (8 bits, weight ≤ 1),
``make_noisy_max`` and ``make_noisy_top_k`` (pure DP and zCDP), ``make_report_noisy_max_gumbel``.  Every
other constructor is listed by :func:`not_driven` with the reason.  Written against OpenDP 0.12–0.16
(``make_composition`` is ``make_basic_composition`` before 0.14; ``make_noisy_max``/``make_noisy_top_k``
exist from 0.14).  OpenDP cannot be seeded: a sweep is not reproducible draw for draw.

Example
-------
>>> names = [c for c, _ in not_driven()]
>>> "make_laplace" in names, "make_user_measurement" in names
(False, True)
"""

from __future__ import annotations

import inspect
import math
from dataclasses import dataclass
from typing import Callable

import numpy as np

from dpverify.conform.laws import binned, integer, orderings, randomized_response, top_k
from dpverify.conform.rows import Case, FailedCase
from dpverify.mechanisms.adapters.opendp_batch import compose, releases
from dpverify.mechanisms.adapters.stated import library_version, opendp_claim
from dpverify.validation import check_real

__all__ = ["REASONS", "cases", "noisy_max_case", "not_driven"]

_BATCH = 1024
#: why a constructor is not driven (the rest: no driver in dpverify yet)
REASONS = {
    "make_laplace_threshold": "releases a map of keys to noisy counts above a threshold (no driver for map outputs)",
    "make_gaussian_threshold": "releases a map of keys to noisy counts above a threshold (no driver for map outputs)",
    "make_noise_threshold": "releases a map of keys to noisy counts above a threshold (no driver for map outputs)",
    "make_private_expr": "a Polars expression plan (not a fixed mechanism)",
    "make_private_lazyframe": "a Polars query plan (not a fixed mechanism)",
    "make_alp_queryable": "returns a queryable (an interactive mechanism)",
    "make_user_measurement": "the user's own function and map (nothing of OpenDP's to check)",
    "make_proof_link": "not a measurement (a link to a proof)",
    "make_canonical_noise": "its output law (the canonical noise of Awan & Vadhan) has no closed form here; "
                            "its real outputs would need a finer statistical check than the sweep's bins",
    "make_private_quantile": "no closed form of its candidate law here",
    "make_private_pca": "matrix outputs",
    "make_private_np_eigendecomposition": "matrix outputs",
}


def _dp():
    import opendp.prelude as dp

    dp.enable_features("contrib")
    return dp


def _atom(dp, T):
    """The atom domain of T, without NaN for floats (``nan=`` is not taken before 0.13)."""
    if T is not float:
        return dp.atom_domain(T=T)
    try:
        return dp.atom_domain(T=T, nan=False)
    except TypeError:
        return dp.atom_domain(T=T)


@dataclass(frozen=True)
class _Batched:
    """``n`` invocations of a measurement with a finite output, ``_BATCH`` at a time through a composition,
    mapped to cells by ``encode``."""

    build: Callable
    encode: Callable
    arg: Callable

    def __call__(self, x, n, rng):
        one, out = self.build(), []
        cache = {}
        for size in [_BATCH] * (n // _BATCH) + ([n % _BATCH] if n % _BATCH else []):
            if size not in cache:
                cache[size] = compose(one, size)
            out.extend(releases(cache[size], self.arg(x)))  # OpenDP's draws, read fast (opendp_batch)
        return np.fromiter((self.encode(y) for y in out), dtype=np.int64, count=n)


def _edges(d_in: float, scale: float) -> np.ndarray:
    """Bins for real outputs at the inputs 0 and d_in: fine in between, open tails beyond ±6 scales."""
    left, right = np.linspace(-6 * scale, 0.0, 13), np.linspace(d_in, d_in + 6 * scale, 13)
    return np.unique(np.concatenate([left, np.linspace(0.0, d_in, 5), right]))


def _vector_sampler(build, T, d_in, scale):
    """Noise on a vector domain: one call, n noisy copies; outputs to cells."""
    if T is float:
        edges = _edges(float(d_in), scale)
        return lambda x, n, rng: np.searchsorted(edges, np.asarray(build()([float(x)] * n), dtype=float)), edges
    lo, hi = -int(math.ceil(6 * scale)), int(d_in) + int(math.ceil(6 * scale))
    return (lambda x, n, rng: np.clip(np.asarray(build()([int(x)] * n), dtype=np.int64), lo - 1, hi + 1) - (lo - 1)), (lo, hi)


def _noise_grid(dp, name: str) -> list[tuple]:
    """(T, scale, d_in, output measure or None, maker(domain, metric, scale)) of a noise constructor."""
    if name == "make_noise":  # the generic constructor: each output measure picks its noise
        return [(T, 1.0, 1, m, lambda dom, met, scale, m=m: dp.m.make_noise(dom, met, getattr(dp, m)(), scale=scale))
                for T in (float, int) for m in _MEASURES]
    make = getattr(dp.m, name)
    return [(T, s, d, None, lambda dom, met, scale: make(dom, met, scale=scale))
            for T in ((int,) if name == "make_geometric" else (float, int)) for s, d in ((1.0, 1), (2.0, 2))]


def _noise_cases(dp, name: str, library: str) -> list[Case]:
    """Laplace, geometric and Gaussian noise: real and integer, two scales, d_in 1 and 2; ``make_noise``:
    real and integer under each output measure (ε: Laplace, ρ: Gaussian), scale 1, d_in 1."""
    out: list = []
    for T, scale, d, measure_name, make in _noise_grid(dp, name):
        gauss = name == "make_gaussian" or measure_name == "zero_concentrated_divergence"
        atom = _atom(dp, T)
        d_in = T(d)
        vector_metric = (dp.l2_distance if gauss else dp.l1_distance)(T=T)
        params = {"T": T.__name__, "scale": scale, "d_in": d_in}
        if measure_name:
            params["output_measure"] = measure_name

        def build(atom=atom, vector_metric=vector_metric, scale=scale, make=make):
            return make(dp.vector_domain(atom), vector_metric, scale)

        try:
            claim, measure = opendp_claim(make(atom, dp.absolute_distance(T=T), scale), d_in)
        except Exception as exc:  # the map: an error row, not the sweep's end
            out.append(FailedCase(name, params, exc, library))
            continue
        sample, cut = _vector_sampler(build, T, d_in, scale)
        noises = ("gaussian", "laplace") if gauss else ("laplace", "gaussian")
        if T is float:
            laws = {k: (lambda x, k=k, cut=cut, s=scale: binned(k, float(x), scale=s, edges=cut)) for k in noises}
        else:
            laws = {k: (lambda x, k=k, cut=cut, s=scale: integer(k, int(x), scale=s, lo=cut[0], hi=cut[1]))
                    for k in noises}
        cells = len(cut) + 1 if T is float else cut[1] - cut[0] + 3
        cost = (10.0 if gauss else 4.0) if T is float else 2.0  # OpenDP's exact samplers: 49, 19, 5-11 µs a draw
        out.append(Case(name, params, claim, measure, [(T(0), d_in)], sample, cells, laws, library, cost))
    return out


def _rr_cases(dp, name: str, library: str) -> list[Case]:
    out: list = []
    for prob in (0.6, 0.75):
        if name == "make_randomized_response_bool":
            cats: list = [False, True]
            build = (lambda prob=prob: dp.m.make_randomized_response_bool(prob=prob))
        else:
            cats = [0, 1, 2]
            build = (lambda prob=prob: dp.m.make_randomized_response(cats, prob=prob))
        params: dict = {"categories": len(cats), "prob": prob, "d_in": 1}
        try:
            claim, measure = opendp_claim(build(), 1)
        except Exception as exc:
            out.append(FailedCase(name, params, exc, library))
            continue
        index = {c: i for i, c in enumerate(cats)}
        sample = _Batched(build, index.__getitem__, cats.__getitem__)
        laws = {"randomized response": (lambda x, k=len(cats), prob=prob: randomized_response(x, k=k, prob=prob))}
        pairs = [(i, j) for i in range(len(cats)) for j in range(i + 1, len(cats))]
        out.append(Case(name, params, claim, measure, pairs, sample, len(cats), laws, library))
    return out


_BITS = [("10000000", "01000000"), ("10000000", "00000000")]  # one byte, weight <= 1: discrete distance 1


def _bit_cell(y) -> int:
    """The first two bits of a released bit vector (bytes): a post-processing, cells 0..3."""
    return int(bytes(y)[0]) >> 6


def _bitvec_law(x: str, f: float) -> np.ndarray:
    """RAPPOR's per-bit randomized response on the first two bits: each bit flipped with probability f/2."""
    keep = [(1 - f / 2, f / 2) if b == "0" else (f / 2, 1 - f / 2) for b in x[:2]]  # P(bit out = 0), P(= 1)
    return np.array([keep[0][i] * keep[1][j] for i in (0, 1) for j in (0, 1)])


def _bitvec_cases(dp, name: str, library: str) -> list[Case]:
    """Randomized response on 8-bit vectors of weight at most 1 (RAPPOR): f 0.5 and 0.95, d_in 1; the cells
    are the first two output bits, where the inputs differ (the other bits have one law at every input)."""
    out: list = []
    for f in (0.5, 0.95):
        def build(f=f):
            return dp.m.make_randomized_response_bitvec(dp.bitvector_domain(max_weight=1), dp.discrete_distance(), f=f)

        params: dict = {"bits": 8, "max_weight": 1, "f": f, "d_in": 1}
        try:
            claim, measure = opendp_claim(build(), 1)
        except Exception as exc:
            out.append(FailedCase(name, params, exc, library))
            continue
        sample = _Batched(build, _bit_cell, lambda x: bytes([int(x, 2)]))
        laws = {"bitwise randomized response": (lambda x, f=f: _bitvec_law(x, f))}
        out.append(Case(name, params, claim, measure, list(_BITS), sample, 4, laws, library, 6.0))
    return out


_SCORES = [((0.0, 0.0, 0.0), (1.0, 0.0, 0.0)), ((1.0, 0.0, 0.0), (0.0, 1.0, 1.0))]


def _max_cases(dp, name: str, library: str) -> list[Case]:
    """Noisy max / top-k over 3 scores, L∞ distance 1: every output measure the constructor takes."""
    dom = dp.vector_domain(_atom(dp, float), size=3)
    metric = dp.linf_distance(T=float)
    if name == "make_report_noisy_max_gumbel":
        variants: list = [({"k": 1}, lambda s: dp.m.make_report_noisy_max_gumbel(dom, metric, scale=s, optimize="max"))]
    else:
        ks = (1,) if name == "make_noisy_max" else (1, 2)
        variants = []
        for measure_name in ("max_divergence", "zero_concentrated_divergence"):
            for k in ks:
                def make(s, k=k, mo=getattr(dp, measure_name)):
                    if name == "make_noisy_max":
                        return dp.m.make_noisy_max(dom, metric, mo(), scale=s)
                    return dp.m.make_noisy_top_k(dom, metric, mo(), k=k, scale=s)
                variants.append(({"k": k, "output_measure": measure_name}, make))
    out: list = []
    for extra, make in variants:
        for scale in (1.0, 2.0):
            params: dict = {**extra, "scale": scale, "scores": 3, "d_in": 1.0}
            try:
                claim, measure = opendp_claim(make(scale), 1.0)
            except Exception as exc:
                out.append(FailedCase(name, params, exc, library))
                continue
            k, cells = extra["k"], orderings(3, extra["k"])
            index = {c: i for i, c in enumerate(cells)}
            encode = (lambda y, index=index, k=k: index[(int(y),) if k == 1 and not isinstance(y, (list, tuple))
                                                        else tuple(int(v) for v in y)])
            sample = _Batched(lambda s=scale, make=make: make(s), encode, list)
            laws: dict = {noise: (lambda x, noise=noise, s=scale, k=k: top_k(noise, x, scale=s, k=k))
                    for noise in ("gumbel", "exponential") + (("exponential-peeling",) if k > 1 else ())}
            for noise in ("gumbel", "exponential") if k == 1 else ():  # the least noisy score: max run backwards
                laws[f"{noise}, argmin"] = (lambda x, noise=noise, s=scale: top_k(noise, [-v for v in x], scale=s, k=1))
            out.append(Case(name, params, claim, measure, list(_SCORES), sample, len(cells), laws, library))
    return out


_MEASURES = ("max_divergence", "zero_concentrated_divergence")


def noisy_max_case(*, sampled: str, stated: str, scale: float = 1.0) -> Case:
    """``make_noisy_max`` over 3 scores drawn as built for the output measure ``sampled`` and claimed with
    the privacy map of the one built for ``stated`` (``"max_divergence"`` or ``"zero_concentrated_divergence"``):
    equal, a case of the sweep; different, the issue's bug class (a budget derived for another mechanism).

    Example
    -------
    >>> noisy_max_case(sampled="max_divergence", stated="zero_concentrated_divergence").claim
    ZCDP(rho=0.5)
    """
    for name, value in (("sampled", sampled), ("stated", stated)):
        if value not in _MEASURES:
            raise ValueError(f"{name} must be one of {_MEASURES}, got {value!r}")
    s = check_real(scale, "scale", positive=True)
    if not 1e-3 <= s <= 1e6:
        raise ValueError(f"scale must lie in [1e-3, 1e6] (OpenDP's map at d_in = 1), got {scale!r}")
    dp = _dp()
    dom = dp.vector_domain(_atom(dp, float), size=3)

    def make(measure):
        return dp.m.make_noisy_max(dom, dp.linf_distance(T=float), getattr(dp, measure)(), scale=s)

    claim, measure = opendp_claim(make(stated), 1.0)
    laws = {noise: (lambda x, noise=noise: top_k(noise, x, scale=s, k=1)) for noise in ("gumbel", "exponential")}
    return Case("make_noisy_max", {"sampled": sampled, "stated": stated, "scale": s, "scores": 3, "d_in": 1.0},
                claim, measure, list(_SCORES), _Batched(lambda: make(sampled), int, list), 3, laws,
                library_version("opendp"))


_DRIVERS = {"make_laplace": _noise_cases, "make_geometric": _noise_cases, "make_gaussian": _noise_cases,
            "make_noise": _noise_cases, "make_randomized_response_bitvec": _bitvec_cases,
            "make_randomized_response_bool": _rr_cases, "make_randomized_response": _rr_cases,
            "make_noisy_max": _max_cases, "make_noisy_top_k": _max_cases, "make_report_noisy_max_gumbel": _max_cases}


def _constructors() -> list[str]:
    import opendp.measurements as measurements

    return sorted(n for n in dir(measurements) if n.startswith("make_") and callable(getattr(measurements, n)))


def not_driven() -> list[tuple[str, str]]:
    """``(constructor, reason)`` for every constructor of the installed OpenDP that the sweep does not drive.

    Example
    -------
    >>> all(name.startswith("make_") and reason for name, reason in not_driven())
    True
    """
    import opendp.measurements as measurements

    out = []
    for name in _constructors():
        if name in _DRIVERS:
            continue
        reason = REASONS.get(name)
        if reason is None:
            try:
                sig = str(inspect.signature(getattr(measurements, name)))
            except (TypeError, ValueError):
                sig = "(...)"
            reason = f"no driver in dpverify for this constructor yet; signature {name}{sig}"[:240]
        out.append((name, reason))
    return out


def cases(only=None) -> list:
    """The sweep's cases for the installed OpenDP (:class:`~dpverify.conform.rows.Case`, or a failed case
    whose claim could not be read); ``only``: constructor names to keep.

    Example
    -------
    >>> all(c.constructor == "make_laplace" for c in cases(["make_laplace"]))
    True
    """
    if only is not None and (isinstance(only, str) or not all(isinstance(n, str) for n in only)):
        raise TypeError(f"only must be a list of constructor names, got {only!r}")
    dp = _dp()
    library = library_version("opendp")
    out: list = []
    for name in _constructors():
        if name in _DRIVERS and (only is None or name in only):
            out.extend(_DRIVERS[name](dp, name, library))
    return out
