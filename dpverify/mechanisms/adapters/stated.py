"""The privacy a library states for its own measurement, read from the library.

OpenDP states privacy as a measurement's output measure and its privacy map: ``measurement.map(d_in)``
is the loss in that measure at the input distance ``d_in``.  :func:`opendp_claim` turns the pair into
a claim object of :mod:`dpverify.mechanisms.privacy`, in the library's own measure:

=================================  ===================================================
OpenDP output measure              claim
=================================  ===================================================
``MaxDivergence``                  :class:`PureDP` (ε = map(d_in))
``ZeroConcentratedDivergence``     :class:`ZCDP` (ρ = map(d_in))
``Approximate(MaxDivergence)``,    :class:`ApproxDP` ((ε, δ) = map(d_in))
``FixedSmoothedMaxDivergence``
``SmoothedMaxDivergence``          :class:`DeltaCurve` (the privacy profile ε -> δ(ε))
``RenyiDivergence``                :class:`RenyiDP` at the order ``alpha`` (map(d_in)(α))
=================================  ===================================================

Any other measure is a ValueError naming it (the sweep writes it as an ``error`` row).
:class:`StatedMechanism` is a :class:`~dpverify.mechanisms.protocol.FunctionMechanism` that also
keeps the measure's name, the input distance and the library's release the claim was read from.

Example
-------
>>> StatedMechanism(lambda d, rng, n: d, epsilon=1.0, measure="MaxDivergence", library="opendp 0.16.0").measure
'MaxDivergence'
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from dpverify.mechanisms.privacy import ApproxDP, DeltaCurve, PureDP, RenyiDP, ZCDP
from dpverify.mechanisms.protocol import FunctionMechanism
from dpverify.validation import check_epsilon, check_real

__all__ = ["MEASURES", "StatedMechanism", "library_version", "opendp_claim"]

#: the OpenDP output measures read (by the leading name of ``str(measure)``)
MEASURES = ("MaxDivergence", "ZeroConcentratedDivergence", "Approximate(MaxDivergence)",
            "FixedSmoothedMaxDivergence", "SmoothedMaxDivergence", "RenyiDivergence")


@dataclass(frozen=True, init=False)
class StatedMechanism(FunctionMechanism):
    """A library's mechanism with its stated claim and where it was read: ``measure`` (the library's
    name of the output measure), ``d_in`` (the input distance of the claim) and ``library``
    (package and release, e.g. ``"opendp 0.16.0"``).

    Example
    -------
    >>> from dpverify.mechanisms.privacy import ZCDP
    >>> m = StatedMechanism(lambda d, rng, n: d, claim=ZCDP(0.5), measure="ZeroConcentratedDivergence", d_in=1.0)
    >>> m.claim, m.d_in
    (ZCDP(rho=0.5), 1.0)
    """

    measure: str = ""
    d_in: Any = None
    library: str = ""

    def __init__(self, function, *args, measure: str = "", d_in=None, library: str = "", **kwargs):
        super().__init__(function, *args, **kwargs)
        for key, text in (("measure", measure), ("library", library)):
            if not isinstance(text, str):
                raise TypeError(f"{key} must be a string, got {type(text).__name__}")
        object.__setattr__(self, "measure", measure)
        object.__setattr__(self, "d_in", d_in)
        object.__setattr__(self, "library", library)


@dataclass(frozen=True)
class _Profile:
    """OpenDP's privacy profile as a callable ε -> δ (picklable by reference only while alive)."""

    profile: Any

    def __call__(self, eps: float) -> float:
        return float(self.profile.delta(float(eps)))


def library_version(package: str) -> str:
    """``"package X.Y.Z"`` of the installed distribution (``"package ?"`` when its metadata is missing).

    Example
    -------
    >>> library_version("numpy").startswith("numpy ")
    True
    """
    if not isinstance(package, str) or not package:
        raise TypeError(f"package must be a non-empty str, got {package!r}")
    from importlib import metadata

    try:
        return f"{package} {metadata.version(package)}"
    except metadata.PackageNotFoundError:
        return f"{package} ?"


def _measure_name(measurement) -> str:
    text = str(measurement.output_measure)
    for name in sorted(MEASURES, key=len, reverse=True):  # "FixedSmoothed..." before "Smoothed..."
        if text.startswith(name):
            return name
    return text


def opendp_claim(measurement, d_in, *, epsilon=None, alpha: float = 2.0):
    """``(claim, measure)``: the measurement's stated privacy at ``d_in`` in its own measure.

    ``epsilon`` picks the point (ε, δ(ε)) of a privacy profile (``SmoothedMaxDivergence``) instead of
    the whole curve; ``alpha`` is the order read from a Rényi map.  A map that raises, returns a
    non-finite or negative loss, or a measure not in :data:`MEASURES`: ValueError naming it.

    Example
    -------
    >>> import opendp.prelude as dp
    >>> dp.enable_features("contrib")
    >>> m = dp.m.make_laplace(dp.atom_domain(T=float, nan=False), dp.absolute_distance(T=float), scale=2.0)
    >>> opendp_claim(m, 1.0)
    (PureDP(epsilon=0.5), 'MaxDivergence')
    """
    if not hasattr(measurement, "output_measure") or not hasattr(measurement, "map"):
        raise TypeError(f"measurement must be an OpenDP Measurement, got {type(measurement).__name__}")
    if epsilon is not None:
        epsilon = check_epsilon(epsilon)
    a = check_real(alpha, "alpha", positive=True)
    if not 1 < a < math.inf:
        raise ValueError(f"alpha must be a finite Rényi order > 1, got {alpha!r}")
    if isinstance(d_in, np.generic):  # OpenDP infers its distance type from the Python value
        d_in = d_in.item()
    measure = _measure_name(measurement)
    if measure not in MEASURES:
        raise ValueError(f"output measure {measure} is not one the adapter reads ({', '.join(MEASURES)})")
    try:
        value = measurement.map(d_in)
    except Exception as exc:  # OpenDP raises its own OpenDPException
        raise ValueError(f"the privacy map of {measure} cannot be evaluated at d_in={d_in!r}: "
                         f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}") from None
    if measure == "MaxDivergence":
        return PureDP(_loss(value, "epsilon", measure, d_in)), measure
    if measure == "ZeroConcentratedDivergence":
        return ZCDP(_loss(value, "rho", measure, d_in)), measure
    if measure in ("Approximate(MaxDivergence)", "FixedSmoothedMaxDivergence"):
        eps, delta = value
        return ApproxDP(_loss(eps, "epsilon", measure, d_in), float(delta)), measure
    if measure == "SmoothedMaxDivergence":
        curve = _Profile(value)
        return (DeltaCurve(curve) if epsilon is None else DeltaCurve(curve, float(epsilon))), measure
    return RenyiDP(a, _loss(value(a), "renyi_epsilon", measure, d_in)), measure


def _loss(value, name: str, measure: str, d_in) -> float:
    x = float(value)
    if not math.isfinite(x) or x <= 0:
        raise ValueError(f"the privacy map of {measure} gives {name} = {x} at d_in={d_in!r} (not a finite "
                         "positive loss)")
    return x
