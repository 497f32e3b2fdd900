"""The README's Python examples run, and its two set-up commands are the ones .ci/run executes."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")


def test_readme_python_blocks_run():
    blocks = re.findall(r"^```python\n(.*?)^```", README, re.S | re.M)
    assert len(blocks) >= 4
    ns: dict = {}
    for b in blocks:
        exec(compile(b, "README.md", "exec"), ns)
    assert ns["res"].verdict(1.0).value == "refuted"  # the half-noise example is caught
    assert abs(ns["u"] - 0.83) < 1e-12


def test_setup_blocks_are_marked():
    for marker in ("<!-- setup -->", "<!-- test -->"):
        after = README.split(marker, 1)[1]
        assert after.lstrip().startswith("```bash"), marker
    ci = (ROOT / ".ci" / "run").read_text()
    assert "extract setup" in ci and "extract test" in ci
