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
    assert rows[0] == ["day", "n", "n_noisy_total"]
    vals = [int(r[2]) for r in rows[1:]]  # integers, no float artefacts
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
    assert all(np.isfinite(float(r[2])) for r in _read(out)[1:])


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
    assert main(argv) == 2
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
