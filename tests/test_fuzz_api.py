"""Fuzz of the whole public API and of every CLI subcommand (issue 10).

Every public function and class of every dpverify module (found as tests/test_doctests.py finds
them) is called from a valid baseline call with one parameter at a time replaced by a hostile
value: NaN, ±∞, 0, −1, 1e308, 5e-324, 2^63, 2^70, a non-integer where an integer is expected,
bool, complex, None, a string, an empty array, a wrong shape, NaN inside an array, a read-only
array and numpy scalar types.  Allowed outcomes, exactly:

* a ``ValueError`` or ``TypeError`` whose message names the parameter, or
* a finite result (NaN and ±∞ inputs, bools, complex values, None and strings in numeric
  parameters must be refused; read-only arrays and numpy scalars must be accepted).

Each call runs in a forked child under a memory limit (``RLIMIT_AS``: the parent's address space
plus 1.5 GiB) and a per-call timeout (``alarm``); inputs are compared before and after the call
(no mutation).  CLI subcommands run through ``dpverify.cli.main`` with hostile option values:
the only allowed outcomes are exit status 0 or 2 with no traceback.

The default run is a seeded sample over the modules whose owners have hardened them (< 60 s);
``-m slow`` runs the full sweep over every callable and prints the failures of the others.
Run ``python3 tests/test_fuzz_api.py [--all]`` for the counts table.
"""

from __future__ import annotations

import copy
import enum
import importlib
import inspect
import io
import math
import os
import pickle
import pkgutil
import random
import resource
import select
import signal
import sys
import tempfile
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

import dpverify

# ----------------------------------------------------------------------------- the callables

ALL_MODULES = sorted(m.name for m in pkgutil.walk_packages(dpverify.__path__, "dpverify."))
SKIP_MODULES = ("dpverify.__main__", "dpverify.cli", "dpverify.proofdocs")

#: Modules hardened for issue 10 by their owner: the default run requires 0 failures here.
OWNED = (
    "dpverify.audit.exact.ldp",
    "dpverify.audit.exact.divergence",
    "dpverify.primitives.additive",
    "dpverify.primitives.composition",
    "dpverify.primitives.exponential",
    "dpverify.primitives.randomized_response",
    "dpverify.primitives.sampling",
    "dpverify.primitives.sensitivity",
    "dpverify.primitives.usefulness",
    "dpverify.rr.nary",
    "dpverify.rr.lp",
    "dpverify.rr.simulate",
    "dpverify.pca.corrected",
    "dpverify.pca.pca_ppdp",
    "dpverify.pca.ppca_dp",
    "dpverify.pca.ppca",
    "dpverify.pca.thm3",
    "dpverify.datasets.loaders",
    "dpverify.claims.evidence",
    "dpverify.audit.floating_point",
    "dpverify.audit.intervals",
    "dpverify.audit.ideal.laws",
    "dpverify.audit.ideal.oracle",
    "dpverify.audit.renyi",
    "dpverify.continual.alg5",
    "dpverify.continual.api",
    "dpverify.continual.baselines",
    "dpverify.continual.binary",
    "dpverify.continual.boost",
    "dpverify.continual.elders",
    "dpverify.continual.elders_stream",
    "dpverify.continual.elders_weights",
    "dpverify.continual.exact",
    "dpverify.continual.experiments",
    "dpverify.continual.fda",
    "dpverify.continual.fenwick",
    "dpverify.continual.forest",
    "dpverify.continual.hdmm",
    "dpverify.continual.honaker",
    "dpverify.continual.kary",
    "dpverify.continual.matrix",
    "dpverify.continual.matrix_table",
    "dpverify.continual.methods",
    "dpverify.continual.naive",
    "dpverify.continual.node_noise",
    "dpverify.continual.privelet",
    "dpverify.continual.symbolic",
    "dpverify.continual.weights",
    "dpverify.continual.checks",
    "dpverify.continual.elders_tree",
    "dpverify.continual.fda_certify",
    "dpverify.continual.fda_optimal",
    "dpverify.continual.fenwick_tree",
    "dpverify.continual.kary_optimum",
    "dpverify.continual.kary_tree",
)


def _public_module(name: str) -> bool:
    return not any(part.startswith("_") for part in name.split(".")[1:]) and name not in SKIP_MODULES


def public_callables(modules=None):
    """(module, name, object) of every public function and non-exception class defined in a module."""
    out = []
    for m in modules or ALL_MODULES:
        if not _public_module(m) or m.endswith(".cli") or m.rsplit(".", 1)[1].startswith("claims"):
            continue
        mod = importlib.import_module(m)
        names = getattr(mod, "__all__", None)
        if names is None:
            names = [n for n, o in vars(mod).items() if not n.startswith("_") and getattr(o, "__module__", None) == m]
        for n in names:
            obj = getattr(mod, n, None)
            if getattr(obj, "__module__", None) != m:
                continue
            if inspect.isclass(obj) and issubclass(obj, (BaseException, enum.Enum)):
                continue  # exceptions and enumerations (their constructors are lookups)
            if inspect.isfunction(obj) or inspect.isclass(obj):
                out.append((m, n, obj))
    return out


# ----------------------------------------------------------------------------- baselines

_X = np.random.default_rng(0).random((12, 3))
_B = (np.zeros(3), np.ones(3))

#: A valid value per parameter name, used to build each callable's baseline call.
DEFAULTS = {
    "epsilon": 1.0, "delta": 0.0, "sensitivity": 1.0, "pi": [0.3, 0.7], "P": [[0.75, 0.25], [0.25, 0.75]],
    "n": 4, "k": 2, "m": 3, "rng": 0, "size": 3, "counts": [1, 0, 2, 3], "value": [1.0, 2.0], "scale": 1.0,
    "scores": [0.0, 1.0, 2.0], "values": [0, 1, 1], "beta": 0.05, "alpha": 1.0, "trials": 50,
    "output_counts": [30, 70], "n_respondents": 100, "epsilons": [0.5, 1.0], "p": [0.5, 0.5],
    "q": [0.25, 0.75], "A": [[1.0, 0.0], [0.0, 1.0]], "X": _X, "Xn": _X, "budget": 1.0, "reps": 2,
    "confidence": 0.9, "samples": 200, "weights": [1.0, 1.0, 1.0, 1.0], "x": [1.0, 2.0, 3.0, 4.0],
    "branching": 2, "level": 1, "definition": "standard", "bounds": _B, "E": "3", "factor": 2.0, "bits": 62,
    "grid": 2.0**-10, "tol": 1e-9, "atol": 1e-12, "exact": False, "split": (0.1, 0.3, 0.6), "t": [1, 2, 3],
    "dataset": "adult", "col": 1, "row": 0, "m1": 0.0, "v1": 1.0, "m2": 1.0, "v2": 1.0, "a": 0.01, "b": 0.4,
    "name": "x", "objective": "total", "noise": "discrete", "value_": 1.0, "published": _X, "original": _X,
}

def _suite_law():
    from dpverify.audit.suite import TruncatedGeometric
    from dpverify.audit.ideal.laws import exact_law

    m = TruncatedGeometric(0.1)
    out, p = exact_law(m, [2])
    return {"mechanism": m, "data": [2.0], "outcomes": out, "probabilities": p.tolist(), "samples": 200, "rng": 0}


def _gauss_mechanism(d, rng, n):
    """The Gaussian mechanism N(d, 1): a valid mechanism for the auditors' baselines."""
    return rng.normal(float(d), 1.0, n)


def _exact_opt():
    from dpverify.rr.nary import exact_optimum

    return exact_optimum(["3/10", "7/10"], "3", 0)


#: Per-callable overrides (module.name -> kwargs), where a name's default does not fit.
OVERRIDES = {
    "dpverify.rr.nary.extreme_points": {"n": 2, "epsilon": 1.0},
    "dpverify.rr.nary.exact_optimum": {"pi": ["3/10", "7/10"], "E": "3", "delta": 0},
    "dpverify.rr.nary.verify_certificate_exact": {"pi": ["3/10", "7/10"], "E": "3", "delta": 0, "opt": _exact_opt()},
    "dpverify.rr.simulate.composition": {"pi": [0.3, 0.7], "n_respondents": 10},
    "dpverify.rr.simulate.estimate_distribution": {"P": [[0.75, 0.25], [0.25, 0.75]], "output_counts": [30, 70]},
    "dpverify.primitives.sampling.laplace": {"scale": 1.0, "size": 3, "rng": 0},
    "dpverify.primitives.sampling.discrete_laplace": {"scale": 1.0, "size": 3, "rng": 0},
    "dpverify.primitives.additive.geometric_mechanism": {"value": [1, 2], "sensitivity": 1, "epsilon": 1.0, "rng": 0},
    "dpverify.primitives.randomized_response.randomized_response": {"values": [0, 1, 1], "k": 2, "epsilon": 1.0, "rng": 0},
    "dpverify.primitives.usefulness.simulate_failure_probability": {
        "alpha": 1.0, "sensitivity": 1.0, "epsilon": 1.0, "m": 3, "trials": 50, "rng": 0},
    "dpverify.pca.corrected.CorrectedPPCADP": {"k": 1, "epsilon": 1.0, "bounds": _B},
    "dpverify.pca.pca_ppdp.PCABasedPPDP": {"k": 1, "epsilon": 1.0},
    "dpverify.pca.ppca_dp.PPCADP": {"k": 1, "epsilon": 1.0},
    "dpverify.pca.ppca.PPCA": {"k": 1},
    "dpverify.pca.ppca.check_k": {"k": 1, "p": 3},
    "dpverify.pca.thm3.feature2_law": {"X": __import__("dpverify.pca.thm3", fromlist=["x"]).gaussian_pair()[0]},
    "dpverify.pca.ppca_dp.paper_sensitivity": {"k": 1, "p": 3},
    "dpverify.audit.exact.divergence.hockey_stick": {"p": [0.5, 0.5], "q": [0.25, 0.75], "epsilon": 0.5},
    "dpverify.audit.exact.divergence.privacy_curve": {"p": [0.5, 0.5], "q": [0.25, 0.75], "epsilons": [0.0, 0.5]},
    "dpverify.audit.exact.ldp.ldp_delta_curve": {"P": [[0.75, 0.25], [0.25, 0.75]], "epsilons": [0.0, 1.0]},
    "dpverify.primitives.composition.Accountant": {"budget": 1.0},
    "dpverify.primitives.composition.product_law": None,  # *laws only: covered by its own tests
    "dpverify.claims.evidence.to_jsonable": {"value": {"a": [1, 2.5], "b": np.arange(3)}},
    "dpverify.datasets.loaders.load_adult": {"split": "test"},
    "dpverify.datasets.loaders.load_magic": {},
    "dpverify.continual.kary_tree.kary_node_span": {"t": [1, 2, 3], "k": 2},
    "dpverify.continual.fenwick_tree.lowbit": {"x": [1, 2, 3]},
    "dpverify.continual.methods.get_method": {"name": "naive"},
    "dpverify.audit.statistical.clopper_pearson_lower": {"k": 3, "n": 10, "alpha": 0.05},
    "dpverify.audit.statistical.clopper_pearson_upper": {"k": 3, "n": 10, "alpha": 0.05},
    "dpverify.continual.kary_tree.kary_path_sums": {"x": [1.0, 2.0, 3.0, 4.0], "k": 2},
    "dpverify.continual.kary_tree.check_branching": {"k": 2, "name": "k"},  # messages name what the caller names
    "dpverify.continual.fda_optimal.fda_level_shares": {"n": 7},  # all bits set: no NaN root share (NaN marks absent roots)
    "dpverify.continual.methods.register_method": {"m": __import__("dpverify.continual", fromlist=["x"]).methods.get_method("fda")},
    "dpverify.continual.alg5.alg5_release": {"counts": [2, 1, 0], "epsilon": 1.0, "m": 2, "rng": 0},
    "dpverify.continual.elders_weights.check_weights": {"weights": "total", "n": 100},
    "dpverify.continual.exact.round_up": {"x": __import__("fractions").Fraction(1, 3)},
    "dpverify.continual.matrix.gaussian_sigma": {"epsilon": 1.0, "delta": 1e-5},
    "dpverify.continual.symbolic.any_n_step_holds": {"t": 3},
    "dpverify.continual.elders.elders_node_variance": {"levels": 3, "epsilon": 1.0},
    "dpverify.continual.honaker.honaker_level_variances": {"shares": [0.5, 0.5], "branching": 2, "epsilon": 1.0},
    "dpverify.continual.checks.check_noise_scale": {"epsilon": 1.0, "min_weight": 0.5, "noise": "discrete"},
    "dpverify.continual.forest.block_of": {"t": [1, 2, 3], "blocks": [(0, 3), (3, 1)]},
    "dpverify.continual.forest.check_blocks": {"blocks": [(0, 3), (3, 1)], "n": 4},
    "dpverify.continual.forest.forest_descent_sums": {"x": [1.0, 2.0, 3.0, 4.0], "blocks": [(0, 3), (3, 1)]},
    "dpverify.continual.fda_optimal.fda_errors": {"levels": 3},
    "dpverify.continual.fda_optimal.fda_weights_at": {"nodes": [1, 2], "n": 3},
    "dpverify.continual.kary_optimum.kary_errors": {"levels": 3, "k": 2},
    "dpverify.continual.symbolic.ratio_sequence": {"m_max": 2},
    "dpverify.continual.experiments.simulate_mse": {"method": "naive", "n": 4, "epsilon": 1.0, "reps": 2, "rng": 0},
    "dpverify.continual.symbolic.popcount_prefix_sum_digits": {"exponents": [3, 1]},
    "dpverify.continual.checks.check_count": {"a_t": 3},
    "dpverify.continual.checks.check_total": {"counts": np.array([1, 2, 3])},
    "dpverify.audit.intervals.clopper_pearson_lower": {"k": 3, "n": 10, "alpha": 0.05},
    "dpverify.audit.intervals.clopper_pearson_upper": {"k": 3, "n": 10, "alpha": 0.05},
    "dpverify.audit.ideal.laws.exact_law": {
        "mechanism": __import__("dpverify.audit.suite", fromlist=["x"]).SVT1(0.1), "data": [1.0, 0.0, 1.0]},
    "dpverify.audit.ideal.oracle.sampler_pvalue": _suite_law(),
    "dpverify.audit.ideal.oracle.reach_probability": {
        "p_event": 0.5, "q_event": 0.4, "n": 1000, "confidence": 0.9, "target": 0.1},
    "dpverify.audit.ideal.oracle.EventBound": {
        "epsilon": 0.5, "direction": "p>q", "event": (0, 2), "event2": (1,), "p_event": 0.6, "q_event": 0.3,
        "k_p": 600, "k_q": 300, "trials": 1000, "level": 0.05},
    "dpverify.audit.renyi.rdp_delta_curve": {"alpha": 2.0, "epsilon": 1.0},
    "dpverify.audit.renyi.zcdp_delta_curve": {"rho": 0.5},
    "dpverify.audit.renyi.audit_rdp": {"mechanism": _gauss_mechanism, "alpha": 2.0, "epsilon": 1.0, "pair": (0.0, 1.0),
                                       "samples": 2000, "confidence": 0.9, "rng": 0},
    "dpverify.audit.renyi.audit_zcdp": {"mechanism": _gauss_mechanism, "rho": 0.5, "pair": (0.0, 1.0),
                                        "samples": 2000, "confidence": 0.9, "rng": 0},
}

#: Objects that methods of classes are fuzzed with: class -> method, kwargs (called on the baseline instance).
METHODS = {
    "dpverify.pca.corrected.CorrectedPPCADP": ("publish_many", {"X": _X, "reps": 2, "rng": 0}),
    "dpverify.pca.pca_ppdp.PCABasedPPDP": ("publish_many", {"X": _X, "reps": 2, "rng": 0}),
    "dpverify.pca.ppca_dp.PPCADP": ("publish_many", {"X": _X, "reps": 2, "rng": 0}),
    "dpverify.primitives.composition.Accountant": ("spend", {"epsilon": 0.5}),
}


def baseline(qual: str, obj) -> dict | None:
    """Keyword arguments of a valid call, or None when a parameter has no known valid value."""
    if qual in OVERRIDES:
        return None if OVERRIDES[qual] is None else dict(OVERRIDES[qual])
    try:
        sig = inspect.signature(obj)
    except (TypeError, ValueError):
        return None
    kw = {}
    for name, par in sig.parameters.items():
        if par.kind in (par.VAR_POSITIONAL, par.VAR_KEYWORD) or name.startswith("_"):
            continue
        if par.default is not par.empty:
            continue
        if name not in DEFAULTS:
            return None
        kw[name] = DEFAULTS[name]
    return kw


# ----------------------------------------------------------------------------- hostile values

#: Parameters that take any value by design (renderers of evidence): nothing to refuse there.
ANY_VALUE = {"dpverify.report.compare.flatten_evidence.value", "dpverify.report.values.value_html.value",
             "dpverify.report.values.evidence_table.evidence"}

MUST_REFUSE = {"nan", "inf", "-inf", "bool", "complex", "None", "str", "nan-in-array"}
MUST_ACCEPT = {"read-only", "np-scalar", "np-float32"}


def _defaults_none(obj) -> set:
    """Parameters whose default is None (None is then a valid value)."""
    try:
        return {n for n, p in inspect.signature(obj).parameters.items() if p.default is None}
    except (TypeError, ValueError):
        return set()


def hostile_values(name: str, good):
    """(label, value) pairs for one parameter whose valid value is ``good``."""
    arr = None
    try:
        a = np.asarray(good)
        if a.dtype.kind in "fiu" and a.ndim >= 1:
            arr = a
    except Exception:  # noqa: BLE001
        pass
    scalar_num = isinstance(good, (int, float, np.integer, np.floating)) and not isinstance(good, bool)
    out = []
    if scalar_num or arr is not None:
        out += [("nan", math.nan), ("inf", math.inf), ("-inf", -math.inf), ("zero", 0), ("neg", -1), ("huge", 1e308),
                ("tiny", 5e-324), ("2^63", 2**63), ("2^70", 2**70), ("bool", True), ("complex", 1 + 1j), ("str", "abc")]
        if good is not None:
            out.append(("None", None))
    if isinstance(good, (int, np.integer)) and not isinstance(good, bool):
        out += [("non-integer", 1.5), ("np-scalar", np.int64(good))]
    if isinstance(good, (float, np.floating)):
        out += [("np-scalar", np.float64(good)), ("np-float32", np.float32(good)) if np.float32(good) == good else ("np-scalar", np.float64(good))]
    if arr is not None:
        bad = arr.astype(float).copy()
        bad.flat[0] = np.nan
        ro = arr.copy()
        ro.flags.writeable = False
        out += [("empty", []), ("wrong-shape", np.zeros((2, 2, 2))), ("nan-in-array", bad), ("read-only", ro),
                ("bool-array", arr.astype(bool)), ("complex-array", arr.astype(complex) + 1j), ("0-d", np.array(1.0))]
    return out


# ----------------------------------------------------------------------------- running in a child

_MEM_EXTRA = int(1.5 * 2**30)
TIMEOUT = 10


def _vmsize() -> int:
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("VmSize:"):
                return int(line.split()[1]) * 1024
    return 0


def _same(a, b) -> bool:
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
    if type(a) is type(b) and type(a).__eq__ is object.__eq__ and hasattr(a, "__dict__") and not isinstance(a, type):
        return _same(vars(a), vars(b))  # objects compared by identity (mechanisms): compare their state
    try:
        return bool(a == b)
    except Exception:  # noqa: BLE001
        return a is b


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


def run_isolated(fn, args=(), kwargs=None, *, timeout=TIMEOUT, capture=False):
    """Call fn in a forked child; returns a dict: kind ok/raise/hang/killed, details, mutated, finite."""
    kwargs = kwargs or {}
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # child
        code = 0
        try:
            os.close(r)
            lim = _vmsize() + _MEM_EXTRA
            resource.setrlimit(resource.RLIMIT_AS, (lim, lim))
            signal.alarm(timeout)
            devnull = os.open(os.devnull, os.O_WRONLY)
            errfile = tempfile.TemporaryFile() if capture else None
            os.dup2(devnull, 1)
            os.dup2(errfile.fileno() if capture else devnull, 2)
            sys.stdout = io.TextIOWrapper(os.fdopen(1, "wb", closefd=False), write_through=True)
            sys.stderr = io.TextIOWrapper(os.fdopen(2, "wb", closefd=False), write_through=True)
            try:
                snap = copy.deepcopy((args, kwargs))
            except Exception:  # noqa: BLE001
                snap = None
            try:
                res = fn(*args, **kwargs)
                out = {"kind": "ok", "finite": _finite(res)}
            except SystemExit as e:
                out = {"kind": "exit", "code": e.code if isinstance(e.code, int) else (0 if e.code is None else 1)}
            except BaseException as e:  # noqa: BLE001
                out = {"kind": "raise", "type": type(e).__name__, "msg": str(e)[:300]}
            out["mutated"] = snap is not None and not _same(snap, (args, kwargs))
            if capture:
                sys.stderr.flush()
                errfile.seek(0)
                out["stderr"] = errfile.read().decode("utf-8", "replace")[-2000:]
            data = pickle.dumps(out)
            os.write(w, data)
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


def judge(param: str, label: str, out: dict) -> str | None:
    """None if the outcome is allowed, else a short failure description."""
    if out.get("mutated"):
        return "mutated its input"
    kind = out["kind"]
    if kind == "ok":
        if label in MUST_REFUSE:
            return "silently accepted"
        if not out.get("finite", True):
            return "non-finite result"
        return None
    if kind == "raise":
        typ, msg = out["type"], out["msg"]
        if typ in _VALUE_SUBCLASSES and label not in MUST_ACCEPT:
            return None  # a purpose-made ValueError (e.g. the budget is exceeded)
        if typ in ("ValueError", "TypeError"):
            if label in MUST_ACCEPT:
                return f"refused a valid value: {typ}: {msg[:120]}"
            key = param.rstrip("_").lower()
            if key not in msg.lower():
                return f"{typ} not naming {param!r}: {msg[:120]}"
            return None
        return f"{typ}: {msg[:120]}"
    if kind == "hang":
        return f"timeout > {TIMEOUT} s"
    return f"crashed ({out})"


#: ValueError subclasses raised on purpose (judged as ValueError).
_VALUE_SUBCLASSES = {"OutputError", "BudgetExceeded", "MechanismError"}


def fuzz_cases(callables, *, with_methods=True):
    """Yield (qual, param, label, fn, kwargs) for every hostile value of every parameter."""
    for m, n, obj in callables:
        qual = f"{m}.{n}"
        base = baseline(qual, obj)
        if base is None:
            yield qual, None, "no-baseline", None, None
            continue
        none_ok = _defaults_none(obj)
        for param, good in base.items():
            if f"{qual}.{param}" in ANY_VALUE:
                continue
            for label, val in hostile_values(param, good):
                if label == "None" and (param in none_ok or param == "rng"):
                    continue  # None is a valid value here (rng=None: a fresh OS-seeded Generator)
                kw = dict(base)
                kw[param] = val
                yield qual, param, label, obj, kw
        if with_methods and qual in METHODS:
            meth, mkw = METHODS[qual]

            def call(_obj=obj, _base=base, _meth=meth, **kw):
                return getattr(_obj(**_base), _meth)(**kw)

            none_ok = _defaults_none(getattr(obj, meth))
            for param, good in mkw.items():
                for label, val in hostile_values(param, good):
                    if label == "None" and param in none_ok:
                        continue
                    kw = dict(mkw)
                    kw[param] = val
                    yield f"{qual}.{meth}", param, label, call, kw


def run_sweep(callables, *, sample: int | None = None, seed: int = 0):
    """Run (a seeded sample of) the fuzz cases; returns (counts, failures, no_baseline)."""
    from threadpoolctl import threadpool_limits

    callables, broken = _baseline_ok(callables)
    cases = list(fuzz_cases(callables))
    no_base = sorted({c[0] for c in cases if c[2] == "no-baseline"} | {f"{m}.{n} (baseline call fails)" for m, n, _ in broken})
    cases = [c for c in cases if c[2] != "no-baseline"]
    if sample is not None and sample < len(cases):
        cases = random.Random(seed).sample(cases, sample)
    counts, failures = Counter(), []
    with threadpool_limits(1):
        for qual, param, label, fn, kw in cases:
            out = run_isolated(fn, (), kw)
            counts["calls"] += 1
            counts[out["kind"] if out["kind"] != "raise" else out["type"]] += 1
            bad = judge(param, label, out)
            if bad:
                counts["failures"] += 1
                failures.append((qual, param, label, bad))
    return counts, failures, no_base


def _baseline_ok(callables):
    """The callables whose baseline call itself succeeds (others are reported, not fuzzed)."""
    from threadpoolctl import threadpool_limits

    good, broken = [], []
    with threadpool_limits(1):  # no BLAS worker threads across fork()
        return _baseline_ok_inner(callables, good, broken)


def _baseline_ok_inner(callables, good, broken):
    for m, n, obj in callables:
        base = baseline(f"{m}.{n}", obj)
        if base is None:
            good.append((m, n, obj))  # reported as no-baseline by the sweep
            continue
        out = run_isolated(obj, (), base)
        (good if out["kind"] == "ok" else broken).append((m, n, obj))
    return good, broken


# ----------------------------------------------------------------------------- the CLI

CLI_BASELINES = {
    "rr": ["rr", "--epsilon", "1.0", "--pi", "0.2,0.8"],
    "audit": ["audit", "--d", "0", "--d-prime", "1", "--epsilon", "1.0", "--samples", "2000", "--seed", "1"],
    "audit zcdp": ["audit", "dpverify.audit.examples:laplace_eps1", "--d", "0", "--d-prime", "1", "--zcdp", "0.5",
                   "--samples", "2000", "--seed", "1"],
    "continual mse": ["continual", "mse", "--n", "64", "--epsilon", "1.0"],
    "claims": ["claims", "--only", "rr."],
    "verify": ["verify", "--only", "prim.laplace_dp"],
}
CLI_VALUES = ["nan", "inf", "-inf", "0", "-1", "1e308", "5e-324", "9223372036854775808", "1180591620717411303424",
              "0.5", "abc", "", "1+1j", "True"]


def cli_cases():
    for name, argv in CLI_BASELINES.items():
        yield name, None, None, list(argv)
        for i, a in enumerate(argv):
            if a.startswith("--") and i + 1 < len(argv) and not argv[i + 1].startswith("--"):
                for v in CLI_VALUES:
                    bad = list(argv)
                    bad[i + 1] = v
                    yield name, a, v, bad


def run_cli(argv):
    from threadpoolctl import threadpool_limits

    from dpverify.cli import main

    with threadpool_limits(1):
        return run_isolated(main, (argv,), timeout=60, capture=True)


def judge_cli(out: dict) -> str | None:
    err = out.get("stderr", "")
    if "Traceback" in err:
        return "traceback: " + err.strip().splitlines()[-1][:150]
    if out["kind"] == "exit":
        return None if out["code"] in (0, 2) else f"exit status {out['code']}"
    if out["kind"] == "ok":
        return None
    if out["kind"] == "raise":
        return f"{out['type']}: {out['msg'][:150]}"
    return f"{out['kind']}"


# ----------------------------------------------------------------------------- tests

OWNED_CALLABLES = None


def _owned():
    global OWNED_CALLABLES
    if OWNED_CALLABLES is None:
        OWNED_CALLABLES = public_callables(OWNED)
    return OWNED_CALLABLES


def test_harness_sees_every_callable():
    allc = public_callables()
    assert len(allc) > 150
    quals = {f"{m}.{n}" for m, n, _ in allc}
    assert {"dpverify.audit.exact.ldp.check_ldp", "dpverify.primitives.sampling.discrete_laplace",
            "dpverify.continual.api.release"} <= quals


def test_harness_can_fail():
    """The judge flags what it must: silent accepts, unnamed errors, crashes, non-finite results, mutation, hangs."""
    assert judge("epsilon", "nan", {"kind": "ok", "finite": True}) == "silently accepted"
    assert "not naming" in judge("epsilon", "neg", {"kind": "raise", "type": "ValueError", "msg": "scale must be > 0"})
    assert judge("epsilon", "neg", {"kind": "raise", "type": "ValueError", "msg": "epsilon must be > 0"}) is None
    assert "OverflowError" in judge("epsilon", "huge", {"kind": "raise", "type": "OverflowError", "msg": "x"})
    assert judge("epsilon", "huge", {"kind": "ok", "finite": False}) == "non-finite result"
    assert judge("x", "zero", {"kind": "ok", "finite": True, "mutated": True}) == "mutated its input"
    assert "refused" in judge("x", "read-only", {"kind": "raise", "type": "ValueError", "msg": "x read-only"})

    def mutate(x):
        x[0] = 99.0

    assert run_isolated(mutate, (np.zeros(2),))["mutated"]

    class Box:  # compared by identity: the harness compares its state
        def __init__(self):
            self.eps = 1.0

    def mutate_state(box):
        box.eps = 2.0

    assert run_isolated(mutate_state, (Box(),))["mutated"]
    assert not run_isolated(lambda box: box.eps, (Box(),))["mutated"]

    def spin():
        while True:
            pass

    assert run_isolated(spin, timeout=1)["kind"] == "hang"

    def hog():
        return np.ones(2**31)  # 16 GiB: over the child's memory limit

    out = run_isolated(hog)
    assert out["kind"] == "raise" and out["type"] == "MemoryError"


def test_owned_baselines_are_valid():
    """Every owned callable with a baseline runs cleanly on it (otherwise its fuzz would test nothing)."""
    _, broken = _baseline_ok(_owned())
    assert not broken, [f"{m}.{n}" for m, n, _ in broken]


def test_fuzz_owned_modules_sample():
    """A seeded sample of 300 hostile calls into the hardened modules: 0 failures."""
    counts, failures, _ = run_sweep(_owned(), sample=300, seed=10)
    print("\nfuzz (owned, sample):", dict(counts))
    assert counts["calls"] == 300
    assert not failures, "\n".join(f"{q}({p}={lab}): {why}" for q, p, lab, why in failures)


def test_cli_rr_sample():
    """The rr subcommand with hostile option values: exit 0/2, never a traceback."""
    cases = [c for c in cli_cases() if c[0] == "rr"]
    bad = []
    for name, opt, val, argv in random.Random(3).sample(cases, 12):
        why = judge_cli(run_cli(argv))
        if why:
            bad.append((argv, why))
    assert not bad, bad


@pytest.mark.parametrize("cmd", ["verify", "claims"])
def test_cli_empty_only_prefix_is_refused(cmd, capsys):
    """``--only ''`` would select every claim: refused with exit 2 and one line naming --only."""
    from dpverify.cli import main

    assert main([cmd, "--only", ""]) == 2
    err = capsys.readouterr().err.strip()
    assert "--only" in err and len(err.splitlines()) == 1 and "Traceback" not in err


@pytest.mark.slow
def test_fuzz_owned_modules_full():
    counts, failures, _ = run_sweep(_owned())
    print("\nfuzz (owned, full):", dict(counts))
    assert not failures, "\n".join(f"{q}({p}={lab}): {why}" for q, p, lab, why in failures)


@pytest.mark.slow
def test_fuzz_everything_report():
    """Full sweep over every public callable and every CLI baseline; prints others' failures."""
    counts, failures, no_base = run_sweep(public_callables())
    print("\nfuzz (all):", dict(counts), "\nno baseline:", len(no_base))
    for f in failures:
        print("FAIL", *f)
    owned_fail = [f for f in failures if f[0].rsplit(".", 1)[0] in OWNED or f[0].rsplit(".", 2)[0] in OWNED]
    assert not owned_fail, owned_fail


def _main(argv):  # pragma: no cover - a reporting entry point
    every = "--all" in argv
    callables = public_callables() if every else _owned()
    counts, failures, no_base = run_sweep(callables)
    print("counts:", dict(sorted(counts.items())))
    print(f"callables: {len(callables)}, without a baseline: {len(no_base)}")
    for q in no_base:
        print("  no baseline:", q)
    for q, p, lab, why in failures:
        print(f"FAIL {q} {p}={lab}: {why}")
    if "--cli" in argv:
        cc = Counter()
        for name, opt, val, a in cli_cases():
            why = judge_cli(run_cli(a))
            cc["cli calls"] += 1
            if why:
                cc["cli failures"] += 1
                print(f"CLI FAIL {' '.join(a)}: {why}")
        print("cli:", dict(cc))


if __name__ == "__main__":  # pragma: no cover
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    _main(sys.argv[1:])
