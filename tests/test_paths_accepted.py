"""Paths are paths (issue 32 item 3): one ``str`` or ``os.PathLike`` works, a list works where a function
reads several, an empty path is a ValueError naming the parameter (never the current folder), and
``bytes`` are a TypeError naming it.

``load_sources("/data/my_claims.py")`` used to iterate the string (the leading ``/`` walked the file
system); each test below fails on that behaviour or on ``''`` read as ``'.'``.
"""

from __future__ import annotations

import os
import textwrap
from pathlib import Path

import pytest

from dpverify import atomic, proofdocs, rooms
from dpverify.claims import registry
from dpverify.claims import baseline as bl
from dpverify.claims import sources
from dpverify.claims.store import registered_since
from dpverify.datasets import loaders
from dpverify.report import build, papers, provenance

CLAIMS = '''
from dpverify.claims import claim, Outcome, Verdict, Source

@claim("{room}.sum", source=Source("paper", "§1"), statement="1 + 1 = 2", method="exact computation")
def _sum(thorough=False):
    return Outcome(Verdict.HOLDS if 1 + 1 == 2 else Verdict.REFUTED, {{"sum": 1 + 1}})
'''


def _claims_file(folder: Path, room: str) -> Path:
    p = folder / f"{room}_claims.py"
    p.write_text(textwrap.dedent(CLAIMS.format(room=room)))
    return p


@pytest.mark.parametrize("as_path", [str, Path], ids=["str", "Path"])
def test_load_sources_takes_one_path(tmp_path, forget_claims, as_path):
    f = _claims_file(tmp_path, "zzpathone")
    assert [c.id for c in sources.load_sources(as_path(f))] == ["zzpathone.sum"]


def test_load_sources_takes_a_list_and_a_folder(tmp_path, forget_claims):
    (tmp_path / "a").mkdir()
    a = _claims_file(tmp_path / "a", "zzpatha")
    b = _claims_file(tmp_path, "zzpathb")
    assert [c.id for c in sources.load_sources([str(a), b])] == ["zzpatha.sum", "zzpathb.sum"]
    assert [c.id for c in sources.load_sources(tmp_path)] == ["zzpatha.sum", "zzpathb.sum"]


def test_load_sources_does_not_read_a_string_letter_by_letter():
    with pytest.raises(sources.SourceError, match=r"^zz_no_such_dir/x_claims\.py: no such file"):
        sources.load_sources("zz_no_such_dir/x_claims.py")  # was 'z: no such file'


@pytest.mark.parametrize("bad, kind, where", [("", sources.SourceError, "specs"), ("  ", sources.SourceError, "specs"),
                                              ([""], sources.SourceError, r"specs\[0\]"),
                                              ([Path("a"), " "], sources.SourceError, r"specs\[1\]"),
                                              (b"x", TypeError, "specs"), ([b"x"], TypeError, r"specs\[0\]"),
                                              (3, TypeError, "specs")])
def test_load_sources_refuses_empty_and_bytes(bad, kind, where):
    with pytest.raises(kind, match=rf"^{where} must"):
        sources.load_sources(bad)
    assert issubclass(sources.SourceError, ValueError)


def test_registered_since_takes_one_file_or_a_list(tmp_path, forget_claims):
    f = _claims_file(tmp_path, "zzpathsince")
    sources.load_sources(f)
    src = str(f.resolve())
    after = registry.snapshot()
    assert [c.id for c in registered_since(after, src)] == ["zzpathsince.sum"]
    assert [c.id for c in registered_since(after, Path(src))] == ["zzpathsince.sum"]
    assert [c.id for c in registered_since(after, [src, "other.py"])] == ["zzpathsince.sum"]
    assert registered_since(after, "z") == []  # not the letters of a path
    with pytest.raises(TypeError, match=r"files\[0\]"):
        registered_since(after, [b"x"])


# one path argument each: (call, parameter name, a valid file or folder for the call)
def _magic(tmp: Path) -> Path:
    p = tmp / "magic.data"
    p.write_text(",".join(["1.5"] * 10) + ",g\n" + ",".join(["2.5"] * 10) + ",h\n")
    return p


def _spec(tmp: Path) -> Path:
    p = tmp / "SPEC.md"
    p.write_text("| seed file | paper | room |\n|---|---|---|\n| `seeds/001_x.md` | *A paper* — note | `x` |\n")
    return p


def _baseline(tmp: Path) -> Path:
    return bl.write_baseline(tmp / "b.json", {}) or tmp / "b.json"


CALLS = {
    "atomic_write_text": (lambda p: atomic.atomic_write_text(p, "x").read_text(), "output", lambda t: t / "o.txt"),
    "check_output_path": (lambda p: atomic.check_output_path(p).name, "output", lambda t: t / "o.txt"),
    "load_baseline": (bl.load_baseline, "path", _baseline),
    "claim_files": (sources.claim_files, "folder", lambda t: t),
    "module_of_file": (lambda p: sources.module_of_file(p).__name__ != "", "path",
                       lambda t: (t / "zzpathmod.py").write_text("X = 1\n") and t / "zzpathmod.py"),
    "is_claims_file": (rooms.is_claims_file, "path", lambda t: t / "x_claims.py"),
    "claims_modules_in": (lambda p: rooms.claims_modules_in("zzpkg", p), "folder", lambda t: t),
    "proof_path": (lambda p: rooms.proof_path("zz/none.md", root=p), "root", lambda t: t),
    "papers_from_spec": (lambda p: sorted(papers.papers_from_spec(p)), "path", _spec),
    "git_revision": (lambda p: sorted(provenance.git_revision(p)), "path", lambda t: t),
    "load_magic": (lambda p: loaders.load_magic(p)[1].tolist(), "path", _magic),
    "load_adult": (None, "path", None),
    "load_report": (None, "path", None),
    "report_from_file(saved)": (None, "saved", None),
    "document_name": (proofdocs.document_name, "path", lambda t: t / "room" / "proofs" / "x.md"),
    "all_documents": (proofdocs.all_documents, "root", lambda t: t),
    "proven_references": (None, "root", None),
}
BAD_ONLY = {"load_adult": loaders.load_adult, "load_report": build.load_report,
            "report_from_file(saved)": lambda p: build.report_from_file(p, "."),
            "proven_references": proofdocs.proven_references}


def _fn(name):
    return CALLS[name][0] or BAD_ONLY[name]


@pytest.mark.parametrize("name", sorted(CALLS))
@pytest.mark.parametrize("empty", ["", "   "])
def test_an_empty_path_is_a_value_error_naming_the_parameter(name, empty, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # were '' read as '.', it would be this empty folder
    with pytest.raises(ValueError, match=rf"\b{CALLS[name][1]}\b.*(non-empty|empty)"):
        _fn(name)(empty)


@pytest.mark.parametrize("name", sorted(CALLS))
def test_bytes_are_a_type_error_naming_the_parameter(name):
    with pytest.raises(TypeError, match=rf"\b{CALLS[name][1]}\b"):
        _fn(name)(b"x")


@pytest.mark.parametrize("name", sorted(n for n in CALLS if CALLS[n][0] is not None))
def test_one_str_and_one_pathlike_give_the_same_answer(name, tmp_path, forget_claims):
    fn, _, make = CALLS[name]
    target = make(tmp_path)
    first = fn(str(target))
    if name in ("atomic_write_text", "check_output_path"):
        target.unlink(missing_ok=True)
    assert fn(target) == first
    assert fn(os.fspath(target)) == first


def test_the_empty_output_is_refused_before_anything_is_written(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for bad in ("", "  "):
        with pytest.raises(atomic.OutputError, match="non-empty"):
            atomic.atomic_write_text(bad, "x")
    assert list(tmp_path.iterdir()) == []
