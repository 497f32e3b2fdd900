"""One mechanism vocabulary for the whole library: protocol, relations, claims, families, catalogue.

- :class:`Mechanism` — ``name``, ``sample(data, rng, n)``, ``relation`` (an object: the input
  domain and candidate pairs), ``claim`` (the stated privacy), ``epsilon``/``delta``;
- relations :class:`Neighbours`, :class:`Pairs` and their :class:`Domain`;
- claims :class:`PureDP`, :class:`ApproxDP`, :class:`DeltaCurve`, :class:`ZCDP`, :class:`RenyiDP`;
- :func:`as_mechanism` — the one door into the protocol (a callable's signature checked by
  :func:`check_signature`); :func:`checked_sample` — the one place outputs are checked;
- :class:`Family`, :class:`Param`, :class:`Pair` and :func:`catalogue` — every mechanism the
  rooms declare in their ``mechanisms.py`` (looked up by family name or the mechanism's own name).

Example
-------
>>> from dpverify.mechanisms import Mechanism, as_mechanism, catalogue
>>> from dpverify.audit.controls import LaplaceMechanism
>>> isinstance(LaplaceMechanism(1.0), Mechanism)
True
>>> all(isinstance(m, Mechanism) for m in catalogue())
True
"""

from dpverify.mechanisms.catalogue import Catalogue, catalogue, families
from dpverify.mechanisms.convert import CLAIMS, as_mechanism, audited, check_signature, sampler
from dpverify.mechanisms.families import Call, Family, MatrixLaw, Pair, Param, family_name, finite_sampler
from dpverify.mechanisms.privacy import ApproxDP, Claim, DeltaCurve, PureDP, RenyiDP, ZCDP, claim_of
from dpverify.mechanisms.protocol import SCALAR, Claimed, FunctionMechanism, Mechanism
from dpverify.mechanisms.relations import KINDS, Domain, Neighbours, Pairs, as_relation
from dpverify.mechanisms.sampling import MechanismError, checked_sample, describe_input, sample_finite

__all__ = [
    "ApproxDP", "CLAIMS", "Call", "Catalogue", "Claim", "Claimed", "DeltaCurve", "Domain", "Family",
    "FunctionMechanism", "KINDS", "MatrixLaw", "Mechanism", "MechanismError", "Neighbours", "Pair", "Pairs",
    "Param", "PureDP", "RenyiDP", "SCALAR", "ZCDP", "as_mechanism", "as_relation", "audited", "catalogue",
    "check_signature", "checked_sample", "claim_of", "describe_input", "families", "family_name", "finite_sampler", "sample_finite",
    "sampler",
]
