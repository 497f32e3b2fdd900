"""The auditor's controls: the engine's own correct and broken mechanisms, and the fp attack.

- :mod:`~dpverify.audit.controls.standard` — the Laplace control (correct, and at half the noise a
  known bug), a finite mechanism given by its laws, and the hockey-stick divergence;
- :mod:`~dpverify.audit.controls.vector` — noisy histogram, noisy max, sparse vector, and the
  statistics for vector outputs;
- :mod:`~dpverify.audit.controls.floating_point` — Mironov's floating-point attack on textbook
  Laplace sampling and the off-grid statistic.

Controls that sample through a room's code (the primitives' geometric, exponential, k-RR and
Laplace releases, the continual room's FDA release) are the selftest room's
(:mod:`dpverify.selftest.controls`): the engine imports no room.  Every control is a
:class:`dpverify.mechanisms.Mechanism`; the selftest room declares them as mechanism families.

Example
-------
>>> from dpverify.mechanisms import Mechanism
>>> isinstance(LaplaceMechanism(1.0), Mechanism), isinstance(TextbookLaplace(1.0), Mechanism)
(True, True)
"""

from dpverify.audit.controls.base import Control
from dpverify.audit.controls.floating_point import OffGrid, ScalarRelease, TextbookLaplace, fp_attack_statistic
from dpverify.audit.controls.standard import FiniteMechanism, HockeyStick, LaplaceMechanism
from dpverify.audit.controls.vector import BinDifference, HistogramLaplace, NoisyMax, SparseVector, SuffixSum

__all__ = ["BinDifference", "Control", "FiniteMechanism", "HistogramLaplace", "HockeyStick", "LaplaceMechanism",
           "NoisyMax", "OffGrid", "ScalarRelease", "SparseVector", "SuffixSum", "TextbookLaplace",
           "fp_attack_statistic"]
