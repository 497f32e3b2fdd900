"""The auditor's spelling of the one mechanism-failure class: :class:`MechanismError`.

Every sampling path of the auditor calls :func:`call_mechanism`, i.e.
:func:`dpverify.mechanisms.checked_sample`, where the sampling rules live.

Example
-------
>>> import numpy as np
>>> call_mechanism(lambda d, rng, n: rng.random(n), 0.0, np.random.default_rng(0), 3).shape
(3,)
"""

from __future__ import annotations

from dpverify.mechanisms.sampling import MechanismError, call_mechanism, describe_input

__all__ = ["MechanismError", "call_mechanism", "describe_input"]
