"""The finished rooms' commands as a user runs them: clear errors with exit status 2, JSON that parses.

Runs ``dpverify.cli.main`` in-process (same code path as the console script).
"""

from __future__ import annotations

import json
import re

import pytest

from dpverify.cli import main


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def run_exit(capsys, *argv):
    """Like :func:`run`, for argparse errors (SystemExit)."""
    with pytest.raises(SystemExit) as info:
        main(list(argv))
    out, err = capsys.readouterr()
    return info.value.code, out, err


# ------------------------------------------------------------------ rr


@pytest.mark.parametrize(
    "argv, needle",
    [
        (["--epsilon", "0", "--pi", "0.2,0.8"], "epsilon"),
        (["--epsilon", "nan", "--pi", "0.2,0.8"], "epsilon"),
        (["--epsilon", "inf", "--pi", "0.2,0.8"], "epsilon"),
        (["--epsilon", "1", "--pi", "0.2,0.9"], "pi"),
        (["--epsilon", "1", "--pi=-0.5,1.5"], "pi"),
        (["--epsilon", "1", "--pi", "a,b"], "--pi"),
        (["--epsilon", "1", "--pi", "1"], "pi"),
        (["--epsilon", "1", "--pi", "0.5,0.5,nan"], "pi"),
        (["--epsilon", "1", "--delta", "1", "--pi", "0.5,0.5"], "delta"),
        (["--epsilon", "1", "--delta", "-0.1", "--pi", "0.5,0.5"], "delta"),
    ],
)
def test_rr_bad_values_exit_2(capsys, argv, needle):
    code, out, err = run(capsys, "rr", *argv)
    assert code == 2 and needle in err and "Traceback" not in err


def test_rr_unparsable_arguments_exit_2(capsys):
    code, _, err = run_exit(capsys, "rr", "--epsilon", "x", "--pi", "0.5,0.5")
    assert code == 2 and "--epsilon" in err
    code, _, err = run_exit(capsys, "rr", "--pi", "0.5,0.5")
    assert code == 2 and "--epsilon" in err


def test_rr_json_parses_and_matches_the_library(capsys):
    from dpverify.rr import optimal_utility

    code, out, _ = run(capsys, "rr", "--epsilon", "0.1", "--delta", "0.15", "--pi", "0.2,0.8", "--json")
    doc = json.loads(out)
    assert code == 0
    assert doc["u_star"] == pytest.approx(optimal_utility([0.2, 0.8], 0.1, 0.15), abs=1e-15)
    assert doc["lp_certified"] is True and abs(doc["lp_u"] - doc["u_star"]) < 1e-9
    assert doc["ldp"]["standard"]["holds"] and doc["ldp"]["per_output"]["holds"]


@pytest.mark.parametrize("eps", ["40", "700"])
def test_rr_large_epsilon_lp_is_solved(capsys, eps):
    """Regression: e^ε above 1e15 made HiGHS reject the LP (ε = 40) or overflowed (ε > 709.78)."""
    code, out, err = run(capsys, "rr", "--epsilon", eps, "--pi", "0.5,0.3,0.2", "--json")
    doc = json.loads(out)
    assert code == 0, err
    assert doc["lp_certified"] is True and abs(doc["lp_u"] - doc["u_star"]) < 1e-9


def test_rr_underflowing_matrix_is_reported_not_hidden(capsys):
    code, out, _ = run(capsys, "rr", "--epsilon", "800", "--pi", "0.5,0.3,0.2")
    assert code == 1 and "exact_optimum" in out
    code, out, _ = run(capsys, "rr", "--epsilon", "800", "--pi", "0.5,0.3,0.2", "--json")  # same status with --json
    assert code == 1 and json.loads(out)["ldp"]["standard"]["holds"] is False


# ------------------------------------------------------------------ continual


@pytest.fixture
def csvs(tmp_path):
    files = {
        "good": "day,n\n1,3\n2,0\n3,5\n4,2\n",
        "neg": "day,n\n1,3\n2,-1\n",
        "frac": "day,n\n1,3\n2,2.5\n",
        "nan": "day,n\n1,nan\n",
        "blank": "day,n\n1,3\n2,\n",
        "empty": "",
        "header": "day,n\n",
    }
    out = {}
    for k, text in files.items():
        p = tmp_path / f"{k}.csv"
        p.write_text(text)
        out[k] = str(p)
    return out


@pytest.mark.parametrize(
    "which, extra, needle",
    [
        ("neg", [], "non-negative"),
        ("frac", [], "integers"),
        ("nan", [], "finite"),
        ("blank", [], "line 3"),
        ("empty", [], "empty"),
        ("header", [], "non-empty"),
        ("good", ["--epsilon", "0"], "epsilon"),
        ("good", ["--epsilon", "nan"], "epsilon"),
        ("good", ["--method", "bogus"], "method"),
        ("good", ["--seed", "-3"], "--seed"),
        ("good", ["--column", "x"], "--column"),
    ],
)
def test_continual_release_bad_input_exit_2(capsys, tmp_path, csvs, which, extra, needle):
    argv = ["continual", "release", "--input", csvs[which], "--column", "n", "--epsilon", "1",
            "--output", str(tmp_path / "o.csv")]
    for i in range(0, len(extra), 2):  # override an option
        if extra[i] in argv:
            argv[argv.index(extra[i]) + 1] = extra[i + 1]
        else:
            argv += extra[i : i + 2]
    code, _, err = run(capsys, *argv)
    assert code == 2 and needle in err and "Traceback" not in err


def test_continual_release_missing_files_exit_2(capsys, tmp_path, csvs):
    code, _, err = run(capsys, "continual", "release", "--input", str(tmp_path / "nope.csv"), "--column", "n",
                       "--epsilon", "1", "--output", str(tmp_path / "o.csv"))
    assert code == 2 and "--input" in err
    code, _, err = run(capsys, "continual", "release", "--input", csvs["good"], "--column", "n",
                       "--epsilon", "1", "--output", str(tmp_path / "no" / "dir" / "o.csv"))
    assert code == 2 and "--output" in err


def test_continual_release_json_and_output(capsys, tmp_path, csvs):
    out_csv = tmp_path / "o.csv"
    code, out, _ = run(capsys, "continual", "release", "--input", csvs["good"], "--column", "n", "--epsilon", "1e9",
                       "--seed", "0", "--output", str(out_csv), "--json")
    assert code == 0 and json.loads(out)["n"] == 4
    rows = out_csv.read_text().splitlines()
    assert rows[0] == "n_noisy_total"  # only what is released (issue 10): never the private column
    assert rows[1:] == ["3", "3", "8", "10"]  # ε = 1e9: the exact running totals


def test_continual_mse_json_matches_library(capsys):
    from dpverify.continual import expected_mse

    code, out, _ = run(capsys, "continual", "mse", "--n", "7", "--epsilon", "0.5", "--json")
    rows = {r["method"]: r for r in json.loads(out)}
    assert code == 0 and set(rows) == {"naive", "fenwick", "fda"}
    for m, r in rows.items():
        assert r["total"] == pytest.approx(float(expected_mse(7, 0.5, m).sum()), rel=1e-12)


@pytest.mark.parametrize("argv, needle", [(["--n", "0"], "n"), (["--epsilon", "-1"], "epsilon"),
                                          (["--method", "bogus"], "method")])
def test_continual_mse_bad_values_exit_2(capsys, argv, needle):
    base = {"--n": "7", "--epsilon": "1"}
    for i in range(0, len(argv), 2):
        base[argv[i]] = argv[i + 1]
    code, _, err = run(capsys, "continual", "mse", *[x for kv in base.items() for x in kv])
    assert code == 2 and needle in err


def test_continual_mse_laplace_only_methods(capsys):
    """Regression: every registered method has an MSE under the default Laplace noise (the CLI used to
    pass ``noise=`` to methods that do not take it); asking them for discrete noise is a clear error."""
    from dpverify.continual import method_names

    for m in method_names():
        code, out, err = run(capsys, "continual", "mse", "--n", "8", "--epsilon", "1", "--method", m, "--json")
        assert code == 0, (m, err)
        assert json.loads(out)[0]["method"] == m
    code, _, err = run(capsys, "continual", "mse", "--n", "8", "--epsilon", "1", "--method", "boost", "--noise", "discrete")
    assert code == 2 and "Laplace" in err


# ------------------------------------------------------------------ report


def test_report_bad_arguments_exit_2(capsys, tmp_path):
    (tmp_path / "bad.json").write_text("not json")
    (tmp_path / "f.txt").write_text("x")
    cases = [
        ([], "--out"),
        (["--only", "zzz.", "--out", str(tmp_path / "r")], "zzz."),
        (["--compare", str(tmp_path / "missing.json")], "missing.json"),
        (["--compare", str(tmp_path / "bad.json"), str(tmp_path / "bad.json")], "not JSON"),
        (["--compare", "a", "b", "c"], "OLD.json"),
        (["--only", "rr.example", "--out", str(tmp_path / "r"), "--jobs", "0"], "jobs"),
        (["--only", "rr.example", "--out", str(tmp_path / "r"), "--timeout", "nan"], "timeout"),
        (["--only", "rr.example", "--out", str(tmp_path / "f.txt")], "directory"),
    ]
    for argv, needle in cases:
        code, _, err = run(capsys, "report", *argv)
        assert code == 2 and needle in err, (argv, err)


def test_report_json_and_compare(capsys, tmp_path):
    code, out, _ = run(capsys, "report", "--only", "rr.example", "--out", str(tmp_path / "a"), "--json")
    doc = json.loads(out)
    assert code == 0 and [c["id"] for c in doc["claims"]] == ["rr.example"]
    code, out, _ = run(capsys, "report", "--compare", str(tmp_path / "a" / "report.json"),
                       str(tmp_path / "a" / "report.json"), "--json")
    assert code == 0 and json.loads(out)["changes"] == []


def test_continual_release_keeps_big_integers_exact(capsys, tmp_path):
    """Regression: one "1.0" cell turned the whole column into float64 and 2^53 + 1 into 2^53."""
    src = tmp_path / "big.csv"
    src.write_text("day,n\n1,9007199254740993\n2,1.0\n")
    out_csv = tmp_path / "o.csv"
    code, _, err = run(capsys, "continual", "release", "--input", str(src), "--column", "n", "--epsilon", "1e9",
                       "--seed", "0", "--output", str(out_csv))
    assert code == 0, err
    assert out_csv.read_text().splitlines()[1:] == ["9007199254740993", "9007199254740994"]


# ------------------------------------------------------------------ for people (issue 14)

# every command; a command's sub-commands (continual release/mse) are walked too
DOCUMENTED = ("verify", "claims", "report", "rr", "pca-evaluate", "pca-audit", "audit", "continual")


def test_help_and_version_import_no_room():
    """`dpverify --help` / `--version` import no room, nor scipy, sympy or cvxpy: they start at once."""
    import subprocess
    import sys

    probe = ("import sys\nfrom dpverify.cli import main\n"
             "try:\n    main([{arg!r}])\nexcept SystemExit:\n    pass\n"
             "heavy = sorted(m for m in sys.modules if m.split('.')[0] in ('scipy', 'sympy', 'cvxpy', 'sklearn', "
             "'matplotlib') or m.startswith(('dpverify.rr', 'dpverify.pca', 'dpverify.continual', "
             "'dpverify.audit', 'dpverify.primitives', 'dpverify.claims', 'dpverify.report')))\n"
             "print('HEAVY', heavy, file=sys.stderr)\n")
    for arg in ("--help", "--version"):
        res = subprocess.run([sys.executable, "-c", probe.format(arg=arg)], capture_output=True, text=True, timeout=60)
        assert "HEAVY []" in res.stderr, res.stderr[-2000:]
        assert "dpverify" in res.stdout


def test_help_has_a_glossary(capsys):
    code, out, _ = run_exit(capsys, "--help")
    assert code == 0
    for word in ("glossary:", "claim", "room", "paper", "--seed", "erratum", "inconclusive", "e^ε", "u*",
                 "direction", "exit status"):
        assert word in out, word


def test_every_flag_has_help_and_lists_its_choices():
    import argparse

    from dpverify.cli import build_parser

    sub = next(a for a in build_parser(None)._actions if isinstance(a, argparse._SubParsersAction))
    for name in DOCUMENTED:
        parsers = [(name, sub.choices[name])]
        while parsers:
            label, parser = parsers.pop()
            for a in parser._actions:
                if isinstance(a, argparse._HelpAction):
                    continue
                assert a.help, f"dpverify {label} {a.option_strings or a.dest}: no help text"
                if isinstance(a, argparse._SubParsersAction):
                    parsers += [(f"{label} {n}", sp) for n, sp in a.choices.items()]
                    continue
                if a.choices and a.metavar:  # argparse lists choices itself unless a metavar hides them
                    missing = [c for c in a.choices if str(c) not in a.help]
                    assert not missing, f"dpverify {label} {a.option_strings}: choices {missing} not listed"
    for name in ("rr", "pca-audit"):  # the privacy parameters are spelled the same everywhere
        assert "--epsilon" in sub.choices[name]._option_string_actions
    assert "--epsilon" in sub.choices["pca-evaluate"]._option_string_actions
    for name in ("pca-evaluate", "pca-audit"):
        assert "RNG seed" in sub.choices[name]._option_string_actions["--seed"].help


def test_claims_only_without_match_exits_2(capsys):
    code, out, err = run(capsys, "claims", "--only", "no.such.room.")
    assert code == 2 and "no claim matches" in err and out == ""


@pytest.mark.parametrize("exc, needle", [
    (IsADirectoryError(21, "Is a directory", "out"), "Is a directory: 'out'"),
    (NotADirectoryError(20, "Not a directory", "f/x"), "Not a directory: 'f/x'"),
    (OSError(28, "No space left on device", "report.html"), "No space left on device"),
    (MemoryError(), "out of memory"),
    (OverflowError("math range error"), "too large"),
])
def test_system_errors_are_one_line_exit_2(capsys, monkeypatch, exc, needle):
    import warnings

    import dpverify.rr.cli as rr_cli

    def boom(args):
        warnings.warn("overflow encountered in exp", RuntimeWarning)  # must not print before the error
        raise exc

    monkeypatch.setattr(rr_cli, "cmd_rr", boom)
    code, out, err = run(capsys, "rr", "--epsilon", "1", "--pi", "0.5,0.5")
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("dpverify rr: error: ") and needle in err, err
    assert "RuntimeWarning" not in err and "Traceback" not in err


def test_warnings_of_a_successful_command_come_after_it(capsys, monkeypatch):
    import warnings

    import dpverify.rr.cli as rr_cli

    def ok(args):
        warnings.warn("something to know", RuntimeWarning)
        print("result")
        return 0

    monkeypatch.setattr(rr_cli, "cmd_rr", ok)
    code, out, err = run(capsys, "rr", "--epsilon", "1", "--pi", "0.5,0.5")
    assert code == 0 and out == "result\n" and "something to know" in err


def test_rr_pure_dp_shows_no_float_noise_delta(capsys):
    code, out, _ = run(capsys, "rr", "--epsilon", "1", "--pi", "0.2,0.3,0.5", "--json")
    ldp = json.loads(out)["ldp"]
    assert code == 0
    for d in ("standard", "per_output"):
        assert ldp[d]["required_delta"] == 0.0 and ldp[d]["tolerance"] == 1e-12
        assert abs(ldp[d]["required_delta_float"]) <= 1e-12
    code, out, _ = run(capsys, "rr", "--epsilon", "1", "--pi", "0.2,0.3,0.5")
    assert code == 0 and not re.search(r"\de-1[3-9]", out) and "smallest δ at this ε" in out
    code, out, _ = run(capsys, "rr", "--epsilon", "1", "--delta", "0.1", "--pi", "0.2,0.3,0.5", "--json")
    assert json.loads(out)["ldp"]["standard"]["required_delta"] == 0.1  # 0.1 + 1e-16 is rounding of the δ asked


def test_pca_evaluate_remarks_majority_rate_and_shows_progress(capsys):
    """Not on a terminal, progress comes as plain lines on stderr; a majority-rate accuracy is remarked."""
    import subprocess
    import sys

    res = subprocess.run([sys.executable, "-m", "dpverify", "pca-evaluate", "--dataset", "adult", "--methods",
                          "ppca-dp", "--epsilon", "1", "--ks", "1", "2", "--runs", "1", "--max-rows", "2000"],
                         capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr
    assert "= majority-class" in res.stdout and "majority-class rate 0.7638" in res.stdout
    # plain progress lines: the plan first, then "<label>: <done> ... (<t> s) ..." at most once a second —
    # how many depends on the machine's load (a quiet machine finishes within the second and prints only
    # the plan), so the test checks the first line and the form of every line
    lines = res.stderr.splitlines()
    assert lines and lines[0] == "pca-evaluate adult: loading the data, then 1 run(s) per grid cell", res.stderr
    assert all(re.match(r"pca-evaluate adult: \d+ .*\(\d+\.\d s\)", ln) for ln in lines[1:]), res.stderr
    assert "\x1b" not in res.stderr and "\r" not in res.stderr
    code, out, _ = run(capsys, "pca-evaluate", "--dataset", "adult", "--methods", "ppca", "--ks", "9", "--runs", "1",
                       "--max-rows", "2000", "--json")
    doc = json.loads(out)
    assert doc["rows"][0]["at_majority_rate"] is False and doc["remark"] == ""  # PPCA's SVM learns something


def test_e_to_the_epsilon_never_prints_as_euler_e():
    """The symbol for e^ε prints as e^ε (sympy would read a bare "E" back as Euler's number)."""
    import sympy as sp

    from dpverify.claims import all_claims, result_to_json, run_claims
    from dpverify.rr import symbolic

    assert str(symbolic.E) == "e^ε" and sp.sympify("E") != symbolic.E
    _, b, _ = symbolic.standard_form()
    assert "e^ε" in str(b) and not re.search(r"\bE\b", str(b))
    ev = json.dumps(result_to_json(run_claims(all_claims("rr.model2.standard_form"))[0])["evidence"],
                    ensure_ascii=False)
    assert not re.search(r"\bE\b", ev), ev


# ------------------------------------------------------------------ verify's summary line


def test_verify_summary_counts_read_as_english(tmp_path):
    """One claim, one differing: '1 claim: ...; 1 differs', not '1 claims' / '1 differ'."""
    import subprocess
    import sys

    f = tmp_path / "one_claim.py"
    f.write_text(
        "from dpverify.toolkit import claim, Source\n"
        "@claim('zzone.wrong', source=Source('paper', '§1'), statement='s', method='exact computation')\n"
        "def _c(thorough=False):\n"
        "    from dpverify.claims import Outcome, Verdict\n"
        "    return Outcome(Verdict.REFUTED, 'no', {})\n", encoding="utf-8")
    out = subprocess.run([sys.executable, "-m", "dpverify", "verify", str(f)], capture_output=True, text=True,
                         timeout=300, cwd=tmp_path)
    text = " ".join(out.stdout.split())
    assert "1 claim: " in text and "; 1 differs from the expected verdict" in text, out.stdout + out.stderr
