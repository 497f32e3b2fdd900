"""What makes a control a :class:`~dpverify.mechanisms.Mechanism`: :class:`Control`.

A control is a small frozen dataclass with an ``epsilon`` field and ``__call__(data, rng, n)``;
the mixin adds the protocol's ``name`` (the class and its parameters, as the dataclass shows
them), ``claim`` (pure ε-DP at ``epsilon``), ``delta`` and ``sample``.  Each control defines its
``relation`` (over its input domain).

Example
-------
>>> from dpverify.audit.controls import LaplaceMechanism
>>> m = LaplaceMechanism(0.5)
>>> m.name, m.claim
('LaplaceMechanism(epsilon=0.5, sensitivity=1.0, scale_factor=1.0)', PureDP(epsilon=0.5))
"""

from __future__ import annotations

from dataclasses import fields

from dpverify.mechanisms.privacy import PureDP

__all__ = ["Control"]


class Control:
    """Mixin for the controls: ``name``, ``claim`` (ε-DP), ``delta`` = 0 and ``sample``.

    Example
    -------
    >>> from dataclasses import dataclass
    >>> import numpy as np
    >>> @dataclass(frozen=True)
    ... class Coin(Control):
    ...     epsilon: float
    ...     def __call__(self, data, rng, n):
    ...         return rng.integers(0, 2, n)
    >>> c = Coin(0.5)
    >>> c.name, c.claim, c.delta, c.sample(0, np.random.default_rng(0), 3).shape
    ('Coin(epsilon=0.5)', PureDP(epsilon=0.5), 0.0, (3,))
    """

    delta = 0.0
    ideal_arithmetic = True  # stands for the mechanism over the reals (ScalarRelease overrides it)

    @property
    def name(self) -> str:
        """The class and its parameters (those its repr shows)."""
        shown = ", ".join(f"{f.name}={getattr(self, f.name)!r}" for f in fields(self) if f.repr)
        return f"{type(self).__name__}({shown})"

    @property
    def claim(self) -> PureDP:
        """The stated privacy: ε-DP at ``epsilon`` (a broken control states it too, wrongly)."""
        return PureDP(self.epsilon)

    def sample(self, data, rng, n):
        """n outputs for ``data`` (the control's ``__call__``)."""
        return self(data, rng, n)
