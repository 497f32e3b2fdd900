"""Run the installed DP-SGD accountants and classify each answer against the certified bracket.

A row per accountant: ``unsafe`` (its epsilon is below the bracket's low end: it claims more
privacy than the mechanism has), ``inside`` (within the bracket), ``loose`` (above the high end;
``looseness`` is ``eps / high - 1``), or ``defect`` (NaN, infinite, negative or zero, a wrong
type, or an exception: the row carries the message, the sweep never stops).

Each accountant runs in a forked child process (where ``os.fork`` exists) under an address-space
limit (``max_memory_gib`` more than the caller's) and a ``timeout``: an accountant that runs out of
memory, is killed, crashes (a segmentation fault in compiled code) or hangs is a ``defect`` row with
the reason, never a crash or a hang of the caller.  ``prv_accountant`` 0.2.0, for one, asks for
float128 arrays of several GiB at realistic settings.

The accountants tried, each only when its package imports: Google's ``dp_accounting`` (RDP and
PLD), ``prv_accountant``, ``opacus`` (RDP, PRV), and dpverify's own RDP bound
(:func:`rdp_epsilon`, Mironov, Talwar and Zhang 2019, integer orders, with the conversion of
Canonne, Kamath and Steinke 2020), which is always present.

Example
-------
>>> rows = accountants({"noise_multiplier": 1.0, "sample_rate": 0.01, "steps": 100,
...                     "delta": 1e-5}, installed=False)
>>> rows[0]["accountant"], rows[0]["verdict"] in ("inside", "loose")
('dpverify.rdp', True)
"""

from __future__ import annotations

import faulthandler
import importlib
import math
import os
import pickle
import select
import signal
import sys
import time
from typing import Any, Callable, Mapping

import numpy as np
from scipy.special import gammaln, logsumexp

from dpverify.conform.bracket import check_dpsgd, epsilon_bracket
from dpverify.validation import check_bool, check_real

try:  # POSIX only; elsewhere the child runs without a memory limit
    import resource
except ImportError:  # pragma: no cover - Windows
    resource = None  # type: ignore[assignment]

__all__ = ["accountants", "classify", "rdp_epsilon", "INSTALLED", "TIMEOUT", "MAX_MEMORY_GIB"]

#: Seconds an accountant may run, and GiB of address space it may add to the caller's (defaults).
TIMEOUT = 600.0
MAX_MEMORY_GIB = 4.0

_KEYS = ("noise_multiplier", "sample_rate", "steps", "delta")


def rdp_epsilon(noise_multiplier: float, sample_rate: float, steps: int, delta: float,
                orders: range = range(2, 257)) -> float:
    """Epsilon from the Rényi bound of the Poisson-subsampled Gaussian at integer orders.

    ``A_a = sum_k C(a, k) (1-q)^(a-k) q^k exp((k^2 - k) / (2 sigma^2))`` bounds
    ``exp((a - 1) D_a)`` in both orders (Mironov, Talwar and Zhang 2019, Sec. 3.3); the conversion
    is ``eps = T D_a + log((a-1)/a) - (log delta + log a) / (a - 1)``, minimised over ``a``.

    >>> rdp_epsilon(1.0, 1.0, 1, 1e-5) > 0
    True
    """
    check_dpsgd(noise_multiplier, sample_rate, steps, delta)
    if not isinstance(orders, (range, list, tuple)) or not orders or not all(
            isinstance(a, (int, np.integer)) and not isinstance(a, bool) and 2 <= a <= 10 ** 4 for a in orders):
        raise TypeError(f"orders must be a non-empty range or list of integers in [2, 10**4], got {orders!r}"[:200])
    sigma, q, best = float(noise_multiplier), float(sample_rate), math.inf
    for a in orders:
        if q == 1.0:
            log_a = (a * a - a) / (2 * sigma ** 2)
        else:
            k = np.arange(a + 1)
            log_binom = gammaln(a + 1) - gammaln(k + 1) - gammaln(a - k + 1)
            terms = (log_binom + (a - k) * math.log1p(-q) + k * math.log(q)
                     + (k * k - k) / (2 * sigma ** 2))
            log_a = float(logsumexp(terms))
        rdp = steps * log_a / (a - 1)
        eps = rdp + math.log((a - 1) / a) - (math.log(delta) + math.log(a)) / (a - 1)
        best = min(best, eps)
    return max(best, 0.0)


def _dp_accounting(kind: str) -> Callable[[Mapping[str, Any]], float]:
    def run(c: Mapping[str, Any]) -> float:
        dpa = importlib.import_module("dp_accounting")
        event = dpa.SelfComposedDpEvent(dpa.PoissonSampledDpEvent(
            c["sample_rate"], dpa.GaussianDpEvent(c["noise_multiplier"])), c["steps"])
        if kind == "rdp":
            acc = dpa.rdp.RdpAccountant()
        else:
            acc = dpa.pld.PLDAccountant()
        return acc.compose(event).get_epsilon(c["delta"])
    return run


def _prv(c: Mapping[str, Any]) -> float:
    prv = importlib.import_module("prv_accountant")
    acc = prv.Accountant(noise_multiplier=c["noise_multiplier"], sampling_probability=c["sample_rate"],
                         delta=c["delta"], eps_error=0.01, max_compositions=c["steps"])
    return acc.compute_epsilon(num_compositions=c["steps"])[2]


def _opacus(kind: str) -> Callable[[Mapping[str, Any]], float]:
    def run(c: Mapping[str, Any]) -> float:
        mod = importlib.import_module(f"opacus.accountants.{kind}")
        acc = getattr(mod, {"rdp": "RDPAccountant", "prv": "PRVAccountant"}[kind])()
        acc.history = [(c["noise_multiplier"], c["sample_rate"], c["steps"])]
        return acc.get_epsilon(delta=c["delta"])
    return run


#: name -> (package to import, runner)
INSTALLED: dict[str, tuple[str, Callable[[Mapping[str, Any]], float]]] = {
    "dp_accounting.rdp": ("dp_accounting", _dp_accounting("rdp")),
    "dp_accounting.pld": ("dp_accounting", _dp_accounting("pld")),
    "prv_accountant": ("prv_accountant", _prv),
    "opacus.rdp": ("opacus", _opacus("rdp")),
    "opacus.prv": ("opacus", _opacus("prv")),
}


def _importable(package: str) -> bool:
    try:
        importlib.import_module(package)
    except Exception:  # noqa: BLE001 - any import failure means "not installed"
        return False
    return True


def classify(eps: Any, low: float, high: float) -> tuple[str, float | None, str]:
    """(verdict, looseness, note) of one answer against ``low <= eps(delta) <= high``.

    >>> classify(0.5, 1.0, 1.1)[0], classify(float("nan"), 1.0, 1.1)[0]
    ('unsafe', 'defect')
    """
    low, high = check_real(low, "low", positive=True), check_real(high, "high", positive=True)
    if not low <= high:
        raise ValueError(f"low must be <= high, got low={low!r}, high={high!r}")
    try:
        value = float(eps)
    except (TypeError, ValueError, OverflowError):
        return "defect", None, f"not a number: {eps!r}"
    if math.isnan(value) or math.isinf(value):
        return "defect", None, f"non-finite epsilon {value!r}"
    if value <= 0.0:
        return "defect", None, f"non-positive epsilon {value!r}"
    if value < low:
        return "unsafe", value / high - 1.0, f"below the certified lower end {low:.6g}"
    if value <= high:
        return "inside", 0.0, ""
    return "loose", value / high - 1.0, f"{100 * (value / high - 1):.3g}% above the upper end"


def _check_config(config: Mapping[str, Any]) -> dict[str, Any]:
    if not isinstance(config, Mapping):
        raise TypeError(f"config must be a mapping, got {type(config).__name__}")
    missing = [k for k in _KEYS if k not in config]
    if missing:
        raise ValueError(f"config is missing {missing}")
    extra = set(config) - set(_KEYS) - {"sampling"}
    if extra:
        raise ValueError(f"config has unknown keys {sorted(extra)}")
    return dict(config)


def accountants(config: Mapping[str, Any], *, extra: Mapping[str, Callable] | None = None,
                installed: bool = True, bracket: tuple[float, float] | None = None,
                timeout: float = TIMEOUT, max_memory_gib: float = MAX_MEMORY_GIB,
                isolated: bool = True) -> list[dict[str, Any]]:
    """Classify every available accountant's epsilon for ``config`` against the bracket.

    Parameters
    ----------
    config : mapping
        ``noise_multiplier``, ``sample_rate``, ``steps``, ``delta`` and optionally ``sampling``
        (``"poisson"``; other schemes are refused by :func:`epsilon_bracket`).
    extra : mapping of name -> callable(config) -> float, optional
        More accountants to classify (e.g. one under test).
    installed : bool
        Also run the installed third-party accountants.
    bracket : (low, high), optional
        A bracket already computed for ``config`` (it is recomputed when omitted).
    timeout : float
        Seconds each accountant may run before its child is killed (a ``defect`` row).
    max_memory_gib : float
        GiB of address space each accountant's child may add to the caller's (``RLIMIT_AS``);
        beyond it an allocation fails (a ``defect`` row: out of memory).
    isolated : bool
        Run each accountant in a forked child (the default, where ``os.fork`` exists); ``False``
        runs them in this process, where a crash or a hang of an accountant is the caller's.

    Returns
    -------
    list of dict
        ``accountant``, ``version``, ``epsilon``, ``verdict``, ``looseness``, ``note``, ``low``,
        ``high`` and ``config``.

    Examples
    --------
    >>> rows = accountants({"noise_multiplier": 2.0, "sample_rate": 0.1, "steps": 10,
    ...                     "delta": 1e-6}, installed=False, extra={"zero": lambda c: 0.0})
    >>> [r["verdict"] for r in rows]
    ['loose', 'defect']
    """
    c = _check_config(config)
    installed = check_bool(installed, "installed")
    isolated = check_bool(isolated, "isolated")
    timeout = check_real(timeout, "timeout", positive=True)
    max_memory_gib = check_real(max_memory_gib, "max_memory_gib", positive=True)
    if extra is not None and not isinstance(extra, Mapping):
        raise TypeError(f"extra must be a mapping of callables, got {type(extra).__name__}")
    if bracket is None:
        low, high = epsilon_bracket(**c)
    else:
        low, high = (float(bracket[0]), float(bracket[1]))
        if not 0 <= low <= high:
            raise ValueError(f"bracket must satisfy 0 <= low <= high, got {bracket!r}")
    runners: list[tuple[str, str, Callable]] = [
        ("dpverify.rdp", "dpverify", lambda cc: rdp_epsilon(
            cc["noise_multiplier"], cc["sample_rate"], cc["steps"], cc["delta"]))]
    if installed:
        runners += [(n, pkg, f) for n, (pkg, f) in INSTALLED.items() if _importable(pkg)]
    runners += [(n, "extra", f) for n, f in (extra or {}).items()]
    call = _isolated if isolated and hasattr(os, "fork") else _in_process
    rows = []
    for name, package, run in runners:
        version = _version(package)
        tag, value = call(run, dict(c), timeout, max_memory_gib)
        if tag == "value":
            eps, (verdict, loose, note) = value, classify(value, low, high)
        elif tag == "text":   # the answer does not convert to float: its repr
            eps, verdict, loose, note = value, "defect", None, f"not a number: {value}"
        else:
            eps, verdict, loose, note = "None", "defect", None, value
        rows.append({"accountant": name, "version": version, "epsilon": eps,
                     "verdict": verdict, "looseness": loose, "note": note, "low": low,
                     "high": high, "config": dict(c)})
    return rows


def _answer(run: Callable, c: dict, max_memory_gib: float | None) -> tuple[str, Any]:
    """``("value", float)``, ``("text", repr)`` or ``("error", reason)`` of one accountant call."""
    try:
        eps = run(c)
    except MemoryError as exc:
        limit = "" if max_memory_gib is None else f" under the limit of {max_memory_gib:g} GiB (max_memory_gib)"
        return "error", f"out of memory{limit}: {type(exc).__name__}: {exc}"[:2000]
    except Exception as exc:  # noqa: BLE001 - an accountant that raises is a row
        return "error", f"{type(exc).__name__}: {exc}"[:2000]
    try:
        return "value", float(eps)
    except (TypeError, ValueError, OverflowError):
        return "text", repr(eps)[:200]
    except Exception as exc:  # noqa: BLE001 - a __float__ that raises
        return "error", f"{type(exc).__name__} converting the answer: {exc}"


def _in_process(run: Callable, c: dict, timeout: float, max_memory_gib: float) -> tuple[str, Any]:
    """The call in this process: no memory limit, no timeout (used where ``os.fork`` is missing)."""
    return _answer(run, c, None)


def _isolated(run: Callable, c: dict, timeout: float, max_memory_gib: float) -> tuple[str, Any]:
    """The call in a forked child under an address-space limit and a timeout (see :func:`accountants`)."""
    for stream in (sys.stdout, sys.stderr):   # nothing buffered here is written twice by the child
        try:
            stream.flush()
        except Exception:  # noqa: BLE001 - a closed or odd stream
            pass
    r, w = os.pipe()
    try:
        pid = os.fork()
    except OSError as exc:
        os.close(r), os.close(w)
        return "error", f"could not start a child process for the accountant: {exc}"
    if pid == 0:  # pragma: no cover - the child (its outcome is read by the parent)
        os.close(r)
        _child(run, c, w, max_memory_gib)
    os.close(w)
    try:
        os.setpgid(pid, pid)   # the child's own group: a timeout ends what it started too
    except OSError:
        pass
    try:
        data, status = _collect(pid, r, timeout)
    finally:
        os.close(r)
    if status is None:
        return "error", f"no answer within the timeout of {timeout:g} s (timeout): the child was killed"
    try:
        tag, value = pickle.loads(data)
    except Exception:  # noqa: BLE001 - no (complete) answer: say how the child ended
        return "error", _ended(status, max_memory_gib)
    return tag, value


def _child(run: Callable, c: dict, w: int, max_memory_gib: float) -> None:  # pragma: no cover
    """The forked child: limit its address space, call, write the answer, exit; never returns."""
    try:
        try:
            os.setpgid(0, 0)
        except OSError:
            pass
        faulthandler.disable()   # a crash is the row's reason; no dump on the caller's terminal
        try:
            _limit_memory(max_memory_gib)
            answer = _answer(run, c, max_memory_gib)
        except BaseException as exc:  # noqa: BLE001 - SystemExit, KeyboardInterrupt: a row too
            answer = "error", f"{type(exc).__name__}: {exc}"[:2000]
        data = pickle.dumps(answer)
        while data:
            data = data[os.write(w, data):]
        sys.stdout.flush(), sys.stderr.flush()
    finally:
        os._exit(0)


def _limit_memory(gib: float) -> None:
    """RLIMIT_AS = this process's address space now + ``gib`` GiB (never above the hard limit)."""
    if resource is None or not hasattr(resource, "RLIMIT_AS"):
        return
    try:
        with open("/proc/self/statm") as f:
            now = int(f.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        now = 0
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    limit = min(now + gib * 2 ** 30, 2 ** 62)
    limit = int(limit if hard == resource.RLIM_INFINITY else min(limit, hard))
    resource.setrlimit(resource.RLIMIT_AS, (limit, hard))


def _collect(pid: int, r: int, timeout: float) -> tuple[bytes, int | None]:
    """The child's answer and wait status (``None`` after a timeout); the child is reaped and its
    process group ended either way."""
    deadline, chunks, eof, ended = time.monotonic() + timeout, [], False, False
    while not ended and (left := deadline - time.monotonic()) > 0:
        if not eof and select.select([r], [], [], min(left, 0.5))[0]:
            chunks.append(os.read(r, 1 << 16))
            eof = not chunks[-1]
        elif eof:
            time.sleep(min(left, 0.005))
        ended = _exited(pid) if hasattr(os, "waitid") else eof
    try:
        os.killpg(pid, signal.SIGKILL)   # what the child left running, or the child itself
    except OSError:
        pass
    status = os.waitpid(pid, 0)[1]
    while ended and not eof and select.select([r], [], [], 0)[0]:   # written just before it exited
        chunks.append(os.read(r, 1 << 16))
        eof = not chunks[-1]
    return b"".join(chunks), (status if ended else None)


def _exited(pid: int) -> bool:
    """Whether the child has ended (left unreaped: its process group stays reserved)."""
    return os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None


def _ended(status: int, max_memory_gib: float) -> str:
    """The reason a child gave no answer, from its wait status."""
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        name = signal.Signals(sig).name if sig in {s.value for s in signal.Signals} else str(sig)
        extra = (f" (the out-of-memory killer, or more than {max_memory_gib:g} GiB)"
                 if sig == signal.SIGKILL else "")
        return f"crashed: the accountant's process was killed by signal {name}{extra}"
    return f"exited with code {os.WEXITSTATUS(status)} without an answer"


def _version(package: str) -> str:
    if package in ("dpverify", "extra"):
        return package
    try:
        from importlib.metadata import version
        return version(package.replace("_", "-"))
    except Exception:  # noqa: BLE001
        return "unknown"
