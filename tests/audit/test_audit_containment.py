"""A mechanism cannot end an audit silently (issue 32 item 2).

Every exit status of ``dpverify audit`` is 0 (not refuted), 1 (refuted) or 2 (error): a mechanism
that raises ``SystemExit`` or a ``BaseException``, calls ``os._exit`` (with status 0 or 3), kills
itself with SIGKILL, or ends the process on a later call only, gives exit status 2 and one error
line naming it — with one job (the supervised child), two jobs (the process pool) and on the
--zcdp path (which runs in-process, i.e. in the supervised child: the CLI refuses --jobs there).
A well-behaved mechanism keeps its verdict (0 or 1) and its JSON report, the same as an in-process
run of the command.  The runs of the table go in parallel (the default run stays within a few
seconds of its slowest run).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

from dpverify.audit.errors import MechanismError
from dpverify.mechanisms.sampling import checked_sample

MODULE = '''
import math, os, signal, sys, time

def sys_exit(d, rng, n): sys.exit(0)
def os_exit0(d, rng, n): os._exit(0)
def os_exit3(d, rng, n): os._exit(3)
def sigkill(d, rng, n): os.kill(os.getpid(), signal.SIGKILL)
def late(d, rng, n):             # draws for D, then ends the process at the first call on D'
    if d == 1:
        os._exit(0)
    return rng.laplace(d, 1.0, size=n)
class Boom(BaseException):
    pass
def base_exc(d, rng, n): raise Boom("not an Exception")

def rr(d, rng, n):               # randomized response with e^1 odds: exactly 1-DP (and 1/2-zCDP)
    p = math.e / (1 + math.e)
    return (rng.random(n) < (p if d == 0 else 1 - p)).astype(int)
def rr_leak(d, rng, n):          # odds 19: ε = log 19 ≈ 2.94
    return (rng.random(n) < (0.95 if d == 0 else 0.05)).astype(int)
def late_big(d, rng, n):         # the issue's: ends the process on the first call of more than 5000 draws
    if n > 5000:
        os._exit(0)
    return rng.laplace(d, 1.0, size=n)
def closing(scale=1.0):           # a factory of closures: they do not pickle (refused with --jobs 2)
    return lambda d, rng, n: rng.laplace(d, scale, size=n)
def stat_exit(t): os._exit(4)    # statistics that end the process
def stat_sys_exit(t): sys.exit(1)
def slow(d, rng, n):             # records its pid, then sleeps (for Ctrl-C)
    with open("slow.pid", "a") as f:
        f.write(f"{os.getpid()}\\n")
    time.sleep(60)
    return rng.random(n)
'''

DRIVER = '''
import json, os, sys
from dpverify.cli import main

results = {}
for key, argv in json.loads(sys.argv[1]):  # each case as `python -m dpverify ARGV` runs it, outputs in files
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

KINDS = ("sys_exit", "os_exit0", "os_exit3", "sigkill", "late", "base_exc")
MODES = {"eps-jobs1": ["--epsilon", "1", "--jobs", "1"], "eps-jobs2": ["--epsilon", "1", "--jobs", "2"],
         "zcdp": ["--zcdp", "0.5"]}
GOOD = {("rr", "eps-jobs1"): 0, ("rr", "eps-jobs2"): 0, ("rr", "zcdp"): 0,
        ("rr_leak", "eps-jobs1"): 1, ("rr_leak", "eps-jobs2"): 1, ("rr_leak", "zcdp"): 1}
STATISTICS = {"stat_exit": "its audit was ended (exit status 4) outside the mechanism's calls (after sample(",
              "stat_sys_exit": "statistic raised SystemExit: 1"}  # raised: a MechanismError of the chunk
_ENV_KEYS = ("PATH", "HOME", "LANG", "LC_ALL", "SYSTEMROOT")


def _argv(name, flags, samples=1000):
    return ["audit", f"mechs:{name}", "--d", "0", "--d-prime", "1", "--samples", str(samples), "--seed", "4", *flags]


def _env():
    env = {k: os.environ[k] for k in _ENV_KEYS if k in os.environ}
    env["PYTHONPATH"] = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    return env


def _command(folder, argv, **kw):
    return subprocess.run([sys.executable, "-m", "dpverify", *argv], cwd=folder, env=_env(), capture_output=True,
                          text=True, timeout=300, **kw)


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    d = tmp_path_factory.mktemp("containment")
    (d / "mechs.py").write_text(MODULE)
    (d / "driver.py").write_text(DRIVER)
    return d


@pytest.fixture(scope="module")
def table(folder):
    """Every case of the table and the well-behaved ones, run by ``dpverify.cli.main`` in one subprocess
    whose stdout and stderr are files (as a shell gives them: the audit runs supervised);
    {(name, mode): (status, stdout, stderr)}."""
    cases = [(f"{k}.{m}", _argv(k, flags + (["--json"] if (k, m) in GOOD else [])))
             for k in KINDS + ("rr", "rr_leak") for m, flags in MODES.items()]
    cases += [(f"{st}.eps-jobs1", _argv("rr", MODES["eps-jobs1"] + ["--statistic", f"mechs:{st}"]))
              for st in STATISTICS]
    cases += [("closing.eps-jobs2", _argv("closing", MODES["eps-jobs2"] + ["--param", "scale=2"]))]
    r = subprocess.run([sys.executable, "driver.py", json.dumps(cases)], cwd=folder, env=_env(), capture_output=True,
                       text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    status = json.loads(r.stdout.splitlines()[-1])
    return {tuple(key.split(".")): (status[key], (folder / f"{key}.out").read_text(), (folder / f"{key}.err").read_text())
            for key, _ in cases}


def _error_lines(stderr):
    return [line for line in stderr.splitlines() if line.strip() and not line.startswith("auditing")]


def _check_error(status, stdout, stderr, kind, mode):
    lines = _error_lines(stderr)
    assert status == 2, (status, stderr)
    assert stdout == "" and len(lines) == 1, stderr
    assert lines[0].startswith(f"dpverify audit: error: mechanism '{kind}' "), lines[0]
    assert "Traceback" not in stderr
    if mode != "eps-jobs2" and kind not in ("sys_exit", "base_exc"):  # the supervisor names the call
        assert "in sample(data=" in lines[0] and "no verdict" in lines[0], lines[0]
    if kind == "os_exit3" and mode != "eps-jobs2":
        assert "exit status 3" in lines[0]
    if kind == "sigkill" and mode != "eps-jobs2":
        assert "SIGKILL" in lines[0]


@pytest.mark.parametrize("mode", list(MODES))
@pytest.mark.parametrize("kind", KINDS)
def test_a_mechanism_that_ends_the_process_is_an_error(table, kind, mode):
    _check_error(*table[(kind, mode)], kind, mode)


@pytest.mark.parametrize("stat", list(STATISTICS))
def test_a_statistic_that_ends_the_process_is_an_error(table, stat):
    status, stdout, stderr = table[(stat, "eps-jobs1")]
    lines = _error_lines(stderr)
    assert status == 2 and stdout == "" and len(lines) == 1, stderr
    assert lines[0].startswith("dpverify audit: error: ") and STATISTICS[stat] in lines[0], lines[0]


def test_jobs_still_refuses_a_mechanism_that_does_not_pickle(table):
    status, stdout, stderr = table[("closing", "eps-jobs2")]
    lines = _error_lines(stderr)
    assert status == 2 and stdout == "" and len(lines) == 1, stderr
    assert lines[0].startswith("dpverify audit: error: --jobs 2 needs a mechanism and statistic that pickle"), lines


def test_a_defect_of_the_audit_is_exit_status_2_with_its_traceback(monkeypatch, capsys):
    """An exception that is neither bad input nor the mechanism's (a defect of dpverify): its traceback
    and exit status 2, never the "refuted" 1."""
    import dpverify.audit.api
    from dpverify.cli import main

    def broken(*args, **kwargs):
        raise RuntimeError("a defect")

    monkeypatch.setattr(dpverify.audit.api, "audit", broken)
    status = main(["audit", "dpverify.audit.examples:laplace_eps1", "--d", "0", "--d-prime", "1", "--samples", "1000"])
    err = capsys.readouterr().err
    assert status == 2 and "Traceback" in err, err
    assert err.splitlines()[-1] == "dpverify audit: error: internal error RuntimeError: a defect (please report it)"


def test_the_issue_command_as_a_command(folder):
    """``python -m dpverify audit`` itself (not through ``main``): the mechanism that calls os._exit(0)."""
    r = _command(folder, _argv("os_exit0", MODES["eps-jobs1"]))
    _check_error(r.returncode, r.stdout, r.stderr, "os_exit0", "eps-jobs1")


def _json(stdout):
    out = json.loads(stdout)
    out.pop("seconds", None)
    return out


@pytest.mark.parametrize(("name", "mode"), list(GOOD))
def test_a_well_behaved_mechanism_keeps_its_verdict_and_report(table, folder, monkeypatch, capsys, name, mode):
    """Supervised (the table's run) and in-process (``main`` here, with captured streams): the same exit
    status and the same JSON; 0 for the ε = 1 (ρ = 1/2) mechanism, 1 for the leaky one."""
    from dpverify.cli import main

    expected = GOOD[(name, mode)]
    monkeypatch.chdir(folder)
    monkeypatch.syspath_prepend(str(folder))
    sys.modules.pop("mechs", None)
    status = main(_argv(name, MODES[mode] + ["--json"]))
    here = capsys.readouterr()
    sys.modules.pop("mechs", None)
    assert status == expected, here.err
    assert _json(here.out)["verdict"] == ("refuted" if expected else "inconclusive")
    status, stdout, stderr = table[(name, mode)]
    assert status == expected, stderr
    assert _json(stdout) == _json(here.out)
    assert _error_lines(stderr) == []


@pytest.mark.parametrize(("sig", "expected"), [(signal.SIGINT, 130),
                                               pytest.param(signal.SIGTERM, 143, marks=pytest.mark.slow)])
def test_ctrl_c_ends_the_audit_and_its_processes(folder, sig, expected):
    """SIGINT (Ctrl-C) or SIGTERM to the command: exit status 130 (143), and the child that ran the
    mechanism is gone."""
    (folder / "slow.pid").unlink(missing_ok=True)
    p = subprocess.Popen([sys.executable, "-m", "dpverify", *_argv("slow", ["--epsilon", "1"])], cwd=folder, env=_env(), stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while not (folder / "slow.pid").exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    child = int((folder / "slow.pid").read_text().split()[0])
    p.send_signal(sig)
    _, err = p.communicate(timeout=30)
    assert p.returncode == expected, err
    assert "interrupted" in err and "Traceback" not in err
    with pytest.raises(ProcessLookupError):
        os.kill(child, 0)


class _Boom(BaseException):
    pass


@pytest.mark.parametrize("raised", [SystemExit(0), SystemExit("bye"), GeneratorExit(), _Boom("x")])
def test_checked_sample_turns_what_the_mechanism_raises_into_a_mechanism_error(raised):
    def mech(d, rng, n):
        raise raised

    with pytest.raises(MechanismError, match=r"^mechanism 'mech' raised .* in sample\(data=0, rng, n=3\)$"):
        checked_sample(mech, 0, np.random.default_rng(0), 3)


def test_a_keyboard_interrupt_of_the_mechanism_is_an_error_in_the_supervised_child():
    """The child is in its own process group (a terminal's Ctrl-C never reaches it): a
    KeyboardInterrupt there is the mechanism's, a MechanismError (exit status 2), not 130."""
    from dpverify.audit.supervised import run_supervised

    def kb(d, rng, n):
        raise KeyboardInterrupt

    with pytest.raises(MechanismError, match=r"^mechanism 'kb' raised KeyboardInterrupt \(after sample\(data=0"):
        run_supervised(lambda: checked_sample(kb, 0, np.random.default_rng(0), 3), "kb")


def test_checked_sample_lets_keyboard_interrupt_through():
    def mech(d, rng, n):
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        checked_sample(mech, 0, np.random.default_rng(0), 3)


def test_run_supervised_reports_status_exceptions_and_deaths():
    from dpverify.audit.supervised import run_supervised

    assert run_supervised(lambda: 7, "m") == 7
    with pytest.raises(ValueError, match="bad flag"):  # raised again in the parent: the command's usual error
        run_supervised(lambda: (_ for _ in ()).throw(ValueError("bad flag")), "m")

    def dies():
        checked_sample(lambda d, rng, n: os._exit(5), 2, np.random.default_rng(0), 4)

    with pytest.raises(MechanismError, match=r"'m' ended the process \(exit status 5\) in sample\(data=2, rng, n=4\)"):
        run_supervised(dies, "m")


def _exits(d, rng, n):
    os._exit(0)


def test_run_tasks_on_a_process_pool_turns_a_dead_worker_into_a_mechanism_error():
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    from dpverify.audit.chunks import ChunkJob, Progress, run_tasks

    job = ChunkJob(_exits, 0.0, 10, 1, (0,), None)
    with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("fork")) as pool:
        with pytest.raises(MechanismError, match="mechanism '_exits' ended a worker process"):
            run_tasks([job.outputs], pool, Progress(None, 10), [10])


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["os_exit0", "sigkill", "late_big"])
def test_the_first_issue_report_at_full_size(folder, kind):
    """The reported command (20000 samples), one and two jobs: exit status 2, one line."""
    for jobs in ("1", "2"):
        r = _command(folder, _argv(kind, ["--epsilon", "1", "--jobs", jobs], samples=20000))
        assert r.returncode == 2 and len(_error_lines(r.stderr)) == 1, r.stderr


@pytest.mark.slow
def test_a_dask_worker_that_dies_is_a_mechanism_error(folder, monkeypatch):
    """On a Dask process cluster: a worker killed by the mechanism (KilledWorker) is a MechanismError."""
    distributed = pytest.importorskip("distributed")
    import dask

    from dpverify.audit import audit
    from dpverify.audit.dask_backend import dask_executor

    monkeypatch.syspath_prepend(str(folder))
    sys.modules.pop("mechs", None)
    import mechs

    with dask.config.set({"distributed.scheduler.allowed-failures": 0}), \
            distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True,
                                     dashboard_address=None) as c, distributed.Client(c) as client:
        for kind in ("os_exit0", "sigkill", "sys_exit"):
            with pytest.raises(MechanismError, match=f"mechanism '{kind}' "):
                audit(getattr(mechs, kind), epsilon=1.0, pairs=[(0, 1)], samples=1000, rng=1,
                      executor=dask_executor(client))
    sys.modules.pop("mechs", None)
