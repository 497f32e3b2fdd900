"""Continual release of running counts with the matrix mechanism (seeds 000, 004).

Public API: ``expected_mse``, ``release``, ``stream``, ``strategy`` (dispatching
over the registered methods, see :mod:`dpverify.continual.methods`).
"""

from dpverify.continual.api import expected_mse, release, strategy, stream
from dpverify.continual.methods import method_names

# Method modules register themselves on import (add yours below).

__all__ = ["expected_mse", "release", "strategy", "stream", "method_names"]
