"""Controls that audit the rooms' own code as black boxes (the engine's controls cannot import a room).

:class:`FDARelease` releases a count stream with the continual room's FDA strategy, one call of
:func:`dpverify.continual.release` per sample; ``audit.control.fda_release`` audits it against its
claimed ε with the :class:`~dpverify.audit.controls.SuffixSum` statistic.

Example
-------
>>> import numpy as np
>>> FDARelease(1.0)(np.array([1, 0, 2]), np.random.default_rng(0), 5).shape
(5, 3)
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field

import numpy as np

from dpverify.audit.controls.base import Control
from dpverify.mechanisms import Neighbours
from dpverify.continual import release
from dpverify.validation import check_epsilon

__all__ = ["FDARelease"]


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

    @property
    def relation(self) -> Neighbours:
        """Count streams (``steps`` counts ≥ 0) where one count changes by 1."""
        return Neighbours(shape=(self.steps,), kind="l1", bound=1.0, low=0, integer=True,
                          description="one count a_t changes by 1 (add/remove one record)")

    def __call__(self, data, rng, n):
        with warnings.catch_warnings():  # the float-Laplace control is audited on purpose
            warnings.simplefilter("ignore", UserWarning)
            return np.stack([release(data, self.epsilon, "fda", rng, noise=self.noise) for _ in range(n)])
