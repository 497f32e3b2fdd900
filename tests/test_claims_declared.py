"""Issue 31, "Names the tests rely on": a claims file that cannot be loaded still gives a row for every
claim it declares.

The declarations are read from the file's text (:mod:`dpverify.claims.declared`, never imported);
``dpverify verify FILE --json`` then holds an ``error`` row for each declared claim (and one row for
the declarations whose ids are computed), exits non-zero, and ``dpverify claims FILE`` refuses with
one line and exit status 2 instead of ending or hanging with the file.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time

import pytest

from dpverify.claims.declared import declared_in_file, declared_in_text, source_files
from dpverify.claims.execute import unloaded_results
from dpverify.cli import main


def _ids(text: str) -> list[str]:
    return [c.id for c in declared_in_text(textwrap.dedent(text)).claims]


def test_decorator_forms_and_import_names():
    text = '''
        import dpverify.claims as dc
        from dpverify import claims
        from dpverify.claims import claim as mk, Claim, register
        import dpverify.claims.registry

        @mk("zz.positional", source=("p",), statement="s", method="property")
        def _a(thorough=False): ...
        @dc.claim(id="zz.keyword", source=("p",), statement="s", method="property")
        def _b(thorough=False): ...
        claims.claim("zz.called", source=("p",), statement="s", method="property")(lambda thorough=False: None)
        @dpverify.claims.registry.claim("zz.dotted", source=("p",), statement="s", method="property")
        def _c(thorough=False): ...
        register(Claim(id="zz.registered", source=None, statement="s", method="property", expected="holds",
                       check=None))
    '''
    assert _ids(text) == ["zz.positional", "zz.keyword", "zz.called", "zz.dotted", "zz.registered"]


def test_other_functions_named_claim_are_not_declarations():
    assert _ids('''
        from mylib import claim
        @claim("zz.not_dpverify")
        def _a(): ...
    ''') == []
    assert _ids('''
        from dpverify.claims import *
        @claim("zz.star", source=("p",), statement="s", method="property")
        def _a(thorough=False): ...
    ''') == ["zz.star"]


def test_computed_ids_are_counted_by_line_never_invented():
    d = declared_in_text(textwrap.dedent('''
        from dpverify.claims import claim, register
        ID = "zz.constant"
        @claim(ID, source=("p",), statement="s", method="property")
        def _a(thorough=False): ...
        for k in range(3):
            claim(f"zz.loop{k}", source=("p",), statement="s", method="property")(lambda thorough=False: None)
        def make(name):
            claim("zz." + name, source=("p",), statement="s", method="property")
        register(some_claim)
        claim("noprefix", source=("p",), statement="s", method="property")
    '''))
    assert [c.id for c in d.claims] == ["zz.constant"]
    assert d.unnamed == (7, 9, 10, 11)


def test_nested_declarations_say_where_they_stand():
    d = declared_in_text(textwrap.dedent('''
        from dpverify.claims import Verdict, claim
        if FAST:
            @claim("zz.in_if", source=("p",), statement="s", method="audit", expected=Verdict.REFUTED)
            def _a(thorough=False): ...
        for _ in range(1):
            claim("zz.in_for", source=("p",), statement="s", method="property")(lambda thorough=False: None)
        def helper():
            claim("zz.in_def", source=("p",), statement="s", method="property")(lambda thorough=False: None)
        @claim("zz.top", source=Source("paper", "§2", "Eq. 3"), statement="printed", method=SOMETHING)
        def _b(thorough=False): ...
    '''))
    by = {c.id: c for c in d.claims}
    assert by["zz.in_if"].where.startswith("inside a condition") and by["zz.in_if"].expected == "refuted"
    assert by["zz.in_if"].method == "audit"
    assert by["zz.in_for"].where == "inside a loop"
    assert by["zz.in_def"].where.startswith("inside a function")
    top = by["zz.top"]
    assert (top.where, top.expected, top.method, top.statement, top.source) == (
        "", "holds", None, "printed", ("paper", "§2", "Eq. 3"))


def test_a_file_that_does_not_parse(tmp_path):
    f = tmp_path / "claims_bad.py"
    f.write_text("from dpverify.claims import claim\n@claim('zz.a'\n")
    with pytest.raises(SyntaxError):
        declared_in_file(f)
    (row,) = unloaded_results([("claims_bad.py", f)], "it blocked")
    assert row.verdict.value == "error" and "SyntaxError" in row.outcome.summary and "it blocked" in row.outcome.summary
    with pytest.raises(ValueError, match="path"):
        declared_in_file("")
    with pytest.raises(TypeError, match="text"):
        declared_in_text(b"x")


def test_the_shipped_rooms_declare_what_they_register():
    """Every literal id read from a shipped claims module is a registered claim (nothing invented)."""
    from dpverify.claims import all_claims

    files = source_files("dpverify.rr") + source_files("dpverify.selftest")
    assert files, "the rooms' claims modules were not found"
    read = {c.id for f in files for c in declared_in_file(f).claims}
    assert read and read <= {c.id for c in all_claims()}


HOSTILE = '''
import os, time
from dpverify.claims import Outcome, Source, Verdict, claim

@claim("{room}.one", source=Source("p", "§1"), statement="one", method="property")
def _one(thorough=False):
    return Outcome(Verdict.HOLDS)

@claim(id="{room}.two", source=("p",), statement="two", method="audit", expected="refuted")
def _two(thorough=False):
    return Outcome(Verdict.REFUTED)

if True:
    @claim("{room}.three", source=("p",), statement="three", method="property")
    def _three(thorough=False):
        return Outcome(Verdict.HOLDS)

{at_import}
'''


def _verify(tmp_path, room: str, at_import: str, *options: str) -> tuple[int, dict, str]:
    f = tmp_path / f"claims_{room}.py"
    f.write_text(HOSTILE.format(room=room, at_import=at_import))
    proc = subprocess.run([sys.executable, "-m", "dpverify", "verify", f.name, "--json", *options],
                          cwd=tmp_path, capture_output=True, text=True, timeout=60)
    return proc.returncode, {r["id"]: r for r in json.loads(proc.stdout)}, proc.stderr


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_exit_at_import_gives_a_row_per_declared_claim(tmp_path, jobs):
    status, rows, err = _verify(tmp_path, f"zzdeclexit{jobs}", "os._exit(0)", "--jobs", jobs)
    assert status != 0, err
    room = f"zzdeclexit{jobs}"
    assert set(rows) == {f"{room}.one", f"{room}.two", f"{room}.three"}, rows
    for r in rows.values():
        assert r["verdict"] == "error" and "exited with code 0" in r["summary"] and "never ran" in r["summary"], r
    assert rows[f"{room}.two"]["expected"] == "refuted" and rows[f"{room}.two"]["method"] == "audit"
    assert rows[f"{room}.three"]["evidence"]["where"].startswith("inside a condition")


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_blocking_at_import_gives_a_row_per_declared_claim(tmp_path, jobs):
    t0 = time.perf_counter()
    status, rows, err = _verify(tmp_path, f"zzdeclblock{jobs}", "time.sleep(60)", "--jobs", jobs, "--timeout", "1")
    assert time.perf_counter() - t0 < 20
    assert status != 0, err
    assert len(rows) == 3 and all(r["verdict"] == "error" and "ran past its 1 s limit" in r["summary"]
                                  for r in rows.values()), rows


def test_raising_at_import_and_computed_ids(tmp_path, capsys):
    f = tmp_path / "claims_zzdeclraise.py"
    f.write_text(HOSTILE.format(room="zzdeclraise", at_import="for k in range(2):\n    claim(f'zzdeclraise.n{k}', "
                                "source=('p',), statement='s', method='property')(lambda thorough=False: None)\n1 / 0"))
    assert main(["verify", str(f), "--json"]) == 1
    rows = {r["id"]: r for r in json.loads(capsys.readouterr().out)}
    assert {"zzdeclraise.one", "zzdeclraise.two", "zzdeclraise.three"} < set(rows) and len(rows) == 4
    (unnamed,) = [r for i, r in rows.items() if ".unnamed:" in i]
    assert "1 further claim(s) declared at line(s) 19 could not be named" in unnamed["summary"], unnamed
    for r in rows.values():
        assert r["verdict"] == "error" and "ZeroDivisionError" in r["summary"] and "ZeroDivisionError" in r["error"]


def test_the_other_files_still_run(tmp_path, capsys):
    dead = tmp_path / "claims_zzdecldead.py"
    dead.write_text(HOSTILE.format(room="zzdecldead", at_import="os._exit(0)"))
    ok = tmp_path / "claims_zzdeclok.py"
    ok.write_text(HOSTILE.format(room="zzdeclok", at_import=""))
    assert main(["verify", str(dead), str(ok), "--json"]) == 1
    rows = {r["id"]: r for r in json.loads(capsys.readouterr().out)}
    assert {r["verdict"] for i, r in rows.items() if i.startswith("zzdecldead.")} == {"error"}
    assert {i: r["verdict"] for i, r in rows.items() if i.startswith("zzdeclok.")} == {
        "zzdeclok.one": "holds", "zzdeclok.two": "refuted", "zzdeclok.three": "holds"}


def test_claims_listing_refuses_a_file_that_dies_or_blocks(tmp_path):
    dead = tmp_path / "claims_zzlistdead.py"
    dead.write_text(HOSTILE.format(room="zzlistdead", at_import="os._exit(0)"))
    block = tmp_path / "claims_zzlistblock.py"
    block.write_text(HOSTILE.format(room="zzlistblock", at_import="time.sleep(60)"))
    run = [sys.executable, "-m", "dpverify", "claims"]
    proc = subprocess.run([*run, dead.name, "--json"], cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.strip().splitlines() == [
        "dpverify claims: error: claims_zzlistdead.py: loading the claims exited with code 0 before it finished"]
    listed = json.loads(proc.stdout)
    assert {r["id"] for r in listed} == {"zzlistdead.one", "zzlistdead.two", "zzlistdead.three"}
    assert all(r["loaded"] is False for r in listed)
    t0 = time.perf_counter()
    proc = subprocess.run([*run, block.name, "--timeout", "1"], cwd=tmp_path, capture_output=True, text=True,
                          timeout=60)
    assert time.perf_counter() - t0 < 20 and proc.returncode == 2
    assert "ran past its 1 s limit" in proc.stderr and proc.stdout == ""


def test_a_file_that_loads_is_listed_as_before(tmp_path, capsys):
    ok = tmp_path / "claims_zzlistok.py"
    ok.write_text(HOSTILE.format(room="zzlistok", at_import=""))
    assert main(["claims", str(ok), "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert [set(r) for r in listed] == [{"id", "source", "statement", "method", "expected", "proof"}] * 3
    with pytest.raises(SystemExit):
        main(["claims", str(ok), "--timeout"])
    assert main(["claims", str(ok), "--timeout", "0"]) == 2
    assert "--timeout must be" in capsys.readouterr().err


def test_an_installed_room_that_dies_at_import(tmp_path):
    """``dpverify verify`` without sources imports the installed rooms (entry points) in a supervised child
    first: a room whose claims module calls ``os._exit(0)`` gives an error per declared claim, not exit 0."""
    site = tmp_path / "site"
    pkg = site / "zzdeclroom_pkg"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "room.py").write_text('from dpverify.rooms import Room\nROOM = Room(name="zzdeclroom")\n')
    (pkg / "claims.py").write_text(HOSTILE.format(room="zzdeclroom", at_import="os._exit(0)"))
    dist = site / "zzdeclroom_pkg-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: zzdeclroom-pkg\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text("[dpverify.rooms]\nzzdeclroom = zzdeclroom_pkg\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), os.environ.get("PYTHONPATH", "")])}
    proc = subprocess.run([sys.executable, "-m", "dpverify", "verify", "--only", "zzdeclroom", "--json"],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1, proc.stderr[-2000:]
    rows = {r["id"]: r for r in json.loads(proc.stdout)}
    assert set(rows) == {"zzdeclroom.one", "zzdeclroom.two", "zzdeclroom.three"}, rows
    assert all(r["verdict"] == "error" and "room zzdeclroom" in r["summary"] and "exited with code 0" in r["summary"]
               for r in rows.values())
