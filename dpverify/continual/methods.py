"""The registry of continual-release methods behind the room's public API.

Each method module (``fenwick.py``/``fda.py`` for naive, fenwick and fda;
``fda_paper.py`` for fda-paper, the paper's Alg. 5 as printed at any n;
``baselines.py``, ``kary.py`` for the others) registers a
:class:`ContinualMethod`; :mod:`dpverify.continual.api` validates input and
dispatches.  A method supplies what it can:

- ``expected_mse(n, epsilon, **options)`` -> float array of length n: the exact
  expected squared error of each release (closed form or exact linear algebra);
- ``strategy(n, **options)`` -> ``(R, A)`` scipy.sparse with R @ A = W (lower
  triangular ones) and max column l1 norm of A at most 1, for factorization
  methods (then releasing R (A a + Lap(1/ε)) is ε-DP);
- ``release(counts, epsilon, rng, noise, **options)`` -> noisy running totals
  (counts already validated: int64, non-negative);
- ``stream(n, epsilon, rng, noise, **options)`` -> an object with
  ``push(a_t) -> float`` (the noisy s_t) for online methods.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from dpverify.validation import check_bool

__all__ = ["ContinualMethod", "register_method", "get_method", "method_names"]


@dataclass(frozen=True)
class ContinualMethod:
    """A continual-release method: what it can compute (see the module docstring)."""

    name: str
    description: str
    expected_mse: Callable[..., Any]
    strategy: Callable[..., Any] | None = None
    release: Callable[..., Any] | None = None
    stream: Callable[..., Any] | None = None
    online: bool = False
    leaves_power_of_two: bool = False  # static methods defined for n = 2^m only
    reference: str = ""

    def __post_init__(self) -> None:
        for field in ("name", "description", "reference"):
            if not isinstance(getattr(self, field), str):
                raise TypeError(f"{field} must be a str, got {getattr(self, field)!r}")
        if not self.name:
            raise ValueError("name must be a non-empty str, got ''")
        if not callable(self.expected_mse):
            raise TypeError(f"expected_mse must be a function, got {self.expected_mse!r}")
        for field in ("strategy", "release", "stream"):
            if getattr(self, field) is not None and not callable(getattr(self, field)):
                raise TypeError(f"{field} must be a function or None, got {getattr(self, field)!r}")
        check_bool(self.online, "online"), check_bool(self.leaves_power_of_two, "leaves_power_of_two")


_METHODS: dict[str, ContinualMethod] = {}


def register_method(m: ContinualMethod) -> ContinualMethod:
    """Add a method to the registry (a name may be registered once).

    Example
    -------
    >>> import dpverify.continual  # registers the library's methods
    >>> register_method(get_method("fda")).name   # re-registering the same object is a no-op
    'fda'
    """
    if not isinstance(m, ContinualMethod):
        raise TypeError(f"m must be a ContinualMethod, got {type(m).__name__}")
    if m.name in _METHODS and _METHODS[m.name] is not m:
        raise ValueError(f"continual method {m.name!r} registered twice")
    _METHODS[m.name] = m
    return m


def get_method(name: str) -> ContinualMethod:
    """The registered method called ``name`` (``ValueError`` listing the names otherwise).

    Example
    -------
    >>> import dpverify.continual
    >>> get_method("naive").online
    True
    """
    if not isinstance(name, str):
        raise TypeError(f"method must be a string, got {type(name).__name__}")
    try:
        return _METHODS[name]
    except KeyError:
        raise ValueError(f"method must be one of {sorted(_METHODS)}, got {name!r}") from None


def method_names(*, online: bool | None = None) -> list[str]:
    """Names of the registered methods, optionally only the online (or only the offline) ones.

    Example
    -------
    >>> import dpverify.continual
    >>> {"naive", "fenwick", "fda"} <= set(method_names(online=True))
    True
    """
    if online is not None:
        online = check_bool(online, "online")
    return sorted(n for n, m in _METHODS.items() if online is None or m.online == online)
