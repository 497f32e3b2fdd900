"""The README's examples run, its commands parse, and its two set-up commands are the ones .ci/run executes.

Every ``python`` block is executed in order (one namespace).  The first block is also written to
``my_claims.py`` in a temporary folder and run as the README says, by ``dpverify verify`` and by
the pytest plugin.  Every ``dpverify ...`` line of a ``bash`` block is parsed by the real parser
(so an option renamed in the code cannot stay in the README).
"""

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
PY = re.findall(r"^```python\n(.*?)^```", README, re.S | re.M)
BASH = re.findall(r"^```bash\n(.*?)^```", README, re.S | re.M)


def test_readme_python_blocks_run():
    assert len(PY) >= 3
    ns: dict = {}
    try:
        for b in PY:
            exec(compile(b, "README.md", "exec"), ns)
    finally:
        from dpverify.claims import unregister

        unregister("mypaper.laplace_variance")
    assert ns["r"].verdict.value == "erratum" and str(ns["r"].outcome.evidence["corrected"]) == "2*b**2"
    assert ns["res"].verdict(1.0).value == "refuted"  # the half-noise mechanism is caught


def test_the_claims_file_runs_as_the_readme_says(tmp_path):
    (tmp_path / "my_claims.py").write_text(PY[0], encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    run = lambda *a: subprocess.run(a, capture_output=True, text=True, cwd=tmp_path, env=env, timeout=300)  # noqa: E731
    v = run(sys.executable, "-m", "dpverify", "verify", "my_claims.py", "--json")
    assert v.returncode == 0, v.stderr[-2000:]
    assert '"verdict": "erratum"' in v.stdout and '"paper": "My paper, 2026"' in v.stdout
    p = run(sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "my_claims.py")
    assert p.returncode == 0 and " passed" in p.stdout and "failed" not in p.stdout, p.stdout[-2000:]


def _dpverify_lines():
    for block in BASH:
        text = block.replace("\\\n", " ")
        for line in text.splitlines():
            line = line.split(" #")[0].strip()
            for part in re.split(r"&&", line):
                words = shlex.split(part)
                if words and words[0] == "dpverify":
                    yield words[1:]


def test_every_dpverify_command_of_the_readme_parses():
    from dpverify.cli import build_parser

    lines = list(_dpverify_lines())
    assert len(lines) >= 8
    parser = build_parser()
    for argv in lines:
        try:
            parser.parse_args(argv)
        except SystemExit as exc:  # pragma: no cover - the message names the line
            pytest.fail(f"README: `dpverify {' '.join(argv)}` does not parse (exit {exc.code})")


def test_setup_blocks_are_marked():
    for marker in ("<!-- setup -->", "<!-- test -->"):
        after = README.split(marker, 1)[1]
        assert after.lstrip().startswith("```bash"), marker
    ci = (ROOT / ".ci" / "run").read_text()
    assert "extract setup" in ci and "extract test" in ci
    assert "python3 -m pip install -e . && dpverify verify" in README.split("<!-- setup -->", 1)[1][:200]
    assert 'python3 -m pip install -e ".[test]" && python3 -m pytest' in README.split("<!-- test -->", 1)[1][:200]


def test_first_screen_says_who_it_is_for_and_names_no_paper_by_number():
    first = "\n".join(README.splitlines()[:25])
    assert "For researchers" in first and "auditors" in first
    assert not re.search(r"\b(paper|seed)s? 00\d", README), "papers are named by title, not by number"
    assert not re.search(r"\bseed file|\bissue \d|\broom\b", README)
