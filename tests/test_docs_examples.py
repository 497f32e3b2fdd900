"""The Python blocks of the hand-written documentation pages run, and their `dpverify` command lines parse.

Each page's ``python`` blocks are executed in order in one namespace (as a reader would paste
them); every ``dpverify ...`` line of a ``bash`` block is parsed by the real parser.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parent.parent / "docs"
EXECUTED = ("tour.md",)  # the audit guide runs in the test below
PARSED = ("tour.md", "audit-a-mechanism.md", "ci.md", "gallery.md", "own-claims.md", "check-a-library.md")


def blocks(page: str, lang: str) -> list[str]:
    text = (DOCS / page).read_text(encoding="utf-8")
    return re.findall(rf"^```{lang}\n(.*?)^```", text, re.S | re.M)


@pytest.mark.parametrize("page", EXECUTED)
def test_python_blocks_run(page):
    code = blocks(page, "python")
    assert code, f"{page} has no Python block"
    ns: dict = {}
    for i, b in enumerate(code):
        exec(compile(b, f"docs/{page} block {i + 1}", "exec"), ns)


def test_the_audit_guide_shows_what_it_says():
    ns: dict = {}
    for b in blocks("audit-a-mechanism.md", "python"):
        exec(compile(b, "docs/audit-a-mechanism.md", "exec"), ns)
    assert ns["res"].verdict(1.0).value == "refuted"      # half the noise: caught
    assert ns["r"].verdict(0.5).value == "refuted"        # ReportNoisyMax3: caught


def command_lines(page: str):
    for block in blocks(page, "bash") + blocks(page, "yaml") + blocks(page, ""):
        for line in block.replace("\\\n", " ").splitlines():
            line = line.split(" #")[0].split(" > ")[0].strip().removeprefix("- ").removeprefix("run: ").strip()
            for part in line.split("&&"):
                try:
                    words = shlex.split(part)
                except ValueError:
                    continue
                if words and words[0] == "dpverify" and "..." not in part and "[" not in part:
                    yield words[1:]


def test_every_dpverify_line_parses():
    from dpverify.cli import build_parser

    parser = build_parser()
    seen = 0
    for page in PARSED:
        if not (DOCS / page).is_file():
            continue
        for argv in command_lines(page):
            seen += 1
            try:
                parser.parse_args(argv)
            except SystemExit as exc:
                pytest.fail(f"docs/{page}: `dpverify {' '.join(argv)}` does not parse (exit {exc.code})")
    assert seen >= 10
