"""The machinery of the whole-API fuzz (tests/test_fuzz_api.py): hostile values, the forked runner, the judge.

Hostile input comes in classes, chosen by what a parameter's valid value is (``kind_of``) and read
against its annotation (``admits``):

* numbers: NaN, ±∞, 0, −1, 1e308, 5e-324, 2^63, 2^70, bool, complex, None, a string, a non-integer
  for an integer; *work* (10^10, 2^40 and ``np.int64(2**40)`` for an integer: refused up front or
  done within the time limit); numpy scalars (``np.int64``, ``np.float64``, ``np.float32``) must be
  accepted;
* arrays: empty, wrong shape, NaN inside, ±1e308 entries (the result must stay finite), bool,
  complex, 0-d, read-only (must be accepted) and a *zero-stride view* of 1.5·10^9 logical elements
  (``np.broadcast_to``): the memory budget counts a view's logical size, so the view is refused by
  name (or handled without copying), never a MemoryError;
* flags (bool parameters): NaN, a string, 0 and None must be refused; ``np.bool_`` accepted;
* text: NaN, an int and None must be refused where the annotation says ``str``; a path-like
  parameter must refuse ``''`` (it would mean the current directory);
* objects (a claim, a result, a document, a certificate, a mechanism, ...): NaN, a string, an int,
  True and None must be refused with a TypeError/ValueError naming the parameter;
* sequences of objects: a string, items that are junk, and 10^6 items (work: refused or done);
* mappings (documents, reports): junk for the whole, and for each key: the key dropped, its value
  replaced by junk, and the first item of a list of records stripped of each of its keys in turn
  (an error then may name the parameter or the key; never a KeyError/AttributeError).

Allowed outcomes: a ``ValueError``/``TypeError`` naming the parameter, or a finite result where the
value may be accepted.  Each call runs in a forked child (in a fresh temporary directory, under a
memory limit and an alarm); inputs are compared before and after (no mutation).
"""

from __future__ import annotations

import copy
import enum
import inspect
import io
import math
import os
import pickle
import random
import resource
import select
import signal
import sys
import tempfile
from collections import Counter
from collections.abc import Mapping
from pathlib import PurePath

import numpy as np

# ----------------------------------------------------------------------------- hostile values

#: Labels whose value must be refused (a silent accept is a failure) / accepted (a refusal is a failure).
MUST_REFUSE = {"nan", "inf", "-inf", "bool", "complex", "None", "str", "nan-in-array", "int-for-flag",
               "int-for-text", "int-for-object", "empty-path", "junk-items", "str-for-items", "huge-push",
               "2^63-push", "2^70-push"}
MUST_ACCEPT = {"read-only", "np-scalar", "np-float32", "np-bool"}

#: 1.5·10^9 logical elements: 12 GB as float64, far over the memory budget, yet free as a view.
VIEW_SIZE = 1_500_000_000
#: Items of a sequence pushed in as work.
LONG = 10**6

_PATH_NAMES = ("path", "out_dir", "folder", "saved", "directory", "root", "out", "output")


def kind_of(good) -> str:
    """The class of a valid value: flag, int, float, text, path, array, mapping, sequence or object."""
    if isinstance(good, (bool, np.bool_)):
        return "flag"
    if isinstance(good, (int, np.integer)):
        return "int"
    if isinstance(good, (float, np.floating)):
        return "float"
    if isinstance(good, str):
        return "text"
    if isinstance(good, PurePath):
        return "path"
    if isinstance(good, Mapping):
        return "mapping"
    if isinstance(good, (list, tuple, np.ndarray)):
        try:
            a = np.asarray(good)
            if a.dtype.kind in "fiu" and a.ndim >= 1 and a.size >= 1:
                return "array"
        except Exception:  # noqa: BLE001
            pass
        return "sequence"
    return "object"


def _like(good, arr: np.ndarray):
    """``arr`` in the container of ``good`` (a tuple of rows for a tuple, a list for a list)."""
    if isinstance(good, tuple):
        return tuple(arr)
    if isinstance(good, list):
        return arr.tolist() if arr.size <= 10**6 else arr
    return arr


def _view(arr: np.ndarray) -> np.ndarray:
    """A zero-stride view of ``VIEW_SIZE`` logical elements, built from ``arr``'s first entries."""
    if arr.ndim == 1:
        return np.broadcast_to(arr[:1], (VIEW_SIZE,))
    rows = max(VIEW_SIZE // max(arr.shape[1:] and math.prod(arr.shape[1:]), 1), 1)
    return np.broadcast_to(arr[:1], (rows,) + arr.shape[1:])


class Deferred:
    """A hostile value built in the child that uses it (10^6-item lists would weigh on every fork)."""

    def __init__(self, make, *args):
        self.make, self.args = make, args

    def __call__(self):
        return self.make(*self.args)


def _repeat(item, n):
    return [item] * n


def _numeric_values(good, arr) -> list:
    out = [("nan", math.nan), ("inf", math.inf), ("-inf", -math.inf), ("zero", 0), ("neg", -1), ("huge", 1e308),
           ("tiny", 5e-324), ("2^63", 2**63), ("2^70", 2**70), ("bool", True), ("complex", 1 + 1j), ("str", "abc"),
           ("None", None)]
    if isinstance(good, (int, np.integer)) and not isinstance(good, bool):
        out += [("non-integer", 1.5), ("np-scalar", np.int64(good)), ("work-1e10", 10**10), ("work-2^40", 2**40),
                ("np-work-2^40", np.int64(2**40))]
    if isinstance(good, (float, np.floating)):
        out += [("np-scalar", np.float64(good))]
        if np.float32(good) == good:
            out.append(("np-float32", np.float32(good)))
    if arr is not None:
        bad = arr.astype(float).copy()
        bad.flat[0] = np.nan
        ro = arr.copy()
        ro.flags.writeable = False
        big = np.where(arr.astype(float) > np.median(arr), 1e308, -1e308)
        out += [("empty", []), ("wrong-shape", np.zeros((2, 2, 2))), ("nan-in-array", bad), ("read-only", ro),
                ("bool-array", arr.astype(bool)), ("complex-array", arr.astype(complex) + 1j), ("0-d", np.array(1.0)),
                ("huge-in-array", _like(good, big)), ("view", _view(arr))]
        if isinstance(good, (list, tuple)) and len(good) >= 1:
            out.append(("long", Deferred(_repeat, good[0], LONG)))
    return out


def _mapping_values(good: Mapping) -> list:
    """Junk for a mapping, then per key: dropped, its value junk, list-of-records items stripped of a key."""
    out = []
    for k in list(good)[:12]:
        v = good[k]
        out.append((f"drop:{k}", {kk: vv for kk, vv in good.items() if kk != k}))
        junk = 0 if isinstance(v, str) else ["abc"] if isinstance(v, (list, tuple)) else "abc"
        out.append((f"junk:{k}", {**good, k: junk}))
        if isinstance(v, (list, tuple)) and v and isinstance(v[0], Mapping):
            for kk in list(v[0])[:12]:
                first = {a: b for a, b in v[0].items() if a != kk}
                out.append((f"item-drop:{k}.{kk}", {**good, k: [first, *v[1:]]}))
    return out


def hostile_values(name: str, good) -> list:
    """(label, value) pairs for one parameter whose valid value is ``good``."""
    kind = kind_of(good)
    if kind in ("int", "float"):
        return _numeric_values(good, None)
    if kind == "array":
        return _numeric_values(good, np.asarray(good))
    junk = [("nan", math.nan), ("None", None), ("bool", True)]
    if kind == "flag":
        return [("nan", math.nan), ("str", "abc"), ("int-for-flag", 0), ("None", None), ("np-bool", np.bool_(good))]
    if kind in ("text", "path"):
        out = [("nan", math.nan), ("None", None), ("int-for-text", 0)]
        if kind == "path" or name in _PATH_NAMES or name.endswith(("_path", "_dir", "_file")):
            out.append(("empty-path", ""))
        return out
    if kind == "mapping":
        return junk + [("str", "abc"), ("int-for-object", 1)] + _mapping_values(good)
    if kind == "sequence":
        out = junk + [("str-for-items", "abc"), ("int-for-object", 1), ("junk-items", [math.nan])]
        if len(good) >= 1:
            out.append(("long", Deferred(_repeat, good[0], LONG)))
        return out
    return junk + [("str", "abc"), ("int-for-object", 1)]


def admits(annotation, label: str) -> bool:
    """Whether a parameter's annotation admits the hostile value of ``label`` (then it need not be refused)."""
    ann = annotation if isinstance(annotation, str) else getattr(annotation, "__name__", str(annotation))
    if annotation is inspect.Parameter.empty or not ann:
        return False
    words = set(ann.replace("|", " ").replace("[", " ").replace("]", " ").replace(",", " ").replace(".", " ").split())
    if "Any" in words or "object" in words:
        return label not in ("nan", "inf", "-inf", "nan-in-array", "junk-items")
    if label in ("str", "str-for-items"):
        return bool(words & {"str", "PathLike", "Path"})
    if label in ("int-for-object", "int-for-text", "int-for-flag"):
        return bool(words & {"int", "float", "Real", "Integral", "Fraction"})
    if label == "None":
        return "None" in words or "Optional" in words
    return False


def expectation(label: str, annotation=inspect.Parameter.empty) -> str:
    """``refuse``, ``accept`` or ``free`` (either a named refusal or a finite result)."""
    if label in MUST_ACCEPT:
        return "accept"
    if label in MUST_REFUSE and not admits(annotation, label):
        return "refuse"
    return "free"


# ----------------------------------------------------------------------------- running in a child

_MEM_EXTRA = int(1.5 * 2**30)
TIMEOUT = 10
_WORKDIR = tempfile.mkdtemp(prefix="dpverify-fuzz-")


def _vmsize() -> int:
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("VmSize:"):
                return int(line.split()[1]) * 1024
    return 0


def _sparse(x) -> bool:
    import scipy.sparse as sp

    return sp.issparse(x)


def _is_figure(x) -> bool:
    return type(x).__module__.startswith("matplotlib.figure")


def _figure_state(f) -> tuple:
    """What a caller sees of a matplotlib Figure: size, dpi, and each axes' artists, labels and limits."""
    return (tuple(f.get_size_inches()), f.dpi, [
        (len(ax.lines), len(ax.patches), len(ax.collections), len(ax.texts), ax.get_title(), ax.get_xlabel(),
         ax.get_ylabel(), tuple(ax.get_xlim()), tuple(ax.get_ylim())) for ax in f.axes])


def _same(a, b) -> bool:
    if isinstance(a, np.random.Generator) or isinstance(a, Deferred):
        return True  # a generator's state advancing is its purpose, not a mutation
    if _sparse(a) or _sparse(b):
        try:
            return a.shape == b.shape and a.dtype == b.dtype and (a != b).nnz == 0
        except Exception:  # noqa: BLE001
            return False
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        try:
            return bool(np.array_equal(np.asarray(a), np.asarray(b), equal_nan=np.asarray(a).dtype.kind in "fc"))
        except Exception:  # noqa: BLE001
            return False
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return type(a) is type(b) and len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    if _is_figure(a) and _is_figure(b):  # a copied Figure's internals (canvas, callbacks) never compare equal
        return _figure_state(a) == _figure_state(b)
    if type(a) is type(b) and hasattr(a, "__dict__") and not isinstance(a, type) and (
            type(a).__eq__ is object.__eq__ or hasattr(a, "__dataclass_fields__")):
        return _same(vars(a), vars(b))  # objects (mechanisms, dataclasses holding arrays): compare their state
    try:
        return bool(a == b)
    except Exception:  # noqa: BLE001
        return a is b


def _snapshot(args, kwargs):
    """A deep copy to compare with after the call; large views and long lists are compared by identity."""
    def small(v):
        return not (isinstance(v, np.ndarray) and v.size > 10**7) and not (isinstance(v, list) and len(v) > 10**5)

    try:
        return copy.deepcopy((args, {k: v for k, v in kwargs.items() if small(v)}))
    except Exception:  # noqa: BLE001
        return None


def _finite(res, depth=0) -> bool:
    """No NaN or ±∞ anywhere in a result (numbers, arrays, tuples, dataclass fields)."""
    if depth > 6:
        return True
    if isinstance(res, (bool, np.bool_)):
        return True
    if isinstance(res, (int, np.integer)):
        return True
    if isinstance(res, (float, np.floating)):
        return math.isfinite(float(res))
    if isinstance(res, np.ndarray):
        return res.dtype.kind not in "fc" or bool(np.isfinite(res).all())
    if isinstance(res, (list, tuple)):
        return all(_finite(x, depth + 1) for x in res[:1000])
    if isinstance(res, dict):
        return all(_finite(v, depth + 1) for v in list(res.values())[:1000])
    if hasattr(res, "__dataclass_fields__"):
        return all(_finite(getattr(res, f), depth + 1) for f in res.__dataclass_fields__)
    return True


def _child(fn, args, kwargs, w, timeout, capture):
    os.close(w[0])
    os.setpgrp()  # its own process group: whatever it spawns is killed with it
    lim = _vmsize() + _MEM_EXTRA
    resource.setrlimit(resource.RLIMIT_AS, (lim, lim))
    signal.alarm(timeout)
    os.chdir(tempfile.mkdtemp(dir=_WORKDIR))  # a call that writes files writes them here
    devnull = os.open(os.devnull, os.O_WRONLY)
    errfile = tempfile.TemporaryFile() if capture else None
    os.dup2(devnull, 1)
    os.dup2(errfile.fileno() if capture else devnull, 2)
    sys.stdout = io.TextIOWrapper(os.fdopen(1, "wb", closefd=False), write_through=True)
    sys.stderr = io.TextIOWrapper(os.fdopen(2, "wb", closefd=False), write_through=True)
    kwargs = {k: v() if isinstance(v, Deferred) else v for k, v in kwargs.items()}
    snap = _snapshot(args, kwargs)
    try:
        res = fn(*args, **kwargs)
        out = {"kind": "ok", "finite": _finite(res)}
    except SystemExit as e:
        out = {"kind": "exit", "code": e.code if isinstance(e.code, int) else (0 if e.code is None else 1)}
    except BaseException as e:  # noqa: BLE001
        out = {"kind": "raise", "type": type(e).__name__, "msg": str(e)[:300]}
    out["mutated"] = snap is not None and not _same(snap[0], args) or snap is not None and not all(
        _same(v, kwargs[k]) for k, v in snap[1].items())
    if capture:
        sys.stderr.flush()
        errfile.seek(0)
        out["stderr"] = errfile.read().decode("utf-8", "replace")[-2000:]
    os.write(w[1], pickle.dumps(out))


def run_isolated(fn, args=(), kwargs=None, *, timeout=TIMEOUT, capture=False):
    """Call fn in a forked child; returns a dict: kind ok/raise/exit/hang/killed, details, mutated, finite."""
    kwargs = kwargs or {}
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # child
        code = 0
        try:
            _child(fn, args, kwargs, (r, w), timeout, capture)
        except BaseException:  # noqa: BLE001
            code = 3
        finally:
            os._exit(code)
    os.close(w)
    chunks, deadline = [], timeout + 5
    while True:
        ready, _, _ = select.select([r], [], [], deadline)
        if not ready:
            os.kill(pid, signal.SIGKILL)
            break
        b = os.read(r, 1 << 16)
        if not b:
            break
        chunks.append(b)
    os.close(r)
    _, status = os.waitpid(pid, 0)
    try:  # workers the call left behind (a pool, a forked claim) go with the child's group
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    if chunks:
        try:
            return pickle.loads(b"".join(chunks))
        except Exception:  # noqa: BLE001
            pass
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        return {"kind": "hang" if sig in (signal.SIGALRM, signal.SIGKILL) else "killed", "signal": sig, "mutated": False}
    return {"kind": "killed", "status": status, "mutated": False}


# ----------------------------------------------------------------------------- judging

#: ValueError subclasses raised on purpose (judged as ValueError).
VALUE_SUBCLASSES = {"OutputError", "BudgetExceeded", "MechanismError", "DuplicateClaimError", "ClaimError"}


def judge(param: str, label: str, out: dict, *, must: str | None = None, names=()) -> str | None:
    """None if the outcome is allowed, else a short failure description.

    ``must`` is ``refuse``/``accept``/``free`` (default: from the label alone); ``names`` are other
    words an error may name instead of ``param`` (the key of a mapping, a ``name=`` argument).
    """
    must = must or expectation(label)
    must, _, nan_ok = must.partition("/")  # "free/nan-ok": a documented NaN marker in the result is fine
    if out.get("mutated"):
        return "mutated its input"
    kind = out["kind"]
    if kind == "ok":
        if must == "refuse":
            return "silently accepted"
        if not out.get("finite", True) and not nan_ok:
            return "non-finite result"
        return None
    if kind == "raise":
        typ, msg = out["type"], out["msg"]
        if typ in VALUE_SUBCLASSES and must != "accept":
            return None  # a purpose-made ValueError (e.g. the budget is exceeded)
        if typ in ("ValueError", "TypeError"):
            if must == "accept":
                return f"refused a valid value: {typ}: {msg[:120]}"
            keys = [param.rstrip("_").lower(), *(str(n).lower() for n in names if n)]
            if not any(k in msg.lower() for k in keys):
                return f"{typ} not naming {param!r}: {msg[:120]}"
            return None
        return f"{typ}: {msg[:120]}"
    if kind == "hang":
        return f"timeout > {TIMEOUT} s"
    return f"crashed ({out})"


def group_of(why: str) -> str:
    """The group of a failure for the counts table."""
    if why == "silently accepted":
        return "silent accepts"
    if why == "non-finite result":
        return "NaN/inf results"
    if why.startswith("timeout"):
        return "hangs"
    if why == "mutated its input":
        return "mutations"
    if why.startswith("refused a valid"):
        return "valid input refused"
    if "not naming" in why:
        return "errors not naming the parameter"
    return "crashes"


# ----------------------------------------------------------------------------- the sweep

def run_cases(cases, *, sample: int | None = None, seed: int = 0, progress: bool = False):
    """Run (a seeded sample of) cases ``(qual, param, label, fn, kwargs, must, names, good)``: counts, failures."""
    import time

    from threadpoolctl import threadpool_limits

    cases = list(cases)
    if sample is not None and sample < len(cases):
        cases = random.Random(seed).sample(cases, sample)
    counts, failures = Counter(), []
    t0 = time.time()
    with threadpool_limits(1):  # no BLAS worker threads across fork()
        for i, (qual, param, label, fn, kw, must, names, good) in enumerate(cases):
            if progress and i % 500 == 0:
                print(f"  {i}/{len(cases)} cases, {time.time() - t0:.0f} s, {counts['failures']} failures",
                      file=sys.stderr, flush=True)
            out = run_isolated(fn, (), kw)
            counts["calls"] += 1
            counts[out["kind"] if out["kind"] != "raise" else out["type"]] += 1
            bad = judge(param, label, out, must=must, names=names)
            if bad and must == "accept" and good_fails(fn, kw, param, good):
                bad = None  # the parameter's valid value is refused too: its baseline does not fit, not a failure
            if bad:
                counts["failures"] += 1
                counts[group_of(bad)] += 1
                failures.append((qual, param, label, bad))
    return counts, failures


def good_fails(fn, kw, param, good) -> bool:
    """Whether the call with the parameter's valid value (not the numpy-typed one) fails too."""
    out = run_isolated(fn, (), {**kw, param: good})
    return out["kind"] != "ok"


# ----------------------------------------------------------------------------- the CLI

def judge_cli(out: dict) -> str | None:
    """Exit status 0, 1 (a verdict) or 2 (bad input), never a traceback, a hang or a crash."""
    err = out.get("stderr", "")
    if "Traceback" in err:
        return "traceback: " + err.strip().splitlines()[-1][:150]
    if out["kind"] == "exit":
        return None if out["code"] in (0, 1, 2) else f"exit status {out['code']}"
    if out["kind"] == "ok":
        return None
    if out["kind"] == "raise":
        return f"{out['type']}: {out['msg'][:150]}"
    return f"{out['kind']}"


def enum_free(obj) -> bool:
    """Classes fuzzed as callables: not exceptions or enumerations (their constructors are lookups)."""
    return not (inspect.isclass(obj) and issubclass(obj, (BaseException, enum.Enum)))
