"""The library adapters, where the auditor's users found them: now :mod:`dpverify.mechanisms.adapters`.

``dpverify audit dpverify.audit.adapters:diffprivlib ...`` and
``from dpverify.audit.adapters import from_opendp`` keep working.

Example
-------
>>> from dpverify.audit.adapters import OPENDP_MEASUREMENTS
>>> "laplace" in OPENDP_MEASUREMENTS
True
"""

from __future__ import annotations

from dpverify.mechanisms.adapters import (DIFFPRIVLIB_MECHANISMS, OPENDP_MEASUREMENTS, diffprivlib,
                                          from_diffprivlib, from_opendp, opendp)

__all__ = ["DIFFPRIVLIB_MECHANISMS", "OPENDP_MEASUREMENTS", "diffprivlib", "from_diffprivlib", "from_opendp", "opendp"]
