"""The privacy a mechanism's author states: one small frozen object per kind of guarantee.

- :class:`PureDP` — ε-DP;
- :class:`ApproxDP` — (ε, δ)-DP;
- :class:`DeltaCurve` — a δ(ε) curve (every (ε, δ(ε)) at once), optionally with the point ε the
  author highlights;
- :class:`ZCDP` — ρ-zero-concentrated DP (Bun & Steinke 2016);
- :class:`RenyiDP` — (α, ε)-Rényi DP (Mironov 2017).

Every claim has ``epsilon`` and ``delta`` (what the (ε, δ) auditor reads: ``epsilon = inf`` when
the claim is not one (ε, δ) point) and ``delta_curve`` (a callable ε -> δ, or None).  zCDP and
Rényi claims are audited by :func:`dpverify.audit.audit_zcdp` / :func:`dpverify.audit.audit_rdp`,
which convert them; their ``delta_curve`` is None here (the conversion lives with the auditor).
:func:`claim_of` builds a claim from the legacy keywords ``epsilon``, ``delta``, ``delta_curve``.

Example
-------
>>> claim_of(epsilon=1.0)
PureDP(epsilon=1.0)
>>> c = claim_of(epsilon=0.5, delta=1e-6)
>>> c.epsilon, c.delta, c.delta_curve is None
(0.5, 1e-06, True)
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, Union

from dpverify.validation import check_delta, check_epsilon, check_real

__all__ = ["ApproxDP", "Claim", "DeltaCurve", "PureDP", "RenyiDP", "ZCDP", "claim_of"]


@dataclass(frozen=True)
class PureDP:
    """ε-differential privacy.

    Example
    -------
    >>> PureDP(0.5).delta
    0.0
    """

    epsilon: float

    def __post_init__(self):
        object.__setattr__(self, "epsilon", check_epsilon(self.epsilon))

    delta = 0.0
    delta_curve = None


@dataclass(frozen=True)
class ApproxDP:
    """(ε, δ)-differential privacy.

    Example
    -------
    >>> ApproxDP(1.0, 1e-5)
    ApproxDP(epsilon=1.0, delta=1e-05)
    """

    epsilon: float
    delta: float

    def __post_init__(self):
        object.__setattr__(self, "epsilon", check_epsilon(self.epsilon))
        object.__setattr__(self, "delta", check_delta(self.delta))

    delta_curve = None


@dataclass(frozen=True)
class DeltaCurve:
    """A claimed privacy curve δ(ε); ``epsilon`` is the point shown (``inf``: the whole curve).

    Example
    -------
    >>> c = DeltaCurve(lambda e: math.exp(-e))
    >>> c.epsilon, c.delta
    (inf, 0.0)
    >>> round(DeltaCurve(lambda e: math.exp(-e), epsilon=1.0).delta, 4)
    0.3679
    """

    curve: Callable[[float], float]
    epsilon: float = math.inf
    point_delta: float | None = None

    def __post_init__(self):
        if not callable(self.curve):
            raise TypeError(f"delta_curve must be callable eps -> delta, got {type(self.curve).__name__}")
        if self.epsilon != math.inf:
            object.__setattr__(self, "epsilon", check_epsilon(self.epsilon))
        if self.point_delta is not None:
            object.__setattr__(self, "point_delta", check_delta(self.point_delta, "point_delta"))

    @property
    def delta(self) -> float:
        """δ at the point shown: ``point_delta`` when stated, else δ(ε) (0 for the whole curve)."""
        if self.point_delta is not None:
            return self.point_delta
        return 0.0 if self.epsilon == math.inf else check_delta(self.curve(self.epsilon))

    @property
    def delta_curve(self) -> Callable[[float], float]:
        """The claimed curve ε -> δ(ε)."""
        return self.curve


@dataclass(frozen=True)
class ZCDP:
    """ρ-zero-concentrated differential privacy (audit it with ``dpverify.audit.audit_zcdp``).

    Example
    -------
    >>> ZCDP(0.5).epsilon
    inf
    """

    rho: float

    def __post_init__(self):
        object.__setattr__(self, "rho", check_real(self.rho, "rho", positive=True))

    epsilon = math.inf
    delta = 0.0
    delta_curve = None


@dataclass(frozen=True)
class RenyiDP:
    """(α, ε)-Rényi differential privacy (audit it with ``dpverify.audit.audit_rdp``).

    Example
    -------
    >>> RenyiDP(alpha=2.0, renyi_epsilon=0.5).alpha
    2.0
    """

    alpha: float
    renyi_epsilon: float

    def __post_init__(self):
        a = check_real(self.alpha, "alpha", positive=True)
        if not a > 1:
            raise ValueError(f"alpha must be > 1, got {self.alpha!r}")
        object.__setattr__(self, "alpha", a)
        object.__setattr__(self, "renyi_epsilon", check_real(self.renyi_epsilon, "renyi_epsilon", positive=True))

    epsilon = math.inf
    delta = 0.0
    delta_curve = None


Claim = Union[PureDP, ApproxDP, DeltaCurve, ZCDP, RenyiDP]
CLAIM_TYPES = (PureDP, ApproxDP, DeltaCurve, ZCDP, RenyiDP)


def claim_of(*, epsilon=None, delta=0.0, delta_curve=None) -> Claim:
    """The claim spelled by the legacy keywords (``epsilon = inf`` only together with ``delta_curve``).

    Example
    -------
    >>> claim_of(epsilon=math.inf, delta_curve=lambda e: 0.0).epsilon
    inf
    >>> claim_of(epsilon=math.inf)
    Traceback (most recent call last):
    ...
    ValueError: epsilon must be finite unless a delta_curve is claimed, got inf
    """
    if delta_curve is not None:
        if not callable(delta_curve):
            raise TypeError(f"delta_curve must be callable eps -> delta, got {type(delta_curve).__name__}")
        eps = math.inf if epsilon is None else epsilon
        if not (isinstance(eps, (int, float)) and not isinstance(eps, bool) and eps == math.inf):
            return DeltaCurve(delta_curve, check_epsilon(eps), check_delta(delta))
        return DeltaCurve(delta_curve, point_delta=check_delta(delta) or None)
    if epsilon is None:
        raise ValueError("epsilon must be given: the claim states no epsilon")
    if isinstance(epsilon, (int, float)) and not isinstance(epsilon, bool) and epsilon == math.inf:
        raise ValueError("epsilon must be finite unless a delta_curve is claimed, got inf")
    eps, d = check_epsilon(epsilon), check_delta(delta)
    return PureDP(eps) if d == 0 else ApproxDP(eps, d)
