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


def _certificate():
    from dpverify.rr.lp import Certificate

    return Certificate(1e-12, 1e-12, 1e-12, 1e-12)


def _event():
    from dpverify.audit.events import Binner, make_event

    return make_event("bins", np.array([True, False, False, False]), Binner(np.arange(3), categorical=True))


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


CLAIM, RESULT, DOC = Lazy(_claim), Lazy(_result), Lazy(_doc)
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
    "dpverify.audit.statistical.epsilon_lower_bound": {"mechanism": _gauss_mechanism, "d": 0.0, "d_prime": 1.0,
                                                       "samples": 2000, "rng": 0},
    "dpverify.audit.curves.audit_delta_curve": {
        "mechanism": _gauss_mechanism, "pair": (0.0, 1.0), "samples": 2000, "epsilons": [0.5, 1.0], "rng": 0,
        "delta_curve": Lazy(lambda: __import__("dpverify.audit.curves", fromlist=["x"]).gaussian_delta_curve(1.0))},
    "dpverify.audit.curves.gaussian_delta_curve": {"sigma": 1.0},
    "dpverify.audit.suite.base.vector_of": {"data": [1.0, 2.0]},
    "dpverify.audit.suite.rappor.murmur3_32": {"data": b"abc", "seed": 0},
    "dpverify.budget.check_budget": {"nbytes": 1024, "what": "nbytes"},
    "dpverify.budget.check_work": {"units": 10, "what": "units"},
    "dpverify.validation.check_confidence": {"c": 0.95, "name": "c"},
    "dpverify.validation.check_bool": {"value": True, "name": "value"},
    "dpverify.validation.check_size": {"size": 3, "name": "size"},
    "dpverify.validation.check_real": {"value": 1.0, "name": "value"},
    "dpverify.validation.check_positive_int": {"n": 3, "name": "n"},
    "dpverify.validation.check_nonneg_int": {"n": 3, "name": "n"},
    "dpverify.validation.check_probability": {"p": 0.5, "name": "p"},
    "dpverify.claims.baseline.baseline_key": {"claim_id": "rr.x"},
    "dpverify.claims.baseline.drift": {"baseline": {"rr.x": {"verdict": "holds"}}, "current": {"rr.x": {"verdict": "holds"}}},
    "dpverify.claims.baseline.entry_of": {"result_json": Lazy(lambda: __import__(
        "dpverify.claims.runner", fromlist=["x"]).result_to_json(RESULT.value))},
    "dpverify.claims.baseline.write_baseline": {"path": "baseline.json", "entries": {"rr.x": {"verdict": "holds"}}},
    "dpverify.claims.drift.compare_reports": {"old": DOC, "new": DOC},
    "dpverify.claims.model.check_timeout": {"seconds": 5.0},
    "dpverify.claims.model.Source": {"seed": "000"},
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
    "dpverify.audit.dask_backend.dask_executor": None,  # needs a running dask cluster
    "dpverify.audit.float_grid.reachable": {"x": [0.1, -7.3], "c": 0.5},
    "dpverify.audit.render.zcdp_json": None,  # needs an audit_zcdp result (covered through the CLI)
    "dpverify.audit.sequential.stage_plan": {"n": 10_000, "alpha": 0.05},
    "dpverify.claims.baseline.load_baseline": {"path": Lazy(lambda: _baseline_file())},
    "dpverify.claims.model.note_sampling": {"kind": "simulation"},
    "dpverify.claims.sources.load_room": {"r": Lazy(_room)},
    "dpverify.claims.sources.module_of_file": {"path": Lazy(lambda: Path(__import__("dpverify").__file__).parent
                                                       / "rr" / "claims" / "binary.py")},
    "dpverify.continual.matrix_ops.as_matrix": {"x": [[1.0, 0.0], [0.0, 1.0]], "name": "x"},
    "dpverify.continual.matrix_ops.dense": {"x": np.eye(2), "name": "x"},
    "dpverify.continual.trees.guard": {"A": Lazy(lambda: __import__("scipy.sparse", fromlist=["x"]).eye(2, format="csr"))},
    "dpverify.continual.trees.tree_levels": {"a": np.array([1.0, 2.0, 3.0, 4.0])},
    "dpverify.mechanisms.adapters.diffprivlib": None,  # optional package: covered by tests/test_mechanisms.py
    "dpverify.mechanisms.adapters.opendp": None,  # optional package
    "dpverify.mechanisms.domain.number_text": {"x": 1.5},
    "dpverify.mechanisms.families.Param": {"kind": "float", "low": 0.0, "high": 1.0},
    "dpverify.mechanisms.privacy.claim_of": {"epsilon": 1.0},
    "dpverify.mechanisms.protocol.Mechanism": None,  # a Protocol: not instantiated
    "dpverify.mechanisms.sampling.call_mechanism": {"mechanism": _gauss_mechanism, "data": 0.0,
                                                    "rng": Lazy(lambda: np.random.default_rng(0)), "n": 3},
    "dpverify.pca.budget.corrected_noise_budget": {"k": 1, "p": 3, "n": 12, "epsilon": 1.0},
    "dpverify.pca.evaluate.at_majority_rate": None,  # reads an EvalRow (a record)
    "dpverify.pca.evaluate.evaluate": {"dataset": "magic", "methods": ("ppca",), "ks": (2,), "runs": 1, "svm": False,
                                       "max_rows": 200, "rng": 0},
    "dpverify.pca.noise.check_bounds": {"bounds": _B, "p": 3},
    "dpverify.pca.noise.check_release_size": {"reps": 2, "n": 12, "p": 3},
    "dpverify.pca.thm3.column_spread": {"mechanism": Lazy(lambda: __import__("dpverify.pca", fromlist=["x"]).PPCADP(1, 1.0)),
                                        "col": 0},
    "dpverify.pca.thm3.output_coordinate": {"mechanism": Lazy(lambda: __import__("dpverify.pca", fromlist=["x"]).PPCADP(1, 1.0))},
    "dpverify.report.document.check_entry": {"c": {"id": "rr.x", "verdict": "holds"}},
    "dpverify.report.document.check_document": {"doc": DOC},
    "dpverify.report.markdown.normpath": {"p": "rr/../rr/a.md"},
    "dpverify.report.papers.papers_from_spec": None,  # reads the papers' spec file of a checkout
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
}


def _product_law(law0, law1):
    from dpverify.primitives.composition import product_law

    return product_law(law0, law1)


#: Callables fuzzed through a keyword wrapper (positional-only or *args parameters): qual -> (wrapper, kwargs).
WRAPPED = {"dpverify.primitives.composition.product_law": (_product_law, {"law0": [0.5, 0.5], "law1": [0.25, 0.75]})}

#: Other words an error may name for a parameter (a wrapper's keyword stands for a positional argument).
ALIASES = {"dpverify.primitives.composition.product_law.law0": ["laws[0]"],
           "dpverify.primitives.composition.product_law.law1": ["laws[1]"]}

#: Parameters whose value is any object by design (renderers of evidence, generic converters).
ANY_VALUE = {"dpverify.report.compare.flatten_evidence.value", "dpverify.report.values.value_html.value",
             "dpverify.report.values.evidence_table.evidence", "dpverify.claims.drift.flatten_evidence.value",
             "dpverify.claims.evidence.to_jsonable.value", "dpverify.audit.chunks.readonly.x",
             "dpverify.mechanisms.adapters.common.coerce.value", "dpverify.mechanisms.sampling.describe_input.data"}

#: Records the library returns (results, certificates, rows, plans, jobs): users read them, they do not
#: build them, so their constructors are not fuzzed (their methods are, see METHODS).
RECORDS = {
    "dpverify.audit.curves.CurveAudit", "dpverify.audit.exact.ldp.LDPResult", "dpverify.audit.renyi.RDPAudit",
    "dpverify.audit.renyi.ZCDPAudit", "dpverify.audit.report.AuditReport", "dpverify.audit.report.Candidate",
    "dpverify.audit.report.Stage", "dpverify.audit.result.AuditResult", "dpverify.audit.screening.Screened",
    "dpverify.audit.selection.Selection", "dpverify.audit.plan.Plan", "dpverify.audit.chunks.ChunkJob",
    "dpverify.audit.chunks.CountBins", "dpverify.audit.chunks.CountEvent", "dpverify.audit.screening.ScreenJob",
    "dpverify.claims.drift.Change", "dpverify.claims.drift.Comparison", "dpverify.claims.traceability.Row",
    "dpverify.continual.alg5.Alg5Result", "dpverify.continual.experiments.NaiveCrossover",
    "dpverify.continual.experiments.RatioSummary", "dpverify.continual.experiments.StaticComparison",
    "dpverify.continual.experiments.TableRow", "dpverify.continual.hdmm.PIdentityResult",
    "dpverify.continual.weights.WeightsResult", "dpverify.pca.evaluate.EvalRow", "dpverify.pca.ppca.PPCAFit",
    "dpverify.report.build.ReportFiles", "dpverify.report.figures.FigureImage", "dpverify.report.papers.Paper",
    "dpverify.rr.lp.Certificate", "dpverify.rr.lp.LPSolution", "dpverify.rr.nary.ExactOptimum",
    "dpverify.rr.simulate.Estimate", "dpverify.rr.simulate.SurveyResult", "dpverify.rr.symbolic.BinaryRegime",
    "dpverify.toolkit.lp.LPOptimum", "dpverify.toolkit.qp.QPOptimum", "dpverify.toolkit.symbolic.Equality",
}

#: Parameters where None is a documented valid value although their default is not None.
NONE_OK = {"dpverify.validation.check_size.size"}

#: Callables whose results hold NaN by design (a marker, documented): their results are not judged finite.
NAN_MARKERS = {"dpverify.continual.fda_optimal.fda_level_shares"}  # NaN marks the levels without a root

#: Hostile labels that are documented valid values of a parameter (qual.param -> labels).
VALID = {"dpverify.mechanisms.protocol.FunctionMechanism.relation": {"str"},  # free text: the scalar relation
         "dpverify.report.values.number_html.v": {"nan", "inf", "-inf"},  # evidence may hold them: shown as is
         "dpverify.rr.symbolic.sign_everywhere.expr": {"int-for-object"}}  # a number is a constant expression

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
        return dict(WRAPPED[qual][1])
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

