"""Comparing what seed 003 printed with what :mod:`dpverify.rr.symbolic` derives.

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

from dpverify.toolkit import symbolic_equal

__all__ = ["proven_equal", "same_point_sets"]


def proven_equal(a: Any, b: Any) -> bool:
    """True when ``a`` and ``b`` are proven equal (a counterexample or "undecided" gives False).

    Example
    -------
    >>> from dpverify.rr.symbolic import E, pi0
    >>> proven_equal(pi0 * E / E, pi0), proven_equal(E, E + 1)
    (True, False)
    """
    return symbolic_equal(a, b).equal is True


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
    def same(p, d) -> bool:  # p printed, d derived
        return proven_equal(p[0], d[0]) and proven_equal(p[1], d[1])

    missing = [p for p in printed if not any(same(p, d) for d in derived)]
    extra = [d for d in derived if not any(same(p, d) for p in printed)]
    return not missing and not extra, missing, extra
