"""Check what libraries say: DP-SGD accountants against a certified bracket on epsilon(delta).

Example
-------
>>> from dpverify.conform import epsilon_bracket
>>> low, high = epsilon_bracket(noise_multiplier=1.0, sample_rate=0.01, steps=10, delta=1e-5)
>>> low <= high
True
"""

from dpverify.conform.bracket import BracketDetails, bracket_details, epsilon_bracket

__all__ = ["epsilon_bracket", "bracket_details", "BracketDetails"]
