"""Controls that audit the rooms' own code as black boxes (the engine's controls import no room).

- :class:`GeometricMechanism`, :class:`ExponentialMechanism` and :class:`KRR` sample through the
  primitives room's exact samplers (correct controls; ``factor=1`` / ``scale_factor < 1`` are the
  planted bugs);
- :class:`LibraryLaplace` and :class:`SafeLaplace` are the primitives' float and safe Laplace
  releases, audited with the floating-point attack (:mod:`dpverify.audit.controls.floating_point`);
- :class:`FDARelease` releases a count stream with the continual room's FDA strategy, one call of
  ``dpverify.continual.release`` per sample, found through the catalogue (family
  ``continual.release[fda, <noise>]``: this room names no paper's room in an import);
  ``audit.control.fda_release`` audits it against its claimed ε with the
  :class:`~dpverify.audit.controls.SuffixSum` statistic.

Example
-------
>>> import numpy as np
>>> FDARelease(1.0)(np.array([1, 0, 2]), np.random.default_rng(0), 5).shape
(5, 3)
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

from dpverify.audit.controls import Control, ScalarRelease
from dpverify.mechanisms import Neighbours
from dpverify.mechanisms.catalogue import families
from dpverify.primitives import additive  # called through the module: the Laplace controls audit the
# library's release as it is at call time (the mutation tests patch it there)
from dpverify.primitives.exponential import exponential_probabilities
from dpverify.primitives.randomized_response import randomized_response
from dpverify.primitives.sampling import discrete_laplace
from dpverify.validation import check_epsilon, check_positive_int, check_real

__all__ = ["ExponentialMechanism", "FDARelease", "GeometricMechanism", "KRR", "LibraryLaplace", "SafeLaplace",
           "fda_release_sampler"]


@dataclass(frozen=True)
class FDARelease(Control):
    """The continual room's FDA release of a count stream ``data`` (n noisy running totals).

    Black-box: one call of ``dpverify.continual.release(..., method="fda")`` per sample.

    Example
    -------
    >>> FDARelease(1.0)(np.array([1, 0, 2]), np.random.default_rng(0), 5).shape
    (5, 3)
    """

    epsilon: float
    noise: str = "laplace"
    steps: int = field(default=4, repr=False)

    def __post_init__(self):
        check_epsilon(self.epsilon)
        fda_release_sampler(self.epsilon, self.noise)  # checks noise, and that the continual room is there
        check_positive_int(self.steps, "steps")

    @property
    def relation(self) -> Neighbours:
        """Count streams (``steps`` counts ≥ 0) where one count changes by 1."""
        return Neighbours(shape=(self.steps,), kind="l1", bound=1.0, low=0, integer=True, default_domain=True,
                          description="one count a_t changes by 1 (add/remove one record)")

    def __call__(self, data, rng, n):
        sample = fda_release_sampler(self.epsilon, self.noise)
        with warnings.catch_warnings():  # the float-Laplace control is audited on purpose
            warnings.simplefilter("ignore", UserWarning)
            return sample(data, rng, n)


_FDA_NOISES = ("laplace", "discrete")


def fda_release_sampler(epsilon: float, noise: str):
    """The continual room's batch FDA release as a sampler ``(data, rng, n) -> (n, len(data))``.

    Found through the catalogue (family ``continual.release[fda, <noise>]``), so this room imports
    no paper's room; it draws n calls of ``dpverify.continual.release(data, ε, "fda", rng, noise=noise)``.
    Raises LookupError when the continual room is not installed.

    Example
    -------
    >>> fda_release_sampler(1.0, "discrete")(np.array([1, 0, 2]), np.random.default_rng(0), 2).shape
    (2, 3)
    """
    check_epsilon(epsilon)
    if not isinstance(noise, str):
        raise TypeError(f"noise must be 'laplace' or 'discrete', got {noise!r} of type {type(noise).__name__}")
    if noise not in _FDA_NOISES:
        raise ValueError(f"noise must be 'laplace' or 'discrete', got {noise!r}")
    return _fda_sampler(float(epsilon), noise)


@lru_cache(maxsize=16)
def _fda_sampler(epsilon: float, noise: str):
    """The sampler of :func:`fda_release_sampler` (checked arguments), built once per (ε, noise)."""
    name = f"continual.release[fda, {noise}]"
    family = families().get(name)
    if family is None:
        raise LookupError(f"the catalogue has no family {name!r}: is the continual room installed?")
    return family.factory(epsilon=epsilon, log2_steps=1).function


@dataclass(frozen=True)
class GeometricMechanism(Control):
    """Integer f(D) + two-sided geometric noise, P(k) ∝ exp(−ε|k|/(scale_factor·Δ)).

    Example
    -------
    >>> GeometricMechanism(1.0)(3, np.random.default_rng(0), 4).dtype.kind   # integer outputs
    'i'
    """

    epsilon: float
    sensitivity: int = 1
    scale_factor: float = 1.0

    def __post_init__(self):
        check_epsilon(self.epsilon)
        check_positive_int(self.sensitivity, "sensitivity")
        check_real(self.scale_factor, "scale_factor", positive=True)

    @property
    def relation(self) -> Neighbours:
        """Integer answers differing by at most the sensitivity."""
        return Neighbours(shape=(), kind="l1", bound=self.sensitivity, integer=True,
                          default_domain=True, description=f"|d - d'| <= {self.sensitivity}, integers")

    def __call__(self, data, rng, n):
        # the scale rounded up (additive.laplace_scale): the loss never exceeds ε by a rounding
        return int(data) + discrete_laplace(additive.laplace_scale(self.scale_factor * self.sensitivity, self.epsilon), n, rng)


@dataclass(frozen=True)
class ExponentialMechanism(Control):
    """Output index φ with probability ∝ exp(ε q_φ / (factor·Δq)); ``data`` is the score vector.

    Example
    -------
    >>> out = ExponentialMechanism(1.0)(np.array([0.0, 1.0, 5.0]), np.random.default_rng(0), 6)
    >>> out.shape, bool(np.isin(out, [0, 1, 2]).all())
    ((6,), True)
    """

    epsilon: float
    sensitivity: float = 1.0
    factor: float = 2.0
    k: int = field(default=3, repr=False)

    def __post_init__(self):
        check_epsilon(self.epsilon)
        check_real(self.sensitivity, "sensitivity", positive=True)
        check_real(self.factor, "factor", positive=True)
        check_positive_int(self.k, "k")

    @property
    def relation(self) -> Neighbours:
        """Score vectors (``k`` candidates) whose scores differ by at most the sensitivity."""
        return Neighbours(shape=(self.k,), kind="linf", bound=self.sensitivity, default_domain=True,
                          description=f"|q - q'|_inf <= {self.sensitivity:g}")

    def __call__(self, data, rng, n):
        p = exponential_probabilities(data, self.sensitivity, self.epsilon, factor=self.factor)
        return np.searchsorted(np.cumsum(p)[:-1], rng.random(n), side="right").astype(np.int64)


@dataclass(frozen=True)
class KRR(Control):
    """k-ary randomized response of the single value ``data`` ∈ {0..k−1}.

    Example
    -------
    >>> out = KRR(3, 1.0)(0, np.random.default_rng(0), 6)
    >>> out.shape, bool(np.isin(out, [0, 1, 2]).all())
    ((6,), True)
    """

    k: int
    epsilon: float

    def __post_init__(self):
        check_positive_int(self.k, "k")
        check_epsilon(self.epsilon)

    @property
    def relation(self) -> Neighbours:
        """Local: any two values in 0..k−1."""
        return Neighbours(shape=(), kind="replace", low=0, high=self.k - 1, integer=True,
                          description=f"local: any two inputs in 0..{self.k - 1}")

    def __call__(self, data, rng, n):
        return randomized_response(np.full(n, int(data)), self.k, self.epsilon, rng)


@dataclass(frozen=True)
class LibraryLaplace(ScalarRelease):
    """The library's float release :func:`~dpverify.primitives.additive.laplace_mechanism` (numpy's Laplace).

    Example
    -------
    >>> LibraryLaplace(1.0)(0.0, np.random.default_rng(0), 4).shape
    (4,)
    """

    def __call__(self, data, rng, n):
        return additive.laplace_mechanism(float(data), self.sensitivity, self.epsilon, rng, size=n)


@dataclass(frozen=True)
class SafeLaplace(ScalarRelease):
    """The library's safe release :func:`~dpverify.primitives.additive.safe_laplace_mechanism` as an auditable mechanism.

    Example
    -------
    >>> out = SafeLaplace(1.0)(0.0, np.random.default_rng(0), 4)
    >>> bool(np.all(out / 2.0**-10 == np.round(out / 2.0**-10)))   # outputs on the 2^-10 grid
    True
    """

    grid: float = 2.0**-10

    def __post_init__(self):
        super().__post_init__()
        check_real(self.grid, "grid", positive=True)

    def __call__(self, data, rng, n):
        return additive.safe_laplace_mechanism(float(data), self.sensitivity, self.epsilon, rng, size=n, grid=self.grid)
