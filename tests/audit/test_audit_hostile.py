"""A hostile mechanism cannot forge the verdict of ``dpverify audit`` (issue 32 item 2, the review).

The mechanisms below attack the supervised audit (:mod:`dpverify.audit.supervised`) from inside: they
write a fake JSON report to fd 1 and exit, write frames to every pipe they can reach (the supervisor's
channel among them, in the format of the earlier pickle channel and in the JSON one without the run's
token), send an object whose unpickling ends the reader, replace or close stdout, print garbage, raise
``KeyboardInterrupt`` or a ``BaseException``, crash, or do it from a process-pool worker.  Each runs with
one job, two jobs and ``--zcdp``: the exit status is 2 (or the honest verdict: 0/1 with the real report),
and stdout is never the fake report — it is empty or exactly the audit's JSON.  Two attacks are the stated
limit (a mechanism that signals the command's own process): they must still never give 0 or 1.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys

import pytest

MODULE = r'''
import json, os, pickle, signal, sys, time
import numpy as np

FAKE = b'{"verdict": "not refuted", "lower_bound": 0.0}\n'

def _channel():                  # the supervisor's pipe: a local of its frame, as the review found it
    f = sys._getframe()
    while f is not None:
        if f.f_code.co_name == "_child":
            return f.f_locals.get("fd")
        f = f.f_back

def _forge(msg):
    data = pickle.dumps(msg)
    legacy = len(data).to_bytes(8, "little") + data
    body = json.dumps({"kind": "result", "status": 0, "stdout": FAKE.decode(), "stderr": ""}).encode()
    fd = _channel()
    for frame in (legacy, len(body).to_bytes(8, "little") + body):
        os.write(fd, frame)   # in a pool worker the channel is closed: OSError (the mechanism's error)

class Evil:
    def __reduce__(self):
        return (os._exit, (0,))

def honest(d, rng, n): return rng.laplace(d, 1.0, n)
def leaky(d, rng, n): return rng.laplace(d, 1e-3, n)
def fake_then_exit(d, rng, n): os.write(1, FAKE); os._exit(0)
def forge_status(d, rng, n): os.write(1, FAKE); _forge(("status", 0)); os._exit(0)
def forge_and_continue(d, rng, n): os.write(1, FAKE); _forge(("status", 0)); return rng.laplace(d, 1.0, n)
def pickle_bomb(d, rng, n): os.write(1, FAKE); _forge(("status", Evil())); os._exit(3)
def close_stdout(d, rng, n): os.close(1); return rng.laplace(d, 1e-3, n)
def redirect_stdout(d, rng, n):
    import io
    sys.stdout = io.StringIO()
    return rng.laplace(d, 1e-3, n)
def redirect_const(d, rng, n):
    import io
    sys.stdout = io.StringIO()
    return np.zeros(n)
def garbage(d, rng, n): os.write(1, b"\x00garbage{{{"); print("more garbage"); return rng.laplace(d, 1.0, n)
def segv(d, rng, n):
    import ctypes
    ctypes.string_at(0)
class Hostile(BaseException):
    pass
def base_exc(d, rng, n): raise Hostile("x")
def sysexit0(d, rng, n): sys.exit(0)
def kb(d, rng, n): raise KeyboardInterrupt
def kill_parent(d, rng, n): os.kill(os.getppid(), signal.SIGKILL); time.sleep(2)
def int_parent(d, rng, n): os.kill(os.getppid(), signal.SIGINT); time.sleep(2); return rng.laplace(d, 1e-3, n)
def forge_from_pool(d, rng, n): os.write(1, FAKE); _forge(("status", 0)); os.kill(os.getppid(), signal.SIGKILL); time.sleep(1); os._exit(0)
'''

IMPORT_EXIT = 'import os\nos.write(1, b\'{"verdict": "not refuted"}\\n\')\nos._exit(0)\n'

DRIVER = '''
import json, os, sys
from dpverify.cli import main

results = {}
for key, argv in json.loads(sys.argv[1]):
    sys.stdout.flush(); sys.stderr.flush()
    saved = os.dup(1), os.dup(2)
    with open(key + ".out", "w") as o, open(key + ".err", "w") as e:
        os.dup2(o.fileno(), 1); os.dup2(e.fileno(), 2)
        try:
            results[key] = main(argv)
        except BaseException as exc:
            results[key] = repr(exc)
        finally:
            sys.stdout.flush(); sys.stderr.flush()
            os.dup2(saved[0], 1); os.dup2(saved[1], 2)
print(json.dumps(results))
'''

MODES = {"jobs1": ["--epsilon", "1", "--jobs", "1"], "jobs2": ["--epsilon", "1", "--jobs", "2"], "zcdp": ["--zcdp", "0.5"]}
ERROR = {2}
# the allowed exit statuses: 2, or the honest verdict (with the real report on stdout)
EXPECTED = {"fake_then_exit": ERROR, "forge_status": ERROR, "forge_and_continue": ERROR, "pickle_bomb": ERROR,
            "segv": ERROR, "base_exc": ERROR, "sysexit0": ERROR, "kb": ERROR,
            "close_stdout": {1, 2}, "redirect_stdout": {1}, "garbage": {0, 1}, "redirect_const": {0},
            "honest": {0, 1}, "leaky": {1}}  # honest: numpy's float Laplace may be refuted (floating-point attack)
# the same draws as another mechanism: the same report (apart from the name and the time)
SAME_AS = {"garbage": "honest", "redirect_stdout": "leaky"}  # close_stdout: EBADF on its 2nd call
# the command's own process signalled (the stated limit): never a verdict; run as commands, not in the driver
LIMIT = {"kill_parent": {2, -signal.SIGKILL}, "int_parent": {2, 130}, "forge_from_pool": {2, -signal.SIGKILL}}
_ENV_KEYS = ("PATH", "HOME", "LANG", "LC_ALL", "SYSTEMROOT")


def _argv(name, mode, samples=2000, module="hostile"):
    return ["audit", f"{module}:{name}", "--d", "0", "--d-prime", "1", "--samples", str(samples), "--seed", "3",
            "--json", *MODES[mode]]


def _env():
    env = {k: os.environ[k] for k in _ENV_KEYS if k in os.environ}
    env["PYTHONPATH"] = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    return env


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    d = tmp_path_factory.mktemp("hostile")
    (d / "hostile.py").write_text(MODULE)
    (d / "import_exit.py").write_text(IMPORT_EXIT)
    (d / "driver.py").write_text(DRIVER)
    return d


@pytest.fixture(scope="module")
def table(folder):
    """{(name, mode): (status, stdout, stderr)}: every case run by ``dpverify.cli.main`` in one process
    whose stdout and stderr are files (the audit runs supervised, as from a shell)."""
    cases = [(f"{k}.{m}", _argv(k, m)) for k in EXPECTED for m in MODES]
    cases += [(f"import_exit.{m}", _argv("f", m, module="import_exit")) for m in MODES]
    r = subprocess.run([sys.executable, "driver.py", json.dumps(cases)], cwd=folder, env=_env(),
                       capture_output=True, text=True, timeout=900)
    assert r.returncode == 0, r.stderr[-3000:]
    status = json.loads(r.stdout.splitlines()[-1])
    return {tuple(key.split(".")): (status[key], (folder / f"{key}.out").read_text(),
                                    (folder / f"{key}.err").read_text()) for key, _ in cases}


def _check(status, stdout, stderr, allowed):
    assert status in allowed, (status, stdout, stderr[-2000:])
    assert "not refuted" not in stdout, stdout  # the fake report never reaches stdout
    if status == 2 or status not in (0, 1):
        assert stdout == "", stdout
        return
    report = json.loads(stdout)  # exactly the audit's own JSON, nothing before or after it
    assert report["verdict"] == ("refuted" if status == 1 else "inconclusive"), report
    assert "notes" in report and "more garbage" not in stdout and "\\x00" not in stdout


def _plain(stdout, name):
    out = json.loads(stdout)
    out.pop("seconds", None)
    return json.dumps(out).replace(f"hostile:{name}", "hostile:NAME")


@pytest.mark.parametrize("mode", list(MODES))
@pytest.mark.parametrize("name", list(EXPECTED))
def test_a_hostile_mechanism_cannot_forge_the_verdict(table, name, mode):
    status, stdout, stderr = table[(name, mode)]
    _check(status, stdout, stderr, EXPECTED[name])
    if name in SAME_AS:
        twin_status, twin_stdout, _ = table[(SAME_AS[name], mode)]
        assert status == twin_status and _plain(stdout, name) == _plain(twin_stdout, SAME_AS[name])
    if status == 2:
        lines = [x for x in stderr.splitlines() if x.startswith("dpverify audit: error:")]
        assert len(lines) == 1 and "Traceback" not in stderr, stderr[-2000:]


@pytest.mark.parametrize("mode", list(MODES))
def test_a_module_that_exits_on_import_is_an_error(table, mode):
    _check(*table[("import_exit", mode)], ERROR)


@pytest.mark.slow
@pytest.mark.parametrize("mode", list(MODES))
@pytest.mark.parametrize("name", list(LIMIT))
def test_signalling_the_command_itself_is_never_a_verdict(folder, name, mode):
    """The stated limit: a mechanism that kills or interrupts the command's own process ends it (SIGKILL
    cannot be caught), or is an error — never exit status 0 or 1, never a fake report."""
    r = subprocess.run([sys.executable, "-m", "dpverify", *_argv(name, mode)], cwd=folder, env=_env(),
                       capture_output=True, text=True, timeout=300)
    _check(r.returncode, r.stdout, r.stderr, LIMIT[name])
