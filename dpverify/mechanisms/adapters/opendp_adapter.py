"""OpenDP measurements as auditable mechanisms (:func:`from_opendp`).

By name — ``"laplace"``, ``"discrete_laplace"`` (Laplace on integers), ``"geometric"``,
``"gaussian"``, ``"randomized_response_bool"``, ``"randomized_response"`` (categorical) — or from
a built ``opendp.mod.Measurement``.  The claim is OpenDP's own privacy map at ``d_in`` in the
measurement's own output measure (:func:`~dpverify.mechanisms.adapters.stated.opendp_claim`): ε for
``MaxDivergence``, ρ (:class:`~dpverify.mechanisms.privacy.ZCDP`) for ``ZeroConcentratedDivergence``
(the Gaussian), (ε, δ) for approximate DP, the privacy profile δ(ε) for ``SmoothedMaxDivergence``;
the mechanism (a :class:`~dpverify.mechanisms.adapters.stated.StatedMechanism`) keeps the measure,
``d_in`` and OpenDP's release.  With ``epsilon`` given, a zCDP measurement claims the point
(ε, δ(ε)) of OpenDP's own conversion ``make_zCDP_to_approxDP``.

Sampling: the scalar noise measurements are vectorised — the same measurement on a vector
domain, called once on n copies of the input (OpenDP adds independent noise per coordinate) —
about 2·10⁴ float Laplace and 5·10⁴ integer draws per second on one core (``benchmarks/
bench_adapters.py``).  Randomized response has no vector form in OpenDP: 1024 copies of the
measurement are composed (``make_composition``) and the composition is invoked once per 1024
releases; its outputs are read by :func:`~dpverify.mechanisms.adapters.opendp_batch.releases`
(OpenDP's per-item conversion, not its sampling, was the limit: about 3 µs per release read so,
against 20 µs through OpenDP's own conversion, on one core).

OpenDP cannot be seeded: it draws from the operating system's secure generator, so an audit
of an OpenDP mechanism is NOT reproducible from the audit's seed (the selection/estimation
split and the confidence statement are unaffected: they do not depend on the seed).

Requires ``pip install 'dpverify[opendp]'``; the adapter enables OpenDP's ``contrib`` feature.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from dpverify.validation import check_epsilon, check_positive_int, check_probability, check_real
from dpverify.mechanisms.adapters.common import coerce_all, missing_package
from dpverify.mechanisms.adapters.opendp_batch import compose, releases
from dpverify.mechanisms.adapters.stated import StatedMechanism, library_version, opendp_claim
from dpverify.mechanisms.privacy import DeltaCurve, PureDP
from dpverify.mechanisms.relations import Neighbours, Pairs

__all__ = ["OPENDP_MEASUREMENTS", "from_opendp"]

#: the measurements available by name
OPENDP_MEASUREMENTS = ("laplace", "discrete_laplace", "geometric", "gaussian", "randomized_response_bool",
                       "randomized_response")
_TYPES = {"float": float, "int": int}
_BATCH = 1024  # randomized response: releases per OpenDP call


def _dp():
    try:
        import opendp.prelude as dp
    except ImportError as exc:
        raise missing_package("opendp", "opendp", exc) from exc
    dp.enable_features("contrib")
    return dp


@dataclass(frozen=True)
class _Recipe:
    """How to build the measurement: picklable (OpenDP objects are not), built on first use."""

    kind: str
    T: str = "float"
    scale: float = 1.0
    prob: float = 0.75
    categories: tuple = ()
    _cache: dict = field(default_factory=dict, compare=False, repr=False)

    def __getstate__(self):  # the cached OpenDP objects do not pickle: rebuilt where unpickled
        return {k: v for k, v in self.__dict__.items() if k != "_cache"}

    def __setstate__(self, state):
        self.__dict__.update(state, _cache={})

    def build(self, vector: bool):
        key = ("vector" if vector else "atom",)
        if key not in self._cache:
            self._cache[key] = self._make(vector)
        return self._cache[key]

    def _make(self, vector: bool):
        dp = _dp()
        if self.kind == "randomized_response_bool":
            return dp.m.make_randomized_response_bool(prob=self.prob)
        if self.kind == "randomized_response":
            return dp.m.make_randomized_response(list(self.categories), prob=self.prob)
        T = _TYPES[self.T]
        try:  # nan= from OpenDP 0.13
            atom = dp.atom_domain(T=T, nan=False) if T is float else dp.atom_domain(T=T)
        except TypeError:
            atom = dp.atom_domain(T=T)
        gauss = self.kind == "gaussian"
        if vector:
            domain = dp.vector_domain(atom)
            metric = dp.l2_distance(T=T) if gauss else dp.l1_distance(T=T)
        else:
            domain, metric = atom, dp.absolute_distance(T=T)
        make = {"laplace": dp.m.make_laplace, "discrete_laplace": dp.m.make_laplace,
                "geometric": dp.m.make_geometric, "gaussian": dp.m.make_gaussian}[self.kind]
        return make(domain, metric, scale=self.scale)

    def batch(self, size: int):
        """``size`` copies of the measurement under OpenDP's ``make_composition``: one call, size draws."""
        key = ("batch", size)
        if key not in self._cache:
            self._cache[key] = compose(self.build(False), size)
        return self._cache[key]

    def encode(self, data):
        if self.kind == "randomized_response_bool":
            if isinstance(data, (bool, np.bool_)) or data in (0, 1):
                return bool(data)
            raise ValueError(f"randomized_response_bool takes a bool (or 0/1) input, got {data!r}")
        if self.kind == "randomized_response":
            if data in self.categories:
                return data
            if isinstance(data, (int, np.integer, float)) and float(data).is_integer() and 0 <= data < len(self.categories):
                return self.categories[int(data)]
            raise ValueError(f"input must be one of the categories {list(self.categories)} or an index, got {data!r}")
        return _TYPES[self.T](data)

    def __call__(self, data, rng, n):  # rng unused: OpenDP cannot be seeded (module docstring)
        x = self.encode(data)
        if self.kind.startswith("randomized_response"):
            out = []
            for size in [_BATCH] * (n // _BATCH) + ([n % _BATCH] if n % _BATCH else []):
                out.extend(releases(self.batch(size), x))  # `size` independent invocations, read fast
            if self.kind == "randomized_response_bool":
                return np.asarray(out, dtype=bool)
            index = {c: i for i, c in enumerate(self.categories)}
            return np.fromiter((index[y] for y in out), dtype=np.int64, count=n)
        out = self.build(True)([x] * n)  # one call: n independent noisy copies
        return np.asarray(out, dtype=float if self.T == "float" else np.int64)


@dataclass(frozen=True)
class _RRLaw:
    """OpenDP's documented randomized response: the truth with probability ``prob``, else uniform over the others."""

    prob: float
    k: int
    boolean: bool

    def __call__(self, data):
        i = int(bool(data)) if self.boolean else int(data)
        p = np.full(self.k, (1.0 - self.prob) / (self.k - 1))
        p[i] = self.prob
        return np.arange(self.k), p


@dataclass(frozen=True)
class _Loop:
    """A built Measurement called once per sample (vector outputs stacked); numpy inputs are given
    to OpenDP as Python values of the domain's type."""

    measurement: Any

    def __call__(self, data, rng, n):
        if isinstance(data, np.ndarray):
            integer = _integer_domain(self.measurement)
            data = data.astype(np.int64 if integer else float).tolist()
        return np.asarray([self.measurement(data) for _ in range(n)])


def _integer_domain(measurement) -> bool:
    text = str(measurement.input_domain)
    return any(f"T={t}" in text for t in ("i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64", "usize", "isize"))


def _declared_domain(measurement) -> tuple:
    """``(size, low, high)`` of the measurement's input domain, read through OpenDP's API
    (``VectorDomain.size``, ``AtomDomain.bounds``); None where OpenDP declares none."""
    domain = measurement.input_domain
    element = getattr(domain, "element_domain", None) if str(domain).startswith("VectorDomain") else domain
    try:
        size, bounds = getattr(domain, "size", None), getattr(element, "bounds", None)
    except Exception:  # a domain kind without these fields declares neither
        size, bounds = None, None
    low, high = (None, None) if bounds is None else (float(bounds[0]), float(bounds[1]))
    return (None if size is None else int(size)), low, high


def _relation_of(measurement, d_in):
    """The relation of a built Measurement, read from its input domain (bounds, size) and metric.

    On a sized vector domain under the symmetric or insert-delete distance two inputs of the same
    size are at distance 2 or more: one record replaced (``kind="replace"``, distance 2) is what
    is searched, and ``d_in < 2`` admits no pair (ValueError).  ``default_domain=True`` only where
    OpenDP declares no bounds."""
    domain, metric = str(measurement.input_domain), str(measurement.input_metric)
    size, low, high = _declared_domain(measurement)
    common = dict(integer=_integer_domain(measurement), low=low, high=high, default_domain=low is None or high is None,
                  description=f"input distance <= {d_in} ({metric}) on {domain}")
    vector = domain.startswith("VectorDomain")
    shape = (size if size is not None else 3,)
    if vector and ("L1Distance" in metric or "L2Distance" in metric):
        return Neighbours(shape=shape, kind="l1", bound=float(d_in), **common)
    added = "Symmetric" in metric or "InsertDelete" in metric  # one record added or removed: distance 1
    if vector and (added or "ChangeOne" in metric or "Hamming" in metric):
        if size is None and added:
            return Neighbours(shape=shape, kind="add_remove", **common)
        if float(d_in) < (2 if added else 1):  # one record replaced: distance 2 (added), 1 (changed)
            raise ValueError(f"d_in={d_in!r} under {metric} on {domain} admits no pair of inputs: one record "
                             f"replaced is at distance {2 if added else 1}; give d_in >= {2 if added else 1}")
        return Neighbours(shape=shape, kind="replace", **common)
    return Neighbours(shape=(), kind="l1", bound=float(d_in), **common)


def _claims(measurement, d_in, epsilon):
    """The stated claim at ``d_in`` (:func:`~dpverify.mechanisms.adapters.stated.opendp_claim`) and its
    measure.  ``epsilon`` given: pure ε-DP is claimed at ``epsilon``; a zCDP measurement claims the point
    (ε, δ(ε)) of OpenDP's own conversion ``make_zCDP_to_approxDP``; a privacy profile its point at ε."""
    claim, measure = opendp_claim(measurement, d_in, epsilon=epsilon)
    if epsilon is None:
        return claim, measure
    if measure == "MaxDivergence":
        return PureDP(epsilon), measure
    if measure == "ZeroConcentratedDivergence":
        profile = _dp().c.make_zCDP_to_approxDP(measurement).map(d_in)
        return DeltaCurve(_Curve(profile), epsilon), measure
    return claim, measure


@dataclass(frozen=True)
class _Curve:
    profile: Any

    def __call__(self, eps: float) -> float:
        return float(self.profile.delta(float(eps)))


def _stated(function, claim, measure, d_in, name, relation, **kw) -> StatedMechanism:
    return StatedMechanism(function, name=name, relation=relation, claim=claim, measure=measure, d_in=d_in,
                           library=library_version("opendp"), **kw)


def from_opendp(measurement, /, *, d_in=None, epsilon=None, relation=None, name=None, **params) -> StatedMechanism:
    """An OpenDP measurement (by name and parameters, or built) as a protocol object.

    Parameters
    ----------
    measurement : one of :data:`OPENDP_MEASUREMENTS`, or an ``opendp.mod.Measurement``
    d_in : the input distance the claim is made at (default 1: neighbouring inputs differ by 1)
    epsilon : for a named noise measurement without ``scale``, the scale is OpenDP's
        ``binary_search_param`` for this ε; for the Gaussian, the point of the curve to claim
    relation, name : override the stated relation / name
    **params : ``scale``, ``T`` ("float" or "int") for the noise measurements (or your own
        OpenDP ``input_domain`` and ``input_metric``: then built as given and called once per
        sample); ``prob`` and ``categories`` (a list or comma-separated string) for randomized
        response

    Example
    -------
    >>> from_opendp("nope")
    Traceback (most recent call last):
    ...
    ValueError: measurement must be one of ('laplace', 'discrete_laplace', 'geometric', 'gaussian', 'randomized_response_bool', 'randomized_response') or an OpenDP Measurement, got 'nope'
    """
    params = coerce_all(params)
    d_in, epsilon = coerce_all({"d": d_in, "e": epsilon}).values()
    if epsilon is not None:
        epsilon = check_epsilon(epsilon)
    if d_in is not None:  # checked, not converted: OpenDP's map takes the distance in the metric's own type
        check_real(d_in, "d_in", positive=True)
    if not isinstance(measurement, str):
        dp = _dp()
        if not isinstance(measurement, dp.Measurement):
            raise TypeError(f"measurement must be a name or an OpenDP Measurement, got {type(measurement).__name__}")
        if params:
            raise TypeError(f"a built Measurement takes no parameters, got {sorted(params)}")
        d = 1 if d_in is None else d_in
        claim, measure = _claims(measurement, d, epsilon)
        return _stated(_Loop(measurement), claim, measure, d, name or f"opendp:{measurement}",
                       relation or _relation_of(measurement, d))
    if measurement not in OPENDP_MEASUREMENTS:
        raise ValueError(f"measurement must be one of {OPENDP_MEASUREMENTS} or an OpenDP Measurement, got {measurement!r}")
    kind = measurement
    allowed = {"prob", "categories"} if kind.startswith("randomized") else {"scale", "T", "input_domain", "input_metric"}
    unknown = sorted(set(params) - allowed)
    if unknown:
        raise TypeError(f"{kind} takes no parameter {unknown[0]!r}; it takes {sorted(allowed)}, d_in, epsilon, relation, name")
    if kind.startswith("randomized"):
        prob = check_probability(params.get("prob", 0.75), "prob")
        if kind == "randomized_response_bool":
            cats: tuple = (False, True)
        else:
            cats = tuple(params.get("categories", (0, 1, 2)))
            check_positive_int(len(cats) - 1, "number of categories - 1")
        recipe = _Recipe(kind, prob=prob, categories=cats)
        law = _RRLaw(prob, len(cats), kind == "randomized_response_bool")
        d = 1 if d_in is None else d_in
        claim, measure = _claims(recipe.build(False), d, epsilon)
        return _stated(recipe, claim, measure, d, name or f"opendp:{kind}(prob={prob})",
                       relation or Pairs(tuple((i, j) for i in range(len(cats)) for j in range(i + 1, len(cats))),
                                         description="local: any two inputs"), law=law)
    if "input_domain" in params or "input_metric" in params:  # the user's own domain: built as given, looped
        if kind == "discrete_laplace" or "scale" not in params or {"input_domain", "input_metric"} - set(params):
            raise ValueError(f"{kind} with input_domain needs input_metric and scale too")
        dp = _dp()
        make = {"laplace": dp.m.make_laplace, "geometric": dp.m.make_geometric, "gaussian": dp.m.make_gaussian}[kind]
        built = make(params["input_domain"], params["input_metric"], scale=check_real(params["scale"], "scale", positive=True))
        return from_opendp(built, d_in=d_in, epsilon=epsilon, relation=relation,
                           name=name or f"opendp:{kind}(scale={params['scale']:g}, {params['input_domain']})")
    T = params.get("T", "int" if kind in ("discrete_laplace", "geometric") else "float")
    if T not in _TYPES:
        raise ValueError(f"T must be 'float' or 'int', got {T!r}")
    d_in = _TYPES[T](1 if d_in is None else d_in)
    if "scale" in params:
        scale = check_real(params["scale"], "scale", positive=True)
    elif epsilon is not None and kind != "gaussian":
        dp = _dp()
        scale = float(dp.binary_search_param(lambda s: _Recipe(kind, T, s).build(False), d_in=d_in, d_out=epsilon))
    else:
        raise ValueError(f"{kind} needs scale= (or epsilon= to choose the scale)")
    recipe = _Recipe(kind, T, scale)
    try:
        claim, measure = _claims(recipe.build(False), d_in, epsilon)
    except ValueError as exc:
        raise ValueError(f"scale={scale!r}: {exc}") from None
    return _stated(recipe, claim, measure, d_in, name or f"opendp:{kind}(scale={scale:g}, T={T})",
                   relation or Neighbours(shape=(), kind="l1", bound=float(d_in), integer=T == "int",
                                          default_domain=True, description=f"|d - d'| <= {d_in}"),
                   sensitivity_value=float(d_in), noise=f"OpenDP {kind} noise of scale {scale:g}")
