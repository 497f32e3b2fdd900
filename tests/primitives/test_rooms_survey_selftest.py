"""The primitives, survey and selftest rooms: who declares what, and where each claim lives."""

from __future__ import annotations

import importlib

import pytest

from dpverify.claims import all_claims
from dpverify.rooms import claim_module_names, proof_path, room, room_of


def test_each_claim_prefix_has_one_room():
    assert room_of("primitives.laplace_dp").name == "survey"
    assert room_of("audit.control.laplace").name == "selftest"
    assert room("primitives").namespaces == ()  # its code's statements are the survey's claims
    assert [p.key for p in room("survey").papers] == ["002"] and room("selftest").papers == ()


def test_no_two_rooms_share_a_claim_prefix():
    from dpverify.rooms import rooms

    seen: dict[str, str] = {}
    for r in rooms():
        for ns in r.namespaces:
            assert ns not in seen, f"rooms {seen[ns]!r} and {r.name!r} both declare the prefix {ns!r}"
            seen[ns] = r.name


@pytest.mark.parametrize("name, prefixes", [("survey", ("primitives.",)), ("selftest", ("audit.",))])
def test_every_claims_module_registers_claims_of_its_room(name, prefixes):
    """The room's claims are exactly those of its claims/ modules, and each module holds some."""
    modules = claim_module_names(room(name))
    assert len(modules) >= 6 and all(".claims." in m for m in modules)
    for m in modules:
        importlib.import_module(m)
    assert {c.check.__module__ for p in prefixes for c in all_claims(p)} == set(modules)


def test_proofs_resolve_in_their_rooms():
    for c in all_claims("primitives.") + all_claims("audit."):
        assert c.proof and proof_path(c.proof) is not None, (c.id, c.proof)
    assert proof_path("survey/laplace_dp.md").parent.parent.name == "survey"
    assert proof_path("primitives/discrete_laplace_sampler.md").parent.parent.name == "primitives"
    assert proof_path("primitives/laplace_dp.md") is None  # moved to the survey room
