"""Issue 31: hostile claims files cannot fool ``dpverify verify``.

Each case writes a claims file with one hostile claim (and one honest claim beside it) and runs
``dpverify verify FILE --json`` with ``--jobs 1`` and ``--jobs 2``: the exit status is non-zero,
the JSON holds a row for every claim the file declares, and the hostile claim's row is an
``error`` whose text names the reason.  A file that cannot be loaded at all gives an ``error``
row naming the file for each claim it declares.
"""

from __future__ import annotations

import json
import os
import textwrap
import time

import pytest

from dpverify.cli import main

HEAD = '''
import os, signal, sys, time
from dpverify.claims import Outcome, Source, Verdict, claim

class Hostile(BaseException):
    pass

@claim("{room}.good", source=Source("mine"), statement="honest", method="property")
def _good(thorough=False):
    return Outcome(Verdict.HOLDS, {{"sum": sum(range(5))}})

'''

BAD = '''
@claim("{room}.bad", source=Source("mine"), statement="hostile", method="property"{extra})
def _bad(thorough=False):
{body}
    return Outcome(Verdict.HOLDS)
'''

FORK = '''    pid = os.fork()
    if pid == 0:
        time.sleep(60)
        os._exit(0)
    with open(os.environ["ZZSUP_PIDFILE"], "w") as f:
        f.write(str(pid))'''

# name: (code at import, body of the hostile check, claim's extra arguments, CLI options, text in its row)
CASES = {
    "exit_at_import": ("os._exit(0)", "    pass", "", [], "exited with code 0"),
    "sleep_at_import": ("time.sleep(60)", "    pass", "", ["--timeout", "1"], "ran past its 1 s limit"),
    "exit_in_check": ("", "    os._exit(0)", "", [], "exited with code 0 before reporting"),
    "sleep_declared": ("", "    time.sleep(60)", ", timeout=1", [], "ran past its 1 s limit"),
    "sleep_cli_limit": ("", "    time.sleep(60)", "", ["--timeout", "1.5"], "ran past its 1.5 s limit"),
    "keyboard_interrupt": ("", "    raise KeyboardInterrupt", "", [], "KeyboardInterrupt"),
    "sigkill_itself": ("", "    os.kill(os.getpid(), signal.SIGKILL)", "", [], "SIGKILL"),
    "writes_own_file": ("", "    open(__file__, 'a').write('# changed\\n')", "", [], "modified"),
    "forks_a_child": ("", FORK, "", [], "left 1 process(es) running"),
    "returns_junk": ("", "    return 42", "", [], "returned int, not an Outcome"),
    "base_exception": ("", "    raise Hostile('no')", "", [], "Hostile"),
    "system_exit_0": ("", "    sys.exit(0)", "", [], "SystemExit"),
    "generator_exit": ("", "    raise GeneratorExit", "", [], "GeneratorExit"),
}


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rpartition(")")[2].split()[0] != "Z"
    except FileNotFoundError:
        return False


@pytest.mark.parametrize("jobs", ["1", "2"])
@pytest.mark.parametrize("case", list(CASES))
def test_hostile_claims_file(case, jobs, tmp_path, tmp_path_factory, capsys, monkeypatch):
    at_import, body, extra, options, text = CASES[case]
    room = f"zzsup{case.replace('_', '')}j{jobs}"
    pidfile = tmp_path_factory.mktemp("pids") / "child.pid"  # outside the claims' folder, which is watched
    monkeypatch.setenv("ZZSUP_PIDFILE", str(pidfile))
    f = tmp_path / f"claims_{case}.py"
    f.write_text(HEAD.format(room=room) + at_import + "\n" + BAD.format(room=room, extra=extra, body=body))
    t0 = time.perf_counter()
    status = main(["verify", str(f), "--json", "--jobs", jobs, *options])
    assert time.perf_counter() - t0 < 15
    captured = capsys.readouterr()
    assert status != 0, captured.err
    rows = {r["id"]: r for r in json.loads(captured.out)}
    if at_import:  # the file never loaded: an error for each claim it declares, naming the file and the reason
        assert set(rows) == {f"{room}.good", f"{room}.bad"}, rows
        for row in rows.values():
            assert row["verdict"] == "error" and str(f) in row["summary"] and text in row["summary"], row
        return
    assert set(rows) == {f"{room}.good", f"{room}.bad"}
    good = rows[f"{room}.good"]
    if case == "writes_own_file" and jobs == "2":  # a change seen while both ran is blamed on both
        assert good["verdict"] == "holds" or "modified" in good["summary"], good
    else:
        assert good["verdict"] == "holds", good
    bad = rows[f"{room}.bad"]
    assert bad["verdict"] == "error", bad
    assert text in bad["summary"] + (bad["error"] or ""), bad
    if case == "forks_a_child":
        pid = int(pidfile.read_text())
        deadline = time.time() + 5
        while time.time() < deadline and _alive(pid):
            time.sleep(0.1)
        assert not _alive(pid), "the process the check started is still running"


def test_workers_run_in_a_temporary_directory(tmp_path, capsys):
    f = tmp_path / "claims_cwd.py"
    f.write_text(textwrap.dedent('''
        import os
        from dpverify.claims import Outcome, Source, Verdict, claim

        @claim("zzsupcwd.where", source=Source("mine"), statement="cwd", method="property")
        def _where(thorough=False):
            return Outcome(Verdict.HOLDS, {"cwd": os.getcwd()})
    '''))
    assert main(["verify", str(f), "--json"]) == 0
    (row,) = json.loads(capsys.readouterr().out)
    assert row["evidence"]["cwd"] != os.getcwd() and "dpverify-work-" in row["evidence"]["cwd"]
    assert not os.path.exists(row["evidence"]["cwd"])  # removed after the run


def test_hostile_checks_fail_their_pytest_items(tmp_path):
    """The pytest plugin: every hostile check's item fails, the honest one passes, pytest exits non-zero."""
    import subprocess
    import sys

    room = "zzsuppytest"
    cases = [k for k, (at_import, _, _, options, _) in CASES.items() if not at_import and not options]
    text = HEAD.format(room=room)
    for k in cases:
        _, body, extra, _, _ = CASES[k]
        text += BAD.format(room=room, extra=extra, body=body).replace(f'"{room}.bad"', f'"{room}.bad_{k}"').replace(
            "def _bad(", f"def _bad_{k}(")
    f = tmp_path / "claims_hostile.py"
    f.write_text(text)
    env = {**os.environ, "ZZSUP_PIDFILE": str(tmp_path / "child.pid")}
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-rA", "-p", "no:cacheprovider", f.name],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=50)
    out = proc.stdout
    assert proc.returncode != 0, out
    assert f"PASSED {f.name}::{room}.good" in out.replace("PASSED claims_hostile.py::", f"PASSED {f.name}::"), out
    for k in cases:
        assert f"FAILED {f.name}::{room}.bad_{k}" in out, (k, out[-3000:])


def test_workers_do_not_outlive_a_killed_run(tmp_path):
    """A ``dpverify verify`` killed from outside (a CI timeout) takes its workers and the checks'
    processes with it (``PR_SET_PDEATHSIG``): none is left waiting for a task."""
    import signal
    import subprocess
    import sys

    import dpverify

    out = tmp_path / "out"
    out.mkdir()
    f = tmp_path / "claims" / "claims_slow.py"
    f.parent.mkdir()
    f.write_text(textwrap.dedent(f'''
        import os, time
        from dpverify.claims import Outcome, Source, Verdict, claim

        @claim("zzkilled.slow", source=Source("mine"), statement="s", method="property")
        def _slow(thorough=False):
            with open({str(out / "pids")!r}, "w") as fh:
                fh.write(f"{{os.getpid()}} {{os.getppid()}}")
            time.sleep(60)
            return Outcome(Verdict.HOLDS)
    '''))
    env = {**os.environ, "PYTHONPATH": os.path.dirname(os.path.dirname(dpverify.__file__))}
    proc = subprocess.Popen([sys.executable, "-m", "dpverify", "verify", str(f), "--json"], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 60
    while time.time() < deadline and not (out / "pids").exists():
        time.sleep(0.05)
    time.sleep(0.2)
    pids = [int(x) for x in (out / "pids").read_text().split()]
    assert proc.pid not in pids  # the check ran in a worker, not in the run's own process
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=10)
    deadline = time.time() + 10
    while time.time() < deadline and any(_alive(p) for p in pids):
        time.sleep(0.05)
    assert not any(_alive(p) for p in pids), "a worker or a check's process outlived the killed run"
