"""dpverify: the mathematics of differential-privacy papers, checked by machine.

Every statement of the papers the library covers is a registered *claim*
(:mod:`dpverify.claims`) with a check that can come out ``holds``,
``erratum``, ``refuted`` or ``inconclusive``.  Each subject is a *room* (a folder with its code, ``room.py``,
``mechanisms.py``, ``claims/`` and ``proofs/``), found by :mod:`dpverify.rooms`;
mechanisms share one shape (:mod:`dpverify.mechanisms`); the auditor is
:mod:`dpverify.audit`.
"""

__version__ = "0.1.0"
