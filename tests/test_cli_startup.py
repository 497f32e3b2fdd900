"""Every command's ``--help`` answers at once: it imports neither sympy, scipy.stats nor cvxpy,
and says exactly what the full parser says.

``dpverify CMD --help`` is answered by :func:`dpverify.cli._help` without running the packages'
``__init__`` files; these tests show that the shortcut prints the same text as the full parser,
leaves no stand-in package behind, and that a command run after it sees the real packages.
The timings themselves: ``python3 benchmarks/bench_cli_startup.py`` (and the slow test below).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
HEAVY = ("sympy", "scipy.stats", "cvxpy")

_PROBE = r"""
import contextlib, io, json, sys
from dpverify.cli import _help, build_parser, commands
out = {}
for name in commands():
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        status = _help([name, "--help"])
    out[name] = {"status": status, "text": buf.getvalue()}
heavy = sorted(m for m in %r if m in sys.modules)
stand_ins = sorted(n for n, m in sys.modules.items() if n.startswith("dpverify.") and hasattr(m, "__path__")
                   and getattr(m, "__file__", None) is None)
full = build_parser()                              # every command module, imported normally
subs = next(a for a in full._actions if a.__class__.__name__ == "_SubParsersAction")
for name, p in subs.choices.items():
    out[name]["full"] = p.format_help()
print(json.dumps({"helps": out, "heavy": heavy, "stand_ins": stand_ins}))
""" % (HEAVY,)


@pytest.fixture(scope="module")
def probe():
    res = subprocess.run([sys.executable, "-c", _PROBE], capture_output=True, text=True, cwd=ROOT, timeout=300,
                         env={"COLUMNS": "100", **__import__("os").environ})
    assert res.returncode == 0, res.stderr[-3000:]
    return json.loads(res.stdout.strip().splitlines()[-1])


def test_help_imports_nothing_heavy(probe):
    assert probe["helps"], "no command found"
    assert probe["heavy"] == [], f"a --help imported {probe['heavy']}"


def test_help_answered_by_the_shortcut_with_the_full_text(probe):
    for name, h in probe["helps"].items():
        assert h["status"] == 0, f"dpverify {name} --help was not answered by the shortcut"
        assert h["text"] == h["full"], f"dpverify {name} --help differs from the full parser's help"


def test_no_stand_in_left_behind(probe):
    assert probe["stand_ins"] == []


def test_a_command_after_help_sees_the_real_package():
    code = ("import contextlib, io, sys\n"
            "from dpverify.cli import _help, main\n"
            "with contextlib.redirect_stdout(io.StringIO()):\n"
            "    assert _help(['rr', '--help']) == 0\n"
            "import dpverify.rr\n"
            "assert hasattr(dpverify.rr, 'optimal_mechanism'), 'a stand-in survived'\n"
            "sys.exit(main(['rr', '--epsilon', '0.1', '--delta', '0.15', '--pi', '0.2,0.8', '--json']))\n")
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert res.returncode == 0, res.stderr[-3000:]
    assert '"u_star"' in res.stdout or "0.83" in res.stdout


def test_help_is_asked_only_before_a_double_dash():
    from dpverify.cli import _wants_help

    assert _wants_help(["audit", "--help"]) and _wants_help(["continual", "release", "-h"])
    assert not _wants_help(["verify", "--", "--help"]) and not _wants_help(["verify"])


def test_help_through_main_prints_and_exits_0(capsys):
    from dpverify.cli import main

    assert main(["rr", "--help"]) == 0
    assert "--epsilon" in capsys.readouterr().out


@pytest.mark.slow
def test_every_help_within_twice_an_import_of_numpy():
    res = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "bench_cli_startup.py"), "--repeat", "3",
                          "--json"], capture_output=True, text=True, cwd=ROOT, timeout=900)
    data = json.loads(res.stdout)
    missed = [m for m in data["missed"] if m.endswith("--help")]
    assert missed == [], (missed, data["seconds"], data["target_seconds"])
