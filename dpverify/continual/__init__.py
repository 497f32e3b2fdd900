"""Continual release of running counts with the matrix mechanism (a thesis chapter; Cai, Wu, Wang 2016).

Public API: ``expected_mse``, ``release``, ``stream``, ``strategy`` (dispatching
over the registered methods, see :mod:`dpverify.continual.methods`).
"""

from dpverify.continual.api import expected_mse, release, strategy, stream
from dpverify.continual.methods import method_names

# Method modules register themselves on import (add yours below).
from dpverify.continual import naive as _naive  # noqa: E402,F401
from dpverify.continual.fenwick import fenwick_recombination, fenwick_strategy, lowbit  # noqa: E402
from dpverify.continual.fda import fda_weights  # noqa: E402
from dpverify.continual import fda_paper as _fda_paper  # noqa: E402,F401
from dpverify.continual import kary as _kary  # noqa: E402,F401
from dpverify.continual import baselines as _baselines  # noqa: E402,F401
from dpverify.continual import elders_stream as _elders  # noqa: E402,F401

__all__ = ["expected_mse", "release", "strategy", "stream", "method_names"]
__all__ += ["fenwick_strategy", "fenwick_recombination", "fda_weights", "lowbit"]

from dpverify.continual.matrix import MatrixMechanism  # noqa: E402

__all__ += ["MatrixMechanism"]
