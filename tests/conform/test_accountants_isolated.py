"""Each accountant runs in a child process: running out of memory, a crash, a hang or an exit are
``defect`` rows with the reason, never a crash or a hang of the caller (issue 28, "bad input").

Each check also shows that without the isolation (``isolated=False``) the same accountant is not
caught: the row is not a defect, or the calling process dies.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

from dpverify.conform.accountants import accountants

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="the isolation needs os.fork")

CONFIG = {"noise_multiplier": 1.0, "sample_rate": 0.01, "steps": 200, "delta": 1e-5}
#: A bracket for the tests (the rows compare with it; its exact values do not matter here).
BRACKET = (1.0, 1.2)


def _row(rows, name):
    return next(r for r in rows if r["accountant"] == name)


def _greedy(c):
    """Reserves 2 GiB (np.empty: address space, no page touched) and returns a plausible epsilon."""
    block = np.empty(2 ** 28)        # 2 GiB of float64
    return 1.1 + 0.0 * block.size


def test_too_much_memory_is_a_defect_row():
    rows = accountants(CONFIG, installed=False, bracket=BRACKET, extra={"greedy": _greedy},
                       max_memory_gib=0.5)
    row = _row(rows, "greedy")
    assert row["verdict"] == "defect"
    assert "out of memory under the limit of 0.5 GiB" in row["note"], row["note"]
    assert _row(rows, "dpverify.rdp")["verdict"] != "defect"      # the others are unaffected
    # the limit is what makes it a defect: with room, or in this process, the answer is read
    assert _row(accountants(CONFIG, installed=False, bracket=BRACKET, extra={"greedy": _greedy},
                            max_memory_gib=4.0), "greedy")["verdict"] == "inside"
    assert _row(accountants(CONFIG, installed=False, bracket=BRACKET, extra={"greedy": _greedy},
                            max_memory_gib=0.5, isolated=False), "greedy")["verdict"] == "inside"


def test_hang_is_a_defect_row_after_the_timeout():
    def slow(c):
        time.sleep(1.5)
        return 1.1
    start = time.monotonic()
    row = _row(accountants(CONFIG, installed=False, bracket=BRACKET, extra={"slow": slow},
                           timeout=0.3), "slow")
    assert time.monotonic() - start < 1.4
    assert row["verdict"] == "defect" and "timeout of 0.3 s" in row["note"], row["note"]
    # in this process the timeout cannot apply: the call waits and the answer is read
    row = _row(accountants(CONFIG, installed=False, bracket=BRACKET, extra={"slow": slow},
                           timeout=0.3, isolated=False), "slow")
    assert row["verdict"] == "inside"


def test_segfault_is_a_defect_row():
    def crash(c):
        os.kill(os.getpid(), signal.SIGSEGV)
        return 1.1
    rows = accountants(CONFIG, installed=False, bracket=BRACKET, extra={"crash": crash, "ok": lambda c: 1.1})
    assert _row(rows, "crash")["verdict"] == "defect"
    assert "killed by signal SIGSEGV" in _row(rows, "crash")["note"]
    assert _row(rows, "ok")["verdict"] == "inside"     # the sweep went on after the crash


def test_segfault_without_isolation_kills_the_caller():
    code = textwrap.dedent("""
        import os, signal
        from dpverify.conform.accountants import accountants
        def crash(c):
            os.kill(os.getpid(), signal.SIGSEGV)
        cfg = {"noise_multiplier": 1.0, "sample_rate": 0.01, "steps": 200, "delta": 1e-5}
        rows = accountants(cfg, installed=False, bracket=(1.0, 1.2), extra={"crash": crash},
                           isolated=ISOLATED)
        print(rows[-1]["verdict"])
    """)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path), "PYTHONFAULTHANDLER": ""}
    for isolated, code_out in (("False", -signal.SIGSEGV), ("True", 0)):
        done = subprocess.run([sys.executable, "-c", code.replace("ISOLATED", isolated)],
                              capture_output=True, text=True, timeout=120, env=env)
        assert done.returncode == code_out, (isolated, done.returncode, done.stderr[-500:])
    assert done.stdout.strip() == "defect"


def test_exits_and_kills_are_defect_rows():
    def leaves(c):
        os._exit(3)

    def stops(c):
        sys.exit(4)

    def killed(c):
        os.kill(os.getpid(), signal.SIGKILL)
    rows = accountants(CONFIG, installed=False, bracket=BRACKET,
                       extra={"leaves": leaves, "stops": stops, "killed": killed})
    assert "exited with code 3 without an answer" in _row(rows, "leaves")["note"]
    assert _row(rows, "stops")["note"] == "SystemExit: 4"
    assert "SIGKILL" in _row(rows, "killed")["note"] and "out-of-memory" in _row(rows, "killed")["note"]
    assert all(r["verdict"] == "defect" for r in rows[1:])


def test_grandchild_left_running_is_ended():
    """An accountant that starts a process and returns: its answer is read at once, and what it
    started is ended with it (its process group)."""
    def spawns(c):
        subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
        return 1.1
    start = time.monotonic()
    row = _row(accountants(CONFIG, installed=False, bracket=BRACKET, extra={"spawns": spawns},
                           timeout=30.0), "spawns")
    assert row["verdict"] == "inside" and time.monotonic() - start < 20


@pytest.mark.parametrize("value,reason", [(float("nan"), "non-finite"), (-0.5, "non-positive"),
                                          (0.0, "non-positive"), ("1.0x", "not a number: '1.0x'")])
def test_rows_identical_with_and_without_isolation(value, reason):
    extra = {"bad": lambda c: value, "fine": lambda c: np.float64(1.1), "raises": lambda c: 1 / 0}
    isolated = accountants(CONFIG, installed=False, bracket=BRACKET, extra=extra)
    inline = accountants(CONFIG, installed=False, bracket=BRACKET, extra=extra, isolated=False)
    assert repr(isolated) == repr(inline)
    assert _row(isolated, "bad")["verdict"] == "defect" and reason in _row(isolated, "bad")["note"]
    assert _row(isolated, "raises")["note"] == "ZeroDivisionError: division by zero"


@pytest.mark.parametrize("kw,bad,err", [("timeout", 0.0, ValueError), ("timeout", float("nan"), ValueError),
                                        ("max_memory_gib", -1.0, ValueError), ("timeout", "5", TypeError),
                                        ("isolated", 1, TypeError)])
def test_keywords_validated(kw, bad, err):
    with pytest.raises(err, match=kw):
        accountants(CONFIG, installed=False, bracket=BRACKET, **{kw: bad})
