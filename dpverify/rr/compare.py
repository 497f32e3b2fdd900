"""Comparing what Zhou, Lu and Wu printed with what :mod:`dpverify.rr.symbolic` derives.

A printed formula counts as the derived one only when :func:`dpverify.toolkit.symbolic_equal`
*proves* them equal; a numeric counterexample or an undecided comparison does not count.  The
claims of the room (``dpverify/rr/claims/``) compare single expressions with
:func:`proven_equal` and the vertex lists of the feasible regions with :func:`same_point_sets`.

Example
-------
>>> from dpverify.rr.symbolic import E
>>> proven_equal(E / (E + 1), 1 - 1 / (E + 1))
True
>>> same_point_sets([(0, 1), (1, 0)], [(1, 0), (0, 1)])[0]
True
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from dpverify.toolkit import symbolic_equal
from dpverify.toolkit.symbolic import expression

__all__ = ["proven_equal", "same_point_sets"]


def proven_equal(a: Any, b: Any) -> bool:
    """True when ``a`` and ``b`` are proven equal (a counterexample or "undecided" gives False).

    Example
    -------
    >>> from dpverify.rr.symbolic import E, pi0
    >>> proven_equal(pi0 * E / E, pi0), proven_equal(E, E + 1)
    (True, False)
    """
    return symbolic_equal(expression(a, "a"), expression(b, "b")).equal is True


#: Vertex lists are short (each pair of points is compared by a symbolic proof): at most this many points.
MAX_POINTS = 64


def _points(points: Any, name: str) -> list[tuple]:
    """A list of points (x, y) of sympy expressions or finite numbers; errors name ``name``."""
    if isinstance(points, (str, bytes)) or not isinstance(points, (list, tuple, np.ndarray)) or getattr(points, "ndim", 1) == 0:
        raise TypeError(f"{name} must be a list of points (x, y), got {type(points).__name__}")
    if len(points) > MAX_POINTS:
        raise ValueError(f"{name} must hold at most {MAX_POINTS} points (each pair is compared by a proof), "
                         f"got {len(points)}")
    out = []
    for p in points:
        if isinstance(p, (str, bytes)) or not isinstance(p, (list, tuple, np.ndarray)) or len(p) != 2:
            raise TypeError(f"{name} must be a list of points (x, y), got the entry {p!r}")
        out.append((expression(p[0], name), expression(p[1], name)))
    return out


def same_point_sets(derived: Sequence[tuple], printed: Sequence[tuple]) -> tuple[bool, list, list]:
    """Whether two lists of points (x, y) hold the same points, with the printed ones not derived
    (``missing``) and the derived ones not printed (``extra``).

    Example
    -------
    >>> from dpverify.rr.symbolic import E
    >>> ok, missing, extra = same_point_sets([(0, 1), (E / (E + 1), E / (E + 1))], [(0, 1), (1, 0)])
    >>> ok, missing, [tuple(map(str, p)) for p in extra]
    (False, [(1, 0)], [('e^ε/(e^ε + 1)', 'e^ε/(e^ε + 1)')])
    """
    dq, pq = _points(derived, "derived"), _points(printed, "printed")

    def same(p, d) -> bool:  # p printed, d derived
        return proven_equal(p[0], d[0]) and proven_equal(p[1], d[1])

    missing = [p for p, pc in zip(printed, pq) if not any(same(pc, dc) for dc in dq)]  # the points as given
    extra = [d for d, dc in zip(derived, dq) if not any(same(pc, dc) for pc in pq)]
    return not missing and not extra, missing, extra
