"""``dpverify conform diffprivlib``: every mechanism of the installed diffprivlib, against its own ε/δ.

The mechanisms are the classes of ``diffprivlib.mechanisms`` that :func:`dpverify.audit.adapters.from_diffprivlib`
drives.  Each is built over a small grid and checked by :func:`dpverify.conform.rows.check` against its own
claim (``epsilon``, with ``delta`` when it states one: :class:`~dpverify.mechanisms.privacy.ApproxDP`); the
outputs are diffprivlib's own (drawn with ``random_state`` seeded from the sweep's generator, so a sweep is
reproducible from its seed), as cells: finite outputs; integers with two tail cells; reals binned.

Closed forms matched: Laplace (scale Δ/ε), the two-sided geometric (ε/Δ), the classical Gaussian
(σ = Δ·√(2 ln(1.25/δ))/ε), Binary (keep with e^ε/(1 + e^ε)), the exponential mechanism
(weights exp(ε·u/(2Δ))) and permute-and-flip (report noisy max with exponential noise of scale 2Δ/ε:
McKenna & Sheldon 2020, Thm. 2).  The bounded, folded, truncated, snapping and staircase variants are
checked without a closed form.

Example
-------
>>> [c.constructor for c in cases(["Binary"])]
['Binary']
"""

from __future__ import annotations

import math

import numpy as np

from dpverify.conform.laws import binned, integer, orderings, top_k
from dpverify.conform.rows import Case, FailedCase
from dpverify.mechanisms.adapters.stated import library_version

__all__ = ["cases", "not_driven"]

_EDGES = np.linspace(-6.0, 7.0, 27)  # real outputs at the inputs 0 and 1: cells of width 0.5
_LO, _HI = -8, 9  # integer outputs
_SCORES = [((0.0, 0.0, 0.0), (1.0, 0.0, 0.0)), ((1.0, 0.0, 0.0), (0.0, 1.0, 1.0))]

#: (class, parameters, output kind) of the grid
_GRID: list[tuple[str, dict, str]] = [
    ("Laplace", {"epsilon": 1.0, "sensitivity": 1.0}, "real"),
    ("Laplace", {"epsilon": 0.5, "sensitivity": 1.0}, "real"),
    ("LaplaceTruncated", {"epsilon": 1.0, "sensitivity": 1.0, "lower": -2.0, "upper": 3.0}, "real"),
    ("LaplaceFolded", {"epsilon": 1.0, "sensitivity": 1.0, "lower": -2.0, "upper": 3.0}, "real"),
    ("LaplaceBoundedDomain", {"epsilon": 1.0, "sensitivity": 1.0, "lower": -2.0, "upper": 3.0}, "real"),
    ("LaplaceBoundedNoise", {"epsilon": 1.0, "delta": 0.1, "sensitivity": 1.0}, "real"),
    ("Staircase", {"epsilon": 1.0, "sensitivity": 1.0}, "real"),
    ("Snapping", {"epsilon": 1.0, "sensitivity": 1.0, "lower": -4.0, "upper": 5.0}, "real"),
    ("Gaussian", {"epsilon": 0.5, "delta": 1e-3, "sensitivity": 1.0}, "real"),
    ("GaussianAnalytic", {"epsilon": 1.0, "delta": 1e-3, "sensitivity": 1.0}, "real"),
    ("Geometric", {"epsilon": 1.0, "sensitivity": 1}, "integer"),
    ("GeometricTruncated", {"epsilon": 1.0, "sensitivity": 1, "lower": -3, "upper": 4}, "integer"),
    ("GeometricFolded", {"epsilon": 1.0, "sensitivity": 1, "lower": -3, "upper": 4}, "integer"),
    ("GaussianDiscrete", {"epsilon": 1.0, "delta": 1e-3, "sensitivity": 1}, "integer"),
    ("Binary", {"epsilon": 1.0, "value0": "no", "value1": "yes"}, "binary"),
    ("ExponentialCategorical", {"epsilon": 1.0, "utility_list": [["a", "a", 1.0], ["b", "b", 1.0], ["a", "b", 0.0]]},
     "categorical"),
    ("Exponential", {"epsilon": 1.0, "sensitivity": 1.0}, "utility"),
    ("PermuteAndFlip", {"epsilon": 1.0, "sensitivity": 1.0}, "utility"),
]


def _laws(name: str, params: dict, kind: str) -> dict:
    eps, sens = params["epsilon"], params.get("sensitivity", 1.0)
    if name == "Laplace":
        return {"laplace": lambda x: binned("laplace", float(x), scale=sens / eps, edges=_EDGES)}
    if name == "Gaussian":
        sigma = sens * math.sqrt(2 * math.log(1.25 / params["delta"])) / eps
        return {"gaussian (classical σ)": lambda x: binned("gaussian", float(x), scale=sigma, edges=_EDGES)}
    if name == "Geometric":
        return {"two-sided geometric": lambda x: integer("laplace", int(x), scale=sens / eps, lo=_LO, hi=_HI)}
    if name == "Binary":
        keep = math.exp(eps) / (1 + math.exp(eps))
        return {"binary": lambda x: np.array([keep, 1 - keep]) if int(x) == 0 else np.array([1 - keep, keep])}
    if name == "Exponential":
        return {"exponential mechanism": lambda u: top_k("gumbel", u, scale=2 * sens / eps, k=1)}
    if name == "PermuteAndFlip":
        return {"noisy max, exponential noise": lambda u: top_k("exponential", u, scale=2 * sens / eps, k=1)}
    return {}


def _cells(kind: str, out: np.ndarray) -> np.ndarray:
    if kind == "real":
        return np.searchsorted(_EDGES, np.asarray(out, dtype=float))
    if kind == "integer":
        return np.clip(np.asarray(out, dtype=np.int64), _LO - 1, _HI + 1) - (_LO - 1)
    return np.asarray(out, dtype=np.int64)


def _pairs(kind: str) -> tuple[list, int]:
    """The pairs checked and the number of cells."""
    if kind == "real":
        return [(0.0, 1.0)], len(_EDGES) + 1
    if kind == "integer":
        return [(0, 1)], _HI - _LO + 3
    if kind == "utility":
        return list(_SCORES), len(orderings(3, 1))
    return [(0, 1)], 2


class _Sample:
    """Draws of the adapter's mechanism as cells (the adapter seeds diffprivlib from the generator)."""

    def __init__(self, mechanism, kind: str):
        self.mechanism, self.kind = mechanism, kind

    def __call__(self, x, n, rng):
        data = list(x) if self.kind == "utility" else x
        return _cells(self.kind, self.mechanism.sample(data, rng, n))


#: CPU per draw relative to Laplace's (diffprivlib 0.6.6, one core): orders a pooled sweep only
_COST = {"GeometricFolded": 17.0, "LaplaceBoundedDomain": 4.5, "LaplaceBoundedNoise": 4.0, "Snapping": 4.0,
         "GeometricTruncated": 3.0, "GaussianDiscrete": 2.5, "Exponential": 2.3, "LaplaceTruncated": 2.0,
         "LaplaceFolded": 2.0, "PermuteAndFlip": 1.6}

_REASONS = {
    "DPMechanism": "a base class, not a mechanism",
    "DPMachine": "a base class, not a mechanism",
    "Bingham": "samples a unit vector for a matrix input (outputs in a continuous sphere: no bins here)",
    "Vector": "releases a perturbed objective function (a callable, not a value)",
    "Uniform": "its claim is δ-only (ε = 0), not checked by the sweep's bins",
    "ExponentialHierarchical": "takes a nested utility list (no driver in dpverify's adapter)",
}


def not_driven() -> list[tuple[str, str]]:
    """``(class, reason)`` for each mechanism class of the installed diffprivlib that is not driven.

    Example
    -------
    >>> isinstance(not_driven(), list)
    True
    """
    import diffprivlib.mechanisms as mechanisms

    from dpverify.mechanisms.adapters.diffprivlib_adapter import DIFFPRIVLIB_MECHANISMS

    driven = {name for name, _, _ in _GRID}
    out = []
    for name in sorted(dir(mechanisms)):
        obj = getattr(mechanisms, name)
        if not isinstance(obj, type) or name.startswith("_") or not hasattr(obj, "randomise") or name in driven:
            continue
        if name in DIFFPRIVLIB_MECHANISMS:
            out.append((name, "in the adapter but not in the sweep's grid"))
        else:
            out.append((name, _REASONS.get(name, "not driven by dpverify's diffprivlib adapter")))
    return out


def cases(only=None) -> list:
    """The sweep's cases for the installed diffprivlib; ``only``: class names to keep.

    Example
    -------
    >>> cases(["Laplace"])[0].claim
    PureDP(epsilon=1.0)
    """
    if only is not None and (isinstance(only, str) or not all(isinstance(n, str) for n in only)):
        raise TypeError(f"only must be a list of class names, got {only!r}")
    from dpverify.mechanisms.adapters.diffprivlib_adapter import from_diffprivlib

    library = library_version("diffprivlib")
    out: list = []
    for name, params, kind in _GRID:
        if only is not None and name not in only:
            continue
        try:
            m = from_diffprivlib(name, **params)
        except Exception as exc:  # noqa: BLE001 - the class cannot be built here: an error row
            out.append(FailedCase(name, dict(params), exc, library))
            continue
        pairs, cells = _pairs(kind)
        out.append(Case(name, dict(params), m.claim, m.measure, pairs, _Sample(m, kind), cells,
                        _laws(name, params, kind), library, _COST.get(name, 1.0)))
    return out
