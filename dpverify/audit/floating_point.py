"""The floating-point attack, where it used to live: now :mod:`dpverify.audit.controls.floating_point`.

Example
-------
>>> from dpverify.audit.floating_point import fp_attack_statistic
>>> fp_attack_statistic(1.0)
OffGrid(exponent=-53)
"""

from dpverify.audit.controls.floating_point import LibraryLaplace, OffGrid, SafeLaplace, TextbookLaplace, fp_attack_statistic

__all__ = ["LibraryLaplace", "OffGrid", "SafeLaplace", "TextbookLaplace", "fp_attack_statistic"]
