"""``dpverify audit``: JSON output, exit status, errors (deterministic, seeded)."""

import json

from dpverify.cli import main


def test_cli_json_refuted(capsys):
    """Half-scale noise, seeded; margin > 10 sd as in test_auditor_api (false alarm < 1e-20)."""
    rc = main(["audit", "dpverify.audit.examples:laplace_half_noise_eps1", "--d", "0", "--d-prime", "1",
               "--epsilon", "1", "--samples", "20000", "--seed", "1", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert rc == 1 and out["verdict"] == "refuted" and out["epsilon_lb"] > 1.0
    assert out["samples"] == 20000 and out["samples_used"] <= 20000  # issue 11: staged budget


def test_cli_table_inconclusive_with_list_inputs(capsys):
    """A correct mechanism audited at confidence 1 − 1e-6: false refutation ≤ 1e-6 (seeded)."""
    rc = main(["audit", "dpverify.audit.examples:noisy_max_index_eps1", "--d", "[1,1,1,1,1]",
               "--d-prime", "[2,0,0,0,0]", "--epsilon", "1", "--samples", "20000", "--seed", "2",
               "--confidence", "0.999999"])
    cap = capsys.readouterr()
    out = cap.out
    assert rc == 0 and "inconclusive" in out and "ε lower bound" in out, cap.err


def test_cli_errors(capsys):
    assert main(["audit", "nope.module:x", "--d", "0", "--d-prime", "1", "--epsilon", "1", "--samples", "1000"]) == 2
    assert main(["audit", "dpverify.audit.examples:laplace_eps1", "--d", "0", "--d-prime", "1", "--epsilon", "1",
                 "--samples", "0"]) == 2
    assert main(["audit", "dpverify.audit.examples:laplace_eps1", "--d", "0", "--d-prime", "1", "--epsilon", "-1",
                 "--samples", "10"]) == 2
    assert main(["audit", "dpverify.audit.mechanisms:LaplaceMechanism", "--d", "0", "--d-prime", "1", "--epsilon",
                 "1", "--samples", "1000"]) == 2
    err = capsys.readouterr().err
    # issue 11: classes are now accepted (built from --param); without the required one, the error says so
    assert "cannot import" in err and "samples" in err and "epsilon" in err and "--param" in err


def test_cli_mechanism_error(capsys, tmp_path, monkeypatch):
    (tmp_path / "badmech.py").write_text("def mech(data, rng, n):\n    return rng.random(n + 1)\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    rc = main(["audit", "badmech:mech", "--d", "0", "--d-prime", "1", "--epsilon", "1", "--samples", "1000"])
    assert rc == 2 and "shape" in capsys.readouterr().err


def test_cli_current_directory_params_search_statistics(capsys, tmp_path, monkeypatch):
    (tmp_path / "mymech.py").write_text(
        "class Noisy:\n"
        "    def __init__(self, scale=1.0, shift=False):\n"
        "        self.scale, self.shift = scale, shift\n"
        "    def sample(self, data, rng, n):\n"
        "        return rng.laplace(float(data[0]), self.scale, n)\n")
    monkeypatch.chdir(tmp_path)
    args = ["audit", "mymech:Noisy", "--param", "scale=0.25", "--param", "shift=true", "--search", "l1",
            "--shape", "1", "--epsilon", "1", "--samples", "50000", "--seed", "3", "--json", "--confidence", "0.9",
            "--default-domain"]
    rc = main(args)
    out = json.loads(capsys.readouterr().out)
    assert rc == 1 and out["params"] == {"scale": 0.25, "shift": True} and out["verdict"] == "refuted"
    for key in ("pair", "event", "statistic", "count_p", "p_interval", "samples_used", "seconds", "seed", "version"):
        assert key in out
    assert out["domain"].startswith("1 real entry (unbounded): no domain stated")  # --default-domain, said
    main(args)
    again = json.loads(capsys.readouterr().out)
    assert {k: v for k, v in again.items() if k != "seconds"} == {k: v for k, v in out.items() if k != "seconds"}
    assert main(["audit", "mymech:Noisy", "--d", "[0]", "--d-prime", "[1]", "--epsilon", "1", "--samples", "1000",
                 "--statistic", "nope"]) == 2
    assert "valid: auto, classifier, pattern, offgrid" in capsys.readouterr().err
    assert main(["audit", "mymech:Noisy", "--search", "hamming", "--epsilon", "1", "--samples", "1000"]) == 2
    assert "valid: linf, l1, add_remove, replace" in capsys.readouterr().err
    assert main(["audit", "mymech:Noisy", "--d", "[0]", "--d-prime", "[1]", "--epsilon", "1",
                 "--samples", str(10**11)]) == 2
    assert "--force" in capsys.readouterr().err


def test_cli_library_statistics_and_fp_attack(capsys):
    """The fp attack from the CLI: the library's float Laplace is refuted (true ε unbounded at the grid)."""
    rc = main(["audit", "dpverify.selftest.controls:LibraryLaplace", "--param", "epsilon=1", "--d", "0",
               "--d-prime", "1", "--epsilon", "1", "--samples", "100000", "--seed", "0", "--json",
               "--statistic", "dpverify.audit.floating_point:fp_attack_statistic"])
    out = json.loads(capsys.readouterr().out)
    assert rc == 1 and out["epsilon_lb"] > 2
    rc = main(["audit", "dpverify.audit.suite:SVT5", "--param", "epsilon=0.5", "--search", "linf", "--shape", "10",
               "--epsilon", "0.5", "--samples", "50000", "--seed", "0", "--json", "--statistic",
               "dpverify.audit:PatternCode", "--confidence", "0.9"])
    out = json.loads(capsys.readouterr().out)
    assert out["statistic"] == "PatternCode" and rc == 1


_SLOW_MECHANISM = '''import numpy as np


def mean_laplace(d, rng, n):
    """d plus the mean of 32 Laplace(1) draws, made in blocks (bounded memory): about 1 µs a draw."""
    out = np.empty(n)
    for i in range(0, n, 1 << 16):
        k = min(1 << 16, n - i)
        out[i:i + k] = float(d) + rng.laplace(0.0, 1.0, (k, 32)).mean(axis=1)
    return out
'''


def test_cli_progress_is_plain_lines_on_stderr_and_json_stays_clean(tmp_path):
    """``dpverify audit`` as a subprocess, stdout and stderr pipes (not terminals): a 3·10^6-draw audit
    (about 3 s here) prints plain ``auditing: done/total draws (t s)`` lines on stderr (one a second at
    most, and a final ``done`` line for work over a second), no terminal control codes, and stdout is
    exactly one JSON document.  The claim ε = 40 holds (the noise's log-density is 1-Lipschitz in the
    sum of 32 draws: ε ≤ 32), so the full budget is spent; seeded."""
    import os
    import re
    import subprocess
    import sys
    import time
    from pathlib import Path

    (tmp_path / "slowmech.py").write_text(_SLOW_MECHANISM)
    root = str(Path(__file__).resolve().parents[2])
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([root, os.environ.get("PYTHONPATH", "")])}
    t0 = time.perf_counter()
    res = subprocess.run([sys.executable, "-m", "dpverify", "audit", "slowmech:mean_laplace", "--d", "0",
                          "--d-prime", "1", "--epsilon", "40", "--samples", "1500000", "--seed", "0", "--json"],
                         cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60)
    secs = time.perf_counter() - t0
    assert res.returncode == 0, res.stderr[-2000:]
    out = json.loads(res.stdout)  # the whole of stdout is one JSON document
    # the whole budget, less the final stages' Poisson draw counts (a mean ~3.3 sd below each stage's cap)
    assert out["verdict"] == "inconclusive" and 0.99 * 1_500_000 <= out["samples_used"] <= 1_500_000
    assert "auditing" not in res.stdout
    lines = [ln for ln in res.stderr.splitlines() if ln.strip()]
    plain = re.compile(r"^auditing: [\d,]+/3,000,000 draws \(\d+\.\d s\)( done| still working.*| working)?$")
    assert lines and all(plain.match(ln) for ln in lines), res.stderr
    assert lines[-1].endswith(" done") and "/3,000,000" in lines[-1]
    assert int(lines[-1].split()[1].split("/")[0].replace(",", "")) >= 0.99 * 3_000_000
    assert "\x1b" not in res.stderr and "\r" not in res.stderr
    assert secs < 15, f"the subprocess took {secs:.1f} s"


def test_cli_zcdp_json_and_table(capsys, tmp_path, monkeypatch):
    """--zcdp on Laplace(1) (pure 1-DP, hence ρ = 1/2 zCDP): ρ = 0.1 refuted (δ_lb(0) ≈ 0.38 against an
    implied 0.27, > 50 sd at 10^5 estimation draws), ρ = 0.6 inconclusive; rho_lb in both below 1/2."""
    rc = main(["audit", "dpverify.audit.examples:laplace_eps1", "--d", "0", "--d-prime", "1", "--zcdp", "0.1",
               "--samples", "200000", "--seed", "1", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert rc == 1 and out["verdict"] == "refuted" and out["claim"] == "zcdp" and 0.1 <= out["rho_lb"] <= 0.5
    assert len(out["epsilons"]) == len(out["delta_lower"]) == len(out["claimed_delta"]) == 12 and out["refuted_at"]
    (tmp_path / "vecmech.py").write_text("def lap(data, rng, n):\n    return rng.laplace(float(data[0]), 1.0, n)\n")
    monkeypatch.chdir(tmp_path)
    rc = main(["audit", "vecmech:lap", "--search", "l1", "--shape", "1", "--zcdp", "0.6", "--samples", "200000",
               "--seed", "1", "--low", "-5", "--high", "5"])  # the first candidate: [1] against [0]
    cap = capsys.readouterr()
    assert rc == 0 and "inconclusive" in cap.out and "ρ ≥" in cap.out and "[1.0] vs [0.0]" in cap.out, cap.err


def test_cli_zcdp_errors(capsys):
    base = ["audit", "dpverify.audit.examples:laplace_eps1", "--d", "0", "--d-prime", "1", "--samples", "1000"]
    assert main(base + ["--zcdp", "0.5", "--epsilon", "1"]) == 2
    assert "not both" in capsys.readouterr().err
    assert main(base + ["--delta", "0.1"]) == 2  # δ without ε: the claim would be half stated
    assert "--delta goes with --epsilon" in capsys.readouterr().err
    assert main(base + ["--zcdp", "0"]) == 2
    assert "--zcdp" in capsys.readouterr().err
    assert main(base + ["--zcdp", "0.5", "--statistic", "classifier"]) == 2
    assert "not available with --zcdp" in capsys.readouterr().err


def test_cli_jobs_give_the_same_result(capsys):
    """--jobs 2 runs the final audit's chunks on two processes: the JSON is the same, time aside.
    The progress lines (stderr, not a terminal) show the total planned, which the per-input budget
    can take above 2 × --samples."""
    argv = ["audit", "dpverify.audit.suite:SVT6", "--search", "linf", "--shape", "10", "--epsilon", "0.5",
            "--samples", "600000", "--seed", "4", "--confidence", "0.9", "--json"]
    assert main(argv + ["--jobs", "2"]) in (0, 1)
    a = json.loads(capsys.readouterr().out)
    assert main(argv) in (0, 1)
    b = json.loads(capsys.readouterr().out)
    a.pop("seconds"), b.pop("seconds")
    assert a == b
    assert max(st["n"] for st in b["stages"]) > 2 * (1 << 17)  # several chunks per input
    assert main(argv + ["--jobs", "0"]) == 2
    assert "--jobs must be >= 1" in capsys.readouterr().err


def test_cli_jobs_refuse_a_mechanism_that_does_not_pickle(tmp_path, capsys, monkeypatch):
    """A factory returning a closure cannot reach worker processes: one error line, not a traceback."""
    (tmp_path / "closuremech.py").write_text(
        "import numpy as np\n"
        "def make(scale=1.0):\n"
        "    def mech(data, rng, n):\n"
        "        return np.asarray(data, float) + rng.laplace(0.0, float(scale), n)\n"
        "    return mech\n")
    monkeypatch.chdir(tmp_path)
    argv = ["audit", "closuremech:make", "--param", "scale=1", "--d", "0", "--d-prime", "1", "--epsilon", "1",
            "--samples", "20000", "--seed", "0"]
    assert main(argv + ["--jobs", "2"]) == 2
    err = capsys.readouterr().err
    assert "--jobs 2 needs a mechanism and statistic that pickle" in err and "Traceback" not in err
    zcdp = ["audit", "closuremech:make", "--param", "scale=1", "--d", "0", "--d-prime", "1", "--zcdp", "0.5",
            "--samples", "20000", "--seed", "0", "--jobs", "2"]
    assert main(zcdp) == 2 and "--jobs applies to ε audits" in capsys.readouterr().err
    assert main(argv) in (0, 1)  # in-process it runs


def test_cli_audits_over_the_mechanisms_own_relation(capsys, tmp_path, monkeypatch):
    """Without --d/--d-prime and --search, a mechanism carrying a relation object is audited over it."""
    (tmp_path / "ownrel.py").write_text(
        "from dpverify.mechanisms import Pairs, as_mechanism\n"
        "def _half(d, rng, n):\n"
        "    return float(d) + rng.laplace(0.0, 0.5, n)\n"
        "half = as_mechanism(_half, epsilon=1.0, relation=Pairs(((0.0, 1.0),), description='|d - d1| <= 1'))\n"
        "def bare(d, rng, n):\n"
        "    return float(d) + rng.laplace(0.0, 1.0, n)\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    rc = main(["audit", "ownrel:half", "--epsilon", "1", "--samples", "20000", "--seed", "1", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert rc == 1 and out["verdict"] == "refuted" and out["pair"] in ([0.0, 1.0], [1.0, 0.0])
    rc = main(["audit", "dpverify.audit.suite:ReportNoisyMax3", "--param", "epsilon=0.5", "--epsilon", "0.5",
               "--samples", "20000", "--seed", "1", "--json"])  # a suite mechanism's Neighbours(shape=(5,))
    assert rc in (0, 1) and len(json.loads(capsys.readouterr().out)["pair"][0]) == 5
    assert main(["audit", "ownrel:bare", "--epsilon", "1", "--samples", "1000"]) == 2
    err = capsys.readouterr().err
    assert "give the pair (--d and --d-prime)" in err and "carries no relation object" in err
    assert main(["audit", "ownrel:half", "--d", "0", "--epsilon", "1", "--samples", "1000"]) == 2  # half a pair


def test_cli_takes_the_claim_the_mechanism_states_and_says_so(capsys, tmp_path, monkeypatch):
    """No --epsilon: LaplaceMechanism(1.0, scale_factor=0.5) states ε = 1 (audited as such, said in the
    output and the JSON); a bare function states nothing, so --epsilon is required.  Half-scale noise:
    true ε 2, refuted at 20,000 draws with margin > 10 sd (as test_cli_json_refuted)."""
    base = ["audit", "dpverify.audit.examples:laplace_half_noise_eps1", "--d", "0", "--d-prime", "1",
            "--samples", "20000", "--seed", "1"]
    assert main(base) == 1
    out = capsys.readouterr().out
    assert "claim: ε = 1, δ = 0, as dpverify.audit.examples:laplace_half_noise_eps1 states (no --epsilon" in out
    assert main(base + ["--json"]) == 1
    js = json.loads(capsys.readouterr().out)
    assert js["claim_source"] == "stated by the mechanism" and js.get("claimed_epsilon", js.get("epsilon")) == 1.0
    assert main(base + ["--json", "--epsilon", "3"]) in (0, 1)  # a claim given is audited instead
    js = json.loads(capsys.readouterr().out)
    assert js["claim_source"] == "--epsilon" and js.get("claimed_epsilon", js.get("epsilon")) == 3.0
    (tmp_path / "barefn.py").write_text("def f(d, rng, n):\n    return float(d) + rng.laplace(0.0, 1.0, n)\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert main(["audit", "barefn:f", "--d", "0", "--d-prime", "1", "--samples", "1000"]) == 2
    assert "--epsilon is required: barefn:f states no claim" in capsys.readouterr().err


def test_cli_wrong_signature_is_one_line(capsys, tmp_path, monkeypatch):
    """``mech(x, rng)``: one line saying what a mechanism is, not a failed factory call."""
    (tmp_path / "twoargs.py").write_text("def mech(x, rng):\n    return x + rng.laplace()\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    rc = main(["audit", "twoargs:mech", "--d", "0", "--d-prime", "1", "--epsilon", "1", "--samples", "1000"])
    err = capsys.readouterr().err.strip()
    assert rc == 2 and len(err.splitlines()) == 1, err
    assert "twoargs:mech is mech(x, rng): a mechanism is `mechanism(data, rng, n)`" in err
    assert "cannot build" not in err and "Traceback" not in err
    (tmp_path / "twoargsobj.py").write_text("class M:\n    def sample(self, x, rng):\n        return rng.random()\nm = M()\n")
    rc = main(["audit", "twoargsobj:m", "--d", "0", "--d-prime", "1", "--epsilon", "1", "--samples", "1000"])
    err = capsys.readouterr().err.strip()
    assert rc == 2 and len(err.splitlines()) == 1 and "M.sample(x, rng)" in err
    assert "a mechanism is `mechanism(data, rng, n)`" in err


def test_cli_full_spends_the_whole_budget(capsys):
    """--full: no quick check, no early stage: ReportNoisyMax3-like gross violation (half-noise Laplace,
    true ε 2 against 1) is refuted either way, but with --full every draw of the budget is spent."""
    base = ["audit", "dpverify.audit.examples:laplace_half_noise_eps1", "--d", "0", "--d-prime", "1",
            "--epsilon", "1", "--samples", "20000", "--seed", "1", "--json"]
    assert main(base) == 1
    early = json.loads(capsys.readouterr().out)
    assert main(base + ["--full"]) == 1
    full = json.loads(capsys.readouterr().out)
    assert early["samples_used"] < 20000 and full["samples_used"] >= 0.97 * 20000
    # one final test (its safe-event companion, at the same split level, is recorded beside it)
    assert {st["kind"].split(" (")[0] for st in full["stages"]} == {"stage 1"}


_ODD = r":x: [red]odd[/] \[y] tail" + "\\"  # an emoji code, markup, an escaped bracket, a trailing backslash
_ODD_MODULE = (
    "class Rel:\n"
    "    default_domain = True\n"
    "    def candidates(self, rng=None):\n"
    "        return [(0.0, 1.0), (1.0, 3.0)]\n"
    f"    def describe_domain(self):\n"
    f"        return {_ODD!r}\n"
    "rel = Rel()\n"
    "def lap(d, rng, n):\n"
    "    return float(d) + rng.laplace(0.0, 1.0, n)\n")


def test_cli_notes_are_printed_exactly(capsys, tmp_path, monkeypatch):
    """A note holding ':x:', '[red]', '\\[y]' and a trailing backslash (here a relation's domain text)
    prints as written: no emoji, no markup, no doubled backslash."""
    (tmp_path / "oddrel.py").write_text(_ODD_MODULE)
    monkeypatch.syspath_prepend(str(tmp_path))
    rc = main(["audit", "oddrel:lap", "--search", "oddrel:rel", "--epsilon", "1", "--samples", "2000", "--seed", "1"])
    out = capsys.readouterr().out
    assert rc in (0, 1) and f"domain searched: {_ODD}\n" in out, out
    assert "\u274c" not in out  # the emoji :x: would be


def test_cli_zcdp_search_says_it_audits_the_first_candidate_pair_only(capsys, tmp_path, monkeypatch):
    """--zcdp with a searched relation audits one pair: the notes and the JSON say which, and do not call
    the domain searched.  Laplace(1) is 1/2-zCDP, so ρ = 0.6 is not refuted (seeded)."""
    (tmp_path / "oddrel.py").write_text(_ODD_MODULE)
    monkeypatch.syspath_prepend(str(tmp_path))
    base = ["audit", "oddrel:lap", "--search", "oddrel:rel", "--zcdp", "0.6", "--samples", "20000", "--seed", "1"]
    assert main(base + ["--json"]) == 0
    js = json.loads(capsys.readouterr().out)
    assert js["pair_choice"] == "first candidate pair only: 0.0 vs 1.0"
    assert any(n.startswith("first candidate pair only: 0.0 vs 1.0") for n in js["notes"])
    assert not any(n.startswith("domain searched") for n in js["notes"])
    assert main(base) == 0
    out = capsys.readouterr().out
    assert "first candidate pair only: 0.0 vs 1.0" in out and f"domain (not searched by --zcdp): {_ODD}\n" in out, out
    assert main(["audit", "oddrel:lap", "--d", "0", "--d-prime", "1", "--zcdp", "0.6", "--samples", "20000",
                 "--seed", "1", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["pair_choice"] == "the pair given"
