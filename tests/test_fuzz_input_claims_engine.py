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
    (lambda v: model.Source(v), "seed"),
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
    (lambda: seeds.seed_text("0/../*"), "prefix must be a seed's number"),
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
