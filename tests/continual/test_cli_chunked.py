"""`dpverify continual release`: the fast CSV reader and the chunked release (issue 30).

The reader splits plain blocks of lines itself and hands any block with a quote, a carriage
return, a NUL or a very long line (and the rest of the file) to ``csv.reader``: the records must
be those of ``csv.reader`` on every file.  Each online method releases through its chunked
``push_many``: the output equals the method's batch release (and its row-by-row stream) for the
same seed.
"""

import csv

import numpy as np
import pytest

from dpverify.cli import main
from dpverify.continual.cli import _chunks


def _reference(path, column, public):
    """Counts and public cells of every non-empty data row, read by ``csv.reader`` alone."""
    with open(path, newline="") as fh:
        rows = [r for r in csv.reader(fh) if r]
    j = rows[0].index(column)
    jp = rows[0].index(public) if public else None
    data = rows[1:]
    cells = [r[j] if j < len(r) else "" for r in data]
    idx = [r[jp] if jp < len(r) else "" for r in data] if public else None
    return [int(c) for c in cells], idx


LINES = ["a,day,count,z\n"] + [f"x{i},{i},{i % 13},q\n" for i in range(200)]
VARIANTS = {
    "plain": LINES,
    "blank lines": [x if i % 9 or i == 0 else "\n" + x for i, x in enumerate(LINES)],
    "no final newline": LINES[:-1] + [LINES[-1].rstrip("\n")],
    "short rows": [x if i % 11 != 5 else f"x{i},{i},{i % 13}\n" for i, x in enumerate(LINES)],
    "quoted late": LINES[:150] + ['"multi\nline",150,"7",q\n'] + LINES[151:],
    "quoted comma": LINES[:3] + ['"a,b",3,4,"q,q"\n'] + LINES[4:],
    "crlf late": LINES[:120] + [x.replace("\n", "\r\n") for x in LINES[120:]],
    "trailing comma": [x.rstrip("\n") + ",\n" for x in LINES],
    "nul": LINES[:60] + ["x\0,60,5,q\0\n"] + LINES[61:],
    "lone cr": LINES[:30] + ["x,30,5,q\r"] + LINES[31:],
}


@pytest.mark.parametrize("name", sorted(VARIANTS))
@pytest.mark.parametrize("chunk", [3, 64])
@pytest.mark.parametrize("public", ["day", "z"])
def test_records_are_those_of_csv_reader(tmp_path, name, chunk, public):
    p = tmp_path / "in.csv"
    p.write_bytes("".join(VARIANTS[name]).encode())
    counts, idx = _reference(p, "count", public)
    got = list(_chunks(str(p), "count", public, chunk))
    assert [int(v) for _, a in got for v in a] == counts
    assert [c for i, _ in got for c in i] == idx
    assert all(a.size <= chunk for _, a in got)


def test_long_field_refused_like_csv_reader(tmp_path, capsys):
    """A field beyond the csv limit: csv.reader's error, naming the line, in both passes."""
    p = tmp_path / "in.csv"
    p.write_text("day,count\n" + "".join(f"{i},1\n" for i in range(50)) + "1," + "9" * (csv.field_size_limit() + 1)
                 + "\n2,3\n")
    out = tmp_path / "o.csv"
    assert main(["continual", "release", "--input", str(p), "--column", "count", "--epsilon", "1",
                 "--output", str(out), "--chunk-rows", "8"]) == 2
    err = capsys.readouterr().err
    assert "line 52: not a CSV file dpverify can read (field larger than field limit" in err
    assert not out.exists()


def _cli(tmp_path, counts, method, noise, chunk, *extra):
    inp = tmp_path / "in.csv"
    inp.write_text("day,count\n" + "".join(f"{i},{c}\n" for i, c in enumerate(counts)))
    out = tmp_path / f"o_{len(list(tmp_path.iterdir()))}.csv"
    assert main(["continual", "release", "--input", str(inp), "--column", "count", "--epsilon", "0.5",
                 "--seed", "3", "--method", method, "--noise", noise, "--output", str(out),
                 "--chunk-rows", str(chunk), *extra]) == 0
    with open(out, newline="") as fh:
        col = [r[-1] for r in list(csv.reader(fh))[1:]]
    return [int(v) for v in col] if noise == "discrete" else [float(v) for v in col]


@pytest.mark.parametrize("method", ["elders", "fda", "kary-fda", "binary"])
@pytest.mark.parametrize("noise", ["discrete", "laplace"])
def test_cli_release_is_the_batch_release(tmp_path, method, noise):
    """Chunks of 97 rows (not aligned with the noise runs) give the batch release of the same seed."""
    import warnings

    from dpverify.continual import release

    counts = [(5 * i) % 7 for i in range(1000)]
    got = _cli(tmp_path, counts, method, noise, 97)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        want = release(counts, 0.5, method, rng=np.random.default_rng(3), noise=noise)
    if noise == "discrete":
        assert got == want.tolist()
    else:
        assert np.allclose(got, want, rtol=1e-12, atol=1e-9)
    assert got != _cli(tmp_path, counts[:-1] + [counts[-1] + 1], method, noise, 97)  # the check can flip
