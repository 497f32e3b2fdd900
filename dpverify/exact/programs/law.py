"""The exact output law of a program on a finite set of inputs: a ``sympy.Matrix`` for :func:`dpverify.exact.prove`.

:func:`program_law` runs the program in an :class:`~.context.ExactContext` once per path of branch
decisions (depth-first, each path replayed from its prefix), then sums every path exactly over the
conditioned noise ρ (:func:`~.geometric.path_sum`).  Outputs with infinite integer support become
finitely many *cells* (columns), common to all inputs:

- ``release`` (x + Z, Z independent of the path): the increments below every row's x, each integer
  between the smallest and largest x, and those above.  On each cell every row's probability of a
  single output is c_row·r^{±w} with the same exponent, so the ratio of two rows is constant on the
  cell and equals the ratio of the cells' probabilities: pure ε-DP over single outputs holds iff it
  holds over these cells (``exact/closed_forms.md``, §3).  The cells of a law are exact for ε-DP.
- ``gap``/``value``/``maxval`` (a value that depends on ρ): a window of single values and one rest
  cell.  A partition of the output space is a post-processing, so a refutation on it is a refutation
  of the program; a proof on it is NOT a proof of the program (``law.exact`` is then False).
- ``point`` (no noise): the value itself.

Example
-------
>>> def coin(ctx, q):
...     return (int(ctx.noisy_ge(q[0], 1, 0)),)
>>> law = program_law(coin, [(0,), (1,)])
>>> law.matrix.shape, law.exact
((2, 2), True)
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass, field
from fractions import Fraction
from functools import reduce

import numpy as np
import sympy as sp

from dpverify.exact.programs.context import ExactContext, OutVar, Sampled, SampleContext
from dpverify.exact.programs.geometric import (FIELD, T, Factor, path_sum, path_sum_lazy, point, point_lazy, tail_ge,
                                               tail_ge_lazy)
from dpverify.exact.programs.lazyfrac import Frac

__all__ = ["ProgramLaw", "neighbour_pairs", "program_law"]

RHO_KINDS = ("gap", "value", "maxval")
EPSILON = sp.Symbol("epsilon", positive=True)


def _paths(program, q, params):
    stack = [()]
    while stack:
        prefix = stack.pop()
        ctx = ExactContext(prefix)
        out = tuple(program(ctx, q, **params))
        taken = tuple(c for c, _ in ctx.trace)
        for i in range(len(prefix), len(ctx.trace)):
            stack.extend(taken[:i] + (alt,) for alt in range(1, ctx.trace[i][1]))
        yield out, ctx


def _shape(out):
    return tuple(e.shape if isinstance(e, (OutVar, Sampled)) else ("=", e) for e in out)


output_shape = _shape  # the key of an output's form (shared with :mod:`.tails`)


@dataclass
class ProgramLaw:
    """The law for pure ε-DP: ``matrix`` (entries in ``epsilon``), ``t_matrix`` (in t = e^{−ε/unit}),
    ``columns`` (each a tuple of cell keys: proportional cells are merged, which is exact at δ = 0 only)."""

    inputs: list
    columns: list
    t_matrix: list
    unit: int
    exact: bool
    partitions: dict = field(repr=False)
    program: object = field(repr=False, default=None)
    params: dict = field(repr=False, default_factory=dict)
    paths: list = field(repr=False, default_factory=list)  # per row: the (output, ExactContext) of every path

    @property
    def matrix(self) -> sp.Matrix:
        sub = sp.exp(-EPSILON / self.unit)
        return sp.Matrix([[c.as_expr().subs(sp.Symbol("t"), sub) for c in row] for row in self.t_matrix])

    def cell_of(self, shape, pos, v: Sampled):
        kind = v.kind
        if kind == "point":
            return ("pt", v.inc)
        lo, hi = self.partitions[(shape, pos)]
        w = v.inc if kind == "release" else int(v)
        if kind == "release":
            return ("<",) if w < lo else ((">",) if w > hi else ("=", w))
        return ("=", w) if lo <= w <= hi else ("rest",)

    def column_of(self, out) -> int:
        """The column index of a sampled output tuple (−1 if no input of the law can produce it)."""
        shape = _shape(out)
        key = tuple((s, self.cell_of(shape, i, e)) if isinstance(e, Sampled) else s for i, (s, e) in
                    enumerate(zip(shape, out)))
        return self._index.get(key, -1)

    def __post_init__(self):  # a column is a group of cell keys (merged when proportional)
        self._index = {k: i for i, group in enumerate(self.columns) for k in group}

    def column_index(self, key) -> int:
        """The column holding the cell key ``key`` (−1 if none)."""
        return self._index.get(key, -1)

    def sampler(self, epsilon: float, *, vectorised: bool = True):
        """``mechanism(data, rng, n)`` → column indices of n runs of the program on sampled noise at ε.

        ``vectorised``: all n runs at once (:func:`~.batch.batch_columns`, the same law), else one
        :class:`~.context.SampleContext` run per draw."""
        prog, params = self.program, dict(self.params)
        if vectorised:
            from dpverify.exact.programs.batch import batch_columns

            return lambda data, rng, n: batch_columns(self, np.asarray(data).ravel(), epsilon, rng, n)

        def mechanism(data, rng, n):
            q = tuple(int(x) for x in np.asarray(data).ravel())
            ctx_out = np.empty(int(n))
            for k in range(int(n)):
                ctx = SampleContext(rng, epsilon)
                ctx_out[k] = self.column_of(tuple(prog(ctx, q, **params)))
            return ctx_out
        return mechanism


def _cells(kind, lo, hi):
    if kind == "release":
        return [("<",)] + [("=", w) for w in range(lo, hi + 1)] + [(">",)]
    return [("=", w) for w in range(lo, hi + 1)] + [("rest",)]


def _release_tail(v: OutVar, cell, bounds, a: int, lazy: bool = False):
    x = v.x
    pt, ge = (point_lazy, tail_ge_lazy) if lazy else (point, tail_ge)
    if cell[0] == "=":
        return pt(a, cell[1] - x)
    lo, hi = bounds
    return 1 - ge(a, lo - x) if cell[0] == "<" else ge(a, hi + 1 - x)


class Evaluator:
    """The exact probabilities of a path's parts: elements of ``FIELD``, or with ``lazy`` unreduced
    :class:`~.lazyfrac.Frac` (the same values; :func:`program_law` reduces each entry once)."""

    def __init__(self, unit, lazy: bool = False):
        self.unit, self.lazy = unit, lazy
        self.one = Frac.const(1) if lazy else FIELD.one
        self.zero = Frac.const(0) if lazy else FIELD.zero
        self._sum = path_sum_lazy if lazy else path_sum
        self._point, self._ge = (point_lazy, tail_ge_lazy) if lazy else (point, tail_ge)

    def a(self, b) -> int:
        v = Fraction(self.unit) / Fraction(b)
        assert v.denominator == 1
        return int(v)

    def rho_part(self, ctx, var=None, cell=None):
        """Σ_ρ of the path's weight, with the ρ-dependent slot ``var`` in ``cell`` (None: unconstrained)."""
        if ctx.rho is None:
            return self.one
        factors = [Factor(k, self.a(b), s) for k, b, s in ctx.factors]
        lo, hi = ctx.lo, ctx.hi
        if var is not None and cell is not None:
            w = cell[1]
            if var.kind == "gap":  # x + Z − T − ρ = w  ⇔  Z = ρ + T + w − x
                factors.append(Factor("eq", self.a(var.b), var.T + w - var.x))
            elif var.kind == "value":  # value w = x + Z, and w ≥ T + ρ + al
                hi = (w - var.T - var.at_least) if hi is None else min(hi, w - var.T - var.at_least)
                return self._point(self.a(var.b), w - var.x) * self._sum(factors, lo, hi)
            else:  # maxval: w = x + ρ
                lo = w - var.x if lo is None else max(lo, w - var.x)
                hi = w - var.x if hi is None else min(hi, w - var.x)
        elif var is not None and var.kind in ("gap", "value"):
            factors.append(Factor("ge", self.a(var.b), var.T + var.at_least - var.x))
        return self._sum(factors, lo, hi)

    def const_part(self, ctx):
        w = self.one
        for b, k, take in ctx.consts:
            if b is None:
                p = self.one if k <= 0 else self.zero
            else:
                p = self._ge(self.a(b), k)
            w *= p if take else 1 - p
        return w


def _unit(scales) -> int:
    """The least L with L/b an integer for every scale b (b = p/q: L = lcm of the p)."""
    return reduce(math.lcm, (Fraction(b).numerator for b in scales), 1)


def _gather(program, inputs, params):
    rows, scales, spans = [], set(), {}
    for q in inputs:
        paths = list(_paths(program, q, params))
        rows.append(paths)
        for out, ctx in paths:
            scales |= {b for _, b, _ in ctx.factors} | {b for b, _, _ in ctx.consts if b is not None}
            scales |= {v.b for v in ctx.outvars if v.b is not None}
            if len([v for v in out if isinstance(v, OutVar) and v.kind in RHO_KINDS]) > 1:
                raise ValueError("a path may release at most one value that depends on the threshold noise")
            shape = _shape(out)
            for i, v in enumerate(out):
                if isinstance(v, OutVar) and v.kind != "point":
                    xs = spans.setdefault((shape, i), [v.kind, v.x, v.x, v.at_least])
                    xs[1], xs[2] = min(xs[1], v.x), max(xs[2], v.x)
    return rows, scales, spans


def _windows(spans, window):
    out = {}
    for key, (kind, lo, hi, al) in spans.items():
        if kind == "gap":
            out[key] = (al, al + window - 1)
        elif kind == "release":
            out[key] = (lo, hi)
        else:
            out[key] = (lo - window, hi + window)
    return out


def _path_cells(ev, out, ctx, partitions):
    """Yield (column key, probability) for every cell combination of one path."""
    shape = _shape(out)
    base = ev.const_part(ctx)
    rho_var = next(((i, v) for i, v in enumerate(out) if isinstance(v, OutVar) and v.kind in RHO_KINDS), None)
    indep = [(i, v) for i, v in enumerate(out) if isinstance(v, OutVar) and v.kind not in RHO_KINDS]
    if rho_var is None:
        rho_choices = [(None, ev.rho_part(ctx))]
    else:
        i, v = rho_var
        cells = _cells(v.kind, *partitions[(shape, i)])
        probs = {c: ev.rho_part(ctx, v, c) for c in cells[:-1]}
        probs[cells[-1]] = ev.rho_part(ctx, v) - sum(probs.values(), ev.zero)
        rho_choices = [((i, c), p) for c, p in probs.items()]
    indep_cells = []
    for i, v in indep:
        if v.kind == "point":
            indep_cells.append([((i, ("pt", v.x)), ev.one)])
        else:
            bounds = partitions[(shape, i)]
            indep_cells.append([((i, c), _release_tail(v, c, bounds, ev.a(v.b), ev.lazy))
                                for c in _cells("release", *bounds)])
    for rc, rp in rho_choices:
        combos = [([rc] if rc else [], base * rp)]
        for options in indep_cells:
            combos = [(cs + [c], p * pc) for cs, p in combos for c, pc in options]
        for cs, p in combos:
            cell = dict(cs)
            key = tuple((s, cell[i]) if i in cell else s for i, s in enumerate(shape))
            yield key, p


def _merge_proportional(keys, t_matrix):
    """Merge the columns that are proportional over all rows (P[:, j] = λ·P[:, k], λ free of the row).

    Two rows have the same ratio on such columns and on their union, so the single-output condition of
    pure ε-DP is unchanged (``exact/closed_forms.md`` §3); e.g. a release's cell {w < m} is
    r/(1 − r) times its cell {m} for every offset x ≥ m.
    """
    groups: dict = {}
    for j, key in enumerate(keys):
        col = [row[j] for row in t_matrix]
        k0 = next((i for i, c in enumerate(col) if c != 0), None)
        if k0 is None:  # a cell no input reaches (an empty path): no output, dropped
            continue
        groups.setdefault((k0, tuple(c / col[k0] for c in col)), []).append(j)
    merged = list(groups.values())
    matrix = [[sum((row[j] for j in g), FIELD.zero) for g in merged] for row in t_matrix]
    return [tuple(keys[j] for j in g) for g in merged], matrix


_MAX_INPUTS, _MAX_QUERY = 4096, 10 ** 3  # rows, and |query| (its exact law's exponents grow with it)


def _check_inputs(inputs) -> list:
    """``inputs`` as a non-empty list of equal-length tuples of small integers, else TypeError/ValueError naming it."""
    if isinstance(inputs, np.ndarray) and inputs.ndim == 2 and inputs.size <= 64 * _MAX_INPUTS:
        inputs = inputs.tolist()
    if not isinstance(inputs, (list, tuple)):
        raise TypeError(f"inputs must be a list of tuples of integers, got {type(inputs).__name__}")
    inputs = [q.tolist() if isinstance(q, np.ndarray) and q.ndim == 1 and q.size <= 64 else q for q in inputs]
    if not 1 <= len(inputs) <= _MAX_INPUTS:
        raise ValueError(f"inputs must hold 1 to {_MAX_INPUTS} rows, got {len(inputs)}")
    out = []
    for q in inputs:
        if not isinstance(q, (list, tuple)) or not all(
                isinstance(x, numbers.Integral) and not isinstance(x, bool) for x in q):
            raise TypeError(f"inputs must be a list of tuples of integers, got the row {q!r}"[:300])
        if not q or len(q) != len(inputs[0]) or len(q) > 64 or any(abs(x) > _MAX_QUERY for x in q):
            raise ValueError(f"inputs rows must have one length (1..64) and queries in [-{_MAX_QUERY}, "
                             f"{_MAX_QUERY}], got the row {q!r}"[:300])
        out.append(tuple(int(x) for x in q))
    return out


def program_law(program, inputs, *, window: int = 4, **params) -> ProgramLaw:
    """The exact law of ``program(ctx, q, **params)`` on each input ``q`` of ``inputs`` (rows).

    Parameters
    ----------
    program : a function of an :mod:`~.context` context and a tuple of integer queries
    inputs : sequence of tuples of integers (the rows, in order)
    window : how many single values a threshold-dependent output (gap, noisy value, max value) gets
        beyond its offsets before the rest cell
    params : passed to the program

    Returns
    -------
    ProgramLaw; every row of ``t_matrix`` sums to 1 exactly in Q(t).

    Example
    -------
    >>> program_law(lambda ctx, q: (ctx.release(q[0], None),), [(0,), (1,)]).matrix
    Matrix([
    [1, 0],
    [0, 1]])
    """
    if not callable(program):
        raise TypeError(f"program must be a function (ctx, queries, **params), got {type(program).__name__}")
    inputs = _check_inputs(inputs)
    if isinstance(window, bool) or not isinstance(window, numbers.Integral) or not 1 <= window <= 64:
        raise ValueError(f"window must be an integer in [1, 64], got {window!r}")
    window = int(window)
    rows, scales, spans = _gather(program, inputs, params)
    unit = _unit(scales)
    ev, partitions = Evaluator(unit, lazy=True), _windows(spans, window)
    dense, columns = [], {}
    for paths in rows:
        row: dict = {}
        for out, ctx in paths:
            for key, p in _path_cells(ev, out, ctx, partitions):
                row[key] = row.get(key, ev.zero) + p
                columns.setdefault(key, len(columns))
        dense.append(row)
    dense = [[row[k].to_field() if k in row else FIELD.zero for k in columns] for row in dense]  # reduced once
    cols, t_matrix = _merge_proportional(list(columns), dense)
    exact = not any(kind in RHO_KINDS for kind, *_ in spans.values())
    return ProgramLaw(inputs, cols, t_matrix, unit, exact, partitions, program, dict(params), rows)


def neighbour_pairs(inputs, relation: str = "all_differ"):
    """Ordered index pairs (i, j) of neighbouring inputs under CheckDP's adjacency ``relation``, both orders.

    ``all_differ``: every query may change by at most 1; ``one_differ``: one query changes by at most 1;
    ``increasing`` / ``decreasing``: every query changes by 0 or +1 (resp. −1) from the first input
    to the second.  ε-DP bounds both ratios of a pair, so each pair is listed in both orders, and the
    two monotone relations give the same pairs.

    Example
    -------
    >>> neighbour_pairs([(0, 0), (1, 1), (1, 0)], "one_differ")
    [(0, 2), (2, 0), (1, 2), (2, 1)]
    """
    inputs = _check_inputs(inputs)
    if relation not in ("all_differ", "one_differ", "increasing", "decreasing"):
        raise ValueError(f"relation must be all_differ, one_differ, increasing or decreasing, got {relation!r}")
    out = []
    for i, a in enumerate(inputs):
        for j in range(i + 1, len(inputs)):
            d = [y - x for x, y in zip(a, inputs[j])]
            if not any(d) or max(map(abs, d)) > 1:
                continue
            ok = {"all_differ": True, "one_differ": sum(map(bool, d)) == 1,
                  "increasing": min(d) >= 0 or max(d) <= 0, "decreasing": min(d) >= 0 or max(d) <= 0}[relation]
            if ok:
                out += [(i, j), (j, i)]
    return out
