"""``dpverify continual ...``: release noisy running totals from a CSV column; exact MSE per method.

Example
-------
``dpverify continual release --input counts.csv --column n --epsilon 1 --seed 0 --output out.csv``
writes ONLY what is released: one column ``<NAME>_noisy_total`` (integers with the default
``--noise discrete``), preceded by ``--public-index COLUMN`` if the user names a column as public.
The private column itself is never written.  The output is checked before any work (not the
input, not a directory, parent exists, no overwrite without ``--force``) and written atomically.

The release streams: the CSV is read in chunks of ``--chunk-rows`` rows (plain lines split in C,
anything else by ``csv.reader``: the same records) and pushed through the method's online
``push_many`` (exact running state, O(log N) memory), so memory is O(chunk).  The strategy
needs the horizon N in advance: by default a first streaming pass counts the data rows and
validates every one of them exactly as the release reads them (nothing is stored, no noise
is drawn), so a bad row anywhere in the file is refused, naming its line, before the release
starts; ``--horizon N`` skips that pass (the file may then hold at most N rows; the release of a
prefix of an N-horizon stream is ε-DP; a bad row is then found when the release reaches it, and
the output is still not written).

``dpverify continual mse --n 4095 --epsilon 1`` prints the exact per-release and total MSE of every
method.  Exit status 0 on success, 2 on bad input (one line naming the option or the CSV row).
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import os
import sys
import warnings
from itertools import chain, islice

import numpy as np

_DEFAULT_CHUNK = 1 << 16


def _open_csv(path: str):
    if not os.path.isfile(path):
        raise FileNotFoundError(f"--input file not found: {path}")
    return open(path, newline="")


def _unreadable(path: str, line: int, exc: Exception) -> ValueError:
    """A CSV file that cannot be read (not text, a field beyond the csv limit, ...): one error naming it."""
    if isinstance(exc, UnicodeDecodeError):
        return ValueError(f"--input {path} is not a UTF-8 text file ({exc.reason})")
    return ValueError(f"--input {path}: line {line}: not a CSV file dpverify can read ({exc})")


def _take(reader, n: int, path: str, before: int = 0) -> list[list[str]]:
    """The next ``n`` rows (fewer at the end of the file); a read error names the file and line."""
    try:
        return list(islice(reader, n))
    except (csv.Error, UnicodeDecodeError) as exc:
        raise _unreadable(path, before + reader.line_num, exc) from None


def _blocks(fh, n: int, path: str, before: int):
    """``(fast, records)``: the non-empty CSV records of ``fh`` past its ``before`` header lines, in blocks.

    ``csv.reader`` reads a line without ``"``, ``\\r``, NUL or more characters than the csv field
    limit as ``line.split(",")`` (a blank line: no record), so such blocks come as lines (``fast``)
    and are split in C; the first block with any of them hands itself and the rest of the file
    to ``csv.reader`` (records as lists).
    """
    while True:
        try:
            lines = list(islice(fh, n))
        except UnicodeDecodeError as exc:
            raise _unreadable(path, 0, exc) from None
        if not lines:
            return
        text = "".join(lines)
        if '"' in text or "\r" in text or "\0" in text or max(map(len, lines)) > csv.field_size_limit():
            reader = csv.reader(chain(lines, fh))
            while block := _take(reader, n, path, before):
                yield False, [r for r in block if r]
            return
        before += len(lines)
        yield True, [x for x in text.split("\n") if x]  # the non-empty lines; "" after a final newline


def _cells(rows: list, j: int, fast: bool) -> list[str]:
    """Field ``j`` of each record ("" where a record is shorter); ``fast``: records are lines split on ","."""
    try:
        return [x.split(",")[j] for x in rows] if fast else [r[j] for r in rows]
    except IndexError:
        return [r[j] if j < len(r) else "" for r in ((x.split(",") for x in rows) if fast else rows)]


def _header(reader, path: str, column: str, public: str | None) -> tuple[int, int | None]:
    rows = _take(reader, 1, path)
    if not rows:
        raise ValueError(f"--input {path} is empty")
    header = rows[0]
    if column not in header:
        raise ValueError(f"--column {column!r} not in the header of {path}: {header}")
    j = header.index(column)
    if public is None:
        return j, None
    if public not in header:
        raise ValueError(f"--public-index {public!r} not in the header of {path}: {header}")
    if public == column:
        raise ValueError(f"--public-index {public!r} is the private --column; it cannot be released")
    return j, header.index(public)


def _scan_rows(path: str, column: str, public: str | None, chunk: int) -> int:
    """First pass: every data row validated exactly as the release reads it; the number of non-empty rows.

    Streaming (O(chunk) memory, nothing stored), before any noise is drawn: a bad cell raises the
    release's own error naming its line, and a running total reaching 2^62 is refused here too,
    so a release that starts never fails on its input.
    """
    from dpverify.progress import progress

    n = total = 0
    with progress("checking rows", unit="rows", stream=sys.stderr) as tick:
        for _, a in _chunks(path, column, public, chunk, index=False):
            total = _add_total(total, a, n, path, column)
            n += a.size
            tick(a.size)
    return n


def _add_total(total: int, a, before: int, path: str, column: str) -> int:
    """``total`` plus the chunk's counts (each < 2^62), exact; reaching 2^62 names the row's line."""
    from dpverify.continual.checks import MAX_TOTAL

    big = a.size and int(a.max()) * a.size >= 2**63  # the int64 sum could wrap: add as Python ints
    s = sum(map(int, a.tolist())) if big else int(a.sum())
    if total + s < MAX_TOTAL:
        return total + s
    for k, v in enumerate(a.tolist()):
        total += v
        if total >= MAX_TOTAL:
            raise ValueError(f"counts too large: the running total must stay below 2^62 (int64); it reaches "
                             f"{total} at line {_line_of(path, before + k + 1)} of {path} in column {column!r}")
    raise AssertionError("unreachable")  # pragma: no cover


def _line_of(path: str, data_row: int) -> int:
    """Line of the file holding the ``data_row``-th non-empty data row (1-based); error path only."""
    with open(path, newline="") as fh:
        reader = csv.reader(fh)
        next(reader)
        for k, _ in enumerate(filter(None, reader), 1):  # the non-empty rows
            if k == data_row:
                return reader.line_num
    return -1


def _parse(cells: list[str], first: int, path: str, column: str):
    """Counts of a chunk as int64 (exact); a bad cell names its line of the file and the column.

    ``first`` is the 1-based number of the chunk's first non-empty data row.
    """
    try:
        arr = np.array(list(map(int, cells)))  # int() is exact at any size; object dtype beyond int64
        if arr.dtype == np.int64 and (arr.size == 0 or (arr.min() >= 0 and arr.max() < 2**62)):
            return arr
    except ValueError:
        pass
    values = []
    for k, cell in enumerate(cells):
        def where() -> str:
            return f"line {_line_of(path, first + k)} of {path} has {cell.strip()!r} in column {column!r}"

        c = cell.strip()
        try:
            v = int(c)
        except ValueError:
            try:
                f = float(c)
            except ValueError:
                raise ValueError(f"counts must be non-negative integers: {where()}") from None
            if not math.isfinite(f):
                raise ValueError(f"counts must be finite: {where()}") from None
            if not f.is_integer():
                raise ValueError(f"counts must be integers: {where()}") from None
            v = int(f)
        if v < 0:
            raise ValueError(f"counts must be non-negative: {where()}")
        if v >= 2**62:
            raise ValueError(f"counts must be below 2^62 (int64 running totals): {where()}")
        values.append(v)
    return np.array(values, dtype=np.int64)


def _chunks(path: str, column: str, public: str | None, chunk: int, *, index: bool = True):
    """Yield (public index cells or None, counts int64) for each chunk of non-empty rows.

    The one reader of the data rows: the first pass (:func:`_scan_rows`, ``index=False``) and the
    release read the same rows through the same checks, so they refuse the same files, identically.
    """
    with _open_csv(path) as fh:
        reader = csv.reader(fh)
        j, jp = _header(reader, path, column, public)
        first = 1
        for fast, rows in _blocks(fh, chunk, path, reader.line_num):
            if not rows:  # only blank rows in this block: read on until the file ends
                continue
            idx = _cells(rows, jp, fast) if jp is not None and index else None
            yield idx, _parse(_cells(rows, j, fast), first, path, column)
            first += len(rows)


def cmd_release(args: argparse.Namespace) -> int:
    from dpverify.atomic import OutputError, atomic_open, check_output_path
    from dpverify.progress import progress
    from dpverify.validation import check_epsilon, check_positive_int
    from dpverify.continual import stream
    from dpverify.continual.methods import get_method

    # everything that can be checked is checked before any work
    out_path = check_output_path(args.output, force=args.force, inputs=(args.input,), name="--output")
    eps = check_epsilon(args.epsilon, "--epsilon")
    if args.seed is not None and args.seed < 0:
        raise ValueError(f"--seed must be >= 0, got {args.seed}")
    if args.chunk_rows < 1:
        raise ValueError(f"--chunk-rows must be >= 1, got {args.chunk_rows}")
    m = get_method(args.method)
    with _open_csv(args.input) as fh:
        _header(csv.reader(fh), args.input, args.column, args.public_index)
    if args.horizon is not None:
        n = check_positive_int(args.horizon, "--horizon")
    else:
        n = _scan_rows(args.input, args.column, args.public_index, args.chunk_rows)
        if n == 0:
            raise ValueError(f"counts must be non-empty: --input {args.input} has no data rows")
    rng = np.random.default_rng(args.seed)
    name = f"{args.column}_noisy_total"
    fmt = (lambda v: v) if args.noise == "discrete" else (lambda v: repr(float(v)))
    done = 0
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # the float-Laplace warning is printed once below
            s = stream(n, eps, args.method, rng=rng, noise=args.noise) if m.stream is not None else None
        if args.noise == "laplace":
            print("dpverify continual: warning: --noise laplace samples float64 Laplace noise, open to the "
                  "floating-point attack; use --noise discrete for counts", file=sys.stderr)
        with atomic_open(out_path, "w", force=args.force, inputs=(args.input,), name="--output",
                         newline="") as fh, progress("releasing", total=n, unit="rows", stream=sys.stderr) as tick:
            w = csv.writer(fh, lineterminator="\n")
            w.writerow(([args.public_index] if args.public_index else []) + [name])
            if s is None:  # an offline method: one batch, within the memory budget
                done = _release_batch(args, w, n, eps, rng, fmt, tick)
            else:
                done = _release_stream(args, s, w, fh, n, fmt, tick)
            if done == 0:
                raise ValueError(f"counts must be non-empty: --input {args.input} has no data rows")
    except OutputError:
        raise
    except OSError as exc:  # full disk, permissions, ...: the temporary file is already removed
        raise ValueError(f"--output {args.output}: could not write: {exc.strerror or exc}") from None
    if args.json:
        cols = ([args.public_index] if args.public_index else []) + [name]
        print(json.dumps({"n": done, "horizon": n, "epsilon": eps, "method": args.method, "noise": args.noise,
                          "output": args.output, "columns": cols}))
    else:
        print(f"released {done} running totals ({args.method}, {args.noise} noise, ε = {eps}) → {args.output} "
              f"column {name}")
    return 0


def _release_batch(args: argparse.Namespace, w, n: int, eps: float, rng, fmt, tick) -> int:
    """An offline method's release: every row read, one batch release, every row written; returns the rows."""
    from dpverify.validation import check_budget
    from dpverify.continual import release

    check_budget(48 * n, f"the batch release of {n} counts by {args.method!r} (no online form)")
    idx_all, parts = [], []
    for idx, a in _chunks(args.input, args.column, args.public_index, args.chunk_rows):
        parts.append(a)
        idx_all.extend(idx or ())
    a = np.concatenate(parts)
    if a.size > n:
        raise ValueError(f"--input has more than --horizon {n} data rows")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        out = release(a, eps, args.method, rng=rng, noise=args.noise)
    vals = [fmt(v) for v in out.tolist()]
    w.writerows(zip(idx_all, vals) if args.public_index else ([v] for v in vals))
    tick(a.size)
    return a.size


def _release_stream(args: argparse.Namespace, s, w, fh, n: int, fmt, tick) -> int:
    """An online method's release: the rows pushed chunk by chunk, each chunk written; returns the rows."""
    done = 0
    for idx, a in _chunks(args.input, args.column, args.public_index, args.chunk_rows):
        if done + a.size > n:
            raise ValueError(f"--input has more than --horizon {n} data rows")
        out = s.push_many(a) if hasattr(s, "push_many") else [s.push(x) for x in a.tolist()]
        vals = np.asarray(out, dtype=np.int64 if args.noise == "discrete" else float).tolist()  # ints, floats
        if idx is not None:
            w.writerows(zip(idx, map(fmt, vals)))
        else:  # numbers only: no quoting needed
            fh.write("\n".join(map(str if args.noise == "discrete" else repr, vals)) + "\n")
        done += a.size
        tick(a.size)
    return done


def _method_mse(n: int, epsilon: float, method: str, noise: str):
    """The exact MSE; Laplace is every method's default, other noise only where the method takes it."""
    from dpverify.continual import expected_mse

    if noise == "laplace":
        return expected_mse(n, epsilon, method)
    try:
        return expected_mse(n, epsilon, method, noise=noise)
    except TypeError as exc:
        if "'noise'" not in str(exc):
            raise
        raise ValueError(f"--noise {noise}: method {method!r} gives the exact MSE for Laplace noise only") from None


def cmd_mse(args: argparse.Namespace) -> int:
    from dpverify.progress import progress
    from dpverify.validation import check_budget, check_epsilon, check_positive_int
    from dpverify.continual import method_names
    from dpverify.continual.methods import get_method

    n = check_positive_int(args.n, "--n")
    check_budget(48 * n, f"--n {n}: the exact MSE of {n} releases")
    eps = check_epsilon(args.epsilon, "--epsilon")
    methods = args.method or [m for m in ("naive", "fenwick", "fda") if m in method_names()]
    for m in methods:
        get_method(m)  # an unknown name: ValueError listing the registered methods
    rows = []
    with progress("exact MSE", total=len(methods), unit="methods", stream=sys.stderr) as tick:
        for m in methods:
            e = _method_mse(n, eps, m, args.noise)
            if not (e > 0).all():
                raise ValueError(f"--epsilon {args.epsilon!r} is too large: the MSE underflows float64")
            rows.append({"method": m, "total": float(e.sum()), "mean": float(e.mean()), "max": float(e.max()),
                         "last": float(e[-1])})
            tick(1, m)
    if args.json:
        json.dump(rows, sys.stdout, indent=2)
        print()
        return 0
    from rich.table import Table

    from dpverify.console import make_console, quote

    t = Table(title=quote(f"exact MSE, n = {n}, ε = {eps}, {args.noise} noise"))
    for col in ("method", "total", "mean per release", "max per release", "release n"):
        t.add_column(col, justify="right")
    for r in rows:
        t.add_row(quote(r["method"]), f"{r['total']:.6g}", f"{r['mean']:.6g}", f"{r['max']:.6g}", f"{r['last']:.6g}")
    make_console().print(t)
    return 0


def register(subparsers) -> None:
    from dpverify.continual.methods import method_names  # not the package: its help stays light

    names = method_names()
    p = subparsers.add_parser("continual", help="continual release of running counts")
    sub = p.add_subparsers(dest="continual_command", required=True, metavar="ACTION",
                           help="release: publish noisy running totals of a CSV column; mse: exact expected MSE")

    r = sub.add_parser("release", help="read a CSV column of counts, write ONLY the noisy running totals",
                       description="Stream a CSV column of counts through a continual-release method and write "
                       "only the noisy running totals (plus a column explicitly named public).")
    r.add_argument("--input", required=True, metavar="FILE.csv", help="CSV file with a header row")
    r.add_argument("--column", required=True, metavar="NAME", help="the private column of non-negative integer counts")
    r.add_argument("--epsilon", required=True, type=float, help="privacy budget ε > 0 for the whole stream")
    r.add_argument("--method", default="fda", metavar="METHOD",
                   help=f"continual-release method (default fda); one of: {', '.join(names)}")
    r.add_argument("--noise", default="discrete", choices=("discrete", "laplace"),
                   help="discrete: exact integer sampler (default); laplace: float64 noise, warns")
    r.add_argument("--seed", type=int, default=None, help="seed of the random generator (default: fresh entropy)")
    r.add_argument("--output", required=True, metavar="OUT.csv", help="output CSV (never the input; see --force)")
    r.add_argument("--force", action="store_true", help="overwrite an existing --output file")
    r.add_argument("--public-index", default=None, metavar="COLUMN",
                   help="a column the user declares PUBLIC, copied beside the totals (e.g. a date)")
    r.add_argument("--horizon", type=int, default=None, metavar="N",
                   help="number of releases N the strategy is built for (default: count the rows in a first pass)")
    r.add_argument("--chunk-rows", type=int, default=_DEFAULT_CHUNK, metavar="ROWS",
                   help=f"rows read and released per chunk (default {_DEFAULT_CHUNK}); memory is O(ROWS)")
    r.add_argument("--json", action="store_true", help="print a JSON summary on stdout")
    r.set_defaults(func=cmd_release)

    m = sub.add_parser("mse", help="exact expected MSE of each method (no Monte Carlo)")
    m.add_argument("--n", required=True, type=int, help="number of releases n >= 1")
    m.add_argument("--epsilon", required=True, type=float, help="privacy budget ε > 0")
    m.add_argument("--method", action="append", metavar="METHOD",
                   help=f"repeatable; default naive, fenwick, fda; one of: {', '.join(names)}")
    m.add_argument("--noise", default="laplace", choices=("discrete", "laplace"),
                   help="noise whose exact MSE is computed (default laplace; discrete where the method takes it)")
    m.add_argument("--json", action="store_true", help="print JSON on stdout")
    m.set_defaults(func=cmd_mse)
