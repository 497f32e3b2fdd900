"""Issue 31 for pytest: hostile claims files cannot turn a pytest run green.

pytest runs in a subprocess on temporary claims files (a check that calls ``os._exit`` in this
process would end the test run itself).  At collection, a file that exits, is killed, raises a
``BaseException`` or blocks while it is imported is a collection error naming the file and the
reason; the control case shows that the same file, imported by pytest itself (the plugin not
involved), exits 0.  At run time every hostile check's item fails with the reason in its report,
honest items before and after it pass, each item runs in a fresh worker process (so nothing one
check does to its process reaches the next), and pytest exits non-zero.  The checks write their
process ids beside (not into) the claims' folder, which the run watches for changes.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time

import pytest

from dpverify.claims.model import check_timeout  # also: numpy loaded once, before in-process pytest runs

pytest_plugins = ["pytester"]

HEAD = '''
import os, signal, sys, time
from dpverify.claims import Outcome, Source, Verdict, claim

class Hostile(BaseException):
    pass

def _pid(name):
    with open(os.path.join(os.environ["ZZH4_DIR"], name + ".pid"), "w") as f:
        f.write(str(os.getpid()))

'''

CLAIM = '''
@claim("{cid}", source=Source("mine"), statement="{cid}", method="property"{extra})
def _{fn}(thorough=False):
{body}
    return Outcome(Verdict.HOLDS)
'''

FORK = '''    pid = os.fork()
    if pid == 0:
        time.sleep(60)
        os._exit(0)
    _pid("child_of_" + str(os.getpid()))
    with open(os.path.join(os.environ["ZZH4_DIR"], "child.pid"), "w") as f:
        f.write(str(pid))'''

# hostile checks: name -> (body, claim's extra arguments, text in the item's report)
IN_CHECK = {
    "exit_in_check": ("    os._exit(0)", "", "exited with code 0 before reporting"),
    "sleep_declared": ("    time.sleep(60)", ", timeout=1", "ran past its 1 s limit"),
    "keyboard_interrupt": ("    raise KeyboardInterrupt('stop')", "", "KeyboardInterrupt: stop"),
    "sigkill_itself": ("    os.kill(os.getpid(), signal.SIGKILL)", "", "killed by signal SIGKILL"),
    "writes_own_file": ("    open(__file__, 'a').write('# changed\\n')", "", "modified"),
    "forks_a_child": (FORK, "", "left 1 process(es) running"),
    "returns_junk": ("    return 42", "", "returned int, not an Outcome"),
    "base_exception": ("    raise Hostile('no')", "", "Hostile: no"),
    "system_exit_0": ("    sys.exit(0)", "", "SystemExit"),
    "generator_exit": ("    raise GeneratorExit", "", "GeneratorExit"),
}

# files hostile at import: name -> (code at import, options, text in the collection error)
AT_IMPORT = {
    "exit_at_import": ("os._exit(0)", [], "exited with code 0 before it finished"),
    "sigkill_at_import": ("os.kill(os.getpid(), signal.SIGKILL)", [], "killed by signal SIGKILL"),
    "sleep_at_import": ("time.sleep(60)", ["--dpverify-load-timeout", "1"], "ran past its 1 s limit"),
    "system_exit_at_import": ("sys.exit(0)", [], "raised SystemExit: 0"),
    "interrupt_at_import": ("raise KeyboardInterrupt", [], "raised KeyboardInterrupt"),
    "base_exception_at_import": ("raise Hostile('x')", [], "raised Hostile: x"),
}

HONEST = "    _pid('{name}')\n    assert sum(range(5)) == 10"


def _claim(cid: str, body: str, extra: str = "") -> str:
    return CLAIM.format(cid=cid, fn=cid.replace(".", "_"), extra=extra, body=body)


def _pytest(path, *args, timeout=60):
    out = _out(path)
    out.mkdir(exist_ok=True)
    env = {**os.environ, "ZZH4_DIR": str(out)}
    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:randomly", *args],
                          cwd=path, env=env, capture_output=True, text=True, timeout=timeout)
    return proc, time.perf_counter() - t0


def _out(path):
    """Where the checks write their process ids: beside the claims' folder, not in it."""
    return path.parent / (path.name + "_out")


def _sections(out: str) -> dict[str, str]:
    """The report of each failed item (or collection error), by the name in its header line."""
    parts = re.split(r"^_{3,} (.+?) _{3,}$", out, flags=re.M)
    return {parts[k].strip(): parts[k + 1] for k in range(1, len(parts) - 1, 2)}


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rpartition(")")[2].split()[0] != "Z"
    except FileNotFoundError:
        return False


def test_hostile_checks_fail_their_items_each_in_a_fresh_process(tmp_path):
    room = "zzh4run"
    text = HEAD + _claim(f"{room}.a_first", HONEST.format(name="first"))
    for k, (body, extra, _) in IN_CHECK.items():
        text += _claim(f"{room}.b_{k}", body, extra)
    text += _claim(f"{room}.c_last", HONEST.format(name="last")) + _claim(f"{room}.d_after", HONEST.format(name="after"))
    f = tmp_path / "claims_hostile.py"
    f.write_text(text)
    proc, seconds = _pytest(tmp_path, "-q", "-m", "not slow", f.name)
    out = proc.stdout
    assert proc.returncode == 1, out[-3000:]
    assert seconds < 30, seconds  # the sleeping check was stopped at its limit
    assert f"{len(IN_CHECK)} failed, 3 passed" in out, out[-3000:]
    reports = _sections(out)
    for k, (_, _, reason) in IN_CHECK.items():
        report = reports.get(f"dpverify claim {room}.b_{k}", "")
        assert reason in report, (k, report or out[-3000:])
        assert f"claim {room}.b_{k}: expected holds, got error" in report
    pids = {name: int((_out(tmp_path) / f"{name}.pid").read_text()) for name in ("first", "last", "after")}
    # not pytest's process: each check of a claims file runs in a fresh process of its own
    assert len({*pids.values(), os.getpid()}) == 4, pids
    child = int((_out(tmp_path) / "child.pid").read_text())
    deadline = time.time() + 5
    while time.time() < deadline and _alive(child):
        time.sleep(0.1)
    assert not _alive(child), "the process the check started is still running"


def test_timeout_option_stops_checks_without_a_declared_limit(tmp_path):
    room = "zzh4opt"
    (tmp_path / "claims_slow.py").write_text(HEAD + _claim(f"{room}.sleeps", "    time.sleep(60)")
                                              + _claim(f"{room}.quick", "    pass"))
    proc, seconds = _pytest(tmp_path, "-q", "-m", "not slow", "--dpverify-timeout", "1.5", "claims_slow.py")
    assert proc.returncode == 1 and "1 failed, 1 passed" in proc.stdout, proc.stdout[-3000:]
    assert "ran past its 1.5 s limit" in _sections(proc.stdout)[f"dpverify claim {room}.sleeps"]
    assert seconds < 30


def test_files_hostile_at_import_are_collection_errors(tmp_path):
    files = []
    for k, (code, _, _) in AT_IMPORT.items():
        (tmp_path / f"claims_{k}.py").write_text(HEAD + _claim(f"zzh4imp{k.replace('_', '')}.c", "    pass") + code + "\n")
        files.append(f"claims_{k}.py")
    (tmp_path / "claims_honest.py").write_text(HEAD + _claim("zzh4honest.c", "    pass"))
    proc, seconds = _pytest(tmp_path, "-q", "--continue-on-collection-errors", "--dpverify-load-timeout", "1",
                            *files, "claims_honest.py")
    out = proc.stdout
    assert proc.returncode != 0, out[-3000:]
    assert "2 passed" in out and f"{len(AT_IMPORT)} errors" in out, out[-3000:]
    assert seconds < 30
    reports = _sections(out)
    for k, (_, _, reason) in AT_IMPORT.items():
        report = reports.get(f"ERROR collecting claims_{k}.py", "")
        assert reason in report and f"claims_{k}.py" in report, (k, out[-3000:])


@pytest.mark.parametrize("guarded", [True, False])
def test_exit_at_import_alone_fails_the_run_and_would_pass_unguarded(tmp_path, guarded):
    """The control: imported by pytest itself (the plugin off, the file a test module), os._exit(0)
    at import ends pytest with exit status 0; collected by the plugin, the run fails."""
    (tmp_path / "claims_exits.py").write_text(HEAD + _claim("zzh4exit.c", "    pass") + "os._exit(0)\n")
    args = ["claims_exits.py"] if guarded else ["-p", "no:dpverify", "-p", "no:dpverify.pytest_plugin",
                                               "-o", "python_files=claims_*.py", "claims_exits.py"]
    proc, _ = _pytest(tmp_path, *args)
    if guarded:
        assert proc.returncode == pytest.ExitCode.INTERRUPTED, proc.stdout[-3000:]
        assert "ERROR collecting claims_exits.py" in proc.stdout
    else:
        assert proc.returncode == 0, (proc.returncode, proc.stdout[-3000:])
        assert "rootdir:" in proc.stdout and not re.search(r"\bin [0-9.]+s\b", proc.stdout)  # ended with no summary


@pytest.mark.parametrize("option", ["--dpverify-timeout", "--dpverify-load-timeout"])
@pytest.mark.parametrize("value", ["0", "nan", "-1", "inf"])
def test_bad_limits_are_usage_errors(pytester, option, value):
    with pytest.raises(ValueError) as exc:
        check_timeout(float(value), option)
    res = pytester.runpytest_inprocess("-p", "no:cacheprovider", f"{option}={value}")
    assert res.ret == pytest.ExitCode.USAGE_ERROR
    res.stderr.fnmatch_lines([f"*{exc.value}*"])
    assert pytester.runpytest_inprocess("-p", "no:cacheprovider", f"{option}=2.5").ret == pytest.ExitCode.NO_TESTS_COLLECTED
