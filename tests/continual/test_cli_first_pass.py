"""`dpverify continual release`: the first pass validates every row before any noise is drawn (issue 31, item 5).

A bad row near the end of the file is refused with the release's own one-line error naming its
line and value, exit status 2, no output, and neither the stream nor the batch release is built.
"""

import csv

import pytest

import dpverify.continual as continual
from dpverify.cli import main


def _write(tmp_path, counts, public=False):
    p = tmp_path / "in.csv"
    with p.open("w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["day", "count"])
        for i, c in enumerate(counts):
            w.writerow([i, c])
            if i % 7 == 3:
                w.writerow([])  # blank rows are skipped, yet every line keeps its number
    return p


def _line(path, value):
    with open(path, newline="") as fh:
        r = csv.reader(fh)
        for row in r:
            if row and row[1] == value:
                return r.line_num
    raise AssertionError(value)


def _no_noise(monkeypatch):
    """Fail the test if a release is set up: no noise may be drawn for a file that will be refused."""
    def boom(*args, **kwargs):
        raise AssertionError("a release was started for a file the first pass must refuse")

    monkeypatch.setattr(continual, "stream", boom)
    monkeypatch.setattr(continual, "release", boom)


def _run(inp, out, *extra):
    return main(["continual", "release", "--input", str(inp), "--column", "count", "--epsilon", "1", "--seed", "0",
                 "--output", str(out), "--chunk-rows", "16", *extra])


@pytest.mark.parametrize("method", ["fenwick", "privelet"])  # an online and an offline (batch) method
@pytest.mark.parametrize("bad, word", [("oops", "non-negative integers"), ("-3", "non-negative"),
                                       ("2.5", "integers"), ("inf", "finite"), (str(2**62), "below 2^62"),
                                       ("", "non-negative integers")])
def test_bad_row_near_the_end_refused_before_any_noise(tmp_path, capsys, monkeypatch, method, bad, word):
    counts = [i % 5 for i in range(300)]
    counts[290] = bad
    inp = _write(tmp_path, counts)
    out = tmp_path / "out.csv"
    _no_noise(monkeypatch)
    assert _run(inp, out, "--method", method) == 2
    err = capsys.readouterr().err
    assert f"line {_line(inp, bad)} of {inp} has {bad!r} in column 'count'" in err and word in err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert not out.exists() and sorted(p.name for p in tmp_path.iterdir()) == ["in.csv"]


def test_first_pass_message_is_the_release_message(tmp_path, capsys):
    """With --horizon there is no first pass and the release meets the bad row itself: the same line."""
    counts = [1] * 100
    counts[97] = "x7"
    inp = _write(tmp_path, counts)
    assert _run(inp, tmp_path / "a.csv", "--public-index", "day") == 2
    first = capsys.readouterr().err.splitlines()[-1]
    assert _run(inp, tmp_path / "b.csv", "--public-index", "day", "--horizon", "100") == 2
    assert capsys.readouterr().err.splitlines()[-1] == first
    assert f"line {_line(inp, 'x7')} " in first
    assert not (tmp_path / "a.csv").exists() and not (tmp_path / "b.csv").exists()


def test_running_total_beyond_int64_refused_naming_the_line(tmp_path, capsys, monkeypatch):
    counts = [1] * 40 + [2**61, 2**61 - 41, 1, 5]  # the total reaches 2^62 at the count 1 after the two
    inp = _write(tmp_path, counts)
    _no_noise(monkeypatch)
    assert _run(inp, tmp_path / "o.csv", "--method", "fenwick") == 2
    err = capsys.readouterr().err
    assert "running total must stay below 2^62" in err
    with open(inp, newline="") as fh:
        r = csv.reader(fh)
        lines = [r.line_num for row in r if row][1:]  # data rows only
    assert f"at line {lines[42]} of {inp}" in err
    assert not (tmp_path / "o.csv").exists()


def test_valid_file_release_unchanged(tmp_path):
    """The first pass draws nothing: the release equals the batch release of the same seed."""
    from dpverify.continual import release

    counts = [(7 * i) % 11 for i in range(200)]
    inp = _write(tmp_path, counts)
    out = tmp_path / "o.csv"
    assert _run(inp, out, "--method", "fenwick") == 0
    with open(out, newline="") as fh:
        got = [int(r[0]) for r in list(csv.reader(fh))[1:]]
    assert got == release(counts, 1.0, "fenwick", rng=0, noise="discrete").tolist()
