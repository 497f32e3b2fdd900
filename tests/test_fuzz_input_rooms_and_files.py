"""Regression tests for the whole-API fuzz: atomic writes, rooms, room declarations, progress.

Each hostile value is refused with a ValueError/TypeError naming the parameter, at the call (the two
context managers, ``atomic_open`` and ``progress``, check their arguments before ``with`` is entered);
valid input, numpy bools included, is still accepted.
"""

from __future__ import annotations

import math
import subprocess
import sys

import numpy as np
import pytest

from dpverify import atomic, progress, rooms
from dpverify.declarations import Paper, Room

NAN = math.nan


@pytest.mark.parametrize("kwargs, param", [
    ({"path": NAN}, "output"), ({"path": ""}, "output"), ({"mode": None}, "mode"), ({"mode": "a"}, "mode"),
    ({"force": NAN}, "force"), ({"force": None}, "force"), ({"force": 0}, "force"), ({"force": "yes"}, "force"),
    ({"inputs": None}, "inputs"), ({"inputs": "in.csv"}, "inputs"), ({"inputs": (NAN,)}, "inputs[0]"),
    ({"inputs": ("",)}, "inputs[0]"), ({"encoding": 0}, "encoding"), ({"encoding": "no-such-codec"}, "encoding"),
    ({"newline": 0}, "newline"), ({"newline": "x"}, "newline"),
])
def test_atomic_open_refuses_at_the_call(tmp_path, kwargs, param):
    kw = {"path": tmp_path / "out.txt", **kwargs}
    with pytest.raises((ValueError, TypeError), match=param.replace("[", r"\[")):
        atomic.atomic_open(**kw)  # no ``with``: the call itself refuses
    assert list(tmp_path.iterdir()) == []  # nothing written, no temporary file left


@pytest.mark.parametrize("force", [NAN, None, 1, "no"])
def test_write_helpers_refuse_a_non_flag_force(tmp_path, force):
    for call in (lambda: atomic.atomic_write_text(tmp_path / "a.txt", "x", force=force),
                 lambda: atomic.atomic_write_bytes(tmp_path / "a.bin", b"x", force=force),
                 lambda: atomic.check_output_path(tmp_path / "a.txt", force=force)):
        with pytest.raises(TypeError, match="force"):
            call()
    assert list(tmp_path.iterdir()) == []


def test_atomic_valid_input_unchanged(tmp_path):
    p = atomic.atomic_write_text(tmp_path / "a.csv", "a\n", force=np.bool_(True), inputs=[tmp_path / "in.csv"],
                                 newline="")
    assert p.read_text() == "a\n"
    with pytest.raises(atomic.OutputError, match="already exists"):
        atomic.check_output_path(p, force=False)
    with pytest.raises(atomic.OutputError, match="is the input file"):
        atomic.check_output_path(p, inputs=(str(p),))


@pytest.mark.parametrize("kwargs, param", [
    ({"label": None}, "label"), ({"label": 0}, "label"), ({"unit": NAN}, "unit"),
    ({"total": NAN}, "total"), ({"total": math.inf}, "total"), ({"total": True}, "total"), ({"total": -1}, "total"),
    ({"total": "10"}, "total"), ({"every": None}, "every"), ({"every": -math.inf}, "every"),
    ({"stream": NAN}, "stream"), ({"stream": 0}, "stream"), ({"stream": "stdout"}, "stream"),
])
def test_progress_refuses_at_the_call(kwargs, param):
    with pytest.raises((ValueError, TypeError), match=param):
        progress.progress(**{"label": "work", **kwargs})


def test_progress_valid_input_unchanged():
    import io

    out = io.StringIO()
    with progress.progress("draws", total=np.int64(4), stream=out, every=np.float64(0.0), unit="draws") as tick:
        tick(4)
    assert out.getvalue().splitlines()[-1].startswith("draws: 4/4 draws")


@pytest.mark.parametrize("call, param", [
    (lambda: rooms.rooms(refresh=None), "refresh"), (lambda: rooms.problems(refresh=0), "refresh"),
    (lambda: rooms.room("rr", refresh="yes"), "refresh"), (lambda: rooms.room(NAN), "name"),
    (lambda: rooms.room_of(None), "claim_id"), (lambda: rooms.room_of(0), "claim_id"),
    (lambda: rooms.claim_module_names("rr"), "r"), (lambda: rooms.claim_module_names(None), "r"),
    (lambda: rooms.claims_modules_in(None, "x"), "package"), (lambda: rooms.claims_modules_in("p", ""), "folder"),
    (lambda: rooms.claims_modules_in("p", NAN), "folder"), (lambda: rooms.is_claims_file(""), "path"),
    (lambda: rooms.proof_name(None), "spec"), (lambda: rooms.proof_path(0), "spec"),
    (lambda: rooms.proof_path("rr/x.md", root=""), "root"), (lambda: rooms.proof_path("rr/x.md", root=1), "root"),
])
def test_rooms_refuse_by_name(call, param):
    with pytest.raises((ValueError, TypeError), match=rf"\b{param}\b"):
        call()


def test_rooms_valid_input_unchanged():
    assert rooms.rooms(refresh=np.bool_(False)) == rooms.rooms()
    assert rooms.room_of("rr.model2.optimum").name == "rr"
    assert rooms.room_of("nosuchroom.claim") is None
    assert rooms.is_claims_file("a/claims/thm5.py") and not rooms.is_claims_file("a/fda.py")
    with pytest.raises(ValueError, match="a proof document is named"):  # a bad spelling: the message as before
        rooms.proof_name("rr/../x.md")


@pytest.mark.parametrize("kwargs, param", [
    ({"summary": None}, "summary"), ({"summary": 0}, "summary"), ({"package": None}, "package"),
    ({"path": ""}, "path"), ({"path": NAN}, "path"), ({"papers": None}, "papers"), ({"papers": 0}, "papers"),
    ({"commands": NAN}, "commands"), ({"glossary": True}, "glossary"), ({"glossary": (NAN,)}, "glossary"),
    ({"glossary": ("ab",)}, "glossary"), ({"acronyms": None}, "acronyms"), ({"namespaces": 0}, "namespaces"),
])
def test_room_declaration_refuses_by_name(kwargs, param):
    with pytest.raises((ValueError, TypeError), match=param):
        Room(name="demo", **kwargs)


def test_room_declaration_valid_input_unchanged(tmp_path):
    r = Room(name="demo", summary="s", papers=[Paper("907", "A title")], glossary=[["FDA-x", "m"]],
             acronyms="RR", path=str(tmp_path))
    assert (r.papers[0].key, r.glossary, r.acronyms, r.namespaces) == ("907", (("FDA-x", "m"),), ("RR",), ("demo",))
    assert r.path == tmp_path and r.module("mechanisms") is None
    assert Paper("907", "A title").seed_file == ""  # '' (the default): no seed file named


def test_help_still_imports_no_numpy():
    """Room discovery and the checks on valid input load no numpy: ``dpverify --help`` starts at once."""
    probe = ("import sys\nfrom dpverify.cli import main\ntry:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
             "print('NUMPY', 'numpy' in sys.modules, file=sys.stderr)\n")
    res = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60)
    assert "NUMPY False" in res.stderr, res.stderr[-2000:]
