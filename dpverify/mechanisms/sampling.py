"""The one place where a mechanism's outputs are checked: :func:`checked_sample`.

Every sampling path of the auditor (``epsilon_lower_bound``, ``audit``, the pair search, the
curve audit) calls :func:`checked_sample`, so a mechanism that raises, returns the wrong number
of outputs, non-numeric values, NaN or ±∞ is reported the same way (:class:`MechanismError`,
naming the mechanism, the input and the call).  It is also where inputs meet the mechanism's
domain: a mechanism whose relation is over scalars receives a one-entry vector as a scalar
(:meth:`dpverify.mechanisms.Domain.coerce`) — unless the relation is only the default one given to
a bare callable that stated none (``relation_stated`` False): its inputs pass unchanged.

Example
-------
>>> checked_sample(lambda d, rng, n: rng.random(n), 0.0, np.random.default_rng(0), 3).shape
(3,)
"""

from __future__ import annotations

import os
import reprlib
from typing import Any

import numpy as np

from dpverify.validation import check_elements, check_finite_array, check_positive_int, check_size

__all__ = ["MechanismError", "call_mechanism", "checked_sample", "describe_input", "observe_calls", "sample_finite"]

_SHORT = reprlib.Repr()
_SHORT.maxstring = 60
_SHORT.maxother = 60
_SHORT.maxlist = _SHORT.maxtuple = 8


class MechanismError(RuntimeError):
    """The audited mechanism raised, or returned outputs of the wrong shape or with NaN/inf.

    Example
    -------
    >>> issubclass(MechanismError, RuntimeError)
    True
    """


def describe_input(data: Any) -> str:
    """A short, one-line description of a mechanism's input for error messages.

    Example
    -------
    >>> describe_input(np.arange(3)), describe_input(np.array(1.0))
    ('array([0, 1, 2]) (shape (3,))', 'array(1.) (shape ())')
    """
    if isinstance(data, np.ndarray) and data.ndim == 0:
        return f"array({np.array2string(data)}) (shape ())"
    if isinstance(data, np.ndarray):
        body = np.array2string(data.ravel()[:8], separator=", ", threshold=8).replace("\n", "")
        more = ", ..." if data.size > 8 else ""
        return f"array({body[:-1]}{more}]) (shape {data.shape})"
    return _SHORT.repr(data)


def name_of(mech) -> str:
    """The name a mechanism is reported by (its ``name``, ``__name__`` or type).

    Example
    -------
    >>> def coin(d, rng, n): ...
    >>> name_of(coin)
    'coin'
    """
    return str(getattr(mech, "name", None) or getattr(mech, "__name__", None) or type(mech).__name__)


def checked_sample(mech, data: Any, rng: np.random.Generator, n: int) -> np.ndarray:
    """``mech.sample(data, rng, n)`` (or ``mech(data, rng, n)``) with the protocol's rules enforced.

    Returns the outputs as a numpy array of shape (n,) or (n, k), numeric and finite.  Raises
    :class:`MechanismError` naming the mechanism, the input and n when the mechanism raises,
    returns another shape, non-numeric values, NaN or ±inf.

    Example
    -------
    >>> bad = lambda d, rng, n: np.full(n, np.nan)
    >>> try:
    ...     checked_sample(bad, 3, np.random.default_rng(0), 2)
    ... except MechanismError as e:
    ...     print(e)
    mechanism '<lambda>' returned NaN or inf in sample(data=3, rng, n=2)
    """
    n = check_positive_int(n, "n")
    if not isinstance(rng, np.random.Generator):
        raise TypeError(f"rng must be a numpy.random.Generator, got {type(rng).__name__}")
    fn = getattr(mech, "sample", None)
    if fn is None:
        if not callable(mech):
            raise TypeError(f"mechanism must have sample(data, rng, n) or be callable, got {type(mech).__name__}")
        fn = mech
    # the input as given (before any coercion), described only when a message needs it: a copy is
    # kept so that a mechanism that changes its input in place cannot change what the message says
    given = data.copy() if isinstance(data, (np.ndarray, list, dict, set)) else data

    def call() -> str:
        return f"sample(data={describe_input(given)}, rng, n={n})"

    domain = getattr(getattr(mech, "relation", None), "domain", None)
    if domain is not None and hasattr(domain, "coerce") and getattr(mech, "relation_stated", True):
        data = domain.coerce(data)
    observer = _OBSERVER[0] if _OBSERVER[1] == os.getpid() else None  # a supervisor names the call if it dies
    if observer is not None:
        observer(call())
    try:
        out = fn(data, rng, n)
    except KeyboardInterrupt:  # the user's, not the mechanism's
        raise
    except BaseException as exc:  # any failure of user code (SystemExit too), re-raised with its call
        what = f"SystemExit({exc.code!r})" if isinstance(exc, SystemExit) else f"{type(exc).__name__}: {exc}"
        raise MechanismError(f"mechanism {name_of(mech)!r} raised {what} in {call()}") from exc
    finally:
        if observer is not None:
            observer(None)
    try:
        out = np.asarray(out)
    except Exception as exc:
        raise MechanismError(f"mechanism {name_of(mech)!r} returned {type(out).__name__}, not an array, "
                             f"in {call()}") from exc
    why = (f"returned shape {out.shape}, expected ({n},) or ({n}, k)," if out.ndim not in (1, 2) or out.shape[0] != n
           else f"returned non-numeric outputs of dtype {out.dtype}" if out.dtype.kind not in "biuf"
           else "returned NaN or inf" if out.dtype.kind == "f" and not np.isfinite(out).all() else None)
    if why is not None:
        raise MechanismError(f"mechanism {name_of(mech)!r} {why} in {call()}")
    return out


_OBSERVER: list = [None, None]  # (callback, the process it was set in): forked workers do not report


def observe_calls(callback) -> None:
    """Have ``callback(call)`` told of every mechanism call :func:`checked_sample` makes in this
    process (``call`` is ``"sample(data=..., rng, n=...)"``) before the call, and ``callback(None)``
    when it has returned or raised; ``observe_calls(None)`` stops it.

    A supervisor uses it to name the call during which a mechanism ended the process
    (:mod:`dpverify.audit.supervised`).  Processes forked later do not report.

    Example
    -------
    >>> seen = []
    >>> observe_calls(seen.append)
    >>> _ = checked_sample(lambda d, rng, n: rng.random(n), 1.0, np.random.default_rng(0), 2)
    >>> observe_calls(None); seen
    ['sample(data=1.0, rng, n=2)', None]
    """
    if callback is not None and not callable(callback):
        raise TypeError(f"callback must be callable or None, got {type(callback).__name__}")
    _OBSERVER[:] = [callback, os.getpid() if callback is not None else None]


def call_mechanism(mechanism: Any, data: Any, rng: np.random.Generator, n: int) -> np.ndarray:
    """Draw ``n`` outputs of ``mechanism`` on ``data`` (:func:`checked_sample`, the auditor's spelling).

    Example
    -------
    >>> def bad(d, rng, n):
    ...     return rng.random(n + 1)
    >>> try:
    ...     call_mechanism(bad, 0, np.random.default_rng(0), 2)
    ... except MechanismError as e:
    ...     print(e)
    mechanism 'bad' returned shape (3,), expected (2,) or (2, k), in sample(data=0, rng, n=2)
    """
    return checked_sample(mechanism, data, rng, n)


def sample_finite(support: np.ndarray, probs: np.ndarray, rng: np.random.Generator, n: int) -> np.ndarray:
    """n i.i.d. draws from the pmf ``probs`` on ``support`` (inverse CDF, vectorised).

    Example
    -------
    >>> sample_finite(np.array([0, 1]), np.array([0.0, 1.0]), np.random.default_rng(0), 3).tolist()
    [1, 1, 1]

    ``probs`` are non-negative weights with a positive finite sum (normalised by it), one per
    entry of ``support`` (a non-empty 1-d array, returned entries keep its dtype).
    """
    p = check_finite_array(probs, "probs", ndim=1)
    sup = np.asarray(support)
    check_elements(sup, "support")
    if sup.ndim != 1 or sup.size != p.size or p.size < 1:
        raise ValueError(f"support must be a non-empty 1-d array with one entry per probability: support has shape "
                         f"{sup.shape}, probs has {p.size} entries")
    if sup.dtype.kind in "fc" and not np.isfinite(sup).all():
        raise ValueError("support must be finite")
    if (p < 0).any() or not 0 < p.sum() < np.inf:
        raise ValueError("probs must be non-negative with a positive finite sum")
    if not isinstance(rng, np.random.Generator):
        raise TypeError(f"rng must be a numpy.random.Generator, got {type(rng).__name__}")
    n = check_positive_int(n, "n")
    check_size(n, "n", itemsize=16)  # the uniforms and the indices
    cdf = np.cumsum(p)
    idx = np.minimum(np.searchsorted(cdf / cdf[-1], rng.random(n), side="right"), p.size - 1)
    return sup[idx]
