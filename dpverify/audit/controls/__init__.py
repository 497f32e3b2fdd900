"""The auditor's controls: the library's own correct and broken mechanisms, and the fp attack.

- :mod:`~dpverify.audit.controls.standard` — correct controls (never to be refuted) and known bugs
  (to be refuted): Laplace, geometric, exponential, kRR, a finite mechanism given by its laws;
- :mod:`~dpverify.audit.controls.vector` — noisy histogram, noisy max, sparse vector, and the
  statistics for vector outputs (the FDA release control lives in the selftest room);
- :mod:`~dpverify.audit.controls.floating_point` — Mironov's floating-point attack on textbook
  Laplace sampling, the library's float and safe releases, and the off-grid statistic.

Every control is a :class:`dpverify.mechanisms.Mechanism`.  The selftest room declares them as
mechanism families (``dpverify/selftest/mechanisms.py``).

Example
-------
>>> from dpverify.mechanisms import Mechanism
>>> isinstance(LaplaceMechanism(1.0), Mechanism), isinstance(TextbookLaplace(1.0), Mechanism)
(True, True)
"""

from dpverify.audit.controls.floating_point import LibraryLaplace, OffGrid, SafeLaplace, TextbookLaplace, fp_attack_statistic
from dpverify.audit.controls.standard import (ExponentialMechanism, FiniteMechanism, GeometricMechanism, HockeyStick, KRR,
                                              LaplaceMechanism)
from dpverify.audit.controls.vector import BinDifference, HistogramLaplace, NoisyMax, SparseVector, SuffixSum

__all__ = ["BinDifference", "ExponentialMechanism", "FiniteMechanism", "GeometricMechanism",
           "HistogramLaplace", "HockeyStick", "KRR", "LaplaceMechanism", "LibraryLaplace", "NoisyMax", "OffGrid",
           "SafeLaplace", "SparseVector", "SuffixSum", "TextbookLaplace", "fp_attack_statistic"]
