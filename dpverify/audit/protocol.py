"""The mechanism protocol, as the auditor has always spelled it: now :mod:`dpverify.mechanisms`.

Kept so that ``from dpverify.audit.protocol import ...`` keeps working; the protocol, its basic
form :class:`FunctionMechanism`, :func:`as_mechanism` and the sampling rules of
:func:`checked_sample` live in :mod:`dpverify.mechanisms`.

Example
-------
>>> import numpy as np
>>> m = as_mechanism(lambda d, rng, n: d + rng.laplace(0.0, 1.0, n), epsilon=1.0, name="lap")
>>> isinstance(m, Mechanism), checked_sample(m, 0.0, np.random.default_rng(0), 3).shape
(True, (3,))
"""

from __future__ import annotations

from dpverify.mechanisms.convert import CLAIMS, as_mechanism
from dpverify.mechanisms.protocol import FunctionMechanism, Mechanism
from dpverify.mechanisms.sampling import MechanismError, checked_sample, describe_input

__all__ = ["CLAIMS", "FunctionMechanism", "Mechanism", "MechanismError", "as_mechanism", "checked_sample",
           "describe_input"]
