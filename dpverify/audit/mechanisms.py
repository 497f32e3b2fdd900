"""The auditor's controls, where they used to live: now :mod:`dpverify.audit.controls`.

Example
-------
>>> from dpverify.audit.mechanisms import LaplaceMechanism
>>> LaplaceMechanism(1.0).name
'LaplaceMechanism(epsilon=1.0, sensitivity=1.0, scale_factor=1.0)'
"""

from dpverify.audit.controls import (BinDifference, ExponentialMechanism, FiniteMechanism,
                                     GeometricMechanism, HistogramLaplace, KRR, LaplaceMechanism, NoisyMax,
                                     SparseVector, SuffixSum)

__all__ = ["BinDifference", "ExponentialMechanism", "FiniteMechanism", "GeometricMechanism",
           "HistogramLaplace", "KRR", "LaplaceMechanism", "NoisyMax", "SparseVector", "SuffixSum"]
