"""The floating-point attack, where it used to live: now :mod:`dpverify.audit.controls.floating_point`
(the library's float and safe releases: :mod:`dpverify.selftest.controls`).

Example
-------
>>> from dpverify.audit.floating_point import fp_attack_statistic
>>> fp_attack_statistic(1.0)
OffGrid(exponent=-53)
"""

from dpverify.audit.controls.floating_point import OffGrid, TextbookLaplace, fp_attack_statistic

__all__ = ["OffGrid", "TextbookLaplace", "fp_attack_statistic"]
