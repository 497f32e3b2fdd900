"""The packaged UCI data: checksums, shapes, the 21-feature Adult encoding, user files, bad input."""

import gzip
import hashlib
import re
from pathlib import Path

import numpy as np
import pytest

from dpverify import datasets
from dpverify.datasets import ADULT_FEATURES, MAGIC_FEATURES, SHA256, load_adult, load_magic
from dpverify.datasets import loaders

DATA = Path(loaders.__file__).parent / "data"


def test_checksums_match_readme_and_files():
    readme = (DATA / "README.md").read_text()
    for name, sha in SHA256.items():
        raw = gzip.decompress((DATA / f"{name}.gz").read_bytes())
        assert hashlib.sha256(raw).hexdigest() == sha
        assert re.search(rf"\|\s*{re.escape(name)}\s*\|[^\n]*{sha}", readme), name
    assert "CC BY 4.0" in readme and "10.24432/C5XW20" in readme and "10.24432/C52C8B" in readme


def test_corrupt_packaged_file_is_detected(monkeypatch):
    with pytest.raises(ValueError, match="corrupt"):
        loaders._read_text(DATA / "magic04.data.gz", "0" * 64)


def test_adult_shapes_labels_and_encoding():
    X, y = load_adult()
    Xt, yt = load_adult(split="test")
    assert X.shape == (32561, 21) and Xt.shape == (16281, 21) and len(ADULT_FEATURES) == 21
    assert int(y.sum()) == 7841 and int(yt.sum()) == 3846
    groups = {g: [i for i, f in enumerate(ADULT_FEATURES) if f.startswith(g + "=")] for g in ("workclass", "race", "sex")}
    assert [len(v) for v in groups.values()] == [9, 5, 2]
    for cols in groups.values():
        assert np.all(X[:, cols].sum(axis=1) == 1)
    assert X[:, ADULT_FEATURES.index("workclass=?")].sum() == 1836
    assert X[:, ADULT_FEATURES.index("age")].min() == 17 and X[:, ADULT_FEATURES.index("capital-gain")].max() == 99999
    # the first record: 39, State-gov, 13, White, Male, 2174, 0, 40, <=50K
    row = dict(zip(ADULT_FEATURES, X[0]))
    assert row["age"] == 39 and row["workclass=State-gov"] == 1 and row["education-num"] == 13
    assert row["race=White"] == 1 and row["sex=Male"] == 1 and row["capital-gain"] == 2174 and y[0] == 0


def test_magic_shapes_and_labels():
    X, y = load_magic()
    assert X.shape == (19020, 10) and len(MAGIC_FEATURES) == 10
    assert int(y.sum()) == 12332 and set(np.unique(y)) == {0, 1}
    assert X[0, 0] == pytest.approx(28.7967)


def test_public_bounds_contain_the_data():
    for (X, _), (lo, hi) in ((load_adult(), datasets.ADULT_BOUNDS), (load_adult(split="test"), datasets.ADULT_BOUNDS),
                             (load_magic(), datasets.MAGIC_BOUNDS)):
        assert np.all(X >= lo) and np.all(X <= hi)


def test_returns_fresh_copies():
    X, y = load_magic()
    X[:] = 0
    y[:] = 7
    X2, y2 = load_magic()
    assert X2[0, 0] != 0 and y2.max() == 1


def _lines(name, n):
    return gzip.decompress((DATA / f"{name}.gz").read_bytes()).decode().splitlines()[:n]


def test_user_paths_plain_and_gz(tmp_path):
    text = "\n".join(_lines("adult.test", 30)) + "\n"          # includes the '|1x3 Cross validator' line
    (tmp_path / "a.txt").write_text(text)
    (tmp_path / "a.gz").write_bytes(gzip.compress(text.encode()))
    Xt, yt = load_adult(split="test")
    for f in ("a.txt", "a.gz"):
        X, y = load_adult(tmp_path / f)
        assert np.array_equal(X, Xt[:29]) and np.array_equal(y, yt[:29])
    m = "\n".join(_lines("magic04.data", 12))
    (tmp_path / "m.csv").write_text(m)
    X, y = load_magic(str(tmp_path / "m.csv"))
    assert np.array_equal(X, load_magic()[0][:12])


@pytest.mark.parametrize("mutate, match", [
    (lambda f: f[:-1], "expected 15"),
    (lambda f: [f[0], " Robot"] + f[2:], "unknown workclass"),
    (lambda f: f[:8] + [" Martian"] + f[9:], "unknown race"),
    (lambda f: f[:14] + [" maybe"], "income label"),
    (lambda f: ["forty"] + f[1:], "'age' must be numeric"),
    (lambda f: ["nan"] + f[1:], "'age' must be finite"),
])
def test_bad_adult_rows(tmp_path, mutate, match):
    lines = _lines("adult.data", 5)
    f = lines[3].split(",")
    lines[3] = ",".join(mutate(f))
    (tmp_path / "bad.data").write_text("\n".join(lines))
    with pytest.raises(ValueError, match=match) as e:
        load_adult(tmp_path / "bad.data")
    assert "line 4" in str(e.value)


@pytest.mark.parametrize("line, match", [
    ("1,2,3,4,5,6,7,8,9,10", "expected 11"),
    ("1,2,3,4,5,6,7,8,9,10,x", "class label"),
    ("1,2,3,4,abc,6,7,8,9,10,g", "'fConc1' must be numeric"),
    ("1,2,3,4,5,6,7,inf,9,10,h", "'fM3Trans' must be finite"),
])
def test_bad_magic_rows(tmp_path, line, match):
    (tmp_path / "bad.csv").write_text("1,2,3,4,5,6,7,8,9,10,g\n" + line + "\n")
    with pytest.raises(ValueError, match=match):
        load_magic(tmp_path / "bad.csv")


def test_bad_arguments(tmp_path):
    with pytest.raises(ValueError, match="split"):
        load_adult(split="validation")
    with pytest.raises(ValueError, match="not a file"):
        load_magic(tmp_path / "missing.csv")
    with pytest.raises(TypeError, match="path"):
        load_magic(123)
    (tmp_path / "empty.csv").write_text("\n\n")
    with pytest.raises(ValueError, match="no data rows"):
        load_magic(tmp_path / "empty.csv")
