"""Evidence baselines from the CLI: written only by --update-baseline, sorted JSON, drift fails the run."""

import json
import sys
import textwrap
from pathlib import Path

import pytest

from dpverify.claims import registry, unregister
from dpverify.claims.baseline import drift, dumps, load_baseline
from dpverify.cli import main

CLAIMS = '''
import os
from dpverify.claims import claim, Outcome, Verdict, Source

@claim("zzbase.value", source=Source("paper", "§1"), statement="the value is 1.5", method="exact computation")
def _value(thorough=False):
    v = float(os.environ.get("ZZBASE_VALUE", "1.5"))
    return Outcome(Verdict.HOLDS if v > 0 else Verdict.REFUTED, {"value": v, "note": "text is not compared",
                                                                   "nested": {"b": [1, 2], "a": v / 3}})

@claim("zzbase.other", source=Source("paper", "§2"), statement="two", method="exact computation")
def _other(thorough=False):
    return Outcome(Verdict.HOLDS, {"two": 2})
'''


@pytest.fixture
def claims_file(tmp_path, forget_claims):
    p = tmp_path / "claims_base.py"
    p.write_text(textwrap.dedent(CLAIMS))
    return p


def test_update_then_gate(claims_file, tmp_path, monkeypatch, capsys):
    base = tmp_path / "baseline.json"
    assert main(["verify", str(claims_file), "--json", "--update-baseline", str(base)]) == 0
    text = base.read_text()
    data = json.loads(text)
    assert list(data) == ["zzbase.other", "zzbase.value"]  # one claim per top-level key, sorted
    assert text == dumps(data) and text.startswith("{\n  \"zzbase.other\": {")  # indented, diff-friendly
    assert data["zzbase.value"]["evidence"]["value"] == 1.5
    assert main(["verify", str(claims_file), "--baseline", str(base)]) == 0
    capsys.readouterr()

    monkeypatch.setenv("ZZBASE_VALUE", str(1.5 * (1 + 1e-9)))  # within the default rtol 1e-6
    assert main(["verify", str(claims_file), "--baseline", str(base)]) == 0
    monkeypatch.setenv("ZZBASE_VALUE", "1.6")
    assert main(["verify", str(claims_file), "--baseline", str(base)]) == 1
    err = capsys.readouterr().err
    assert "zzbase.value: evidence value moved from 1.5 to 1.6" in err
    assert "zzbase.value: evidence nested.a moved" in err
    assert main(["verify", str(claims_file), "--baseline", str(base), "--rtol", "0.1"]) == 0
    assert base.read_text() == text  # the gate never writes the baseline
    monkeypatch.setenv("ZZBASE_VALUE", "-1")
    assert main(["verify", str(claims_file), "--baseline", str(base), "--only", "zzbase.value"]) == 1
    assert "verdict changed from holds to refuted" in capsys.readouterr().err


def test_claim_missing_from_baseline_fails(claims_file, tmp_path, capsys):
    base = tmp_path / "b.json"
    assert main(["verify", str(claims_file), "--only", "zzbase.other", "--update-baseline", str(base)]) == 0
    assert main(["verify", str(claims_file), "--baseline", str(base)]) == 1
    assert "zzbase.value: not in the baseline" in capsys.readouterr().err
    # updating with more claims merges them in
    assert main(["verify", str(claims_file), "--only", "zzbase.value", "--update-baseline", str(base)]) == 0
    assert set(load_baseline(base)) == {"zzbase.other", "zzbase.value"}
    assert main(["verify", str(claims_file), "--baseline", str(base)]) == 0


@pytest.mark.parametrize("content", ["{not json", "[1, 2]", '{"a.b": 3}', ""])
def test_corrupt_baseline_is_one_line_exit_2(claims_file, tmp_path, capsys, content):
    base = tmp_path / "bad.json"
    base.write_text(content)
    assert main(["verify", str(claims_file), "--baseline", str(base)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "baseline" in err
    assert main(["verify", str(claims_file), "--update-baseline", str(base)]) == 2  # not replaced either
    assert base.read_text() == content


def test_bad_baseline_options(claims_file, tmp_path, capsys):
    assert main(["verify", str(claims_file), "--baseline", str(tmp_path / "missing.json")]) == 2
    assert main(["verify", str(claims_file), "--update-baseline", str(tmp_path / "no" / "dir.json")]) == 2
    b = tmp_path / "b.json"
    assert main(["verify", str(claims_file), "--baseline", str(b), "--update-baseline", str(b)]) == 2
    assert main(["verify", str(claims_file), "--update-baseline", str(tmp_path)]) == 2  # a directory
    assert not b.exists()


def test_drift_compares_only_the_claims_run():
    base = {"a.x": {"verdict": "holds", "expected": "holds", "evidence": {"d": 1.0}},
            "a.gone": {"verdict": "holds", "expected": "holds", "evidence": {}}}
    assert drift(base, {"a.x": {"verdict": "holds", "expected": "holds", "evidence": {"d": 1.0}}}) == []
    assert drift(base, {"a.x": {"verdict": "holds", "expected": "holds", "evidence": {"d": 1.1}}}, rtol=0.2) == []
    out = drift(base, {"a.x": {"verdict": "holds", "expected": "refuted", "evidence": {"d": 1.0, "e": 2.0}}})
    assert out == ["a.x: expected changed from holds to refuted", "a.x: evidence e moved from null to 2.0"]


def test_error_results_are_not_written(tmp_path, capsys):
    before = set(registry.snapshot())
    p = tmp_path / "claims_err.py"
    p.write_text(CLAIMS.replace('"two": 2', '"two": 1 / 0'))
    base = tmp_path / "b.json"
    try:
        assert main(["verify", str(p), "--update-baseline", str(base)]) == 1
    finally:
        for cid in set(registry.snapshot()) - before:
            unregister(cid)
        sys.modules.pop("claims_err", None)
    assert list(json.loads(Path(base).read_text())) == ["zzbase.value"]
