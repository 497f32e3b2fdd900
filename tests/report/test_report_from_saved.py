"""``dpverify verify --save FILE`` writes the report's JSON; ``dpverify report --from FILE`` builds the
report from it without running any claim again."""

from __future__ import annotations

import json
import os

import pytest

from dpverify.claims import Outcome, Source, Verdict, claim, unregister
from dpverify.cli import main
from dpverify.report import load_report

def _runs() -> list[str]:
    """The claims whose checks ran, from the file the checks append to (``dpverify verify`` runs checks
    in supervised worker processes, so a list in this process would not see them)."""
    path = os.environ["ZZONCE_RUNS"]
    return open(path, encoding="utf-8").read().split() if os.path.exists(path) else []


@pytest.fixture
def once_claims(monkeypatch, tmp_path):
    """Claims whose checks may run once: a second run fails loudly (and is counted)."""
    from matplotlib.figure import Figure

    monkeypatch.setenv("ZZONCE_RUNS", str(tmp_path / "runs.txt"))

    def once(cid, verdict, evidence, **kw):
        def check(thorough=False):
            with open(os.environ["ZZONCE_RUNS"], "a", encoding="utf-8") as f:
                f.write(cid + "\n")
            if _runs().count(cid) > 1:
                raise AssertionError(f"{cid} ran again")
            return Outcome(verdict, evidence, figure_data={"y": [0.0, 1.0]}, summary=f"{cid} ran")

        claim(cid, source=Source("001", "§1"), statement=f"statement of {cid}", method="exact computation",
              expected=verdict, **kw)(check)

    def figure(outcome):
        fig = Figure(figsize=(2, 1))
        fig.add_subplot().plot(outcome.figure_data["y"])
        return fig

    once("zzonce.holds", Verdict.HOLDS, {"x": 1.5, "n": 3}, figure=figure)
    once("zzonce.refuted", Verdict.REFUTED, {"counterexample": [1, 2]})
    yield
    unregister("zzonce.holds")
    unregister("zzonce.refuted")


def test_verify_saves_the_report_json_and_report_reads_it_without_running(once_claims, tmp_path, capsys):
    saved = tmp_path / "results.json"
    assert main(["verify", "--only", "zzonce.", "--save", str(saved)]) == 0
    assert sorted(_runs()) == ["zzonce.holds", "zzonce.refuted"]
    capsys.readouterr()
    doc = load_report(saved)  # the report's schema
    assert {c["id"]: c["verdict"] for c in doc["claims"]} == {"zzonce.holds": "holds", "zzonce.refuted": "refuted"}

    out = tmp_path / "rep"
    assert main(["report", "--from", str(saved), "--out", str(out), "--json"]) == 0
    assert sorted(_runs()) == ["zzonce.holds", "zzonce.refuted"]  # no check ran again
    printed = json.loads(capsys.readouterr().out)
    written = load_report(out)
    for d in (printed, written):
        assert {c["id"]: (c["verdict"], c["evidence"], c["summary"]) for c in d["claims"]} == {
            c["id"]: (c["verdict"], c["evidence"], c["summary"]) for c in doc["claims"]}
        assert d["provenance"] == doc["provenance"]  # the run's provenance, not this command's
    page = (out / "report.html").read_text(encoding="utf-8")
    assert "zzonce.holds" in page and "ran again" not in page
    assert [c["figure"] for c in written["claims"] if c["id"] == "zzonce.holds"] == [True]  # drawn from saved data
    # the saved results say what the report says about the figures
    assert {c["id"]: (c["figure"], c["figure_error"]) for c in doc["claims"]} == {
        c["id"]: (c["figure"], c["figure_error"]) for c in written["claims"]} == {
        "zzonce.holds": (True, None), "zzonce.refuted": (False, None)}
    assert "data:image/png;base64," in page


def test_report_from_its_own_json_and_with_a_baseline(once_claims, tmp_path, capsys):
    first = tmp_path / "first"
    assert main(["report", "--only", "zzonce.", "--out", str(first)]) == 0
    again = tmp_path / "again"
    assert main(["report", "--from", str(first / "report.json"), "--out", str(again),
                 "--baseline", str(first)]) == 0
    assert sorted(_runs()) == ["zzonce.holds", "zzonce.refuted"]
    doc = load_report(again)
    assert doc["comparison"]["changes"] == [] and doc["comparison"]["compared"] == 2


def test_from_needs_a_report_file(tmp_path, capsys):
    bad = tmp_path / "bad.json"
    bad.write_text("[1, 2]")
    assert main(["report", "--from", str(bad), "--out", str(tmp_path / "o")]) == 2
    assert "not a dpverify report" in capsys.readouterr().err
    assert main(["report", "--from", str(tmp_path / "none.json"), "--out", str(tmp_path / "o")]) == 2


def test_a_crafted_results_file_cannot_embed_local_files(once_claims, tmp_path, capsys):
    """A saved results file names proofs; only ``"<room>/<file>.md"`` documents inside a room's ``proofs/``
    are read: a name climbing out (``..``), an absolute path or a link leading outside embeds nothing."""
    secret = tmp_path / "x" / "secret.txt"
    secret.parent.mkdir()
    secret.write_text("TOP-SECRET-CONTENT", encoding="utf-8")
    saved = tmp_path / "results.json"
    assert main(["verify", "--only", "zzonce.", "--save", str(saved)]) == 0
    doc = json.loads(saved.read_text(encoding="utf-8"))
    depth = len(__import__("dpverify").__file__.split("/"))
    climbs = ["rr/" + "../" * depth + str(secret).lstrip("/"), "rr/../../../../../../" + str(secret).lstrip("/"),
              str(secret), "proofs/rr/binary_optimum.md", "rr/sub/binary_optimum.md", 7]
    doc["claims"] = [{**doc["claims"][0], "id": f"zzonce.holds{i}", "proof": p} for i, p in enumerate(climbs)]
    doc["claims"].append({**doc["claims"][0], "id": "zzonce.fine", "proof": "rr/binary_optimum.md"})
    crafted = tmp_path / "crafted.json"
    crafted.write_text(json.dumps(doc), encoding="utf-8")
    out = tmp_path / "rep"
    main(["report", "--from", str(crafted), "--out", str(out)])
    page = (out / "report.html").read_text(encoding="utf-8")
    assert "TOP-SECRET-CONTENT" not in page
    assert page.count("(document not found)") == len(climbs)
    assert 'id="proof-rr-binary_optimum-md"' in page  # a real proof is still embedded


def test_proof_path_keeps_to_the_proofs_folders(tmp_path):
    from dpverify.rooms import proof_path

    secret = tmp_path / "secret.md"
    secret.write_text("s", encoding="utf-8")
    for name in ("rr/../../../../../../../.." + str(secret), "rr/../binary_optimum.md", "/rr/binary_optimum.md",
                 "proofs/rr/binary_optimum.md", "rr\\..\\x.md", "rr/x.txt"):
        with pytest.raises(ValueError, match="<room>/<file>.md"):
            proof_path(name)
    (tmp_path / "room").mkdir()
    (tmp_path / "room" / "link.md").symlink_to(secret)  # a link out of the folder is not followed out
    (tmp_path / "room" / "ok.md").write_text("ok", encoding="utf-8")
    assert proof_path("room/link.md", root=tmp_path) is None
    assert proof_path("room/ok.md", root=tmp_path) == (tmp_path / "room" / "ok.md").resolve()


def test_the_report_names_each_claims_room_and_namespace(tmp_path, capsys):
    """``room`` is the room that holds the claim (``dpverify.rooms.room_of``), ``namespace`` the id's prefix;
    a report.json written before (``room`` = prefix, no ``namespace``) is read with today's fields."""
    from dpverify.claims.registry import all_claims
    from dpverify.report.build import report_from_file, results_document
    from dpverify.claims.model import Outcome as O, Result
    from dpverify.rooms import room_of
    from datetime import datetime, timezone

    picked = {}
    for c in all_claims():
        picked.setdefault(c.namespace, c)
    results = [Result(c, O(Verdict.HOLDS, {"x": 1}), 0.0) for c in picked.values()]
    doc = results_document(results, command=None, started=datetime.now(timezone.utc), total_seconds=0.0)
    rooms = {e["id"]: (e["namespace"], e["room"]) for e in doc["claims"]}
    for cid, (ns, rm) in rooms.items():
        home = room_of(cid)  # claims other tests registered outside any room fall back to their prefix
        assert ns == cid.split(".", 1)[0] and rm == (home.name if home else ns), cid
    assert rooms[picked["audit"].id] == ("audit", "selftest")
    assert rooms[picked["primitives"].id] == ("primitives", "survey")

    old = {**doc, "claims": [{k: v for k, v in {**e, "room": e["namespace"]}.items() if k != "namespace"}
                             for e in doc["claims"]]}
    saved = tmp_path / "old.json"
    saved.write_text(json.dumps(old), encoding="utf-8")
    again = report_from_file(saved, tmp_path / "rep")
    assert {e["id"]: (e["namespace"], e["room"]) for e in again.document["claims"]} == rooms
    assert {e["id"]: (e["namespace"], e["room"]) for e in load_report(tmp_path / "rep")["claims"]} == rooms
