"""The claims engine: registration, running, crash handling, timeouts, JSON and the CLI."""

import json
import time

import pytest

from dpverify.claims import (
    Outcome,
    Source,
    Verdict,
    all_claims,
    claim,
    result_to_json,
    run_claims,
    unregister,
)
from dpverify.cli import main


@pytest.fixture
def demo_claims():
    ids = []

    def reg(cid, fn, expected="holds"):
        claim(cid, source=Source("seed-x", "§1", "(1)"), statement=f"demo {cid}", method="exact computation",
              expected=expected)(fn)
        ids.append(cid)

    reg("zzdemo.ok", lambda thorough=False: Outcome(Verdict.HOLDS, {"x": 1.5}))
    reg("zzdemo.wrong", lambda thorough=False: Outcome(Verdict.REFUTED, {"cex": [1, 2]}))

    def boom(thorough=False):
        raise RuntimeError("kaput")

    reg("zzdemo.crash", boom, expected="inconclusive")  # a crash must not pass even here

    def slow(thorough=False):
        time.sleep(30)
        return Outcome(Verdict.HOLDS)

    reg("zzdemo.slow", slow, expected="inconclusive")
    yield ids
    for i in ids:
        unregister(i)


def test_run_and_json(demo_claims):
    res = run_claims(all_claims("zzdemo.ok") + all_claims("zzdemo.wrong") + all_claims("zzdemo.crash"))
    assert [r.verdict for r in res] == [Verdict.HOLDS, Verdict.REFUTED, Verdict.ERROR]
    assert [r.as_expected for r in res] == [True, False, False]  # an error is never as expected
    assert "kaput" in res[2].error
    js = [result_to_json(r) for r in res]
    for key in ("id", "source", "statement", "method", "expected", "verdict", "evidence"):
        assert all(key in j for j in js)
    json.dumps(js)


def test_parallel_timeout(demo_claims):
    t0 = time.perf_counter()
    res = run_claims(all_claims("zzdemo."), jobs=2, timeout=3)
    by = {r.claim.id: r for r in res}
    assert by["zzdemo.slow"].verdict == Verdict.ERROR and not by["zzdemo.slow"].as_expected
    assert "timed out" in by["zzdemo.slow"].outcome.evidence["error"]
    assert by["zzdemo.ok"].verdict == Verdict.HOLDS
    assert by["zzdemo.crash"].verdict == Verdict.ERROR and not by["zzdemo.crash"].as_expected
    assert time.perf_counter() - t0 < 25


def test_cli_exit_status(demo_claims, capsys):
    assert main(["verify", "--only", "zzdemo.ok", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out[0]["id"] == "zzdemo.ok" and out[0]["verdict"] == "holds"
    assert main(["verify", "--only", "zzdemo.wrong"]) == 1
    assert main(["verify", "--only", "no.such.prefix"]) == 2
    # a crash in a claim that expects 'inconclusive' fails the run
    capsys.readouterr()
    assert main(["verify", "--only", "zzdemo.crash", "--json"]) == 1
    out = json.loads(capsys.readouterr().out)
    assert out[0]["verdict"] == "error" and out[0]["expected"] == "inconclusive"


def test_error_cannot_be_expected():
    import pytest

    with pytest.raises(ValueError, match="cannot be 'error'"):
        claim("zzdemo.bad_expect", source=Source("seed-x"), statement="x", method="property",
              expected="error")(lambda thorough=False: Outcome(Verdict.HOLDS))
    unregister("zzdemo.bad_expect")
    assert main(["claims", "--only", "zzdemo.bad_expect", "--json"]) == 2  # nothing was left registered


def test_duplicate_id_rejected(demo_claims):
    from dpverify.claims.registry import DuplicateClaimError

    with pytest.raises(DuplicateClaimError):
        claim("zzdemo.ok", source=Source("s"), statement="again", method="symbolic")(lambda thorough=False: None)


def test_registered_claims_are_well_formed():
    """The package's claims live in the shipped rooms (claims from elsewhere, e.g. examples/ collected
    by the pytest plugin, may also be registered in this process: they keep to their own rooms)."""
    from dpverify.claims.registry import reserved_namespaces, source_of
    from dpverify.claims.store import in_package

    from dpverify.rooms import room_of

    spaces = {"continual", "rr", "pca", "primitives", "audit"}
    assert spaces <= reserved_namespaces()  # the shipped rooms' namespaces are reserved
    for c in all_claims():
        src = source_of(c.id) or ""
        assert c.namespace == c.id.split(".", 1)[0]
        if in_package(src) or src.startswith("dpverify."):
            assert c.namespace in spaces, c.id
            assert c.room == room_of(c.id).name and c.namespace in room_of(c.id).namespaces, c.id
        else:
            assert c.namespace not in spaces, (c.id, src)
        assert c.statement and c.source.paper


def test_a_claim_knows_its_room_and_its_namespace():
    """``Claim.room`` is the room that holds the claim; ``Claim.namespace`` the id's prefix (they differ
    where claims moved rooms and kept their ids: the auditor's self-tests, paper 002's statements)."""
    from dpverify.claims.registry import get_claim

    by_room = {}
    for c in all_claims():
        by_room.setdefault((c.namespace, c.room), []).append(c.id)
    assert ("audit", "selftest") in by_room and ("audit", "audit") not in by_room
    assert ("primitives", "survey") in by_room and ("primitives", "primitives") not in by_room
    assert get_claim(by_room[("rr", "rr")][0]).room == "rr"
