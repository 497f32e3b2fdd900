"""Rooms are found, never named: a room made of one folder appears everywhere without an edit outside it.

The throwaway room ``zzroom`` is written to a temporary directory (``room.py``, ``mechanisms.py``,
``cli.py``, ``claims/``, ``proofs/``) and installed the way a package installs one: a
``*.dist-info`` with an entry point in the ``dpverify.rooms`` group, in a folder put on the path
of a fresh interpreter.  That interpreter shows the room in ``dpverify verify``, in the report
(its paper, its claim, its proof), in ``dpverify --help`` (its command and its glossary word), in
its own command, and in ``dpverify.mechanisms.catalogue()``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from dpverify import rooms as rooms_mod
from dpverify.rooms import Command, Paper, Room, claim_module_names, is_claims_file, proof_path, room, room_of, rooms

ROOT = Path(__file__).resolve().parent.parent

FILES = {
    "zzroom/__init__.py": '"""A throwaway room: a coin that tells the truth with probability e^ε / (1 + e^ε)."""\n',
    "zzroom/room.py": '''
        from dpverify.rooms import Command, Paper, Room

        ROOM = Room(
            name="zzroom",
            summary="a throwaway room made in a temporary directory",
            papers=(Paper("907", "A throwaway paper on coins", authors="Doe, Roe", venue="Nowhere 2026",
                          seed_file="907_0123abcd.txt"),),
            commands=(Command("zzroom-hello", "zzroom.cli", "say hello from the throwaway room"),),
            glossary=(("zzcoin", "the throwaway room's coin: the truth with probability e^ε / (1 + e^ε)"),),
        )
    ''',
    "zzroom/coin.py": '''
        import math

        import numpy as np


        def keep_probability(epsilon):
            return math.exp(epsilon) / (1.0 + math.exp(epsilon))


        def flip(d, rng, n, *, epsilon=1.0):
            keep = rng.random(n) < keep_probability(epsilon)
            return np.where(keep, int(d), 1 - int(d))
    ''',
    "zzroom/mechanisms.py": '''
        from functools import partial

        from dpverify.mechanisms import Family, FunctionMechanism, Pair, Param

        from zzroom.coin import flip


        def coin(*, epsilon):
            return FunctionMechanism(partial(flip, epsilon=epsilon), epsilon, name=f"zzroom.coin(epsilon={epsilon})")


        def families():
            return [Family("zzroom.coin", coin, {"epsilon": Param("float", 0.1, 3.0)},
                           lambda *, epsilon: [Pair(0, 1)])]
    ''',
    "zzroom/cli.py": '''
        def register(subparsers):
            p = subparsers.add_parser("zzroom-hello", help="say hello from the throwaway room")
            p.set_defaults(func=lambda args: print("hello from zzroom") or 0)
    ''',
    "zzroom/claims/__init__.py": "",
    "zzroom/claims/coin.py": '''
        import math

        from dpverify.claims import Outcome, Source, Verdict, claim

        from zzroom.coin import keep_probability


        @claim("zzroom.coin.ratio", source=Source("907", "§1", "(1)"), method="exact computation",
               statement="the coin's likelihood ratio is e^ε", proof="zzroom/coin_ratio.md")
        def _ratio(thorough=False):
            p = keep_probability(1.0)
            ratio = p / (1 - p)
            return Outcome(Verdict.HOLDS if math.isclose(ratio, math.e) else Verdict.REFUTED,
                           {"ratio": ratio}, summary="p / (1 - p) = e^ε")
    ''',
    "zzroom/proofs/coin_ratio.md": '''
        # The coin's likelihood ratio

        ## Statement
        p / (1 − p) = e^ε for p = e^ε / (1 + e^ε).

        ## Assumptions
        ε > 0.

        ## Derivation
        ```python
        import sympy as sp
        e = sp.symbols("epsilon", positive=True)
        p = sp.exp(e) / (1 + sp.exp(e))
        assert sp.simplify(p / (1 - p) - sp.exp(e)) == 0
        ```

        ## What the code relies on
        `keep_probability`.
    ''',
    "zzroom-1.0.dist-info/METADATA": "Metadata-Version: 2.1\nName: zzroom\nVersion: 1.0\n",
    "zzroom-1.0.dist-info/entry_points.txt": "[dpverify.rooms]\nzzroom = zzroom\n",
}

SCRIPT = '''
import contextlib, io, json, sys
from dpverify.cli import main

def run(*argv):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        try:
            rc = main(list(argv))
        except SystemExit as exc:
            rc = exc.code
    return rc, out.getvalue()

got = {}
got["help_modules"] = sorted(m for m in sys.modules if m.startswith("zzroom"))
got["help"] = run("--help")
got["help_modules"] = sorted(m for m in sys.modules if m.startswith("zzroom"))
got["hello"] = run("zzroom-hello")
got["verify"] = run("verify", "--only", "zzroom.", "--json")
got["report"] = run("report", "--only", "zzroom.", "--out", sys.argv[1], "--json")
from dpverify.mechanisms import Mechanism, catalogue
cat = catalogue()
got["catalogue"] = [n for n in cat.names() if n.startswith("zzroom.")]
got["is_mechanism"] = isinstance(cat["zzroom.coin"], Mechanism)
got["pairs"] = [list(map(int, p)) for p in cat["zzroom.coin"].relation.candidates()]
print(json.dumps(got))
'''


def _write_room(site: Path) -> None:
    for rel, text in FILES.items():
        f = site / rel
        f.parent.mkdir(parents=True, exist_ok=True)
        f.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """Run the CLI, the report and the catalogue in a fresh interpreter that has the room installed."""
    site = tmp_path_factory.mktemp("site")
    _write_room(site)
    out = tmp_path_factory.mktemp("report")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(site), str(ROOT)]), COLUMNS="200")
    proc = subprocess.run([sys.executable, "-c", SCRIPT, str(out)], capture_output=True, text=True,
                          cwd=str(site), env=env, timeout=600)
    assert proc.returncode == 0, proc.stderr[-4000:]
    return json.loads(proc.stdout.strip().splitlines()[-1]), out


def test_the_room_is_in_dpverify_verify(installed):
    got, _ = installed
    rc, text = got["verify"]
    assert rc == 0
    (result,) = json.loads(text)
    assert (result["id"], result["verdict"], result["proof"]) == ("zzroom.coin.ratio", "holds", "zzroom/coin_ratio.md")


def test_the_room_is_in_the_report(installed):
    got, out = installed
    rc, text = got["report"]
    assert rc == 0
    doc = json.loads(text)
    assert doc["papers"]["907"] == {"title": "Doe, Roe, A throwaway paper on coins, Nowhere 2026",
                                    "seed_file": "907_0123abcd.txt", "room": "zzroom", "known": True}
    assert [(c["id"], c["paper"], c["room"]) for c in doc["claims"]] == [("zzroom.coin.ratio", "907", "zzroom")]
    page = (out / "report.html").read_text(encoding="utf-8")
    assert "A throwaway paper on coins" in page and "The coin&#x27;s likelihood ratio" in page  # the proof, embedded
    assert "document not found" not in page


def test_the_room_is_in_the_cli(installed):
    got, _ = installed
    rc, text = got["help"]
    assert rc == 0
    assert "zzroom-hello" in text and "say hello from the throwaway room" in text
    assert "zzcoin" in text and "zzroom" in text.split("glossary:")[1]
    assert got["help_modules"] == []  # --help read room.py without importing the room
    assert got["hello"] == [0, "hello from zzroom\n"]


def test_the_room_is_in_the_catalogue(installed):
    got, _ = installed
    assert got["catalogue"] == ["zzroom.coin"]
    assert got["is_mechanism"] and got["pairs"] == [[0, 1]]


def test_claims_discovery_rule():
    assert [is_claims_file(p) for p in ("x/claims.py", "x/claims_a.py", "x/a_claims.py", "x/claims/a.py",
                                        "x/claims/_a.py", "x/claims/__init__.py", "x/a.py", "x/claims.txt")] == [
        True, True, True, True, False, False, False, False]
    for r in rooms():
        assert all(m.startswith(r.package + ".") or m == r.package for m in claim_module_names(r))


def test_reserved_namespaces_come_from_the_rooms():
    """``audit`` and ``primitives`` stay reserved because the rooms holding those claims declare them."""
    reserved = rooms_mod.reserved_namespaces()
    assert {r.name for r in rooms() if r.shipped} <= reserved | {r.name for r in rooms() if r.namespaces != (r.name,)}
    for ns in reserved:
        assert room_of(f"{ns}.x") is not None and room_of(f"{ns}.x").shipped


def test_proof_names(tmp_path):
    assert proof_path("rr/no_such_proof.md") is None
    with pytest.raises(ValueError, match="<room>/<file>.md"):
        proof_path("no-slash.md")
    assert room("rr").papers and all(isinstance(p, Paper) for p in room("rr").papers)


def test_a_broken_installed_room_is_reported_not_fatal(tmp_path, monkeypatch):
    """An entry point whose room.py fails, or that takes a shipped room's name, gives no room but a problem."""
    site = tmp_path / "site"
    (site / "zzbroken").mkdir(parents=True)
    (site / "zzbroken" / "__init__.py").write_text("")
    (site / "zzbroken" / "room.py").write_text("raise RuntimeError('broken room.py')\n")
    (site / "rr_again").mkdir()
    (site / "rr_again" / "__init__.py").write_text("")
    dist = site / "zzbroken-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: zzbroken\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text("[dpverify.rooms]\nzzbroken = zzbroken\nrr = rr_again\n")
    monkeypatch.syspath_prepend(str(site))
    try:
        names = {r.name for r in rooms(refresh=True)}
        problems = {name: why for name, _, why in rooms_mod.problems()}
    finally:
        monkeypatch.undo()
        rooms(refresh=True)
    assert "zzbroken" not in names and room("rr").package == "dpverify.rr"
    assert "broken room.py" in problems["zzbroken"] and "shipped with dpverify" in problems["rr"]


def test_declarations_are_checked():
    with pytest.raises(ValueError, match="identifier"):
        Room(name="no-dash")
    with pytest.raises(TypeError, match="Command"):
        Room(name="ok", commands=("verify",))
    with pytest.raises(ValueError, match="command name"):
        Command("Bad Name", "m", "h")
    with pytest.raises(ValueError, match="key and a title"):
        Paper("", "t")
