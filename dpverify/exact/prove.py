""":func:`prove`: decide ε-DP or (ε, δ)-DP of a finite law for every ε in a domain, exactly.

Pure ε-DP of a finite law with pairs of neighbouring inputs ``(i, j)`` is: for every output set S,
``P[i, S] ≤ e^ε P[j, S]``; summing the single-output inequalities shows that single outputs suffice
(Dwork and Roth 2014, Definition 2.4 with δ = 0: the set condition is a sum of the singleton ones). So
the claim is the finite set of sign conditions ``h_o(ε) = P[i, o] − e^ε P[j, o] ≤ 0`` on the domain,
each decided exactly by :mod:`dpverify.exact.signs`. For δ > 0 the tight δ of a pair is the
hockey-stick divergence, decided piece by piece by :mod:`dpverify.exact.delta`.

The verdict covers the whole domain: ``proved`` means the claim holds at every ε in it (exactly, not at
sample points); ``refuted`` comes with the first failing ordered pair (in ``pairs`` order), its failing
output set, the exact ε′ it needs and the exact ε-set where it fails; ``unknown`` when an entry is not
rational in e^{ε/L} with rational coefficients, or when the second route disagrees.
Method and proof: ``dpverify/exact/proofs/decision.md``.

Example
-------
>>> import sympy as sp
>>> eps = sp.Symbol("epsilon", positive=True)
>>> third = sp.Rational(1, 3)
>>> P = sp.Matrix([[3 * third / 4 + third, 1 - (3 * third / 4 + third)], [third, 2 * third]])
>>> r = prove(sp.Matrix([[sp.Rational(3, 4), sp.Rational(1, 4)], [sp.Rational(1, 4), sp.Rational(3, 4)]]),
...           epsilon=eps)
>>> r.verdict, r.counterexample.epsilon_fails, r.counterexample.epsilon_needed
('refuted', Interval.open(0, log(3)), log(3))
"""

from __future__ import annotations

import numpy as np
import sympy as sp

from dpverify.exact.decide import prove_prepared
from dpverify.exact.result import ProofResult
from dpverify.exact.validate import SIZE_LIMIT
from dpverify.proofdocs import proven

__all__ = ["SIZE_LIMIT", "prove"]


@proven("exact/decision.md")
def prove(P, *, epsilon, delta=0, pairs=None, domain=None, rng: np.random.Generator | None = None,
          points: int = 6) -> ProofResult:
    """Decide whether the finite law ``P`` is (ε, δ)-DP for every ε in the domain, exactly.

    Parameters
    ----------
    P : sympy.Matrix, shape (n, m), or a mechanism with ``symbolic_law``
        (then :func:`dpverify.exact.prove_mechanism`, with ``epsilon`` a positive symbol only).
        ``P[i, o] = Pr(output o | input i)``; entries expressions in ``epsilon``, rational in
        e^{ε/L} for some integer L ≥ 1 (e.g. ``exp(eps)``, ``exp(-eps/2)``). At most
        :data:`SIZE_LIMIT` rows x columns.
    epsilon : sympy.Symbol or number
        A symbol: the verdict covers every ε in ``domain``. A number > 0: that one ε (then ``P``
        must not contain a symbol).
    delta : number or sympy expression in epsilon, optional
        δ ∈ [0, 1] on the domain (default 0: pure ε-DP).
    pairs : list of (i, j), optional
        Ordered pairs of neighbouring rows (``None``: every ordered pair, the local model).
    domain : sympy.Interval or number, optional
        The ε-range of a symbolic ``epsilon`` (default ``Interval.open(0, oo)``); a number means one point.
    rng : numpy.random.Generator, optional
        Draws the certificate's rational spot-check points (default ``default_rng(0)``).
    points : int
        How many spot-check points (default 6).

    Returns
    -------
    ProofResult

    Raises
    ------
    ValueError, TypeError
        Bad input, found before any proof: entries not probabilities somewhere on the domain, a row
        not summing to 1 identically, free symbols other than ε, empty or invalid pairs, a law past
        the size limit.

    Example
    -------
    >>> import sympy as sp
    >>> eps = sp.Symbol("epsilon", positive=True)
    >>> k = 4
    >>> keep = sp.exp(eps) / (1 + sp.exp(eps))
    >>> P = sp.Matrix(k, k, lambda i, o: keep if i == o else (1 - keep) / (k - 1))
    >>> r = prove(P, epsilon=eps)
    >>> r.verdict, r.counterexample.epsilon_needed
    ('refuted', epsilon + log(3))
    """
    if not isinstance(P, sp.MatrixBase) and hasattr(P, "symbolic_law"):  # a mechanism carrying its law
        from dpverify.exact.mechanism import prove_mechanism

        if not (isinstance(epsilon, sp.Symbol) and delta == 0 and pairs is None and domain is None):
            raise ValueError("a mechanism carries its own pairs, delta and epsilon-pieces: call prove(mechanism, "
                             "epsilon=<positive Symbol>) only")
        return prove_mechanism(P, epsilon=epsilon, rng=rng)
    if isinstance(points, (bool, np.bool_)) or not isinstance(points, (int, np.integer)) or not 0 <= points <= 10 ** 4:
        raise ValueError(f"points must be an int in [0, 10**4], got {points!r}")
    points = int(points)
    if rng is not None and not isinstance(rng, np.random.Generator):
        raise TypeError(f"rng must be a numpy.random.Generator, got {type(rng).__name__}")
    rng = np.random.default_rng(0) if rng is None else rng
    return prove_prepared(P, epsilon, delta, pairs, domain, rng, points)
