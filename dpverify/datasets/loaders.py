"""Loaders for UCI Adult and UCI MAGIC gamma telescope, as the PPCA-DP paper (Gu, Zhang, Song) uses them.

Adult: the paper keeps age, workclass, education-num, race, gender, capital-gain,
capital-loss, hours-per-week and income, and says the encoded data have 21
features with income as the target.  We reproduce the 21 as follows:

* the 5 numeric attributes are kept as they are (age, education-num,
  capital-gain, capital-loss, hours-per-week);
* the 3 categorical ones are one-hot encoded over the category lists printed in
  ``adult.names`` (public, data-independent), with the missing-value marker
  ``?`` kept as a category of its own because all 32,561 rows are used:
  workclass 8 + ``?`` = 9 columns, race 5 columns, sex 2 columns.

5 + 9 + 5 + 2 = 21, and income (``>50K`` -> 1, ``<=50K`` -> 0) is y.  This is
exactly what ``pandas.get_dummies`` gives on those 8 columns of ``adult.data``,
which is most likely how the authors got 21; dropping the ``?`` rows would give
20 columns and fewer rows.

MAGIC: the 10 numeric features; class ``g`` (gamma, signal) -> 1, ``h``
(hadron, background) -> 0.
"""

from __future__ import annotations

import functools
import gzip
import hashlib
import os
import zlib
from pathlib import Path
from types import MappingProxyType

import numpy as np

from dpverify.validation import check_budget, check_path

__all__ = [
    "ADULT_BOUNDS",
    "ADULT_FEATURES",
    "MAGIC_BOUNDS",
    "MAGIC_FEATURES",
    "SHA256",
    "load_adult",
    "load_magic",
]

_DATA = Path(__file__).resolve().parent / "data"

def _frozen(a: np.ndarray) -> np.ndarray:
    """A read-only array (module constants cannot be changed by callers)."""
    a = np.array(a, dtype=float)
    a.flags.writeable = False
    return a


#: SHA-256 of the uncompressed originals (see data/README.md); read-only.
SHA256 = MappingProxyType({
    "adult.data": "5b00264637dbfec36bdeaab5676b0b309ff9eb788d63554ca0a249491c86603d",
    "adult.test": "a2a9044bc167a35b2361efbabec64e89d69ce82d9790d2980119aac5fd7e9c05",
    "adult.names": "c248284c0b5de30c9e1958d6cdd168a34a654758b620e68f46aefa83fc0a576a",
    "magic04.data": "e9314b7ebd4b4b59a3b3d65f7316663963777b16a46786877651dbbaa640b36a",
})

# Category lists as printed in adult.names (public), plus '?' for a missing workclass.
_WORKCLASS = ("Private", "Self-emp-not-inc", "Self-emp-inc", "Federal-gov", "Local-gov",
              "State-gov", "Without-pay", "Never-worked", "?")
_RACE = ("White", "Asian-Pac-Islander", "Amer-Indian-Eskimo", "Other", "Black")
_SEX = ("Female", "Male")
# column indices in adult.data (15 comma-separated fields)
_AGE, _WORK, _EDUNUM, _RACE_I, _SEX_I, _CGAIN, _CLOSS, _HOURS, _INCOME = 0, 1, 4, 8, 9, 10, 11, 12, 14

#: The 21 feature names, in column order of ``load_adult()[0]``.
ADULT_FEATURES: tuple[str, ...] = (
    ("age",)
    + tuple(f"workclass={c}" for c in _WORKCLASS)
    + ("education-num",)
    + tuple(f"race={c}" for c in _RACE)
    + tuple(f"sex={c}" for c in _SEX)
    + ("capital-gain", "capital-loss", "hours-per-week")
)

MAGIC_FEATURES: tuple[str, ...] = ("fLength", "fWidth", "fSize", "fConc", "fConc1", "fAsym",
                                   "fM3Long", "fM3Trans", "fAlpha", "fDist")

#: Public per-feature bounds (lower, upper) used by the DP-correct mechanism.
#: Adult: age and hours-per-week are top-coded at 90 and 99, capital-gain at 99999,
#: education-num has 16 levels, one-hot columns are in [0, 1]; capital-loss has no
#: documented top code and its bound 5000 was rounded outward from the observed
#: maximum (4356) -- strictly, that choice looked at the data.
#: A tuple of two read-only arrays.
ADULT_BOUNDS: tuple[np.ndarray, np.ndarray] = (
    _frozen([0.0] + [0.0] * 9 + [1.0] + [0.0] * 7 + [0.0, 0.0, 1.0]),
    _frozen([90.0] + [1.0] * 9 + [16.0] + [1.0] * 7 + [99999.0, 5000.0, 99.0]),
)
#: MAGIC: fConc, fConc1 are ratios in [0, 1] and fAlpha an angle in [0, 90] by definition;
#: the other bounds were rounded outward from the observed ranges (they looked at the data;
#: a real release must fix them from the telescope's geometry instead).
MAGIC_BOUNDS: tuple[np.ndarray, np.ndarray] = (
    _frozen([0.0, 0.0, 0.0, 0.0, 0.0, -600.0, -400.0, -250.0, 0.0, 0.0]),
    _frozen([400.0, 300.0, 6.0, 1.0, 1.0, 600.0, 400.0, 250.0, 90.0, 500.0]),
)


def _read_text(path: Path, expected_sha: str | None) -> str:
    raw = path.read_bytes()
    if path.suffix == ".gz":
        try:
            raw = gzip.decompress(raw)
        except (OSError, EOFError, zlib.error) as exc:  # BadGzipFile is an OSError
            raise ValueError(f"{path.name} is not a valid gzip file: {exc}") from None
    if expected_sha is not None:
        got = hashlib.sha256(raw).hexdigest()
        if got != expected_sha:
            raise ValueError(f"packaged file {path.name} is corrupt: sha256 {got} != {expected_sha}")
    try:
        return raw.decode("ascii")
    except UnicodeDecodeError as exc:
        raise ValueError(f"{path} is not an ASCII text file: {exc}") from None


def _user_path(path, name: str) -> Path:
    p = check_path(path, name)  # '' is refused, not read as the current folder
    if not p.is_file():
        raise ValueError(f"{name} {str(p)!r} is not a file")
    check_budget(60.0 * p.stat().st_size, f"{name} {str(p)!r} ({p.stat().st_size} bytes; parsing needs ~60× that)")
    return p


def _float(field: str, where: str, col: str) -> float:
    try:
        v = float(field)
    except ValueError:
        raise ValueError(f"{where}: column {col!r} must be numeric, got {field!r}") from None
    if not np.isfinite(v):
        raise ValueError(f"{where}: column {col!r} must be finite, got {field!r}")
    return v


def _table(text: str, source: str, ncol: int, fmt: str, skip_comments: bool) -> tuple[np.ndarray, np.ndarray]:
    """Split into an (n, ncol) array of stripped strings plus the 1-based line numbers."""
    lines = text.splitlines()
    keep = [i for i, ln in enumerate(lines) if ln.strip() and not (skip_comments and ln.lstrip().startswith("|"))]
    if not keep:
        raise ValueError(f"{source}: no data rows found")
    fields = [lines[i].split(",") for i in keep]
    for i, f in zip(keep, fields):
        if len(f) != ncol:
            raise ValueError(f"{source} line {i + 1}: expected {ncol} comma-separated columns ({fmt} format), got {len(f)}")
    return np.char.strip(np.array(fields, dtype=str)), np.asarray(keep) + 1


def _numeric(cells: np.ndarray, linenos: np.ndarray, source: str, names) -> np.ndarray:
    """Columns of strings -> finite floats; the first bad cell is reported with its line."""
    try:
        out = cells.astype(float)
    except ValueError:
        out = None
    if out is not None and np.isfinite(out).all():
        return out
    for r in range(cells.shape[0]):  # slow path only to name the culprit
        for c in range(cells.shape[1]):
            _float(cells[r, c], f"{source} line {linenos[r]}", names[c])
    raise AssertionError("unreachable")  # pragma: no cover


def _categorical(col: np.ndarray, linenos: np.ndarray, source: str, name: str, cats) -> np.ndarray:
    """Strings -> integer codes over the public category list ``cats``."""
    codes = np.full(col.shape, -1)
    for i, c in enumerate(cats):
        codes[col == c] = i
    bad = np.flatnonzero(codes < 0)
    if bad.size:
        r = bad[0]
        raise ValueError(f"{source} line {linenos[r]}: unknown {name} {col[r]!r}; expected one of {list(cats)}")
    return codes


def _parse_adult(text: str, source: str) -> tuple[np.ndarray, np.ndarray]:
    t, ln = _table(text, source, 15, "adult.data", skip_comments=True)  # '|' starts adult.test's comment
    num = _numeric(t[:, [_AGE, _EDUNUM, _CGAIN, _CLOSS, _HOURS]], ln, source,
                   ("age", "education-num", "capital-gain", "capital-loss", "hours-per-week"))
    w = _categorical(t[:, _WORK], ln, source, "workclass category", _WORKCLASS)
    r = _categorical(t[:, _RACE_I], ln, source, "race category", _RACE)
    s = _categorical(t[:, _SEX_I], ln, source, "sex category", _SEX)
    y = _categorical(np.char.rstrip(t[:, _INCOME], "."), ln, source, "income label", ("<=50K", ">50K"))
    n = t.shape[0]
    X = np.zeros((n, 21))
    rows = np.arange(n)
    X[:, 0] = num[:, 0]
    X[rows, 1 + w] = 1.0
    X[:, 10] = num[:, 1]
    X[rows, 11 + r] = 1.0
    X[rows, 16 + s] = 1.0
    X[:, 18:21] = num[:, 2:5]
    return X, y.astype(np.int64)


def _parse_magic(text: str, source: str) -> tuple[np.ndarray, np.ndarray]:
    t, ln = _table(text, source, 11, "magic04.data", skip_comments=False)
    X = _numeric(t[:, :10], ln, source, MAGIC_FEATURES)
    y = 1 - _categorical(t[:, 10], ln, source, "class label", ("g", "h"))  # g -> 1, h -> 0
    return X, y.astype(np.int64)


@functools.lru_cache(maxsize=4)
def _packaged(name: str) -> tuple[np.ndarray, np.ndarray]:
    text = _read_text(_DATA / f"{name}.gz", SHA256[name])
    X, y = (_parse_magic if name.startswith("magic") else _parse_adult)(text, name)
    X.setflags(write=False)
    y.setflags(write=False)
    return X, y


def load_adult(path=None, *, split: str = "train") -> tuple[np.ndarray, np.ndarray]:
    """UCI Adult as the PPCA paper uses it: X (n × 21, float) and y (income > 50K, 0/1).

    Parameters
    ----------
    path : str or os.PathLike, optional
        A file in ``adult.data`` format (plain or ``.gz``) to read instead of the
        packaged copy; every row is validated (15 columns, numeric fields finite,
        categories from ``adult.names``, label ``>50K``/``<=50K`` with optional ``.``).
    split : {"train", "test"}
        Packaged file to read when ``path`` is None: ``adult.data`` (32,561 rows)
        or ``adult.test`` (16,281 rows).

    Returns
    -------
    X, y : fresh arrays; the columns of X are :data:`ADULT_FEATURES`.

    Reference: Gu, Zhang and Song's paper, §3 (experiments); encoding explained in the module docstring.

    Example
    -------
    >>> X, y = load_adult(split="test")
    >>> X.shape, int(y.sum())
    ((16281, 21), 3846)
    """
    if path is None:
        if not isinstance(split, str) or split not in ("train", "test"):
            raise ValueError(f"split must be 'train' or 'test', got {split!r}")
        X, y = _packaged("adult.data" if split == "train" else "adult.test")
        return X.copy(), y.copy()
    p = _user_path(path, "path")
    return _parse_adult(_read_text(p, None), str(p))


def load_magic(path=None) -> tuple[np.ndarray, np.ndarray]:
    """UCI MAGIC gamma telescope: X (19,020 × 10, float) and y (1 = gamma 'g', 0 = hadron 'h').

    Parameters
    ----------
    path : str or os.PathLike, optional
        A file in ``magic04.data`` format (plain or ``.gz``) instead of the packaged
        copy; rows are validated (11 columns, 10 finite numbers, label g/h).

    Reference: Gu, Zhang and Song's paper, §3 (experiments).

    Example
    -------
    >>> X, y = load_magic()
    >>> X.shape, int(y.sum())
    ((19020, 10), 12332)
    """
    if path is None:
        X, y = _packaged("magic04.data")
        return X.copy(), y.copy()
    p = _user_path(path, "path")
    return _parse_magic(_read_text(p, None), str(p))
