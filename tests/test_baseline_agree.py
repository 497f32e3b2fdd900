"""One rule for both baseline gates (``verify --baseline`` and ``pytest --dpverify-baseline``):
:func:`dpverify.claims.baseline.check_baseline`.  A baseline written without the long sweeps does not
fail thorough runs it never recorded; a default run it lacks still fails, headed "not in the
baseline" (not "drifted"); both gates use the same tolerances; a passing gate says how many matched."""

import json
import sys
import textwrap

import pytest

from dpverify.claims.baseline import (DEFAULT_ATOL, DEFAULT_RTOL, check_baseline, load_baseline,
                                      records_thorough)
from dpverify.claims.drift import DEFAULT_ATOL as DRIFT_ATOL, DEFAULT_RTOL as DRIFT_RTOL
from dpverify.cli import main

E = {"verdict": "holds", "expected": "holds", "evidence": {"d": 1.0}}


def test_thorough_runs_a_baseline_never_recorded_are_not_failures():
    base = {"a.x": E}
    c = check_baseline(base, {"a.x": E, "a.x[thorough]": E})
    assert c.ok and c.matched == ("a.x",) and c.unrecorded == ("a.x[thorough]",) and not c.missing
    assert c.summary() == ("baseline: 1 claim matches (rtol 1e-06, atol 1e-09); "
                           "1 thorough run not recorded in the baseline")
    # flips: once the baseline records thorough runs, a thorough run it lacks is missing
    base2 = {"a.x": E, "b.y[thorough]": E}
    assert records_thorough(base2) and not records_thorough(base)
    c2 = check_baseline(base2, {"a.x": E, "a.x[thorough]": E})
    assert not c2.ok and c2.missing == ("a.x[thorough]",) and not c2.unrecorded


def test_a_default_run_the_baseline_lacks_fails_headed_not_in_the_baseline():
    c = check_baseline({"a.x": E}, {"a.y": E})
    assert not c.ok and c.missing == ("a.y",)
    assert c.headline("a.y", "b.json").startswith("claim a.y: not in the baseline b.json")
    assert "drift" not in c.headline("a.y", "b.json")
    moved = check_baseline({"a.x": E}, {"a.x": {**E, "evidence": {"d": 2.0}}})
    assert moved.headline("a.x", "b.json") == "claim a.x: its evidence moved beyond the tolerance since the baseline b.json"
    changed = check_baseline({"a.x": E}, {"a.x": {**E, "verdict": "refuted"}})
    assert changed.headline("a.x", "b.json") == "claim a.x: its verdict changed since the baseline b.json"
    assert changed.summary().startswith("baseline: 1 claim differs from the baseline")


def test_one_pair_of_tolerances_everywhere():
    assert (DEFAULT_RTOL, DEFAULT_ATOL) == (DRIFT_RTOL, DRIFT_ATOL) == (1e-6, 1e-9)
    base = {"a.x": E}
    near = {"a.x": {**E, "evidence": {"d": 1.0 + 5e-7}}}   # inside atol + rtol·|old| = 1.001e-6
    far = {"a.x": {**E, "evidence": {"d": 1.0 + 2e-6}}}    # outside
    assert check_baseline(base, near).ok and not check_baseline(base, far).ok
    assert check_baseline(base, far, rtol=1e-5).ok  # the tolerance given is the one used


CLAIMS = '''
from dpverify.claims import claim, Outcome, Verdict, Source

@claim("zzagree.a", source=Source("paper", "§1"), statement="a", method="exact computation")
def _a(thorough=False):
    return Outcome(Verdict.HOLDS, {"value": 3.0 if thorough else 1.5})

@claim("zzagree.b", source=Source("paper", "§2"), statement="b", method="exact computation")
def _b(thorough=False):
    return Outcome(Verdict.HOLDS, {"two": 2})
'''


@pytest.fixture
def claims_file(tmp_path, forget_claims):
    p = tmp_path / "claims_agree.py"
    p.write_text(textwrap.dedent(CLAIMS))
    return p


def test_verify_gate_says_how_many_matched(claims_file, tmp_path, capsys):
    base = tmp_path / "b.json"
    assert main(["verify", str(claims_file), "--update-baseline", str(base)]) == 0
    assert set(load_baseline(base)) == {"zzagree.a", "zzagree.b"}
    capsys.readouterr()
    assert main(["verify", str(claims_file), "--baseline", str(base)]) == 0
    err = capsys.readouterr().err
    assert f"baseline: 2 claims match (rtol 1e-06, atol 1e-09) ({base})" in err
    # a thorough run against a baseline without thorough runs: compared with nothing, not failed
    assert main(["verify", str(claims_file), "--thorough", "--baseline", str(base)]) == 0
    assert "2 thorough runs not recorded in the baseline" in capsys.readouterr().err
    # flips: a changed value fails, and the summary says so
    data = json.loads(base.read_text())
    data["zzagree.a"]["evidence"]["value"] = 1.25
    base.write_text(json.dumps(data))
    assert main(["verify", str(claims_file), "--baseline", str(base)]) == 1
    err = capsys.readouterr().err
    assert "baseline: zzagree.a: evidence value moved from 1.25 to 1.5" in err
    assert "baseline: 1 claim differs from the baseline (rtol 1e-06, atol 1e-09), 1 match" in err


def test_pytest_gate_agrees_with_a_verify_baseline_outside_the_repo(claims_file, tmp_path):
    """A baseline written by ``verify --update-baseline`` passes every pytest item (the thorough
    ones are compared with nothing, not failed) in a folder outside the repository; a moved value fails."""
    import os
    import subprocess

    import dpverify

    base = tmp_path / "b.json"
    assert main(["verify", str(claims_file), "--update-baseline", str(base)]) == 0
    env = {**os.environ, "PYTHONPATH": os.path.dirname(os.path.dirname(dpverify.__file__))}
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "dpverify.pytest_plugin",
           claims_file.name, f"--dpverify-baseline={base}"]
    proc = subprocess.run(cmd, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout[-3000:]
    assert "4 passed" in proc.stdout and "dpverify baseline: 2 claims match" in proc.stdout, proc.stdout[-3000:]
    assert "2 thorough runs not recorded in the baseline" in proc.stdout, proc.stdout[-3000:]
    data = json.loads(base.read_text())
    data["zzagree.a"]["evidence"]["value"] = 1.25
    base.write_text(json.dumps(data))
    proc = subprocess.run(cmd, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 1 and "1 failed, 3 passed" in proc.stdout, proc.stdout[-3000:]
    assert "evidence value moved from 1.25 to 1.5" in proc.stdout, proc.stdout[-3000:]
