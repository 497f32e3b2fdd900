"""Regression tests of the claims engine's input checks (issue 26, whole-API fuzz).

Each class of hostile input the fuzz found accepted or crashing is now refused by name: a number
or None where text (an id, a prefix) is meant, junk where a claim, a result or a list of them is
meant, a malformed baseline or report document, a non-bool flag; numpy scalars stay accepted; an
empty ``--only`` / file option of the CLI is refused instead of read as "left out".
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpverify.claims import baseline, drift, model, registry, runner, seeds, sources, store, traceability

ID = "zzfuzzg2.one"


@pytest.fixture(scope="module")
def claim():
    """A cheap claim of this file's own (loading the rooms would cost seconds)."""
    @store.claim(ID, source=model.Source("none", "§0"), statement="1 + 1 = 2", method="exact computation")
    def _check(thorough=False):
        return model.Outcome(model.Verdict.HOLDS, {"sum": 1 + 1})

    yield store.lookup(ID)
    store.unregister(ID)


@pytest.fixture(scope="module")
def result(claim):
    return runner.run_claim(claim)


@pytest.mark.parametrize("bad", [math.nan, None, 0])
@pytest.mark.parametrize("call, name", [
    (lambda v: registry.get_claim(v), "claim_id"),
    (lambda v: store.lookup(v), "claim_id"),
    (lambda v: store.unregister(v), "claim_id"),
    (lambda v: model.namespace_of(v), "claim_id"),
    (lambda v: baseline.baseline_key(v), "claim_id"),
    (lambda v: traceability.rows_for_claim(v), "claim_id"),
    (lambda v: seeds.seed_path(v), "prefix"),
    (lambda v: list(drift.flatten_evidence({"a": 1}, v)), "prefix"),
    (lambda v: model.Source(v), "paper"),
    (lambda v: model.Outcome("holds", summary=v), "summary"),
])
def test_text_parameters_refuse_numbers_and_none(call, name, bad):
    with pytest.raises(TypeError, match=name):
        call(bad)


def test_a_number_is_no_prefix():
    with pytest.raises(TypeError, match="prefix"):
        registry.all_claims(0)  # was: every claim (0 is falsy)


@pytest.mark.parametrize("bad", [math.nan, None, True, "abc", 1, [math.nan], ["abc"]])
@pytest.mark.parametrize("call, name", [
    (lambda v: runner.run_claims(v), "claims"),
    (lambda v: store.select(v, "rr."), "claims"),
    (lambda v: store.claim_ids(v), "claims"),
    (lambda v: runner.errors_first(v), "results"),
])
def test_lists_of_claims_and_results_refuse_junk(call, name, bad):
    with pytest.raises(TypeError, match=name):
        call(bad)


@pytest.mark.parametrize("bad", [math.nan, None, True, "abc", 1])
def test_objects_refuse_junk(bad, claim, result):
    for call, name in [(lambda: runner.run_claim(bad), "c"), (lambda: runner.result_to_json(bad), "r"),
                       (lambda: model.Result(bad, result.outcome, 1.0), "claim"),
                       (lambda: model.Result(claim, bad, 1.0), "outcome"),
                       (lambda: sources.load_room(bad), "r")]:
        with pytest.raises(TypeError, match=rf"\b{name} must be"):
            call()


@pytest.mark.parametrize("bad", [math.nan, math.inf, -1.0, "1", None, True])
def test_result_seconds_are_finite_and_nonnegative(bad, claim, result):
    with pytest.raises((TypeError, ValueError), match="seconds"):
        model.Result(claim, result.outcome, bad)


@pytest.mark.parametrize("bad", [math.nan, "abc", 0, None])
def test_flags_refuse_non_bools(bad, claim):
    for call, name in [(lambda: runner.run_claim(claim, thorough=bad), "thorough"),
                       (lambda: runner.run_claims([claim], thorough=bad), "thorough"),
                       (lambda: runner.run_claims([claim], isolate=bad), "isolate"),
                       (lambda: baseline.baseline_key(ID, bad), "thorough")]:
        with pytest.raises(TypeError, match=name):
            call()


def test_numpy_scalars_are_accepted(claim):
    assert model.check_timeout(np.float32(5)) == 5.0
    assert baseline.baseline_key(ID, np.bool_(True)) == f"{ID}[thorough]"
    (r,) = runner.run_claims([claim], timeout=np.float32(60), isolate=np.bool_(False))
    assert r.as_expected


def test_a_repeated_claim_runs_once_and_two_claims_of_one_id_are_refused(claim):
    seen = []
    a, b = runner.run_claims([claim, claim], progress=seen.append)
    assert a is b and len(seen) == 1
    other = model.Claim(ID, claim.source, "another statement", claim.method, claim.expected, claim.check)
    with pytest.raises(ValueError, match="two different claims"):
        runner.run_claims([claim, other])


@pytest.mark.parametrize("kwargs, match", [
    (dict(id=math.nan), "claim id"), (dict(id=None), "claim id"),
    (dict(source="abc"), "source"), (dict(source=None), "source"),
    (dict(statement=0), "statement"), (dict(method=None), "method"),
    (dict(expected=math.nan), "expected"), (dict(proof=0), "proof"),
    (dict(timeout="5"), "timeout"), (dict(timeout=math.inf), "timeout"),
])
def test_claim_refuses_bad_fields_when_called(kwargs, match):
    args = dict(id="zzfuzz.one", source=model.Source("none", "§0"), statement="1 = 1", method="exact computation")
    args.update(kwargs)
    with pytest.raises((TypeError, ValueError), match=match):
        store.claim(args.pop("id"), **args)  # refused before any check is decorated
    assert store.lookup("zzfuzz.one") is None


@pytest.mark.parametrize("doc, match", [
    ({"claims": ["abc"]}, r"old\['claims'\]\[0\] must be a mapping"),
    ({"claims": [{"verdict": "holds"}]}, r"old\['claims'\]\[0\] must have a text 'id'"),
    ({"claims": [], "provenance": "abc"}, r"old\['provenance'\] must be a mapping"),
])
def test_compare_reports_names_the_malformed_document(doc, match):
    with pytest.raises(ValueError, match=match):
        drift.compare_reports(doc, {"claims": []})


@pytest.mark.parametrize("call, match", [
    (lambda: baseline.entry_of({"verdict": "holds"}), "result_json has no 'expected'"),
    (lambda: baseline.entry_of(None), "result_json must be a mapping"),
    (lambda: baseline.drift({"rr.x": "holds"}, {}), r"baseline\['rr.x'\] must be a mapping"),
    (lambda: baseline.drift({}, None), "current must be a mapping"),
    (lambda: baseline.write_baseline("b.json", {"rr.x": 1}), r"entries\['rr.x'\] must be a mapping"),
    (lambda: baseline.write_baseline("b.json", {}, merge=None), "merge"),
    (lambda: baseline.load_baseline(""), "path must be a non-empty path"),
    (lambda: sources.module_of_file(""), "path must be a non-empty path"),
    (lambda: seeds.seed_text("0/../*"), "prefix must be a paper's key"),
])
def test_baselines_and_sources_name_the_bad_input(call, match, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises((TypeError, ValueError), match=match):
        call()
    assert not (tmp_path / "b.json").exists()


@pytest.mark.parametrize("argv, match", [
    (["report", "--only", "", "--out", "out"], "--only needs a non-empty"),
    (["report", "--only", "", "--compare", "old.json"], "--only needs a non-empty"),
    (["report", "--from", "", "--out", "out"], "--from needs a file"),
    (["report", "--baseline", "", "--out", "out", "--only", "zz"], "--baseline needs a file"),
    (["verify", "--only", ""], "--only needs a non-empty"),
    (["verify", "--only", ID, "--baseline", ""], "--baseline needs a file name"),
    (["verify", "--only", ID, "--save", " "], "--save needs a file name"),
    (["claims", "--only", ""], "--only needs a non-empty"),
])
def test_cli_refuses_empty_options_before_running_anything(argv, match, capsys, tmp_path, monkeypatch):
    from dpverify.cli import main

    monkeypatch.chdir(tmp_path)
    assert main(argv) == 2
    assert match in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


# ----------------------------------------------------------------------------- wave 2: declared claims,
# supervised runs and unloaded results (callables added without a fuzz baseline)

def test_declared_accepts_numpy_line_numbers():
    from dpverify.claims.declared import Declarations, Declared

    d = Declared("zz.a", np.int64(3))
    assert d.line == 3 and type(d.line) is int
    assert Declarations((d,), np.array([6, 9])).unnamed == (6, 9)  # a 1-D integer array reads as its entries


@pytest.mark.parametrize("kw, match", [
    ({"line": 0}, "line"), ({"line": 2.5}, "line"), ({"line": True}, "line"), ({"line": None}, "line"),
])
def test_declared_refuses_bad_line_by_name(kw, match):
    from dpverify.claims.declared import Declared

    with pytest.raises((TypeError, ValueError), match=match):
        Declared("zz.a", **kw)


@pytest.mark.parametrize("unnamed", [np.array(6), "ab", (0,), np.broadcast_to(np.int64(1), (1_500_000_000,)), [math.nan]])
def test_declarations_refuse_bad_unnamed_by_name(unnamed):
    from dpverify.claims.declared import Declarations

    with pytest.raises((TypeError, ValueError), match="unnamed"):
        Declarations((), unnamed)


@pytest.mark.parametrize("call, match", [
    (lambda sv: sv.guarded_load(list, math.nan), "limit"),
    (lambda sv: sv.guarded_load(list, 0), "limit"),
    (lambda sv: sv.guarded_load(None, 5.0), "load"),
    (lambda sv: sv.guarded_load(list, 5.0, base_exceptions=0), "base_exceptions"),
    (lambda sv: sv.supervise("abc", runner.run_claim, thorough=False, jobs=1, timeout=None), "claims"),
    (lambda sv: sv.supervise([], runner.run_claim, thorough=0, jobs=1, timeout=None), "thorough"),
])
def test_supervisor_refuses_bad_arguments_by_name(call, match):
    from dpverify.claims import supervisor

    with pytest.raises((TypeError, ValueError), match=match):
        call(supervisor)


def test_supervisor_refuses_repeated_claims_and_huge_limits_stay_usable(claim):
    from dpverify.claims import supervisor

    with pytest.raises(ValueError, match="claims must be distinct"):  # 10^6 copies would run 10^6 times
        supervisor.supervise([claim] * 3, runner.run_claim, thorough=False, jobs=1, timeout=None)
    assert supervisor.guarded_load(list, 1e308) is None  # a limit past what a wait takes: no OverflowError


def test_task_runner_takes_numpy_indices(claim):
    from dpverify.claims.supervisor import TaskRunner

    with TaskRunner([(claim, False)], runner.run_claim) as tr:
        assert tr.result(np.int64(0)).verdict is model.Verdict.HOLDS
        with pytest.raises((TypeError, ValueError), match="i "):
            tr.result(1)


@pytest.mark.parametrize("call, match", [
    (lambda ex, o, c: ex.as_error(o, math.nan), "why"),
    (lambda ex, o, c: ex.as_error(o, " "), "why"),
    (lambda ex, o, c: ex.as_error("abc", "x"), "outcome"),
    (lambda ex, o, c: ex.with_route(c, o, "abc"), "sampled"),
    (lambda ex, o, c: ex.with_route(c, o, [math.nan]), "sampled"),
    (lambda ex, o, c: ex.with_route(1, o), "c must"),
])
def test_execute_refuses_bad_arguments_by_name(call, match, claim):
    from dpverify.claims import execute

    o = model.Outcome(model.Verdict.HOLDS, {"a": 1})
    with pytest.raises((TypeError, ValueError), match=match):
        call(execute, o, claim)
    assert execute.with_route(claim, o, {"simulation"}).evidence["sampling_ran"] == "simulation"


def test_unloaded_results_read_a_repeated_file_once(tmp_path):
    from dpverify.claims.execute import unloaded_results

    f = tmp_path / "claims_y.py"
    f.write_text("from dpverify.claims import claim\nfor k in range(2):\n    claim(f'zz.y{k}', source=('p',), "
                 "statement='s', method='property')(lambda thorough=False: None)\n")
    once = unloaded_results([("claims_y.py", f)], "it blocked")
    assert [r.claim.id for r in unloaded_results([("claims_y.py", f)] * 1000, "it blocked")] == [r.claim.id for r in once]
