"""`dpverify continual release|mse`: CSV in, noisy running totals out; bad input exits with status 2."""

import csv
import json

import numpy as np
import pytest

from dpverify.cli import main


def _write(tmp_path, rows, header=("day", "n")):
    p = tmp_path / "in.csv"
    with p.open("w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(header)
        w.writerows(rows)
    return p


def _read(p):
    with open(p, newline="") as fh:
        return list(csv.reader(fh))


def test_release_default_is_discrete_fda(tmp_path):
    inp = _write(tmp_path, [[i, v] for i, v in enumerate([3, 0, 5, 2, 7, 1, 1], start=1)])
    out = tmp_path / "out.csv"
    assert main(["continual", "release", "--input", str(inp), "--column", "n", "--epsilon", "1", "--seed", "4",
                 "--output", str(out)]) == 0
    rows = _read(out)
    assert rows[0] == ["n_noisy_total"]  # only what is released
    vals = [int(r[0]) for r in rows[1:]]  # integers, no float artefacts
    assert len(vals) == 7
    from dpverify.continual import release

    assert vals == release([3, 0, 5, 2, 7, 1, 1], 1.0, "fda", rng=4, noise="discrete").tolist()


def test_release_laplace_naive_json(tmp_path, capsys):
    inp = _write(tmp_path, [[1, 2], [2, 2]])
    out = tmp_path / "o.csv"
    code = main(["continual", "release", "--input", str(inp), "--column", "n", "--epsilon", "0.5", "--method", "naive",
                 "--noise", "laplace", "--seed", "1", "--output", str(out), "--json"])
    assert code == 0
    info = json.loads(capsys.readouterr().out)
    assert info["n"] == 2 and info["method"] == "naive"
    assert all(np.isfinite(float(r[0])) for r in _read(out)[1:])


@pytest.mark.parametrize(
    "rows, args",
    [
        ([[1, -2]], ["--epsilon", "1"]),
        ([[1, 2.5]], ["--epsilon", "1"]),
        ([[1, "x"]], ["--epsilon", "1"]),
        ([[1, 2]], ["--epsilon", "0"]),
        ([[1, 2]], ["--epsilon", "nan"]),
        ([[1, 2]], ["--epsilon", "1", "--column", "missing"]),
        ([[1, 2]], ["--epsilon", "1", "--method", "nope"]),
    ],
)
def test_release_bad_input(tmp_path, capsys, rows, args):
    inp = _write(tmp_path, rows)
    out = tmp_path / "o.csv"
    argv = ["continual", "release", "--input", str(inp), "--output", str(out)] + args
    if "--column" not in args:
        argv += ["--column", "n"]
    try:
        code = main(argv)
    except SystemExit as exc:  # argparse rejects a --method outside the registry's choices
        code = exc.code
    assert code == 2
    assert "error" in capsys.readouterr().err
    assert not out.exists()


def test_missing_file(tmp_path):
    assert main(["continual", "release", "--input", str(tmp_path / "nope.csv"), "--column", "n", "--epsilon", "1",
                 "--output", str(tmp_path / "o.csv")]) == 2


def test_mse_json(capsys):
    assert main(["continual", "mse", "--n", "7", "--epsilon", "1", "--json"]) == 0
    rows = {r["method"]: r for r in json.loads(capsys.readouterr().out)}
    assert rows["naive"]["total"] == pytest.approx(2 * 28)
    assert rows["fda"]["total"] < rows["fenwick"]["total"] < rows["naive"]["total"] + 1e9


# ---------------------------------------------------------------- release only what is released (issue 10)

def _distinctive(tmp_path, n=300):
    """Counts whose decimal strings are distinctive (7 digits, never a plausible noisy total)."""
    vals = [9000001 + 7 * i for i in range(n)]
    days = [f"2026-01-{i:04d}" for i in range(n)]
    return _write(tmp_path, list(zip(days, vals)), header=("day", "count")), vals, days


@pytest.mark.parametrize("public", [None, "day"])
def test_output_holds_no_input_value(tmp_path, public):
    inp, vals, days = _distinctive(tmp_path)
    out = tmp_path / "o.csv"
    argv = ["continual", "release", "--input", str(inp), "--column", "count", "--epsilon", "1", "--seed", "0",
            "--output", str(out), "--chunk-rows", "64"]
    if public:
        argv += ["--public-index", public]
    assert main(argv) == 0
    rows = _read(out)
    assert rows[0] == ([public] if public else []) + ["count_noisy_total"]
    totals = [r[-1] for r in rows[1:]]
    raw = {str(v) for v in vals}
    # Release 1 is count 1 + integer noise, so it equals a count when the noise happens to be 0 (or a
    # multiple of 7): a legitimate output.  Every later total is ~t·9e6, far from every count, so the
    # raw column can appear nowhere else -- and no other column of the file may hold a count.
    assert not set(totals[1:]) & raw, "a raw count was written to the output"
    other_cells = {c for r in rows for c in r[:-1]}
    assert not other_cells & raw
    assert len(totals) == len(vals)
    assert [r[0] for r in rows[1:]] == (days if public else [r[0] for r in rows[1:]])
    # the test can fail: the raw column is distinctive, and the old output (rows + total) would contain it
    assert str(vals[0]) in inp.read_text()


def test_public_index_cannot_be_the_private_column(tmp_path, capsys):
    inp, _, _ = _distinctive(tmp_path, 5)
    out = tmp_path / "o.csv"
    assert main(["continual", "release", "--input", str(inp), "--column", "count", "--epsilon", "1",
                 "--public-index", "count", "--output", str(out)]) == 2
    assert "--public-index" in capsys.readouterr().err and not out.exists()


def test_refuses_input_as_output_existing_file_and_bad_paths(tmp_path, capsys):
    import os

    inp, _, _ = _distinctive(tmp_path, 5)
    before = inp.read_bytes()
    link = tmp_path / "link.csv"
    os.symlink(inp, link)
    base = ["continual", "release", "--column", "count", "--epsilon", "1"]
    for i, o, extra in [(inp, inp, []), (inp, tmp_path / "." / "in.csv", ["--force"]), (link, inp, ["--force"]),
                        (inp, link, ["--force"])]:
        assert main(base + ["--input", str(i), "--output", str(o)] + extra) == 2
        assert "input" in capsys.readouterr().err
    assert inp.read_bytes() == before
    existing = tmp_path / "exists.csv"
    existing.write_text("keep\n")
    assert main(base + ["--input", str(inp), "--output", str(existing)]) == 2
    assert "--force" in capsys.readouterr().err and existing.read_text() == "keep\n"
    assert main(base + ["--input", str(inp), "--output", str(existing), "--force"]) == 0
    assert _read(existing)[0] == ["count_noisy_total"]
    for bad, word in [(tmp_path, "directory"), (tmp_path / "nodir" / "o.csv", "does not exist"),
                      (inp / "sub.csv", "not a directory")]:
        assert main(base + ["--input", str(inp), "--output", str(bad)]) == 2
        err = capsys.readouterr().err
        assert word in err and err.count("\n") == 1 and "Traceback" not in err


def test_full_disk_leaves_no_partial_file(tmp_path, capsys, monkeypatch):
    import errno

    import dpverify.atomic as io_mod

    inp, _, _ = _distinctive(tmp_path, 2000)
    out = tmp_path / "o.csv"
    real_fdopen = io_mod.os.fdopen

    class Full:  # the file the library writes to: the disk fills up after 3000 bytes
        def __init__(self, f):
            self.f, self.left = f, 3000

        def write(self, s):
            self.left -= len(s)
            if self.left < 0:
                raise OSError(errno.ENOSPC, "No space left on device")
            return self.f.write(s)

        def __getattr__(self, name):
            return getattr(self.f, name)

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return self.f.__exit__(*exc)

    monkeypatch.setattr(io_mod.os, "fdopen", lambda *a, **k: Full(real_fdopen(*a, **k)))
    assert main(["continual", "release", "--input", str(inp), "--column", "count", "--epsilon", "1",
                 "--output", str(out), "--chunk-rows", "100"]) == 2
    err = capsys.readouterr().err
    assert "No space left" in err and err.count("\n") == 1
    assert not out.exists() and sorted(p.name for p in tmp_path.iterdir()) == ["in.csv"]  # no temporary left


def test_horizon_flag_and_too_many_rows(tmp_path, capsys):
    inp, vals, _ = _distinctive(tmp_path, 50)
    out = tmp_path / "o.csv"
    base = ["continual", "release", "--input", str(inp), "--column", "count", "--epsilon", "1e9", "--seed", "1"]
    assert main(base + ["--output", str(out), "--horizon", "64"]) == 0
    assert [int(r[0]) for r in _read(out)[1:]] == np.cumsum(vals).tolist()  # ε huge: the truth
    assert main(base + ["--output", str(tmp_path / "p.csv"), "--horizon", "49"]) == 2
    assert "horizon" in capsys.readouterr().err and not (tmp_path / "p.csv").exists()


def test_streamed_equals_batch_across_chunks(tmp_path):
    """Chunked streaming gives exactly the batch release of the same seed (discrete, exact state)."""
    from dpverify.continual import release

    inp, vals, _ = _distinctive(tmp_path, 700)
    for method in ("naive", "fenwick", "fda", "kary-fda"):
        out = tmp_path / f"{method}.csv"
        assert main(["continual", "release", "--input", str(inp), "--column", "count", "--epsilon", "0.5",
                     "--seed", "3", "--method", method, "--output", str(out), "--chunk-rows", "77"]) == 0
        got = [int(r[0]) for r in _read(out)[1:]]
        assert got == release(vals, 0.5, method, rng=3).tolist(), method


@pytest.mark.parametrize("args, word", [(["--n", "10000000000"], "budget"), (["--n", str(2**70)], "budget"),
                                        (["--epsilon", "1e308"], "epsilon"), (["--epsilon", "5e-324"], "epsilon")])
def test_mse_extremes_are_one_line_errors(capsys, args, word):
    argv = ["continual", "mse", "--n", "7", "--epsilon", "1"]
    for flag, val in zip(args[::2], args[1::2]):
        argv[argv.index(flag) + 1] = val
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert word in err and err.count("\n") == 1 and "Traceback" not in err


def test_every_flag_has_help_and_methods_come_from_the_registry():
    import argparse

    from dpverify.cli import build_parser
    from dpverify.continual import method_names

    p = build_parser(["continual"])
    sub = next(a for a in p._actions if isinstance(a, argparse._SubParsersAction)).choices["continual"]
    cmds = next(a for a in sub._actions if isinstance(a, argparse._SubParsersAction)).choices
    for name, cp in cmds.items():
        for a in cp._actions:
            if a.option_strings and a.dest != "help":
                assert a.help, (name, a.option_strings)
                assert not any(o in ("--eps",) for o in a.option_strings)
        meth = next(a for a in cp._actions if a.dest == "method")
        assert all(m in meth.help for m in method_names())  # the choices, from the registry
