"""dpverify: the mathematics of differential-privacy papers, checked by machine.

Every statement of the papers the library covers is a registered *claim*
(:mod:`dpverify.claims`) with a check that can come out ``holds``,
``erratum``, ``refuted`` or ``inconclusive``.  Rooms:

- :mod:`dpverify.continual` -- matrix-mechanism continual release (Fenwick, FDA)
- :mod:`dpverify.rr` -- randomized-response utility optima
- :mod:`dpverify.pca` -- PPCA / PPCA-DP synthetic data publishing
- :mod:`dpverify.primitives` -- Laplace, exponential, composition, usefulness
- :mod:`dpverify.audit` -- exact checkers and the statistical auditor
"""

__version__ = "0.1.0"
