"""The auditor's controls, where they used to live: now :mod:`dpverify.audit.controls` (and, for
the controls that sample through a room's code, :mod:`dpverify.selftest.controls`).

Example
-------
>>> from dpverify.audit.mechanisms import LaplaceMechanism
>>> LaplaceMechanism(1.0).name
'LaplaceMechanism(epsilon=1.0, sensitivity=1.0, scale_factor=1.0)'
"""

from dpverify.audit.controls import (BinDifference, FiniteMechanism, HistogramLaplace, LaplaceMechanism, NoisyMax,
                                     SparseVector, SuffixSum)

__all__ = ["BinDifference", "FiniteMechanism", "HistogramLaplace", "LaplaceMechanism", "NoisyMax", "SparseVector",
           "SuffixSum"]
