"""The pytest plugin: claims files become items; verdicts, evidence on failure, slow marks, baselines."""

import json

import pytest

pytest_plugins = ["pytester"]

CLAIMS = '''
import os
from dpverify.claims import claim, Outcome, Verdict, Source

@claim("zzplug.good", source=Source("paper", "§1"), statement="1 + 1 = 2", method="exact computation")
def _good(thorough=False):
    return Outcome(Verdict.HOLDS if 1 + 1 == 2 else Verdict.REFUTED, {"sum": 2, "thorough": thorough})

@claim("zzplug.value", source=Source("paper", "§2"), statement="the value", method="exact computation")
def _value(thorough=False):
    return Outcome(Verdict.HOLDS, {"value": float(os.environ.get("ZZPLUG_VALUE", "1.0"))})
'''

BAD = '''
from dpverify.claims import claim, Outcome, Verdict, Source

@claim("zzplugbad.wrong", source=Source("paper", "§3"), statement="2 · 2 = 5", method="exact computation")
def _wrong(thorough=False):
    return Outcome(Verdict.REFUTED if 2 * 2 != 5 else Verdict.HOLDS, {"product": 4}, summary="2 · 2 is 4, not 5")

@claim("zzplugbad.crash", source=Source("paper", "§4"), statement="x", method="exact computation",
       expected="inconclusive")
def _crash(thorough=False):
    raise RuntimeError("kaput in the check")
'''

ARGS = ("-p", "dpverify.pytest_plugin", "-p", "no:cacheprovider", "-p", "no:randomly")


@pytest.fixture(autouse=True)
def _restore_registry():
    """In-process runs register the files' claims in this process: forget them afterwards."""
    from dpverify.claims import registry

    saved = registry.snapshot()
    yield
    for cid in set(registry.snapshot()) - set(saved):
        registry.unregister(cid)
    for c in saved.values():  # a claim another file replaced comes back
        if registry.snapshot().get(c.id) is not c:
            registry.unregister(c.id)
            registry.register(c)


def _run(pytester, *args):
    from dpverify.claims import registry

    before = set(registry.snapshot())
    try:
        return pytester.runpytest_inprocess(*ARGS, *args)
    finally:  # each run is a fresh session: its files are new files
        for cid in set(registry.snapshot()) - before:
            registry.unregister(cid)


def test_claims_become_items_and_thorough_is_slow(pytester):
    pytester.makepyfile(claims_mine=CLAIMS)
    res = _run(pytester, "-v")
    res.assert_outcomes(passed=4)
    res.stdout.fnmatch_lines(["*claims_mine.py::zzplug.good PASSED*", "*claims_mine.py::zzplug.good[[]thorough[]] PASSED*"])
    _run(pytester, "-m", "not slow").assert_outcomes(passed=2, deselected=2)


def test_failure_shows_verdict_summary_evidence_and_traceback(pytester):
    pytester.makepyfile(bad_claims=BAD)
    res = _run(pytester, "-m", "not slow")
    res.assert_outcomes(failed=2)
    res.stdout.fnmatch_lines([
        "*claim zzplugbad.crash: expected inconclusive, got error*",
        "*RuntimeError: kaput in the check*",
        "*claim zzplugbad.wrong: expected holds, got refuted*",
        "*summary:   2 · 2 is 4, not 5*",
        "*product = 4*",
    ])


def test_project_style_files_are_left_alone(pytester):
    """A test module named *_claims.py stays an ordinary test module; a helper that registers
    nothing at import yields no items; a file without dpverify is never imported."""
    pytester.makepyfile(
        test_sample_experiments_claims="def test_plain():\n    assert True\n",  # names unlike the project's own
        sample_demo_claims=("from dpverify.claims import claim\n\ndef register_demo():\n"
                            "    raise AssertionError('must not run at collection')\n"),
        other_claims="raise AssertionError('never imported: no dpverify in it')\n",
    )
    res = _run(pytester, "-v")
    res.assert_outcomes(passed=1)
    assert "register_demo" not in res.stdout.str()


def test_ini_patterns(pytester):
    pytester.makeini("[pytest]\ndpverify_claims_files = paper_*.py\n")
    pytester.makepyfile(paper_one=CLAIMS, claims_two=BAD)
    _run(pytester, "-m", "not slow").assert_outcomes(passed=2)


def test_baseline_update_and_gate(pytester, monkeypatch):
    pytester.makepyfile(claims_mine=CLAIMS)
    base = pytester.path / "baseline.json"
    _run(pytester, "--dpverify-baseline", str(base)).stderr.fnmatch_lines(["*baseline*does not exist*"])
    res = _run(pytester, "--dpverify-baseline", str(base), "--dpverify-update-baseline")
    res.assert_outcomes(passed=4)
    data = json.loads(base.read_text())
    assert sorted(data) == ["zzplug.good", "zzplug.good[thorough]", "zzplug.value", "zzplug.value[thorough]"]
    assert data["zzplug.good[thorough]"]["evidence"]["thorough"] is True
    text = base.read_text()
    _run(pytester, "--dpverify-baseline", str(base)).assert_outcomes(passed=4)
    monkeypatch.setenv("ZZPLUG_VALUE", "1.25")
    res = _run(pytester, "--dpverify-baseline", str(base), "-m", "not slow")
    res.assert_outcomes(passed=1, failed=1, deselected=2)
    res.stdout.fnmatch_lines(["*zzplug.value: evidence value moved from 1.0 to 1.25*"])
    _run(pytester, "--dpverify-baseline", str(base), "--dpverify-rtol", "0.5", "-m", "not slow").assert_outcomes(passed=2)
    assert base.read_text() == text  # only the update option writes it


def test_corrupt_baseline_and_bad_options(pytester):
    pytester.makepyfile(claims_mine=CLAIMS)
    bad = pytester.path / "bad.json"
    bad.write_text("{oops")
    res = _run(pytester, "--dpverify-baseline", str(bad))
    assert res.ret == pytest.ExitCode.USAGE_ERROR
    res.stderr.fnmatch_lines(["*baseline*is not valid JSON*"])
    res = _run(pytester, "--dpverify-baseline", str(bad), "--dpverify-update-baseline")
    assert res.ret == pytest.ExitCode.USAGE_ERROR and bad.read_text() == "{oops"
    assert _run(pytester, "--dpverify-update-baseline").ret == pytest.ExitCode.USAGE_ERROR
    assert _run(pytester, "--dpverify-baseline", str(bad), "--dpverify-rtol", "nan").ret == pytest.ExitCode.USAGE_ERROR


def test_entry_point_is_declared():
    """The installed metadata declares the plugin (skipped when this checkout is not the installed one)."""
    from importlib.metadata import PackageNotFoundError, distribution
    from pathlib import Path

    import dpverify

    try:
        dist = distribution("dpverify")
    except PackageNotFoundError:
        pytest.skip("dpverify is not installed")
    located = dist.locate_file("")
    eps = {(ep.group, ep.name, ep.value) for ep in dist.entry_points}
    if ("pytest11", "dpverify.pytest_plugin", "dpverify.pytest_plugin") not in eps:
        # an older install of another checkout (editable installs point elsewhere): nothing to check here
        root = Path(dpverify.__file__).resolve().parent.parent
        pyproject = (root / "pyproject.toml").read_text()
        assert '"dpverify.pytest_plugin" = "dpverify.pytest_plugin"' in pyproject
        pytest.skip(f"the installed dpverify ({located}) predates the plugin entry point")
    assert ("pytest11", "dpverify.pytest_plugin", "dpverify.pytest_plugin") in eps


def test_plugin_module_imports_only_pytest():
    """Installed, the plugin loads in every pytest run: importing it must not import dpverify's engine."""
    import subprocess
    import sys

    code = "import sys, dpverify.pytest_plugin; print(sorted(m for m in sys.modules if m.startswith('dpverify.claims') or m in ('numpy', 'sympy')))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"

