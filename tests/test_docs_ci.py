"""The CI recipe of docs/ci.md works: the pre-commit hook and the workflow run a user's claims with a
baseline, pass when nothing drifted and fail when a number drifts; the docs show the files as they are;
``dpverify completion`` gives working bash and zsh scripts.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

yaml = pytest.importorskip("yaml")

ROOT = Path(__file__).resolve().parent.parent
CI = ROOT / "examples" / "ci"
CLAIMS = '''from dpverify.claims import Outcome, Source, Verdict, claim

VALUE = {value}


@claim("demo.half", source=Source(paper="A paper of mine"), statement="the value is one half",
       method="exact computation")
def _half(thorough=False):
    return Outcome(Verdict.HOLDS, {{"value": VALUE}})
'''


def _run(command: str, cwd: Path) -> subprocess.CompletedProcess:
    words = shlex.split(command)
    assert words[0] == "dpverify", command
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "dpverify", *words[1:]], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=300)


@pytest.fixture()
def project(tmp_path):
    (tmp_path / "my_claims").mkdir()
    (tmp_path / "my_claims" / "claims_demo.py").write_text(CLAIMS.format(value=0.5), encoding="utf-8")
    made = _run("dpverify verify my_claims/ --update-baseline baseline.json", tmp_path)
    assert made.returncode == 0, made.stderr[-2000:]
    return tmp_path


def _drift(project: Path) -> None:
    (project / "my_claims" / "claims_demo.py").write_text(CLAIMS.format(value=0.6), encoding="utf-8")


def test_pre_commit_hook_passes_then_fails_on_drift(project):
    cfg = yaml.safe_load((CI / "pre-commit-config.yaml").read_text(encoding="utf-8"))
    (hook,) = cfg["repos"][0]["hooks"]
    assert hook["language"] == "system" and hook["pass_filenames"] is False
    assert re.search(hook["files"], "my_claims/claims_demo.py") and re.search(hook["files"], "baseline.json")
    assert _run(hook["entry"], project).returncode == 0
    _drift(project)
    failed = _run(hook["entry"], project)
    assert failed.returncode == 1, (failed.stdout[-2000:], failed.stderr[-2000:])


@pytest.mark.slow
def test_workflow_steps_pass_then_fail_on_drift_and_still_report(project):
    wf = yaml.safe_load((CI / "dpverify.yml").read_text(encoding="utf-8"))
    steps = [s["run"] for s in wf["jobs"]["claims"]["steps"] if "run" in s and s["run"].startswith("dpverify")]
    assert len(steps) == 2 and "--baseline baseline.json" in steps[0]
    for step in steps:
        res = _run(step, project)
        assert res.returncode == 0, (step, res.stderr[-2000:])
    assert (project / "report" / "index.html").is_file() or any((project / "report").glob("*.html"))
    shutil.rmtree(project / "report")
    _drift(project)
    assert _run(steps[0], project).returncode == 1                # the gate fails ...
    assert _run(steps[1], project).returncode == 0                # ... and the report (if: always()) is written
    assert any((project / "report").glob("*.html"))


def test_docs_show_the_files_as_they_are():
    page = (ROOT / "docs" / "ci.md").read_text(encoding="utf-8")
    shown = [yaml.safe_load(b) for b in re.findall(r"^```yaml\n(.*?)^```", page, re.S | re.M)]
    for name in ("pre-commit-config.yaml", "dpverify.yml"):
        assert yaml.safe_load((CI / name).read_text(encoding="utf-8")) in shown, name


def _bash_complete(words: list[str]) -> list[str]:
    script = subprocess.run([sys.executable, "-m", "dpverify", "completion", "bash"], capture_output=True,
                            text=True, cwd=ROOT, timeout=300, check=True).stdout
    probe = (script + "\nCOMP_WORDS=(" + " ".join(shlex.quote(w) for w in words) + ")\n"
             f"COMP_CWORD={len(words) - 1}\n_dpverify\nprintf '%s\\n' \"${{COMPREPLY[@]}}\"\n")
    return subprocess.run(["bash", "-c", probe], capture_output=True, text=True, timeout=60).stdout.split()


@pytest.mark.skipif(shutil.which("bash") is None, reason="no bash")
def test_bash_completion_completes_commands_options_and_actions():
    assert _bash_complete(["dpverify", "veri"]) == ["verify"]
    assert "--update-baseline" in _bash_complete(["dpverify", "verify", "--upd"])
    assert _bash_complete(["dpverify", "continual", "rel"]) == ["release"]
    assert "--bogus-option" not in _bash_complete(["dpverify", "verify", "--"])


def test_zsh_completion_names_every_command():
    from dpverify.cli import commands
    from dpverify.completion import completion_script

    script = completion_script("zsh")
    assert script.startswith("#compdef dpverify")
    for name in commands():
        assert f"'{name}:" in script or f"{name}:" in script, name
    if shutil.which("zsh"):
        assert subprocess.run(["zsh", "-n"], input=script, text=True, timeout=60).returncode == 0
    with pytest.raises(ValueError, match="shell must be one of"):
        completion_script("fish")
