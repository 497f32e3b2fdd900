"""The house's shape, gated: the import graph of ``dpverify/`` read with ``ast`` (tests/architecture.py).

Issue 25's numbers: no import circle; the engine never imports a room (rooms are found, never
named); at most 40 private names imported from another module and none across top-level
subpackages; no module over 400 lines; no function over 100 lines.  ``python3 tests/architecture.py -v``
prints the counts and the offenders.
"""

from __future__ import annotations

import ast
import textwrap

import pytest

import architecture as arch

TREE = arch.read_tree()


def test_no_import_circles():
    assert TREE.circles() == []


def test_engine_never_imports_a_room():
    assert TREE.rooms, "no room found (a room is a subpackage with a room.py)"
    assert TREE.engine_to_room() == []


def test_private_imports_are_few_and_never_cross_subpackages():
    assert TREE.private_across() == []
    assert len(TREE.private) <= 40, sorted(TREE.private)


def test_no_module_over_400_lines():
    assert TREE.long_modules == []


def test_no_function_over_100_lines():
    assert TREE.long_functions == []


# ------------------------------------------------------------------ the reader itself can flip


def _tree_of(tmp_path, files: dict[str, str]) -> arch.Tree:
    for rel, text in files.items():
        f = tmp_path / "dpverify" / rel
        f.parent.mkdir(parents=True, exist_ok=True)
        f.write_text(textwrap.dedent(text))
    return arch.read_tree(tmp_path / "dpverify")


def test_reader_sees_a_circle_a_private_import_and_an_engine_import(tmp_path):
    t = _tree_of(tmp_path, {
        "__init__.py": "",
        "a.py": "from dpverify.b import f\n",
        "b.py": "def f():\n    from dpverify.a import _g\n",
        "claims/__init__.py": "",
        "claims/run.py": "import dpverify.myroom.code\n",
        "myroom/__init__.py": "",
        "myroom/room.py": "",
        "myroom/code.py": "from dpverify.claims.run import _x\n",
    })
    assert ["dpverify.a", "dpverify.b"] in t.circles()
    assert ("dpverify.claims.run", "dpverify.myroom.code") in t.engine_to_room()
    assert ("dpverify.b", "dpverify.a", "_g") in t.private
    assert ("dpverify.myroom.code", "dpverify.claims.run", "_x") in t.private_across()


def test_reader_counts_long_functions_and_modules(tmp_path):
    body = "def f():\n" + "    x = 1\n" * 120 + "\n" * 300
    t = _tree_of(tmp_path, {"__init__.py": "", "big.py": body})
    assert ("dpverify.big", "f", 121) in t.long_functions
    assert [m for m, _ in t.long_modules] == ["dpverify.big"]
