"""The claims engine: every statement of the papers as a machine-checked claim.

Example
-------
>>> from dpverify.claims import all_claims, run_claims
>>> results = run_claims(all_claims("continual.thm5.1"))   # doctest: +SKIP
>>> [r.verdict.value for r in results]                      # doctest: +SKIP
['holds']

Claims from outside the package (a file, a folder, a dotted module):

>>> claims = load_sources(["examples/gaussian_mechanism"])   # doctest: +SKIP
"""

from dpverify.claims.evidence import to_jsonable
from dpverify.claims.model import SELF_TEST, Claim, Method, Outcome, Result, Source, Verdict
from dpverify.claims.registry import all_claims, claim, get_claim, load_rooms, load_sources, register, unregister
from dpverify.claims.runner import result_to_json, run_claim, run_claims
from dpverify.claims.seeds import seed_text

__all__ = [
    "Claim",
    "Method",
    "Outcome",
    "Result",
    "Source",
    "Verdict",
    "SELF_TEST",
    "seed_text",
    "all_claims",
    "claim",
    "get_claim",
    "load_rooms",
    "load_sources",
    "register",
    "unregister",
    "run_claim",
    "run_claims",
    "result_to_json",
    "to_jsonable",
]
