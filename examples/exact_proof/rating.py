"""A user's own finite mechanism: a 1–5 star rating released with two-sided geometric noise, clamped to 1–5.

``rating_law(eps)`` returns its exact law as a sympy Matrix (rows: the true rating, columns: the
released one), with r = e^(−ε): P[t, o] ∝ r^|o − t| inside, the tails folded onto 1 and 5.
``rating_law_unfolded(eps)`` is a tempting "simplification" that renormalises each row instead of
folding the tails: it is not ε-DP, and ``dpverify prove`` says by how much, exactly.

    dpverify prove rating:rating_law                 # run in this folder: proved, every ε > 0
    dpverify prove rating:rating_law_unfolded --json # refuted, with the ε′ it needs
"""

import sympy as sp

STARS = 5


def rating_law(eps):
    """The truncated (folded) geometric mechanism on {1..5}: ε-DP between adjacent ratings."""
    r = sp.exp(-eps)

    def entry(t, o):
        if o == 0:
            return r ** t / (1 + r)
        if o == STARS - 1:
            return r ** (STARS - 1 - t) / (1 + r)
        return (1 - r) / (1 + r) * r ** abs(o - t)
    return sp.Matrix(STARS, STARS, entry)


def rating_law_unfolded(eps):
    """Each row r^|o − t| renormalised: the normalisers differ between rows, so it needs more than ε."""
    r = sp.exp(-eps)
    rows = [[r ** abs(o - t) for o in range(STARS)] for t in range(STARS)]
    return sp.Matrix([[v / sum(row) for v in row] for row in rows])


#: adjacent ratings are the neighbours
ADJACENT = [(t, t + 1) for t in range(STARS - 1)] + [(t + 1, t) for t in range(STARS - 1)]
