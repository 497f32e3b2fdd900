"""The survey room: the survey of Zhu et al. (a blog translation of Zhu et al., *Differentially Private Data
Publishing and Analysis: A Survey*), its definitions checked on the library's primitives.

- ``claims/`` — the paper's statements as claims (ids ``primitives.*``), one module per subject;
- ``proofs/`` — their proof documents, named ``"survey/<file>.md"``;
- :mod:`dpverify.survey.derivations` — the derivations and random instances the claims use.

The building blocks themselves live in :mod:`dpverify.primitives`.

Example
-------
>>> from dpverify.survey import laplace_log_ratio_sup
>>> laplace_log_ratio_sup()[0]
s/b
"""

from dpverify.survey.derivations import laplace_log_ratio_sup, random_channel_pair, random_neighbour_scores

__all__ = ["laplace_log_ratio_sup", "random_channel_pair", "random_neighbour_scores"]
