"""Valid calls of the whole public API, the starting points of the fuzz (tests/test_fuzz_api.py).

``baseline(qual, obj)`` gives the keyword arguments of a valid call: a per-callable override, else a
valid value per parameter name (``DEFAULTS``), else one per annotation (``BY_TYPE``: a claim, a
result, a document, a room, ...).  ``fuzz_params`` adds every keyword parameter with a default
(its default, or for a ``None`` default a valid value of its annotation): the fuzz probes every
parameter, not only those of the baseline call.  ``METHODS`` lists the methods fuzzed on a class's
baseline instance (stream pushes under both noises, publishers, certificates, events).
Objects that need work to build (a claim's result, a report document) are built once, lazily.
"""

from __future__ import annotations

import datetime as _dt
import functools
import inspect
from fractions import Fraction
from pathlib import Path

import numpy as np


class Lazy:
    """A valid value built on first use (and then shared)."""

    def __init__(self, make):
        self.make = make

    @functools.cached_property
    def value(self):
        return self.make()


def resolve(v):
    return v.value if isinstance(v, Lazy) else v


# ----------------------------------------------------------------------------- objects

def _claim():
    from dpverify.claims.registry import get_claim

    return get_claim("continual.fenwick_as_bm")


def _result():
    from dpverify.claims.runner import run_claim

    return run_claim(CLAIM.value)


def _doc():
    from dpverify.report.build import results_document

    return results_document([RESULT.value], command="dpverify verify", started=_dt.datetime(2025, 1, 1),
                            total_seconds=1.0)


def _doc_file():
    import json
    import tempfile

    d = tempfile.mkdtemp(prefix="dpverify-fuzz-doc-")
    p = Path(d) / "report.json"
    p.write_text(json.dumps(DOC.value))
    return str(p)


def _exact_opt():
    from dpverify.rr.nary import exact_optimum

    return exact_optimum(["3/10", "7/10"], "3", 0)


def _room():
    from dpverify.rooms import room

    return room("rr")


def _eval_row(method="ppca-dp"):  # NB_D: an evaluation grid's row (a record the library returns)
    from dpverify.pca.evaluate import EvalRow

    return EvalRow("x", method, 1.0, 1, 5, 0.1, 0.0, 0.75, 0.0, majority_rate=0.75, test_size=4)


def _scores_call():  # NB_D: a PPCA fit and its exact scores (sample_from_scores)
    from dpverify.pca.ppca import fit_ppca

    Xn = np.random.default_rng(0).uniform(size=(20, 3))
    fit = fit_ppca(Xn, 2)
    return {"fit": fit, "K": (Xn - fit.mean) @ fit.U_k, "rng": 0}


def _svm_call():  # NB_D: a separable training and test set
    X = np.random.default_rng(0).normal(size=(40, 2))
    y = (X[:, 0] > 0).astype(int)
    return {"published": X[:20], "y_train": y[:20], "X_test": X[20:], "y_test": y[20:]}


def _spec_file():  # NB_D: a SPEC.md with the papers' table
    import tempfile

    d = tempfile.mkdtemp(prefix="dpverify-fuzz-spec-")
    p = Path(d) / "SPEC.md"
    p.write_text("| seed file | paper | room |\n|---|---|---|\n| `000.md` | *A paper* — remark | rr |\n")
    return str(p)


def _rr_lp_call():  # NB_D: the RR utility LP and its solver's primal-dual pair
    from dpverify.rr.lp import ldp_lp, solve_lp

    c, A_ub, b_ub, A_eq, b_eq = ldp_lp([0.2, 0.8], 0.1)
    sol = solve_lp([0.2, 0.8], 0.1)
    return {"c": c, "A_ub": A_ub, "b_ub": b_ub, "A_eq": A_eq, "b_eq": b_eq, "x": sol.P.ravel(), "y_ub": sol.y_ub,
            "y_eq": sol.y_eq}


def _certificate():
    from dpverify.rr.lp import Certificate

    return Certificate(1e-12, 1e-12, 1e-12, 1e-12)


def _event():
    from dpverify.audit.events import Binner, make_event

    return make_event("bins", np.array([True, False, False, False]), Binner(np.arange(3), categorical=True))


def _finite_mechanism():
    from dpverify.audit.controls import FiniteMechanism

    return FiniteMechanism(((0.75, 0.25), (0.25, 0.75)))


def _baseline_file():
    import tempfile

    from dpverify.claims.baseline import write_baseline

    p = Path(tempfile.mkdtemp(prefix="dpverify-fuzz-bl-")) / "baseline.json"
    write_baseline(p, {"rr.x": {"verdict": "holds"}})
    return str(p)


def _fenwick_weights(idx):
    return np.full(len(idx), 0.5)


def _gauss_mechanism(d, rng, n):
    """The Gaussian mechanism N(d, 1): a valid mechanism for the auditors' baselines."""
    return rng.normal(float(np.sum(d)), 1.0, n)


def _int_relation():
    from dpverify.mechanisms import Neighbours

    return Neighbours(shape=(2,), kind="replace", low=0, high=2, integer=True)


# W1 (wave 2): the callables this session added ------------------------------------------------
def _raw_words(ids):
    """``draw(ids)`` of two_sided_geometric: one seeded uniform 64-bit word per id."""
    return np.random.default_rng(len(ids)).integers(0, 2**64, size=len(ids), dtype=np.uint64)


def _more_words(i):
    """``extra(i)`` of discrete_laplace_words: entry i's further words, one per call."""
    return np.random.default_rng(i).bit_generator.random_raw


def _quick_check(thorough=False):
    from dpverify.claims.model import Outcome

    return Outcome("holds", {"thorough": thorough})


def _quick_claim():
    """A claim whose check returns at once (supervised runs fork a worker per call)."""
    from dpverify.claims.model import Claim, Method, Source, Verdict

    return Claim("zzfuzz.quick", Source("none"), "1 = 1", Method.EXACT, Verdict.HOLDS, _quick_check)


def _supervised_call(**extra):
    from dpverify.claims.runner import run_claim

    return {"tasks": [(QUICK_CLAIM.value, False)], "run": run_claim, **extra}


def _chunk_job():
    from dpverify.audit.chunks import ChunkJob

    return ChunkJob(_gauss_mechanism, 0.0, 20, 7, (1, 0), None)


def _done_future():
    from concurrent.futures import Future

    f = Future()
    f.set_result(1)
    return f


def _thread_pool():  # no thread starts before the first submit (in the forked child that calls it)
    from concurrent.futures import ThreadPoolExecutor

    return ThreadPoolExecutor(1)


def _node_noise():
    from dpverify.continual.node_noise import NodeNoise

    return NodeNoise(key=(1, 2), scale=2.0, noise="discrete")


def _declared():
    from dpverify.claims.declared import Declared

    return (Declared("zz.a", 3), Declared("zz.b", 5, where="inside a loop"))


def _suite_law():
    from dpverify.audit.ideal.laws import exact_law
    from dpverify.audit.suite import TruncatedGeometric

    m = TruncatedGeometric(0.1)
    out, p = exact_law(m, [2])
    return {"mechanism": m, "data": [2.0], "outcomes": out, "probabilities": p.tolist(), "samples": 200, "rng": 0}


def _strategy():
    from dpverify.continual import strategy

    return strategy(7, "fenwick")


def _matrix_mechanism():
    from dpverify.continual import MatrixMechanism

    return MatrixMechanism(np.tril(np.ones((4, 4))), np.eye(4))


# NB_B: builders of the continual internals' baselines (issue 26, item 7)
def _nb_b_inner(y):
    """A vector map with its input size ``m``: the ``inner`` of trees.prefix_operator."""
    return 2.0 * y


_nb_b_inner.m = 2


def _nb_b_coef(h):
    """A height's coefficient: the ``coef`` of trees.straddle_sum."""
    return 1.0 / 2.0**h


def _nb_b_csr(rows):
    import scipy.sparse as sp

    return sp.csr_matrix(np.array(rows, dtype=float))


def _nb_b_method():
    from dpverify.continual.methods import get_method

    m = get_method("fda")
    return {"name": "fda-copy", "description": m.description, "expected_mse": m.expected_mse}


# NB_A: builders of the audit engine's internals' baselines (issue 26, item 7)
_G0 = np.random.default_rng(0)
_NB_A_OUTS = (5.0 + _G0.laplace(size=100), 6.0 + _G0.laplace(size=100))
_NB_A_VEC = (_G0.normal(1, 1, (200, 2)), _G0.normal(0, 1, (200, 2)))


class _StubClient:
    """Stands in for dask.distributed.Client (submit(fn, pure=...) and scheduler_info)."""

    def scheduler_info(self):
        return {}

    def submit(self, fn, pure=True):
        return fn()


def _nb_a_report():
    from dpverify.audit import audit

    geo = lambda d, rng, n: d + rng.geometric(0.7, n) - rng.geometric(0.7, n)  # noqa: E731
    return audit(geo, epsilon=1.3, pairs=[(0.0, 1.0)], samples=20_000, rng=0)


def _nb_a_zcdp():
    from dpverify.audit.curves import CurveAudit
    from dpverify.audit.renyi import ZCDPAudit

    return ZCDPAudit(0.5, 0.02, CurveAudit((0.0,), (0.1,), (0.2,), 0.99, 100, 100))


def _nb_a_console():
    import io

    from rich.console import Console

    return Console(file=io.StringIO(), width=200)


def _nb_a_plan():
    from dpverify.audit.plan import make_plan

    return make_plan(_gauss_mechanism, [(0.0, 1.0)], samples=10_000, rng=0, statistic="auto", stop_early=True)


def _nb_a_logistic():
    from dpverify.audit.classifiers import fit_score

    return fit_score(*_NB_A_VEC, "logistic", rng=np.random.default_rng(0))


NB_A_REPORT, NB_A_ZCDP, NB_A_CONSOLE = Lazy(_nb_a_report), Lazy(_nb_a_zcdp), Lazy(_nb_a_console)


def _opendp_batch(kind):
    """A randomized response and a composition of 4 copies of it (None when OpenDP is not installed)."""
    if _optional("opendp.prelude", {}) is None:
        return None
    import opendp.prelude as dp

    rr = dp.m.make_randomized_response_bool(prob=0.75)
    if kind == "compose":
        return {"measurement": rr, "copies": 4}
    make = getattr(dp.c, "make_composition", None) or dp.c.make_basic_composition
    return {"composition": make([rr] * 4), "arg": True}


def _optional(package, kwargs):
    """kwargs when the optional ``package`` imports (imported here, once: the forked calls inherit it), else None."""
    try:
        __import__(package)
    except ImportError:
        return None
    if package == "opendp.prelude":
        __import__("opendp.prelude", fromlist=["x"]).enable_features("contrib")
    return kwargs


def _family():
    from dpverify.mechanisms.catalogue import families

    f = families()["primitives.laplace_mechanism"]
    return {"name": f.name, "factory": f.factory, "space": f.space, "pairs": f.pairs}


def _exp_minus(e):
    """δ(ε) = exp(-ε): a valid claimed curve."""
    return float(np.exp(-e))


_DPSGD = {"noise_multiplier": 2.0, "sample_rate": 1.0, "steps": 4, "delta": 1e-6}  # W1b: a cheap DP-SGD
_EPS = __import__("sympy").Symbol("epsilon", positive=True)


def _step_law():
    from dpverify.conform.pld import step_law

    return step_law(2.0, 0.5, 0.05, "remove", tail=1e-10)


def _composed():
    from dpverify.conform.pld import compose

    return compose(_step_law(), 4, tail=1e-10, upper=True)


def _eye2():
    return __import__("scipy.sparse", fromlist=["x"]).identity(2, format="csr")


def _elders_tree():
    from dpverify.continual.elders_tree import elders_strategy_parts
    from dpverify.continual.tree_weights import elders_parents

    R, A, offsets = elders_strategy_parts(12, 3)
    return R, A, elders_parents(offsets, 3)


def _exact_law():
    """Binary randomized response with keep probability e^ε/(1+e^ε), exact in ε."""
    import sympy

    q = sympy.exp(_EPS) / (1 + sympy.exp(_EPS))
    return sympy.Matrix([[q, 1 - q], [1 - q, q]])


def _x_poly():
    from dpverify.exact.roots import X

    return __import__("sympy").Poly(3 - X, X)


def _x_domain():
    import sympy

    from dpverify.exact.signs import XDomain

    return XDomain(sympy.Integer(1), sympy.oo, True, True, 1)


CLAIM, RESULT, DOC = Lazy(_claim), Lazy(_result), Lazy(_doc)
QUICK_CLAIM, CHUNK_JOB = Lazy(_quick_claim), Lazy(_chunk_job)  # W1 (wave 2)
DOC_FILE, EXACT_OPT = Lazy(_doc_file), Lazy(_exact_opt)

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
    # objects
    "c": CLAIM, "claim": CLAIM, "r": RESULT, "result": RESULT, "results": Lazy(lambda: [RESULT.value]),
    "claims": Lazy(lambda: [CLAIM.value]), "doc": DOC, "old": DOC, "new": DOC, "opt": EXACT_OPT,
    "claim_id": "continual.fenwick_as_bm", "mechanism": _gauss_mechanism, "d": 0.0, "d_prime": 1.0,
    "pair": (0.0, 1.0), "pairs": [(0.0, 1.0)], "prefix": "continual.", "started": _dt.datetime(2025, 1, 1),
    "command": "dpverify verify", "total_seconds": 1.0, "out_dir": "fuzz_out", "path": "fuzz_out.txt",
    "saved": DOC_FILE, "seconds": 1.0, "timeout": 5.0, "jobs": 1, "thorough": False, "online": True,
    "a_t": 1, "what": "the size", "nbytes": 1024, "units": 10, "text": "x", "data": [1.0, 2.0],
    "evidence": {"a": 1}, "provenance": Lazy(lambda: DOC.value["provenance"]), "verdict": "holds",
    "seed": 0, "sigma": 1.0, "rho": 0.5, "key": "epsilon_lower", "keys": ["a", "b"], "spec": "rr/README.md",
    "anchor": "a", "expr": Lazy(lambda: __import__("sympy").Symbol("x") + 1), "method": "naive",
    "log2_steps": 2, "levels": 3, "workload": np.tril(np.ones((4, 4))), "law": None,
}

#: A valid value per annotation (when the parameter's name has none).
BY_TYPE = {
    "Claim": CLAIM, "Result": RESULT, "Room": Lazy(_room), "Path": Path("fuzz_out"), "datetime": _dt.datetime(2025, 1, 1),
    "float": 1.0, "int": 2, "bool": False, "str": "x",
}

#: Per-callable overrides (module.name -> kwargs), where a name's default does not fit; None: not fuzzed.
OVERRIDES = {
    "dpverify.rr.nary.extreme_points": {"n": 2, "epsilon": 1.0},
    "dpverify.rr.nary.exact_optimum": {"pi": ["3/10", "7/10"], "E": "3", "delta": 0},
    "dpverify.rr.nary.verify_certificate_exact": {"pi": ["3/10", "7/10"], "E": "3", "delta": 0, "opt": EXACT_OPT},
    "dpverify.rr.simulate.composition": {"pi": [0.3, 0.7], "n_respondents": 10},
    "dpverify.rr.simulate.estimate_distribution": {"P": [[0.75, 0.25], [0.25, 0.75]], "output_counts": [30, 70]},
    "dpverify.primitives.sampling.laplace": {"scale": 1.0, "size": 3, "rng": 0},
    "dpverify.primitives.sampling.discrete_laplace": {"scale": 1.0, "size": 3, "rng": 0},
    "dpverify.primitives.additive.geometric_mechanism": {"value": [1, 2], "sensitivity": 1, "epsilon": 1.0, "rng": 0},
    "dpverify.primitives.randomized_response.randomized_response": {"values": [0, 1, 1], "k": 2, "epsilon": 1.0, "rng": 0},
    "dpverify.primitives.usefulness.simulate_failure_probability": {
        "alpha": 1.0, "sensitivity": 1.0, "epsilon": 1.0, "m": 3, "trials": 50, "rng": 0},
    "dpverify.primitives.composition.product_law": "product_law",  # *laws: fuzzed through PRODUCT_LAW below
    "dpverify.pca.corrected.CorrectedPPCADP": {"k": 1, "epsilon": 1.0, "bounds": _B},
    "dpverify.pca.pca_ppdp.PCABasedPPDP": {"k": 1, "epsilon": 1.0, "bounds": _B},
    "dpverify.pca.ppca_dp.PPCADP": {"k": 1, "epsilon": 1.0},
    "dpverify.pca.ppca.PPCA": {"k": 1},
    "dpverify.pca.ppca.check_k": {"k": 1, "p": 3},
    "dpverify.pca.thm3.feature2_law": {"X": Lazy(lambda: __import__("dpverify.pca.thm3", fromlist=["x"]).gaussian_pair()[0])},
    "dpverify.pca.ppca_dp.paper_sensitivity": {"k": 1, "p": 3},
    "dpverify.audit.exact.divergence.hockey_stick": {"p": [0.5, 0.5], "q": [0.25, 0.75], "epsilon": 0.5},
    "dpverify.audit.exact.divergence.privacy_curve": {"p": [0.5, 0.5], "q": [0.25, 0.75], "epsilons": [0.0, 0.5]},
    "dpverify.audit.exact.ldp.ldp_delta_curve": {"P": [[0.75, 0.25], [0.25, 0.75]], "epsilons": [0.0, 1.0]},
    "dpverify.primitives.composition.Accountant": {"budget": 1.0},
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
    "dpverify.continual.methods.register_method": {"m": Lazy(lambda: __import__("dpverify.continual", fromlist=["x"]).methods.get_method("fda"))},
    "dpverify.continual.alg5.alg5_release": {"counts": [2, 1, 0], "epsilon": 1.0, "m": 2, "rng": 0},
    "dpverify.continual.elders_weights.check_weights": {"weights": "total", "n": 100},
    "dpverify.continual.exact.round_up": {"x": Fraction(1, 3)},
    "dpverify.continual.matrix.gaussian_sigma": {"epsilon": 1.0, "delta": 1e-5},
    "dpverify.continual.symbolic.any_n_step_holds": {"t": 3},
    "dpverify.continual.elders.elders_node_variance": {"levels": 3, "epsilon": 1.0},
    "dpverify.continual.honaker.honaker_level_variances": {"shares": [0.5, 0.5], "branching": 2, "epsilon": 1.0},
    "dpverify.continual.checks.check_noise_scale": {"epsilon": 1.0, "min_weight": 0.5, "noise": "discrete"},
    "dpverify.continual.forest.block_of": {"t": [1, 2, 3], "blocks": [(0, 3), (3, 1)]},
    "dpverify.continual.forest.check_blocks": {"blocks": [(0, 3), (3, 1)], "n": 4},
    "dpverify.continual.forest.forest_descent_sums": {"x": [1.0, 2.0, 3.0, 4.0], "blocks": [(0, 3), (3, 1)]},
    "dpverify.continual.forest.ForestStream": {"n": 4, "epsilon": 1.0, "blocks": [(0, 3), (3, 1)],
                                               "weights_at": _fenwick_weights},
    "dpverify.continual.fenwick.FenwickStream": {"n": 4, "epsilon": 1.0, "weights_at": _fenwick_weights},
    "dpverify.continual.fda_optimal.fda_errors": {"levels": 3},
    "dpverify.continual.fda_optimal.fda_weights_at": {"nodes": [1, 2], "n": 3},
    "dpverify.continual.kary_optimum.kary_errors": {"levels": 3, "k": 2},
    "dpverify.continual.symbolic.ratio_sequence": {"m_max": 2},
    "dpverify.continual.experiments.simulate_mse": {"method": "naive", "n": 4, "epsilon": 1.0, "reps": 2, "rng": 0},
    "dpverify.continual.symbolic.popcount_prefix_sum_digits": {"exponents": [3, 1]},
    "dpverify.continual.checks.check_count": {"a_t": 3},
    "dpverify.continual.checks.check_total": {"counts": np.array([1, 2, 3])},
    "dpverify.continual.checks.laplace_only": {"noise": "laplace", "method": "naive"},
    "dpverify.continual.checks.check_result": {"out": np.array([1.0, 2.0]), "epsilon": 1.0},
    "dpverify.continual.digits.digit_counts": {"n": 5, "k": 2, "L": 3},
    "dpverify.continual.digits.digit_sums": {"n": 5, "k": 2, "L": 3},
    "dpverify.continual.digits.honaker_nodes": {"n": 5, "k": 2, "L": 3},
    "dpverify.continual.hdmm.p_identity": {"workload": np.tril(np.ones((6, 6))), "p": 2, "rng": 1, "maxiter": 20},
    "dpverify.continual.matrix.MatrixMechanism": {"workload": np.tril(np.ones((4, 4))), "strategy": np.eye(4)},
    "dpverify.continual.matrix_table.compare": {"mechanism": Lazy(_matrix_mechanism), "epsilon": 1.0, "methods": ["fda"]},
    "dpverify.continual.mechanisms.continual": {"epsilon": 1.0, "log2_steps": 2, "method": "naive", "noise": "discrete",
                                                "online": False},
    "dpverify.continual.mechanisms.stream_pairs": {"epsilon": 1.0, "log2_steps": 2},
    "dpverify.continual.node_noise.NodeNoise": {"key": (1, 2), "scale": 1.0},
    "dpverify.continual.seed_facts.reference_facts": {"text": "根据算法5.4"},
    "dpverify.continual.stream_cost.trace_stream": {"n": 3, "a": [1, 0, 2], "noise": "discrete", "seed": 0},
    "dpverify.continual.trees.static_total_mse": {"n": 8, "epsilon": 1.0, "method": "boost"},
    "dpverify.continual.weights.optimal_weights": {"R": Lazy(lambda: _strategy()[0]), "A": Lazy(lambda: _strategy()[1])},
    "dpverify.continual.matrix_ops.row_sq_norms": {"B": np.eye(3)},
    "dpverify.continual.symbolic.h_alpha": {"e": 1, "w": 2},
    "dpverify.continual.symbolic.stationary_alpha": {"e": 1, "w": 2},
    "dpverify.continual.alg5.coef_counted": {"k": 1, "m": 3, "alpha": Lazy(lambda: __import__("dpverify.continual.alg5", fromlist=["x"]).alpha_table(3))},
    "dpverify.continual.hdmm.p_identity_objective": {"theta": np.zeros((1, 4)), "W": np.tril(np.ones((4, 4)))},
    "dpverify.continual.matrix_ops.lu_solve": {"M": Lazy(lambda: _nb_b_csr([[0.0, 1.0], [1.0, 0.0]])), "Y": np.array([[2.0], [3.0]])},
    "dpverify.continual.matrix_ops.tri_solve": {"T": Lazy(lambda: _nb_b_csr([[2.0, 0.0], [1.0, 1.0]])), "Y": np.array([[2.0], [3.0]]),
                                                "lower": True},
    "dpverify.continual.matrix_table.format_table": {"rows": [{"name": "x", "total_mse": 2.0, "max_mse": 1.0, "sensitivity": 1.0,
                                                               "causal": True}]},
    "dpverify.continual.methods.ContinualMethod": Lazy(_nb_b_method),  # users build one to register_method it
    "dpverify.continual.stream_cost.CountingPath": {"items": [0, 1]},
    "dpverify.continual.streams.draw_run": {"lam": np.array([0.5, 1.0]), "epsilon": 1.0, "noise": "discrete",
                                            "rng": Lazy(lambda: np.random.default_rng(0))},
    "dpverify.continual.symbolic.block_recombination": {"B_prev": Lazy(lambda: _nb_b_csr([[1.0]]))},
    "dpverify.continual.symbolic.block_strategy": {"M_prev": Lazy(lambda: _nb_b_csr([[1.0]]))},
    "dpverify.continual.symbolic.err_recursion": {"e": 1, "m": 2},
    "dpverify.continual.trees.prefix_operator": {"n": 2, "inner": _nb_b_inner},
    "dpverify.continual.trees.straddle_sum": {"n": 4, "coef": _nb_b_coef},
    "dpverify.continual.weights.dual_bound": {"R": Lazy(lambda: _nb_b_csr(np.eye(2))), "A": Lazy(lambda: _nb_b_csr(np.eye(2))),
                                              "mu": [2.0, 2.0]},
    "dpverify.audit.intervals.clopper_pearson_lower": {"k": 3, "n": 10, "alpha": 0.05},
    "dpverify.audit.intervals.clopper_pearson_upper": {"k": 3, "n": 10, "alpha": 0.05},
    "dpverify.audit.intervals.poisson_draws": {"n": 1000, "eta": 0.5},
    "dpverify.audit.intervals.poisson_log_ratio_lower": {"k_p": 30, "k_q": 10, "alpha": 0.05},
    "dpverify.audit.ideal.laws.exact_law": {
        "mechanism": Lazy(lambda: __import__("dpverify.audit.suite", fromlist=["x"]).SVT1(0.1)), "data": [1.0, 0.0, 1.0]},
    "dpverify.audit.ideal.oracle.sampler_pvalue": Lazy(_suite_law),
    "dpverify.audit.ideal.oracle.reach_probability": {
        "p_event": 0.5, "q_event": 0.4, "n": 1000, "confidence": 0.9, "target": 0.1},
    "dpverify.audit.ideal.reach.reach_probability": {
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
    "dpverify.audit.api.audit": {"mechanism": _gauss_mechanism, "epsilon": 1.0, "pairs": [(0.0, 1.0)], "samples": 2000,
                                 "rng": 0},
    # white-box statistics need a mechanism stating its law (law / log_density); words need an event
    "dpverify.audit.white_box.LawRatio": {"mechanism": Lazy(_finite_mechanism), "d": 0, "d_prime": 1},
    "dpverify.audit.white_box.LogLikelihoodRatio": {"mechanism": Lazy(lambda: __import__(
        "dpverify.audit.suite", fromlist=["x"]).Laplace(1.0)), "d": [0.0], "d_prime": [1.0]},
    "dpverify.audit.white_box.white_box_statistics": {"mechanism": Lazy(_finite_mechanism), "pair": (0, 1),
                                                      "out": np.zeros(3, dtype=np.int64)},
    "dpverify.audit.words.event_form": {"event": Lazy(_event)},
    "dpverify.audit.words.event_words": {"event": Lazy(_event), "subject": "T"},
    "dpverify.audit.words.intervals_words": {"intervals": [(None, 0.5), (1.0, 2.0)]},
    "dpverify.selftest.claims.audit_api.audit_rows": {"mechanism": Lazy(lambda: __import__(
        "dpverify.selftest.rare_event", fromlist=["x"]).RareEvent(1.0)), "seeds": [0], "epsilon": 1.0,
        "samples": 20_000},
    "dpverify.audit.statistical.epsilon_lower_bound": {"mechanism": _gauss_mechanism, "d": 0.0, "d_prime": 1.0,
                                                       "samples": 2000, "rng": 0},
    "dpverify.audit.curves.audit_delta_curve": {
        "mechanism": _gauss_mechanism, "pair": (0.0, 1.0), "samples": 2000, "epsilons": [0.5, 1.0], "rng": 0,
        "delta_curve": Lazy(lambda: __import__("dpverify.audit.curves", fromlist=["x"]).gaussian_delta_curve(1.0))},
    "dpverify.audit.curves.gaussian_delta_curve": {"sigma": 1.0},
    "dpverify.audit.suite.base.vector_of": {"data": [1.0, 2.0]},
    "dpverify.audit.suite.rappor.murmur3_32": {"data": b"abc", "seed": 0},
    "dpverify.audit.suite.Case": {"name": "Laplace", "dpsniper": 0.0968, "dpsniper_1e7": 0.0918,  # make: its factory
                                  "make": Lazy(lambda: __import__("dpverify.audit.suite", fromlist=["x"]).Laplace)},
    "dpverify.budget.check_budget": {"nbytes": 1024, "what": "nbytes"},
    "dpverify.budget.check_work": {"units": 10, "what": "units"},
    "dpverify.budget.check_elements": {"arr": np.ones(3), "name": "arr"},
    "dpverify.validation.check_confidence": {"c": 0.95, "name": "c"},
    "dpverify.validation.check_bool": {"value": True, "name": "value"},
    "dpverify.validation.check_size": {"size": 3, "name": "size"},
    "dpverify.validation.check_real": {"value": 1.0, "name": "value"},
    "dpverify.validation.check_positive_int": {"n": 3, "name": "n"},
    "dpverify.validation.check_int_in": {"n": 3, "name": "n", "low": 0, "high": 10},
    "dpverify.plain_checks.check_flag": {"value": True, "name": "value"},
    "dpverify.plain_checks.check_text": {"value": "text", "name": "value"},
    "dpverify.validation.check_generator": {"rng": Lazy(lambda: np.random.default_rng(0)), "name": "rng"},
    "dpverify.validation.check_nonneg_int": {"n": 3, "name": "n"},
    "dpverify.validation.check_probability": {"p": 0.5, "name": "p"},
    "dpverify.claims.baseline.baseline_key": {"claim_id": "rr.x"},
    "dpverify.claims.baseline.drift": {"baseline": {"rr.x": {"verdict": "holds"}}, "current": {"rr.x": {"verdict": "holds"}}},
    "dpverify.claims.baseline.entry_of": {"result_json": Lazy(lambda: __import__(
        "dpverify.claims.runner", fromlist=["x"]).result_to_json(RESULT.value))},
    "dpverify.claims.baseline.write_baseline": {"path": "baseline.json", "entries": {"rr.x": {"verdict": "holds"}}},
    "dpverify.claims.drift.compare_reports": {"old": DOC, "new": DOC},
    "dpverify.claims.baseline.check_baseline": {"baseline": {"rr.x": {"verdict": "holds"}},
                                                "current": {"rr.x": {"verdict": "holds"}}},
    "dpverify.claims.baseline.BaselineCheck": {"matched": ("rr.x",), "differences": (), "missing": (),
                                               "unrecorded": (), "rtol": 1e-6, "atol": 1e-9},
    "dpverify.claims.baseline.records_thorough": {"baseline": {"rr.x[thorough]": {"verdict": "holds"}}},
    "dpverify.claims.envelope.envelope": {"results": [{"id": "rr.x", "verdict": "holds", "expected": "holds"}],
                                          "command": "dpverify verify", "seconds": 0.5},
    "dpverify.report.entries.status_line": {"claims": [{"id": "rr.x", "verdict": "holds", "expected": "holds"}],
                                           "provenance": {}},
    "dpverify.report.mathtext.prose_html": {"text": "e^ε and M_{2^m}"},
    "dpverify.report.entries.source_text": {"c": {"source_parts": {"paper": "My paper", "section": "§1"}}},
    "dpverify.report.figures.readable": {"fig": Lazy(lambda: __import__("matplotlib.figure", fromlist=["x"]).Figure())},
    "dpverify.claims.model.check_timeout": {"seconds": 5.0},
    "dpverify.claims.model.Source": {"paper": "000"},
    "dpverify.report.papers.paper_for": {"paper": "000"},
    "dpverify.completion.completion_script": {"shell": "bash"},
    "dpverify.claims.model.Outcome": {"verdict": "holds"},
    "dpverify.claims.model.namespace_of": {"claim_id": "rr.x"},
    "dpverify.claims.model.room_name_of": {"claim_id": "rr.x"},
    "dpverify.claims.model.Result": {"claim": CLAIM, "outcome": Lazy(lambda: RESULT.value.outcome), "seconds": 1.0},
    "dpverify.claims.registry.get_claim": {"claim_id": "continual.fenwick_as_bm"},
    "dpverify.claims.registry.all_claims": {"prefix": "continual."},
    "dpverify.claims.runner.run_claims": {"claims": Lazy(lambda: [CLAIM.value])},
    "dpverify.claims.seeds.seed_path": {"prefix": "000"},
    "dpverify.claims.seeds.seed_text": {"prefix": "000"},
    "dpverify.claims.seeds.seed_sha256": {"prefix": "000"},
    "dpverify.claims.store.claim": {"id": "zzfuzz.one", "source": Lazy(lambda: __import__(
        "dpverify.claims.model", fromlist=["x"]).Source("none", "§0")), "statement": "1 = 1", "method": "exact computation"},
    "dpverify.claims.store.select": {"claims": Lazy(lambda: [CLAIM.value]), "prefix": "continual."},
    "dpverify.claims.store.lookup": {"claim_id": "continual.fenwick_as_bm"},
    "dpverify.claims.store.source_of": {"claim_id": "continual.fenwick_as_bm"},
    "dpverify.claims.store.claim_ids": {"claims": Lazy(lambda: [CLAIM.value])},
    "dpverify.claims.traceability.rows_for_claim": {"claim_id": "continual.fenwick_as_bm"},
    "dpverify.mechanisms.families.family_name": {"family": "rr.optimal_mechanism", "params": {"epsilon": 1.0}},
    "dpverify.mechanisms.families.MatrixLaw": {"P": ((0.75, 0.25), (0.25, 0.75))},
    "dpverify.mechanisms.privacy.RenyiDP": {"alpha": 2.0, "renyi_epsilon": 1.0},
    "dpverify.mechanisms.privacy.ZCDP": {"rho": 0.5},
    "dpverify.mechanisms.sampling.sample_finite": {"support": np.array([0, 1]), "probs": np.array([0.25, 0.75]),
                                                   "rng": Lazy(lambda: np.random.default_rng(0)), "n": 3},
    "dpverify.mechanisms.sampling.describe_input": {"data": [1.0, 2.0]},
    "dpverify.mechanisms.protocol.FunctionMechanism": {"function": _gauss_mechanism, "epsilon": 1.0},
    "dpverify.pca.evaluate.majority_rate": {"y": [0, 1, 1]},
    "dpverify.pca.evaluate.make_mechanism": {"method": "ppca-dp", "k": 2, "epsilon": 1.0},
    "dpverify.pca.mechanisms.corrected_ppca": {"epsilon": 1.0, "k": 1, "p": 2, "rows": 5},
    "dpverify.pca.mechanisms.FeatureSum": {"j": 0, "p": 2},
    "dpverify.pca.thm3.score_change_l1": {"D": Lazy(lambda: __import__("dpverify.pca.thm3", fromlist=["x"]).flip_pair()[0]),
                                          "Dp": Lazy(lambda: __import__("dpverify.pca.thm3", fromlist=["x"]).flip_pair()[1]),
                                          "k": 1},
    "dpverify.report.build.make_report": {"out_dir": "fuzz_out", "claims": Lazy(lambda: [CLAIM.value])},
    "dpverify.report.build.report_from_file": {"saved": DOC_FILE, "out_dir": "fuzz_out"},
    "dpverify.report.build.load_report": {"path": DOC_FILE},
    "dpverify.report.build.saved_results": {"doc": DOC},
    "dpverify.report.build.write_report": {"out_dir": "fuzz_out", "doc": DOC, "results": Lazy(lambda: [RESULT.value])},
    "dpverify.report.build.build_document": {"results": Lazy(lambda: [RESULT.value]),
                                             "provenance": Lazy(lambda: DOC.value["provenance"]), "total_seconds": 1.0},
    "dpverify.report.render.render_html": {"doc": DOC},
    "dpverify.report.render.anchor_ids": {"prefix": "c", "keys": ["a", "b"]},
    "dpverify.report.entries.is_self_test": {"c": Lazy(lambda: DOC.value["claims"][0])},
    "dpverify.report.entries.reason": {"c": Lazy(lambda: DOC.value["claims"][0])},
    "dpverify.report.entries.finding_html": {"c": Lazy(lambda: DOC.value["claims"][0]), "anchor": "a"},
    "dpverify.report.entries.badge": {"verdict": "holds"},
    "dpverify.report.markdown.render_markdown": {"text": "# x\n\n*a*", "link_map": {}, "doc_path": "a.md"},
    "dpverify.report.papers.paper_for_seed": {"seed": "000"},
    "dpverify.report.provenance.find_seeds": {"evidence": {"a": 1}},
    "dpverify.report.provenance.collect_provenance": {"started": _dt.datetime(2025, 1, 1)},
    "dpverify.report.values.humanise": {"key": "epsilon_lower"},
    "dpverify.report.values.number_html": {"v": 1.5},
    "dpverify.rooms.room_of": {"claim_id": "rr.model2.optimum"},
    "dpverify.rooms.proof_name": {"spec": "rr/README.md"},
    "dpverify.rooms.is_claims_file": {"path": "claims.py"},
    "dpverify.rooms.claim_module_names": {"r": Lazy(_room)},
    "dpverify.rr.compare.proven_equal": {"a": Lazy(lambda: __import__("dpverify.rr.symbolic", fromlist=["x"]).E),
                                         "b": Lazy(lambda: __import__("dpverify.rr.symbolic", fromlist=["x"]).E)},
    "dpverify.rr.compare.same_point_sets": {"derived": [(0, 1)], "printed": [(0, 1)]},
    "dpverify.rr.lp.Certificate": {"primal_infeasibility": 1e-12, "dual_infeasibility": 1e-12,
                                   "complementary_slackness": 1e-12, "duality_gap": 1e-12},
    "dpverify.rr.symbolic.reduced_costs": {"basis": (1, 2, 3, 4, 7, 8), "with_delta": False},
    "dpverify.selftest.mechanisms.control": {"cls": "GeometricMechanism", "epsilon": 1.0},
    "dpverify.selftest.mechanisms.control_pairs": {"cls": "GeometricMechanism", "epsilon": 1.0},
    "dpverify.toolkit.erratum.erratum_outcome": {"printed_holds": False, "corrected_holds": True, "evidence": {"k": 1}},
    "dpverify.toolkit.erratum.erratum_verdict": {"printed_holds": False, "corrected_holds": True},
    "dpverify.toolkit.lp.lp_optimum": {"c": [1, 2], "A_ub": [[1, 1], [0, 1]], "b_ub": [1, Fraction(2, 3)], "maximize": True},
    "dpverify.toolkit.lp.to_fraction": {"v": 0.5},
    # NB_D: max x + 2y s.t. x + y <= 1 with its optimal pair (exact data; floats for the residuals)
    "dpverify.toolkit.lp.rationals": {"v": [1, "1/3", 0.5], "name": "b"},
    "dpverify.toolkit.lp.exact_lp_certificate": {"c": [1, 2], "A_ub": [[1, 1]], "b_ub": [1], "A_eq": {}, "b_eq": [],
                                                 "x": [0, 1], "y_ub": [2], "y_eq": []},
    "dpverify.toolkit.lp.lp_residuals": {"c": np.array([1.0, 2.0]), "A_ub": np.array([[1.0, 1.0]]), "b_ub": np.array([1.0]),
                                         "A_eq": np.zeros((0, 2)), "b_eq": np.zeros(0), "x": np.array([0.0, 1.0]),
                                         "y_ub": np.array([2.0]), "y_eq": np.zeros(0)},
    "dpverify.rr.lp.certify": Lazy(_rr_lp_call),
    "dpverify.toolkit.qp.qp_optimum": {"Q": [[2, 0], [0, 2]], "c": [0, 0], "A_eq": [[1, 2]], "b_eq": [1]},
    "dpverify.toolkit.simulation.simulate_against": {"draw": lambda rng, n: rng.random(n) < 0.25, "expected": 0.25,
                                                     "n": 10_000, "rng": 1},
    "dpverify.toolkit.symbolic.check_equal": {"lhs": Lazy(lambda: __import__("sympy").Symbol("x") * 2),
                                              "rhs": Lazy(lambda: __import__("sympy").Symbol("x") + __import__("sympy").Symbol("x"))},
    "dpverify.toolkit.symbolic.derive_and_compare": {"derived": Lazy(lambda: __import__("sympy").Symbol("x") * 2),
                                                     "printed": Lazy(lambda: __import__("sympy").Symbol("x") * 2)},
    "dpverify.toolkit.symbolic.symbolic_equal": {"lhs": Lazy(lambda: __import__("sympy").Symbol("x") * 2),
                                                 "rhs": Lazy(lambda: __import__("sympy").Symbol("x") * 2)},
    "dpverify.toolkit.privacy.audit_epsilon": {"mechanism": _gauss_mechanism, "d": 0.0, "d_prime": 1.0, "epsilon": 1.0,
                                               "samples": 2000, "rng": 0},
    "dpverify.audit.cli_inputs.parse_shape": {"text": "3"},
    "dpverify.audit.cli_inputs.parse_values": {"text": "0,1,2"},
    "dpverify.audit.cli_inputs.resolve": {"spec": "dpverify.audit.examples:laplace_eps1", "flag": "--mechanism"},
    # G4: the relations, the pair search and the audit CLI's inputs (a finite integer domain: the local search applies)
    "dpverify.mechanisms.domain.check_shape": {"shape": (2, 3)},
    "dpverify.mechanisms.relations.as_relation": {"relation": [(0.0, 1.0)]},
    "dpverify.audit.search.domain_text": {"relation": Lazy(_int_relation)},
    "dpverify.audit.search.candidate_pairs": {"mechanism": _gauss_mechanism, "pairs": Lazy(_int_relation),
                                              "g": Lazy(lambda: np.random.default_rng(0))},
    "dpverify.audit.local_search.domain_values": {"relation": Lazy(_int_relation)},
    "dpverify.audit.local_search.searchable": {"relation": Lazy(_int_relation)},
    "dpverify.audit.local_search.moves": {"relation": Lazy(_int_relation), "pair": (np.array([1.0, 1.0]), np.array([0.0, 1.0]))},
    "dpverify.audit.local_search.local_search": Lazy(lambda: {
        "mechanism": _gauss_mechanism, "relation": _int_relation(), "candidates": _int_relation().candidates(0),
        "budget": 20_000, "n_eval": 1000, "entropy": 0}),
    "dpverify.audit.cli_inputs.stated_claim": {"mech": _gauss_mechanism},
    "dpverify.audit.local_search.LocalSearch": {"pairs": (), "visited": (), "draws": 0, "drawn": ()},  # a record
    "dpverify.audit.cli_inputs.audit_pairs": {"args": Lazy(lambda: __import__("types").SimpleNamespace(
        mechanism="m:f", search="replace", shape="2", bound=1.0, low=0.0, high=2.0, integer=True, values=None,
        default_domain=False, d=None, d_prime=None)), "mech": _gauss_mechanism},
    "dpverify.audit.dask_backend.dask_executor": {"client": Lazy(_StubClient)},  # a stand-in client (NB_A)
    # NB_A: the audit engine's internals (chunks, classifiers, controls, float grid, plan, projections,
    # render, screening, selection, stages)
    "dpverify.audit.dask_backend.DaskExecutor": {"client": Lazy(_StubClient)},
    "dpverify.audit.chunks.Progress": {"callback": None, "total": 10},
    "dpverify.audit.binning.edge_ranks": {"n": 1000},
    "dpverify.audit.binning.in_bins": {"t": np.array([-1.0, 0.5, 3.0]), "edges": np.array([0.0, 1.0]),
                                       "mask": np.array([True, False, True])},
    "dpverify.audit.binning.in_values": {"t": np.array([0, 1, 5]), "values": np.array([0, 1]),
                                         "mask": np.array([True, False, True])},
    "dpverify.audit.chunks.run_tasks": {"tasks": [lambda: 1, lambda: 2], "executor": None,
                                        "prog": Lazy(lambda: __import__("dpverify.audit.chunks", fromlist=["x"]).Progress(None, 0)),
                                        "sizes": [0, 0]},  # zero draws: the progress counter stays put
    "dpverify.audit.classifiers.FeatureMap": {"width": 2, "flags": np.array([-1000.0]), "discrete": False},
    "dpverify.audit.classifiers.fit_score": {"out_d": _NB_A_VEC[0], "out_dp": _NB_A_VEC[1], "kind": "logistic",
                                             "rng": Lazy(lambda: np.random.default_rng(0))},
    "dpverify.audit.classifiers.sparse_logistic": {"score": Lazy(_nb_a_logistic), "out_d": _NB_A_VEC[0],
                                                   "out_dp": _NB_A_VEC[1]},
    "dpverify.audit.controls.standard.FiniteMechanism": {"laws": ((0.75, 0.25), (0.25, 0.75))},
    "dpverify.audit.controls.standard.HockeyStick": {"laws": ((0.75, 0.25), (0.25, 0.75))},
    "dpverify.audit.float_grid.FloatReach": {"c0": (5.0,), "c1": (6.0,)},
    "dpverify.audit.float_grid.centres_of": {"pair": (5.0, 6.0), "out": np.zeros(4)},
    "dpverify.audit.float_grid.float_statistics": {"pair": (5.0, 6.0), "outs": _NB_A_OUTS},
    "dpverify.audit.float_grid.is_float_output": {"out": np.array([1.0, 2.5])},
    "dpverify.audit.plan.make_plan": {"mechanism": _gauss_mechanism, "pairs": [(0.0, 1.0)], "samples": 10_000, "rng": 0,
                                      "statistic": "auto", "stop_early": True},
    "dpverify.audit.projections.SignCount": {"medians": np.zeros(2), "flags": np.array([-1000.0])},
    "dpverify.audit.projections.StateCounts": {"medians": np.zeros(2), "flags": np.array([-1000.0])},
    "dpverify.audit.projections.fixed_statistics": {"pilot": _G0.laplace(size=(100, 3))},
    "dpverify.audit.render.audit_json": {"report": NB_A_REPORT, "mechanism": "lap"},
    "dpverify.audit.render.draws_text": {"report": NB_A_REPORT},
    "dpverify.audit.render.meaning_text": {"report": NB_A_REPORT, "claimed": 1.3, "verdict": "inconclusive"},
    "dpverify.audit.render.print_audit": {"console": NB_A_CONSOLE, "report": NB_A_REPORT, "claimed": 1.3,
                                          "verdict": "inconclusive", "mechanism": "m[red]"},
    "dpverify.audit.render.print_zcdp": {"console": NB_A_CONSOLE, "result": NB_A_ZCDP, "pair": (0.0, 1.0), "mechanism": "m"},
    "dpverify.audit.render.stop_text": {"report": NB_A_REPORT},
    "dpverify.audit.render.zcdp_json": {"result": NB_A_ZCDP, "pair": (0.0, 1.0), "samples": 200, "seconds": 0.1},
    "dpverify.audit.screening.apply_statistic": {"stat": np.sum, "out": np.ones((2, 2))},
    "dpverify.audit.screening.fitted_statistics": {"kind": "logistic", "out_d": _NB_A_VEC[0], "out_dp": _NB_A_VEC[1],
                                                   "g": Lazy(lambda: np.random.default_rng(0))},
    "dpverify.audit.screening.score_statistic": {"stat": None, "t_sel": [_G0.laplace(0, 1, 4000), _G0.laplace(1, 1, 4000)],
                                                 "n_est": 4000, "alpha": 0.05, "delta": 0.0},
    "dpverify.audit.screening.statistic_candidates": {"statistic": "auto", "mechanism": _gauss_mechanism,
                                                      "pair": (0.0, 1.0), "outs": _NB_A_OUTS, "final": True},
    "dpverify.audit.selection.count_selection": {"mechanism": _gauss_mechanism, "data": (0.0, 1.0), "n_sel": 2000,
                                                 "entropy": 7, "stat": None},
    "dpverify.audit.selection.select_event": {
        "binner": Lazy(lambda: __import__("dpverify.audit.events", fromlist=["x"]).Binner(np.arange(2), categorical=True)),
        "counts": [np.array([[300, 200], [300, 200]]), np.array([[200, 300], [200, 300]])], "n_est": 10_000,
        "alpha": 0.05, "delta": 0.0},
    "dpverify.audit.stages.AuditRun": {"mechanism": _gauss_mechanism, "plan": Lazy(_nb_a_plan), "claimed": 1.0,
                                       "delta": 0.0, "alpha": 0.01, "statistic": "auto", "stop_early": True},
    "dpverify.audit.float_grid.reachable": {"x": [0.1, -7.3], "c": 0.5},
    "dpverify.audit.sequential.stage_plan": {"n": 10_000, "alpha": 0.05},
    "dpverify.claims.baseline.load_baseline": {"path": Lazy(lambda: _baseline_file())},
    "dpverify.claims.model.note_sampling": {"kind": "simulation"},
    "dpverify.claims.sources.load_room": {"r": Lazy(_room)},
    # G2: the claims engine's input checks and the callables that had no baseline
    "dpverify.claims.checks.check_text": {"value": "rr.x", "name": "claim_id"},
    "dpverify.claims.checks.check_instance": {"value": CLAIM, "kind": Lazy(lambda: type(CLAIM.value)), "name": "c"},
    "dpverify.claims.checks.check_items": {"values": Lazy(lambda: [CLAIM.value]), "kind": Lazy(lambda: type(CLAIM.value)),
                                           "name": "claims"},
    "dpverify.claims.checks.check_mapping": {"value": {"rr.x": {"verdict": "holds"}}, "name": "entries"},
    "dpverify.claims.model.label_error": {"c": CLAIM, "outcome": Lazy(lambda: RESULT.value.outcome)},
    "dpverify.claims.sources.authoring_error": {"exc": Lazy(lambda: ValueError("x"))},
    "dpverify.claims.sources.load_sources": {"specs": []},
    "dpverify.claims.store.registered_since": {"before": {}},
    "dpverify.claims.declared.Declared": {"id": "zz.a", "line": 3, "expected": "holds"},
    "dpverify.claims.declared.declared_in_file": {"path": Lazy(lambda: Path(__import__("dpverify").__file__).parent
                                                           / "rr" / "claims" / "binary.py")},
    # W1 (wave 2): declared claims, supervised runs, contained executors, chunk tasks, exact noise
    "dpverify.claims.declared.Declarations": {"claims": Lazy(_declared), "unnamed": (6, 9)},
    "dpverify.claims.execute.as_error": {"outcome": Lazy(lambda: RESULT.value.outcome), "why": "it blocked"},
    "dpverify.claims.execute.with_route": {"c": CLAIM, "outcome": Lazy(lambda: RESULT.value.outcome),
                                           "sampled": ["simulation"]},
    "dpverify.claims.execute.unloaded_results": {"files": Lazy(lambda: [("binary.py", Path(__import__(
        "dpverify").__file__).parent / "rr" / "claims" / "binary.py")]), "why": "it blocked"},
    "dpverify.claims.supervisor.stream": Lazy(_supervised_call),
    "dpverify.claims.supervisor.TaskRunner": Lazy(_supervised_call),
    "dpverify.claims.supervisor.supervise": Lazy(lambda: {
        "claims": [QUICK_CLAIM.value], "run": _supervised_call()["run"], "thorough": False, "jobs": 1, "timeout": 5.0}),
    "dpverify.claims.supervisor.guarded_load": {"load": list, "limit": 5.0},  # list() loads no claims
    "dpverify.claims.loadguard.guarded_load": {"load": list, "limit": 5.0},  # (moved there from supervisor)
    "dpverify.claims.loadguard.load_in_child": {"load": list, "limit": 5.0},  # list() is JSON data
    "dpverify.claims.loading.claims_to_run": {"sources": [], "only": "rr.model2.", "limit": 60.0},
    "dpverify.claims.listing.cached_listing": {"only": "rr."},
    "dpverify.claims.loading.not_reported": {"sources": [], "claims": [], "only": None},
    "dpverify.claims.listing.package_digest": {},
    "dpverify.claims.listing.remember": {},
    "dpverify.audit.supervised.run_supervised": {"work": int, "name": "m"},  # int() == 0: the status
    "dpverify.audit.supervised.supervise_command": {"work": int, "name": "m"},
    "dpverify.audit.contained.worker_death": {"exc": Lazy(lambda: ValueError("x"))},
    "dpverify.audit.contained.channel_frames": Lazy(lambda: {"data": (lambda body: len(body).to_bytes(8, "little") + body)(
        b'{"kind": "call", "thread": 1, "call": null, "token": "t"}'), "token": "t"}),  # one framed call
    "dpverify.audit.contained.task_mechanism_name": {"task": CHUNK_JOB},
    "dpverify.audit.contained.ContainedFuture": {"future": Lazy(_done_future), "name": "m"},
    "dpverify.audit.contained.ContainedExecutor": {"executor": Lazy(_thread_pool), "name": "m"},
    "dpverify.audit.chunks.ChunkJob": {"mechanism": _gauss_mechanism, "data": 0.0, "n": 20, "entropy": 7,
                                       "key": (1, 0), "statistic": None},
    "dpverify.audit.chunks.CountBins": Lazy(lambda: {"job": CHUNK_JOB.value, "binner": __import__(
        "dpverify.audit.events", fromlist=["x"]).Binner(CHUNK_JOB.value.statistic_values())}),
    "dpverify.audit.chunks.CountEvent": Lazy(lambda: {"job": CHUNK_JOB.value, "events": (_event(),)}),
    "dpverify.mechanisms.sampling.observe_calls": {"callback": repr},  # any one-argument callable
    "dpverify.primitives.exact_noise.two_sided_geometric": {"s": np.array([3.0]), "n": 4, "draw": _raw_words},
    "dpverify.primitives.sampling.discrete_laplace_words": {
        "scale": np.array([1.0, 2.0, 2.0**40]), "words": np.random.default_rng(0).integers(
            0, 2**64, size=(3, 8), dtype=np.uint64), "extra": _more_words},
    "dpverify.continual.elders.elders_noise_sums": {"n": 9, "k": 3, "nn": Lazy(_node_noise)},
    "dpverify.continual.elders.elders_scale_check": {"epsilon": 1.0, "levels": 5, "factors": [np.ones(3), np.ones(2)],
                                                     "noise": "discrete"},
    "dpverify.toolkit.shapes.check_shape": {"A": [[1, 1]], "name": "A_ub", "m": 1, "n": 2, "b_name": "b_ub"},
    "dpverify.toolkit.shapes.vector_length": {"v": [1, 2], "name": "b_ub"},
    "dpverify.budget.draws_in_memory": {"bytes_per_draw": 8},
    "dpverify.claims.store.installed_room": {"name": "zzroom", "namespaces": ["zzroom"]},
    "dpverify.claims.sources.module_of_file": {"path": Lazy(lambda: Path(__import__("dpverify").__file__).parent
                                                       / "rr" / "claims" / "binary.py")},
    "dpverify.continual.matrix_ops.as_matrix": {"x": [[1.0, 0.0], [0.0, 1.0]], "name": "x"},
    "dpverify.continual.matrix_ops.dense": {"x": np.eye(2), "name": "x"},
    "dpverify.continual.trees.guard": {"A": Lazy(lambda: __import__("scipy.sparse", fromlist=["x"]).eye(2, format="csr"))},
    "dpverify.continual.trees.tree_levels": {"a": np.array([1.0, 2.0, 3.0, 4.0])},
    # NB_C: the optional adapters' cheapest real calls (None, not fuzzed, when the package is not installed)
    "dpverify.mechanisms.adapters.diffprivlib": Lazy(lambda: _optional("diffprivlib", {
        "mechanism": "Laplace", "epsilon": 1.0, "sensitivity": 1.0})),
    "dpverify.mechanisms.adapters.opendp": Lazy(lambda: _optional("opendp.prelude", {"measurement": "laplace", "scale": 1.0})),
    "dpverify.mechanisms.adapters.opendp_batch.compose": Lazy(lambda: _opendp_batch("compose")),
    "dpverify.mechanisms.adapters.opendp_batch.releases": Lazy(lambda: _opendp_batch("releases")),
    "dpverify.mechanisms.adapters.common.coerce_all": {"params": {"scale": "2", "T": "float", "prob": 0.75}},
    "dpverify.mechanisms.adapters.common.missing_package": {"package": "opendp", "extra": "opendp",
                                                            "exc": Lazy(lambda: ModuleNotFoundError("No module named 'opendp'"))},
    "dpverify.mechanisms.catalogue.Catalogue": {"fams": Lazy(lambda: {"primitives.laplace_mechanism": __import__(
        "dpverify.mechanisms.catalogue", fromlist=["x"]).families()["primitives.laplace_mechanism"]})},
    "dpverify.mechanisms.convert.check_signature": {"function": _gauss_mechanism},
    "dpverify.mechanisms.families.Call": {"fn": _gauss_mechanism, "kw": ()},
    "dpverify.mechanisms.families.Family": Lazy(_family),
    "dpverify.mechanisms.families.finite_sampler": {"law": Lazy(lambda: __import__(
        "dpverify.mechanisms.families", fromlist=["x"]).MatrixLaw(((0.75, 0.25), (0.25, 0.75))))},
    "dpverify.mechanisms.privacy.DeltaCurve": {"curve": _exp_minus, "epsilon": 1.0, "point_delta": 0.1},
    "dpverify.mechanisms.sampling.checked_sample": {"mech": _gauss_mechanism, "data": 0.0,
                                                    "rng": Lazy(lambda: np.random.default_rng(0)), "n": 3},
    "dpverify.mechanisms.domain.number_text": {"x": 1.5},
    "dpverify.mechanisms.families.Param": {"kind": "float", "low": 0.0, "high": 1.0},
    "dpverify.mechanisms.privacy.claim_of": {"epsilon": 1.0},
    "dpverify.mechanisms.sampling.call_mechanism": {"mechanism": _gauss_mechanism, "data": 0.0,
                                                    "rng": Lazy(lambda: np.random.default_rng(0)), "n": 3},
    "dpverify.pca.budget.corrected_noise_budget": {"k": 1, "p": 3, "n": 12, "epsilon": 1.0},
    "dpverify.pca.evaluate.at_majority_rate": {"row": Lazy(_eval_row)},  # NB_D: reads an EvalRow (a record)
    "dpverify.pca.evaluate.svm_accuracy": Lazy(_svm_call),
    "dpverify.pca.grid.method_table": {"rows": Lazy(lambda: [_eval_row(), _eval_row("ppca")]), "method": "ppca-dp"},
    "dpverify.pca.ppca.sample_from_scores": Lazy(_scores_call),
    "dpverify.pca.evaluate.evaluate": {"dataset": "magic", "methods": ("ppca",), "ks": (2,), "runs": 1, "svm": False,
                                       "max_rows": 200, "rng": 0},
    "dpverify.pca.noise.check_bounds": {"bounds": _B, "p": 3},
    "dpverify.pca.noise.check_release_size": {"reps": 2, "n": 12, "p": 3},
    "dpverify.pca.noise.public_normalise": {"X": _X, "lo": np.zeros(3), "hi": np.ones(3)},  # missing baseline (G8)
    "dpverify.pca.noise.sorted_eigh": {"C": np.diag([1.0, 3.0, 2.0])},  # missing baseline (G8)
    "dpverify.pca.noise.symmetric_laplace": {"p": 3, "scale": 1.0, "reps": 2,  # missing baseline (G8)
                                             "g": Lazy(lambda: np.random.default_rng(0))},
    # seed is a seed file's id text such as "000" (the by-name default seed=0 is a number): missing baseline (G8)
    "dpverify.continual.claims.errata.printed": {"seed": "000", "excerpt": "Wij=1,i<j"},
    "dpverify.pca.thm3.column_spread": {"mechanism": Lazy(lambda: __import__("dpverify.pca", fromlist=["x"]).PPCADP(1, 1.0)),
                                        "col": 0},
    "dpverify.pca.thm3.output_coordinate": {"mechanism": Lazy(lambda: __import__("dpverify.pca", fromlist=["x"]).PPCADP(1, 1.0))},
    "dpverify.report.document.check_entry": {"c": {"id": "rr.x", "verdict": "holds"}},
    "dpverify.report.document.check_document": {"doc": DOC},
    "dpverify.report.markdown.normpath": {"p": "rr/../rr/a.md"},
    "dpverify.report.papers.papers_from_spec": {"path": Lazy(_spec_file)},  # NB_D: a papers' spec file
    "dpverify.report.entries.claim_html": {"c": Lazy(lambda: DOC.value["claims"][0]), "anchor": "a", "raw_evidence": None,
                                           "figure": None, "figure_number": 0, "proof_ids": {}},
    "dpverify.report.figures.figure_caption": {"fig": Lazy(lambda: __import__("matplotlib.figure", fromlist=["x"]).Figure())},
    "dpverify.report.figures.figure_to_png": {"fig": Lazy(lambda: __import__("matplotlib.figure", fromlist=["x"]).Figure(
        figsize=(1, 1)))},
    "dpverify.selftest.audits.audited": {"mech": Lazy(lambda: __import__("dpverify.audit.controls", fromlist=["x"])
                                                      .LaplaceMechanism(1.0)), "d": 0.0, "dp": 1.0, "epsilon": 1.0,
                                         "samples": 2000, "seed": 0},
    "dpverify.survey.derivations.random_channel_pair": {"rnd": 0, "k": 3, "epsilon": 0.5},
    "dpverify.survey.derivations.random_neighbour_scores": {"rnd": 0, "k": 4, "delta_q": 1.5},
    "dpverify.rooms.room": {"name": "rr"},
    "dpverify.rr.symbolic.optimality_interval": {
        "sigma": Lazy(lambda: __import__("dpverify.rr.symbolic", fromlist=["x"]).reduced_costs((1, 2, 3, 4, 7, 8), False)[0]),
        "with_delta": False},
    "dpverify.rr.symbolic.sign_everywhere": {"expr": Lazy(lambda: __import__("dpverify.rr.symbolic", fromlist=["x"]).E - 1),
                                             "with_delta": False},
    "dpverify.toolkit.symbolic.expression": {"x": 0.5, "name": "x"},
    "dpverify.atomic.atomic_write_text": {"path": "fuzz.txt", "text": "x"},
    "dpverify.atomic.atomic_write_bytes": {"path": "fuzz.bin", "data": b"x"},
    "dpverify.atomic.check_output_path": {"path": "fuzz.txt"},
    # W1b (wave 2): the certified DP-SGD bracket, the exact verifier, tree weights
    **{f"dpverify.conform.{f}": dict(_DPSGD) for f in ("bracket.epsilon_bracket", "bracket.bracket_details",
                                                       "bracket.check_dpsgd", "accountants.rdp_epsilon")},
    "dpverify.conform.accountants.accountants": {"config": dict(_DPSGD), "installed": False},
    "dpverify.conform.accountants.classify": {"eps": 1.05, "low": 1.0, "high": 1.1},
    "dpverify.conform.pld.step_law": {"sigma": 2.0, "q": 0.5, "h": 0.05, "order": "remove", "tail": 1e-10},
    "dpverify.conform.pld.mean_bounds": {"law": Lazy(_step_law), "points": 1024},
    "dpverify.conform.pld.compose": {"law": Lazy(_step_law), "steps": 4, "tail": 1e-10, "upper": True},
    "dpverify.conform.pld.delta_curve": {"c": Lazy(_composed), "eps": 1.0},
    "dpverify.conform.pld.epsilon_of": {"c": Lazy(_composed), "target": 1e-6},
    "dpverify.continual.weights.reweighting_parts": {"R": Lazy(_eye2), "A": Lazy(lambda: -_eye2())},
    "dpverify.continual.weights.round_feasible": {"d": np.array([1.0, 1.0]), "absA": Lazy(_eye2)},
    "dpverify.continual.tree_weights.elders_parents": {"offsets": [(0, 4), (4, 2)], "k": 3},
    "dpverify.continual.tree_weights.tree_optimal_weights": Lazy(lambda: dict(zip(("R", "A", "parent"), _elders_tree()))),
    "dpverify.continual.tree_minimax.tree_minimax_weights": Lazy(lambda: dict(zip(("R", "A", "parent"), _elders_tree()))),
    "dpverify.conform.pld.Composed": None,  # a record the composition returns (its alias_log is -inf by default)
    "dpverify.continual.tree_weights.certify_weights": {"R": Lazy(_eye2), "A": Lazy(_eye2), "d": [1.0, 1.0],
                                                        "mu": [2.0, 2.0]},
    "dpverify.exact.prove.prove": {"P": Lazy(_exact_law), "epsilon": _EPS},
    "dpverify.toolkit.prove.prove_privacy": {"P": Lazy(_exact_law), "epsilon": _EPS},
    "dpverify.exact.delta.delta_curve": {"P": Lazy(_exact_law), "pair": (0, 1), "epsilon": _EPS},
    "dpverify.exact.signs.fail_set": {"expr": Lazy(lambda: 3 - __import__("sympy").exp(_EPS)), "epsilon": _EPS},
    "dpverify.exact.signs.exp_scale": {"exprs": Lazy(lambda: [__import__("sympy").exp(_EPS / 2)]), "eps": _EPS},
    "dpverify.exact.signs.to_polys": {"expr": Lazy(lambda: 3 - __import__("sympy").exp(_EPS)), "eps": _EPS, "L": 1},
    "dpverify.exact.signs.XDomain": {"lo": Lazy(lambda: __import__("sympy").Integer(1)), "hi": Lazy(
        lambda: __import__("sympy").oo), "lo_open": True, "hi_open": True, "L": 1},
    "dpverify.exact.signs.positive_cells": {"Q": Lazy(_x_poly), "dom": Lazy(_x_domain)},
    "dpverify.exact.signs.sturm_count": {"Q": Lazy(_x_poly), "dom": Lazy(_x_domain)},
    "dpverify.exact.result.ProofResult": {"verdict": "proved", "reason": "every pair holds"},  # a record
    "dpverify.exact.result.render_set": {"s": Lazy(lambda: __import__("sympy").Interval.Lopen(0, 1))},
    "dpverify.exact.programs.geometric.Factor": {"kind": "ge", "a": 1, "s": 0},
    "dpverify.exact.programs.geometric.point": {"a": 1, "k": 2},
    "dpverify.exact.programs.geometric.tail_ge": {"a": 1, "k": 2},
    "dpverify.exact.programs.geometric.path_sum": {"factors": Lazy(lambda: [__import__(
        "dpverify.exact.programs.geometric", fromlist=["x"]).Factor("eq", 1, 0)])},
    "dpverify.exact.programs.geometric.sum_terms": {"terms": Lazy(lambda: {1: __import__(
        "dpverify.exact.programs.geometric", fromlist=["x"]).FIELD.one}), "lo": 0, "hi": 3},
    "dpverify.exact.programs.law.neighbour_pairs": {"inputs": [(0, 0), (1, 1), (1, 0)], "relation": "one_differ"},
    "dpverify.exact.programs.law.program_law": {"program": Lazy(lambda: __import__(
        "dpverify.exact.programs.checkdp", fromlist=["x"]).noisymax), "inputs": [(0, 0), (1, 0)]},
    "dpverify.exact.programs.context.ExactContext": {"prefix": ()},
    "dpverify.exact.programs.context.SampleContext": {"rng": Lazy(lambda: np.random.default_rng(0)), "epsilon": 1.0},
    "dpverify.exact.programs.context.Threshold": {"T": 2},
    "dpverify.exact.closed.KRRLaw": {"k": 3},
    "dpverify.exact.closed.ExponentialLaw": {"pairs": (((0.0, 1.0), (1.0, 1.0)),), "sensitivity": 1.0, "factor": 2.0},
    "dpverify.exact.catalogue.prove_catalogue": {"names": ["primitives.randomized_response"]},
    "dpverify.exact.catalogue.FamilyProof": None,  # a record prove_catalogue returns
    "dpverify.exact.catalogue.CatalogueProofs": None,  # a record prove_catalogue returns
    "dpverify.exact.dipc.decide": {"name": "rr"},
    "dpverify.exact.lumped.GeometricLaw": {"pairs": ((0, 1),), "scale": 1},
    "dpverify.exact.argmax.ArgmaxExpLaw": {"pairs": (((0, 0), (1, 0)),), "scale": 2},
    "dpverify.exact.mechanism.prove_mechanism": {"mechanism": Lazy(lambda: __import__(
        "dpverify.mechanisms", fromlist=["x"]).catalogue()["audit.mechanisms.KRR"]), "epsilon": _EPS},
    "dpverify.mechanisms.protocol.SymbolicLaw": {"epsilon": _EPS, "matrix": Lazy(_exact_law), "inputs": (0, 1),
                                                  "pairs": ((0, 1), (1, 0))},
    "dpverify.rr.mechanisms.OptimumLaw": {"pi": (0.5, 0.5), "delta": 0.0},
    "dpverify.exact.programs.tails.prove_program": {"law": Lazy(lambda: __import__(
        "dpverify.exact.programs.law", fromlist=["x"]).program_law(__import__(
            "dpverify.exact.programs.checkdp", fromlist=["x"]).noisymax, [(0, 0), (1, 0)])), "pairs": [(0, 1), (1, 0)]},
    "dpverify.exact.programs.tails.fails_set": {"cond": Lazy(lambda: __import__(
        "dpverify.exact.programs.geometric", fromlist=["x"]).T), "unit": 1},
    "dpverify.exact.programs.confirm.plan_confirmation": {"law": Lazy(lambda: __import__(
        "dpverify.exact.programs.law", fromlist=["x"]).program_law(__import__(
            "dpverify.exact.programs.checkdp", fromlist=["x"]).badpartialsum, [(0,), (1,)])), "pairs": [(0, 1), (1, 0)]},
    "dpverify.exact.programs.confirm.confirm": {"law": Lazy(lambda: _bad_sum()[0]), "plan": Lazy(lambda: _bad_sum()[1]),
                                               "samples": 2000},
    "dpverify.toolkit.shapes.checked_coo": {"A": Lazy(lambda: __import__("scipy.sparse", fromlist=["x"]).coo_matrix(
        np.eye(2))), "name": "A"},
}


@functools.lru_cache(maxsize=1)
def _bad_sum():
    """badpartialsum's law on (0,), (1,) and the auditor's plan for it (confirm's baseline)."""
    from dpverify.exact.programs import checkdp, program_law
    from dpverify.exact.programs.confirm import plan_confirmation

    law = program_law(checkdp.badpartialsum, [(0,), (1,)])
    return law, plan_confirmation(law, [(0, 1), (1, 0)])


def _product_law(law0, law1):
    from dpverify.primitives.composition import product_law

    return product_law(law0, law1)


def _from_opendp(measurement, *, d_in=None, epsilon=None, **params):
    from dpverify.mechanisms.adapters.opendp_adapter import from_opendp

    return from_opendp(measurement, d_in=d_in, epsilon=epsilon, **params)


def _from_diffprivlib(mechanism, **params):
    from dpverify.mechanisms.adapters.diffprivlib_adapter import from_diffprivlib

    return from_diffprivlib(mechanism, **params)


def _as_mechanism(obj, **params):
    from dpverify.mechanisms.convert import as_mechanism

    return as_mechanism(obj, **params)


def _audited(obj, **params):
    from dpverify.mechanisms.convert import audited

    return audited(obj, **params)


def _sampler(obj):
    from dpverify.mechanisms.convert import sampler

    return sampler(obj)


def _is_mechanism(obj):
    """``isinstance(obj, Mechanism)``: how the Protocol is used (it has no constructor)."""
    from dpverify.mechanisms.protocol import Mechanism

    return isinstance(obj, Mechanism)


#: Callables fuzzed through a keyword wrapper (positional-only or *args parameters): qual -> (wrapper, kwargs).
WRAPPED = {"dpverify.primitives.composition.product_law": (_product_law, {"law0": [0.5, 0.5], "law1": [0.25, 0.75]})}
WRAPPED.update({  # NB_C: positional-only obj/measurement/mechanism; the optional adapters only when installed
    "dpverify.mechanisms.convert.as_mechanism": (_as_mechanism, {"obj": _gauss_mechanism, "epsilon": 1.0}),
    "dpverify.mechanisms.convert.audited": (_audited, {"obj": _gauss_mechanism, "epsilon": 1.0, "delta": 0.0}),
    "dpverify.mechanisms.convert.sampler": (_sampler, {"obj": Lazy(_finite_mechanism)}),
    "dpverify.mechanisms.protocol.Mechanism": (_is_mechanism, {"obj": Lazy(_finite_mechanism)}),
    **({"dpverify.mechanisms.adapters.opendp_adapter.from_opendp": (_from_opendp, {
        "measurement": Lazy(lambda: _optional("opendp.prelude", "laplace")), "scale": 1.0, "d_in": 1})}
       if __import__("importlib.util", fromlist=["x"]).find_spec("opendp") else {}),
    **({"dpverify.mechanisms.adapters.diffprivlib_adapter.from_diffprivlib": (_from_diffprivlib, {
        "mechanism": "Laplace", "epsilon": 1.0, "sensitivity": 1.0})}
       if __import__("importlib.util", fromlist=["x"]).find_spec("diffprivlib") else {}),
})

#: Other words an error may name for a parameter (a wrapper's keyword stands for a positional argument).
ALIASES = {"dpverify.primitives.composition.product_law.law0": ["laws[0]"],
           # NB_C: the positional-only obj is the mechanism its callers (audit, epsilon_lower_bound) take
           **{f"dpverify.mechanisms.convert.{f}.obj": ["mechanism"] for f in ("as_mechanism", "audited", "sampler")},
           "dpverify.primitives.composition.product_law.law1": ["laws[1]"]}

#: Parameters whose value is any object by design (renderers of evidence, generic converters).
ANY_VALUE = {"dpverify.report.compare.flatten_evidence.value", "dpverify.report.values.value_html.value",
             "dpverify.report.values.evidence_table.evidence", "dpverify.claims.drift.flatten_evidence.value",
             "dpverify.claims.evidence.to_jsonable.value", "dpverify.claims.checks.shown.value", "dpverify.audit.chunks.readonly.x",
             "dpverify.mechanisms.adapters.common.coerce.value", "dpverify.mechanisms.sampling.describe_input.data",
             "dpverify.mechanisms.domain.check_finite_input.x"}  # any input: only numeric ones are checked
ANY_VALUE |= {"dpverify.mechanisms.protocol.Mechanism.obj"}  # isinstance(obj, Mechanism) tests any object (NB_C)

# NB_B: check_elements counts any object's logical size (its values are not its business; a scalar has size 1)
ANY_VALUE |= {"dpverify.budget.check_elements.arr"}

#: Records the library returns (results, certificates, rows, plans, jobs): users read them, they do not
#: build them, so their constructors are not fuzzed (their methods are, see METHODS).
RECORDS = {
    "dpverify.audit.curves.CurveAudit", "dpverify.audit.exact.ldp.LDPResult", "dpverify.audit.renyi.RDPAudit",
    "dpverify.audit.renyi.ZCDPAudit", "dpverify.audit.report.AuditReport", "dpverify.audit.local_search.LocalSearch", "dpverify.audit.report.Candidate",
    "dpverify.audit.report.Stage", "dpverify.audit.result.AuditResult", "dpverify.audit.screening.Screened",
    "dpverify.audit.selection.Selection", "dpverify.audit.plan.Plan", "dpverify.audit.chunks.ChunkJob",
    "dpverify.audit.chunks.CountBins", "dpverify.audit.chunks.CountEvent", "dpverify.audit.screening.ScreenJob",
    "dpverify.claims.model.Claim", "dpverify.claims.drift.Change", "dpverify.claims.drift.Comparison", "dpverify.claims.traceability.Row",
    "dpverify.continual.alg5.Alg5Result", "dpverify.continual.experiments.NaiveCrossover",
    "dpverify.continual.experiments.RatioSummary", "dpverify.continual.experiments.StaticComparison",
    "dpverify.continual.experiments.TableRow", "dpverify.continual.hdmm.PIdentityResult",
    "dpverify.continual.weights.WeightsResult", "dpverify.pca.evaluate.EvalRow", "dpverify.pca.ppca.PPCAFit",
    "dpverify.report.build.ReportFiles", "dpverify.report.figures.FigureImage", "dpverify.report.papers.Paper",
    "dpverify.rr.lp.Certificate", "dpverify.rr.lp.LPSolution", "dpverify.rr.nary.ExactOptimum",
    "dpverify.rr.simulate.Estimate", "dpverify.rr.simulate.SurveyResult", "dpverify.rr.symbolic.BinaryRegime",
    "dpverify.toolkit.lp.LPOptimum", "dpverify.toolkit.qp.QPOptimum", "dpverify.toolkit.symbolic.Equality",
}
# W1b: classify turns any accountant answer (NaN, inf, a string) into a 'defect' row (documented); progress
# stream=None is silent (documented in dpverify.progress.progress)
ANY_VALUE |= {"dpverify.conform.accountants.classify.eps"}
# W1b: records of the bracket, the PLD, the exact verifier and its program contexts (returned, never built)
RECORDS |= {"dpverify.conform.bracket.BracketDetails", "dpverify.conform.pld.StepLaw", "dpverify.conform.pld.Composed",
            "dpverify.exact.result.ProofResult", "dpverify.exact.result.Counterexample",
            "dpverify.exact.programs.law.ProgramLaw", "dpverify.exact.programs.context.OutVar",
            "dpverify.exact.programs.context.Sampled"}

#: Parameters where None is a documented valid value although their default is not None.
NONE_OK = {"dpverify.validation.check_size.size"}
NONE_OK |= {"dpverify.conform.bracket.bracket_details.stream"}  # W1b: stream=None is silent (documented)
NONE_OK |= {"dpverify.exact.programs.geometric.sum_terms.lo",  # W1b: None is -infinity, documented
            "dpverify.exact.programs.geometric.sum_terms.hi"}  # None is +infinity, documented
NONE_OK |= {"dpverify.audit.screening.apply_statistic.stat", "dpverify.audit.screening.score_statistic.stat",
            "dpverify.audit.selection.count_selection.stat"}  # stat=None: the outputs themselves (documented)
# statistic_candidates only reads the mechanism's stated law and ideal_arithmetic: any object (None too) is valid
# there (tests/audit/test_leaks.py passes None and a bare object)
ANY_VALUE |= {"dpverify.audit.screening.statistic_candidates.mechanism"}
NONE_OK |= {"dpverify.audit.chunks.Progress.callback",  # no callback: progress is only counted (documented)
            "dpverify.audit.chunks.run_tasks.executor"}  # no executor: the tasks run locally (documented)
NONE_OK |= {"dpverify.mechanisms.sampling.observe_calls.callback",  # None stops observing (documented)
            "dpverify.continual.elders.elders_scale_check.factors"}  # None: uniform weights, scale L/ε (documented)

#: Callables whose results hold NaN by design (a marker, documented): their results are not judged finite.
NAN_MARKERS = {"dpverify.continual.fda_optimal.fda_level_shares",  # NaN marks the levels without a root
               "dpverify.audit.suite.Case"}  # NaN bounds mark a case that is not DP-Sniper's (documented)
NAN_MARKERS |= {"dpverify.mechanisms.privacy.DeltaCurve"}  # epsilon = inf marks the whole curve claimed (documented)
NAN_MARKERS |= {"dpverify.audit.classifiers.FeatureMap", "dpverify.audit.projections.SignCount",
                "dpverify.audit.projections.StateCounts"}  # NaN may be a flag value (VALID below)
NAN_MARKERS |= {"dpverify.audit.selection.select_event",  # score −inf: no event had enough draws (the whole
                "dpverify.audit.screening.score_statistic"}  # output space, ε_lb = 0; Selection documents it)
NAN_MARKERS |= {"dpverify.audit.intervals.poisson_log_ratio_lower"}  # −inf when K_P = 0: no bound (documented, relied on)

#: Hostile labels that are documented valid values of a parameter (qual.param -> labels).
VALID = {"dpverify.mechanisms.protocol.FunctionMechanism.relation": {"str"},  # free text: the scalar relation
         "dpverify.audit.suite.Case.dpsniper": {"nan"},  # NaN: no published DP-Sniper bound (documented)
         "dpverify.audit.suite.Case.dpsniper_1e7": {"nan"},  # NaN: no published DP-Sniper bound (the default)
         "dpverify.audit.search.searched_relation.pairs": {"str"},  # free text: the default scalar relation (documented)
         "dpverify.mechanisms.relations.as_relation.relation": {"str"},  # free text: the default scalar relation (documented)
         "dpverify.audit.search.candidate_pairs.pairs": {"str"},  # free text: the default scalar relation (documented)
         "dpverify.report.values.number_html.v": {"nan", "inf", "-inf"},  # evidence may hold them: shown as is
         "dpverify.rr.symbolic.sign_everywhere.expr": {"int-for-object"},  # a number is a constant expression
         "dpverify.declarations.Paper.seed_file": {"empty-path"},  # '' is the default: no seed file named
         "dpverify.mechanisms.privacy.DeltaCurve.epsilon": {"inf"}}  # inf is the default: the whole curve (NB_C)
# ±inf and NaN may be flag values (FeatureMap.fit reads them off the outputs; projections._check_flags documents it)
VALID.update({f"dpverify.audit.{q}.flags": {"nan-in-array"} for q in
              ("classifiers.FeatureMap", "projections.SignCount", "projections.StateCounts")})
# NaN output entries are read as flags by the classifiers (tests/audit/test_linear_score.py relies on it)
VALID.update({f"dpverify.audit.{q}": {"nan-in-array"} for q in
              ("classifiers.fit_score.out_d", "classifiers.fit_score.out_dp", "classifiers.sparse_logistic.out_d",
               "classifiers.sparse_logistic.out_dp", "screening.fitted_statistics.out_d",
               "screening.fitted_statistics.out_dp", "projections.fixed_statistics.pilot")})
VALID["dpverify.audit.plan.make_plan.pairs"] = {"str"}  # free text: the default scalar relation (as searched_relation)

#: Parameters not fuzzed: the name a validator reports (any text is valid there).
NOT_FUZZED = {"name", "what"}

_STREAMS = ("dpverify.continual.naive.NaiveStream", "dpverify.continual.binary.BinaryMechanismStream",
            "dpverify.continual.elders_stream.EldersStream", "dpverify.continual.honaker.HonakerStream",
            "dpverify.continual.kary.KaryStream", "dpverify.continual.fenwick.FenwickStream",
            "dpverify.continual.forest.ForestStream")

def _noises(stream: str) -> tuple:
    """The noises a stream takes (Honaker's estimator is real-valued: Laplace noise only)."""
    return ("laplace",) if stream.endswith("HonakerStream") else ("discrete", "laplace")


#: Methods fuzzed on a class's baseline instance: class -> [(constructor overrides, method, kwargs)].
METHODS = {
    "dpverify.pca.corrected.CorrectedPPCADP": [({}, "publish_many", {"X": _X, "reps": 2, "rng": 0}),
                                               ({}, "fit_publish", {"X": _X, "rng": 0})],
    "dpverify.pca.pca_ppdp.PCABasedPPDP": [({}, "publish_many", {"X": _X, "reps": 2, "rng": 0}),
                                           ({}, "fit_publish", {"X": _X, "rng": 0})],
    "dpverify.pca.ppca_dp.PPCADP": [({}, "publish_many", {"X": _X, "reps": 2, "rng": 0}),
                                    ({}, "fit_publish", {"X": _X, "rng": 0})],
    "dpverify.pca.ppca.PPCA": [({}, "publish_many", {"X": _X, "reps": 2, "rng": 0})],
    "dpverify.primitives.composition.Accountant": [({}, "spend", {"epsilon": 0.5})],
    "dpverify.rr.lp.Certificate": [({}, "ok", {"tol": 1e-9})],
    "dpverify.audit.events.PatternCode": [({}, "__call__", {"outputs": np.array([[0, 1], [1, 0]])})],
    "dpverify.claims.supervisor.TaskRunner": [({}, "result", {"i": 0})],  # W1: forks one worker (ends with the call)
    **{s: [({"noise": noise}, "push", {"a_t": 1}) for noise in _noises(s)]
       + [({"noise": noise}, "push_many", {"counts": [1, 0, 2]}) for noise in _noises(s)] for s in _STREAMS},
}

#: Objects whose methods are fuzzed without a constructor baseline: qual -> (instance, [(method, kwargs)]).
INSTANCES = {"dpverify.audit.events.Event": (Lazy(_event), [("contains", {"t": np.array([0, 1, 2])})])}


def _good_of(par, qual):
    """A valid value of a parameter with a default: the default, or for None one of its annotation."""
    if par.default is not None:
        return par.default
    ann = par.annotation if isinstance(par.annotation, str) else getattr(par.annotation, "__name__", "")
    if par.name in DEFAULTS and DEFAULTS[par.name] is not None:
        return resolve(DEFAULTS[par.name])
    words = ann.replace("|", " ").split()
    for w in words:
        if w in BY_TYPE:
            return resolve(BY_TYPE[w])
    return None


def baseline(qual: str, obj) -> dict | None:
    """Keyword arguments of a valid call, or None when a parameter has no known valid value."""
    if qual in WRAPPED:
        return {k: resolve(x) for k, x in WRAPPED[qual][1].items()}
    if qual in OVERRIDES:
        v = resolve(OVERRIDES[qual])
        return None if not isinstance(v, dict) else {k: resolve(x) for k, x in v.items()}
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
        if par.kind is par.POSITIONAL_ONLY:
            return None
        good = resolve(DEFAULTS.get(name))
        if good is None:
            good = _good_of(par.replace(default=None), qual)
        if good is None:
            return None
        kw[name] = good
    return kw


def fuzz_params(qual: str, obj, base: dict) -> list:
    """(param, good value, annotation, default is None) for every parameter fuzzed: the baseline's and each default's."""
    try:
        params = inspect.signature(obj).parameters
    except (TypeError, ValueError):
        params = {}
    out = []
    for name, good in base.items():
        par = params.get(name)
        ann = par.annotation if par is not None else inspect.Parameter.empty
        none_default = par is not None and par.default is None
        out.append((name, good, ann, none_default))
    for name, par in params.items():
        if name in base or name.startswith("_") or name in NOT_FUZZED or par.default is par.empty:
            continue
        if par.kind in (par.VAR_POSITIONAL, par.VAR_KEYWORD, par.POSITIONAL_ONLY):
            continue
        good = _good_of(par, qual)
        if good is None or callable(good) and not isinstance(good, type) and not hasattr(good, "__dataclass_fields__"):
            continue  # no valid value known, or a callback (progress=...): fuzzed where it is required
        out.append((name, good, par.annotation, par.default is None))
    return [(n, g, a, nd) for n, g, a, nd in out if n not in NOT_FUZZED]


def callable_of(qual: str, obj):
    """The function the fuzz calls: ``obj``, or its keyword wrapper."""
    return WRAPPED[qual][0] if qual in WRAPPED else obj



# ----------------------------------------------------------------------------- H4 (issue 28): the conform sweep


def _conform_rr_case():
    from dpverify.conform.laws import randomized_response
    from dpverify.conform.rows import Case
    from dpverify.mechanisms.privacy import PureDP

    def coin(x, n, rng):
        return np.where(rng.random(n) < 0.75, x, 1 - x)

    return Case("rr", {"prob": 0.75}, PureDP(1.0986), "MaxDivergence", [(0, 1)], coin, 2,
                {"rr": lambda x: randomized_response(x, k=2, prob=0.75)})


def _opendp_laplace():
    if _optional("opendp.prelude", {}) is None:
        return None
    import opendp.prelude as dp

    return dp.m.make_laplace(dp.atom_domain(T=float, nan=False), dp.absolute_distance(T=float), scale=1.0)


def _stated_mechanism(function, epsilon=1.0, *, measure="", d_in=None, library=""):
    from dpverify.mechanisms.adapters.stated import StatedMechanism

    return StatedMechanism(function, epsilon, measure=measure, d_in=d_in, library=library)


def _audit_args():
    from types import SimpleNamespace

    return SimpleNamespace(jobs=1, full=False, seed=0, samples=1000, confidence=0.9, json=True, mechanism="m:f",
                           stated=("rdp", 2.0, 1.0))


OVERRIDES.update({
    "dpverify.conform.finite.box": {"counts": np.array([50, 50]), "alpha": 0.01},
    "dpverify.conform.finite.exact": {"kind": "pure", "p": [0.75, 0.25], "q": [0.25, 0.75]},
    "dpverify.conform.finite.lower": {"kind": "pure", "counts_p": np.array([75, 25]), "counts_q": np.array([25, 75]),
                                      "alpha": 0.01},
    "dpverify.conform.finite.fits": {"counts": np.array([48, 52]), "probs": [0.5, 0.5]},
    "dpverify.conform.laws.binned": {"noise": "laplace", "mean": 0.0, "scale": 1.0, "edges": [0.0, 1.0]},
    "dpverify.conform.laws.integer": {"noise": "laplace", "mean": 0, "scale": 1.0, "lo": -2, "hi": 2},
    "dpverify.conform.laws.randomized_response": {"truth": 0, "k": 2, "prob": 0.75},
    "dpverify.conform.laws.orderings": {"m": 3, "k": 2},
    "dpverify.conform.laws.top_k": {"noise": "gumbel", "scores": [1.0, 0.0, 0.0], "scale": 1.0, "k": 1},
    "dpverify.conform.opendp_sweep.noisy_max_case": Lazy(lambda: _optional("opendp.prelude", {
        "sampled": "max_divergence", "stated": "max_divergence", "scale": 1.0})),
    "dpverify.conform.rows.check": {"case": Lazy(_conform_rr_case), "samples": 2000, "alpha": 0.01, "rng": 0},
    "dpverify.conform.rows.claim_text": {"claim": Lazy(lambda: __import__("dpverify.mechanisms.privacy",
                                                                          fromlist=["x"]).PureDP(1.0))},
    "dpverify.conform.rows.error_row": {"constructor": "make_x", "params": {}, "exc": ValueError("no map")},
    "dpverify.conform.sweep.rows_json": {"result": Lazy(lambda: __import__("dpverify.conform.sweep", fromlist=["x"])
                                                        .SweepResult((), (), "opendp 0.16.0"))},
    "dpverify.conform.sweep.sweep": Lazy(lambda: _optional("diffprivlib", {
        "library": "diffprivlib", "samples": 2000, "only": ["Binary"], "rng": 0, "stream": None})),
    "dpverify.mechanisms.adapters.stated.opendp_claim": Lazy(lambda: None if _opendp_laplace() is None else {
        "measurement": _opendp_laplace(), "d_in": 1.0}),
    "dpverify.conform.findings.conform_outcome": Lazy(lambda: _optional("opendp.prelude", {
        "sampled": "max_divergence", "stated": "max_divergence", "samples": 1000})),
    "dpverify.audit.cli_inputs.audit_stated": {"args": Lazy(_audit_args), "mech": _gauss_mechanism,
                                               "pairs": [(0.0, 1.0)], "stat": "auto", "notes": []},
    "dpverify.audit.cli_inputs.parse_params": {"items": ["scale=2", "T=int"]},
})
WRAPPED["dpverify.mechanisms.adapters.stated.StatedMechanism"] = (_stated_mechanism, {
    "function": _gauss_mechanism, "epsilon": 1.0, "measure": "MaxDivergence", "library": "opendp 0.16.0"})
# the sweep's records: built by the sweep's drivers and returned, never built from user input
RECORDS |= {"dpverify.conform.rows.Case", "dpverify.conform.rows.FailedCase", "dpverify.conform.rows.Row",
            "dpverify.conform.sweep.SweepResult"}
NONE_OK |= {"dpverify.conform.sweep.sweep.stream",  # stream=None is silent (documented)
            "dpverify.mechanisms.adapters.stated.opendp_claim.epsilon"}  # None: the whole profile (documented)
NONE_OK |= {"dpverify.audit.cli_inputs.parse_params.items"}  # None: no --param given (argparse's default)
