"""Claims from outside the package: files, folders, modules, installed rooms; namespacing; bad input."""

import json
import math
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from dpverify.claims import Outcome, Source, Verdict, claim, run_claims, unregister
from dpverify.claims import registry
from dpverify.cli import main
from dpverify.rooms import room, rooms

ROOT = Path(__file__).resolve().parent.parent

CHEAP = '''
from dpverify.claims import claim, Outcome, Verdict, Source

@claim("{room}.sum", source=Source("paper", "§1"), statement="1 + 1 = 2", method="exact computation")
def _sum(thorough=False):
    return Outcome(Verdict.HOLDS if 1 + 1 == 2 else Verdict.REFUTED, {{"sum": 1 + 1}})

@claim("{room}.product", source=Source("paper", "§2"), statement="2 · 2 = 5", method="exact computation",
       expected="refuted")
def _product(thorough=False):
    return Outcome(Verdict.REFUTED if 2 * 2 != 5 else Verdict.HOLDS, {{"product": 2 * 2}}, summary="2 · 2 is 4")

@claim("{room}.square", source=Source("paper", "§3"), statement="3² = 9", method="exact computation")
def _square(thorough=False):
    return Outcome(Verdict.HOLDS if 3 ** 2 == 9 else Verdict.REFUTED, {{"square": 9}})
'''


def _write(folder: Path, name: str, text: str) -> Path:
    p = folder / name
    p.write_text(textwrap.dedent(text))
    return p


def test_file_folder_and_json(tmp_path, capsys, forget_claims):
    _write(tmp_path, "claims_mine.py", CHEAP.format(room="zzext"))
    _write(tmp_path, "notes.py", "raise RuntimeError('not a claims file: never imported')\n")
    assert main(["verify", str(tmp_path / "claims_mine.py"), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert sorted((o["id"], o["verdict"], o["expected"]) for o in out) == [
        ("zzext.product", "refuted", "refuted"), ("zzext.square", "holds", "holds"), ("zzext.sum", "holds", "holds")]
    assert main(["verify", str(tmp_path), "--json", "--only", "zzext.s"]) == 0
    assert {o["id"] for o in json.loads(capsys.readouterr().out)} == {"zzext.square", "zzext.sum"}
    assert main(["claims", str(tmp_path), "--json"]) == 0
    assert len(json.loads(capsys.readouterr().out)) == 3


def test_broken_file_is_an_error_result_and_errors_come_first(tmp_path, capsys, forget_claims):
    _write(tmp_path, "claims_ok.py", CHEAP.format(room="zzok"))
    _write(tmp_path, "broken_claims.py", "import no_such_module_xyz\n")
    assert main(["verify", str(tmp_path), "--json"]) == 1
    out = json.loads(capsys.readouterr().out)
    assert out[0]["verdict"] == "error" and "no_such_module_xyz" in out[0]["error"]
    assert "broken_claims.py" in out[0]["id"]
    assert [o["verdict"] for o in out[1:]] != [] and all(o["verdict"] != "error" for o in out[1:])
    assert main(["verify", str(tmp_path)]) == 1
    text = capsys.readouterr().out
    assert text.index("no_such_module_xyz") < text.index("zzok.sum")  # the error and its traceback first


def test_dotted_module(tmp_path, monkeypatch, capsys, forget_claims):
    pkg = tmp_path / "zzpkg_mod"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    _write(pkg, "claims.py", CHEAP.format(room="zzmod"))
    monkeypatch.syspath_prepend(str(tmp_path))
    assert main(["verify", "zzpkg_mod", "--json"]) == 0
    assert {o["id"] for o in json.loads(capsys.readouterr().out)} == {"zzmod.sum", "zzmod.product", "zzmod.square"}


def test_missing_path_or_module_is_one_line_exit_2(capsys):
    assert main(["verify", "no/such/claims_file.py"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no such file, folder or importable module" in err
    assert main(["claims", "no_such_module_xyz.claims"]) == 2


def test_duplicate_id_across_sources_names_both(tmp_path, capsys, forget_claims):
    a = _write(tmp_path, "claims_a.py", CHEAP.format(room="zzdup"))
    (tmp_path / "b").mkdir()
    b = _write(tmp_path / "b", "claims_b.py", CHEAP.format(room="zzdup"))
    assert main(["verify", str(a), str(b), "--json"]) == 1
    out = json.loads(capsys.readouterr().out)
    err = out[0]
    assert err["verdict"] == "error" and "registered twice" in err["error"]
    assert "claims_a.py" in err["error"] and "claims_b.py" in err["error"]


def test_reimporting_the_same_file_is_not_a_duplicate(tmp_path, forget_claims):
    import importlib.util

    p = _write(tmp_path, "claims_re.py", CHEAP.format(room="zzre"))
    first = registry.load_sources([str(p)])
    spec = importlib.util.spec_from_file_location("zz_other_name", p)  # as pytest might, under another name
    spec.loader.exec_module(importlib.util.module_from_spec(spec))
    assert [c.id for c in first] == [c.id for c in registry.load_sources([str(p)])]


def test_shipped_room_names_are_reserved(tmp_path, forget_claims):
    with pytest.raises(ValueError, match="shipped with dpverify"):
        claim("rr.mine", source=Source("x"), statement="s", method="property")(lambda thorough=False: Outcome("holds"))


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(id="noprefix"), "must be '<room>.<name>'"),
        (dict(method="guess"), "unknown method 'guess'"),
        (dict(expected="maybe"), "unknown expected verdict 'maybe'"),
        (dict(timeout=-1.0), "timeout must be a finite number"),
        (dict(timeout=math.nan), "timeout must be a finite number"),
    ],
)
def test_bad_registration_names_the_claim(kwargs, match):
    args = dict(id="zzbad.one", source=Source("x"), statement="s", method="property", expected="holds")
    args.update(kwargs)
    cid = args.pop("id")
    with pytest.raises(ValueError, match=match) as info:
        claim(cid, **args)(lambda thorough=False: Outcome(Verdict.HOLDS))
    assert cid in str(info.value)
    assert cid not in registry.snapshot()


def test_check_that_does_not_return_an_outcome(forget_claims):
    def annotated(thorough: bool = False) -> bool:
        return True

    with pytest.raises(TypeError, match="'zzbad.ann'.*Outcome"):
        claim("zzbad.ann", source=Source("x"), statement="s", method="property")(annotated)
    with pytest.raises(TypeError, match="'zzbad.sig'.*thorough"):
        claim("zzbad.sig", source=Source("x"), statement="s", method="property")(lambda: Outcome("holds"))
    claim("zzbad.ret", source=Source("x"), statement="s", method="property")(lambda thorough=False: 42)
    (r,) = run_claims([registry.get_claim("zzbad.ret")])
    assert r.verdict is Verdict.ERROR and "'zzbad.ret' returned int, not an Outcome" in r.error


def test_audit_can_only_refute_or_be_inconclusive(forget_claims):
    claim("zzaudit.says_holds", source=Source("x"), statement="s", method="audit", expected="inconclusive")(
        lambda thorough=False: Outcome(Verdict.HOLDS, {"epsilon_lb": 0.1}))
    claim("zzaudit.refutes", source=Source("x"), statement="s", method="audit", expected="refuted")(
        lambda thorough=False: Outcome(Verdict.REFUTED, {"epsilon_lb": 2.0}))
    bad, good = run_claims([registry.get_claim("zzaudit.says_holds"), registry.get_claim("zzaudit.refutes")])
    assert bad.verdict is Verdict.ERROR and not bad.as_expected
    assert "only conclude 'refuted' or 'inconclusive'" in bad.outcome.summary
    assert bad.outcome.evidence["returned_verdict"] == "holds"
    assert good.verdict is Verdict.REFUTED and good.as_expected


def test_timeout_works_with_one_job(forget_claims):
    import time

    def slow(thorough=False):
        time.sleep(30)
        return Outcome(Verdict.HOLDS)

    claim("zzslow.sleep", source=Source("x"), statement="s", method="property")(slow)
    t0 = time.perf_counter()
    (r,) = run_claims([registry.get_claim("zzslow.sleep")], jobs=1, timeout=1.0)
    assert r.verdict is Verdict.ERROR and "timed out" in r.outcome.summary
    assert time.perf_counter() - t0 < 15
    with pytest.raises(ValueError, match="timeout"):
        run_claims([registry.get_claim("zzslow.sleep")], timeout=math.nan)
    assert main(["verify", "--only", "zzslow.", "--timeout", "-1"]) == 2


def test_installed_room_through_entry_point(tmp_path, monkeypatch, forget_claims):
    """A package declaring ``[dpverify.rooms] zzinst = zzinst_room`` adds its room to the full run."""
    site = tmp_path / "site"
    (site / "zzinst_room").mkdir(parents=True)
    (site / "zzinst_room" / "__init__.py").write_text(textwrap.dedent(CHEAP.format(room="zzinst")))
    dist = site / "zzinst_room-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: zzinst-room\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text("[dpverify.rooms]\nzzinst = zzinst_room\n")
    monkeypatch.syspath_prepend(str(site))
    try:
        assert room("zzinst", refresh=True).package == "zzinst_room"
        claims = registry.load_room(room("zzinst"))
        assert {c.id for c in claims} >= {"zzinst.sum", "zzinst.product", "zzinst.square"}
        assert all(r.as_expected for r in run_claims([c for c in claims if c.id.startswith("zzinst.")]))
    finally:
        monkeypatch.undo()
        rooms(refresh=True)


def test_installed_room_must_keep_to_its_name(tmp_path, monkeypatch, forget_claims):
    site = tmp_path / "site"
    site.mkdir()
    (site / "zzwrong_room.py").write_text(textwrap.dedent(CHEAP.format(room="zzother")))
    dist = site / "zzwrong_room-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: zzwrong-room\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text("[dpverify.rooms]\nzzwrong = zzwrong_room\n")
    monkeypatch.syspath_prepend(str(site))
    try:
        claims = registry.load_room(room("zzwrong", refresh=True))
    finally:
        monkeypatch.undo()
        rooms(refresh=True)
    fail = [c for c in claims if c.id == "zzwrong.import:zzwrong_room"]
    assert fail, [c.id for c in claims]
    (r,) = run_claims(fail)
    assert r.verdict is Verdict.ERROR and "may only register ids 'zzwrong.<name>'" in r.error


def test_a_file_does_not_import_the_shipped_rooms(tmp_path):
    """``dpverify verify FILE`` imports only that file: no room, no sympy/scipy (fresh interpreter)."""
    _write(tmp_path, "claims_cheap.py", CHEAP.format(room="zzcheap"))
    code = (
        "import sys, json\nfrom dpverify.cli import main\n"
        f"rc = main(['verify', {str(tmp_path / 'claims_cheap.py')!r}, '--json'])\n"
        "from dpverify.rooms import rooms as found\n"
        "names = {r.name for r in found()} | {'audit'}\n"
        "rooms = sorted(m for m in sys.modules if m.startswith('dpverify.') and m.split('.')[1] in names)\n"
        "print(json.dumps({'rc': rc, 'rooms': rooms, 'sympy': 'sympy' in sys.modules}), file=sys.stderr)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120)
    info = json.loads(proc.stderr.strip().splitlines()[-1])
    assert info == {"rc": 0, "rooms": [], "sympy": False}, proc.stderr


@pytest.fixture
def fresh_example():
    """Leave no trace: the example's claims and modules are imported afresh later (pytest examples/)."""
    folder = ROOT / "examples" / "gaussian_mechanism"
    before = set(registry.snapshot())
    yield folder
    for cid in set(registry.snapshot()) - before:
        unregister(cid)
    for name, mod in list(sys.modules.items()):
        if str(getattr(mod, "__file__", "") or "").startswith(str(folder)):
            del sys.modules[name]


def test_example_room_verdicts(capsys, fresh_example):
    """The example outside the package, run as a user would: ``dpverify verify examples/gaussian_mechanism --json``."""
    rc = main(["verify", str(fresh_example), "--json"])
    out = {o["id"]: (o["verdict"], o["expected"]) for o in json.loads(capsys.readouterr().out)}
    assert out == {
        "gaussian.delta_formula": ("holds", "holds"),
        "gaussian.calibrated_sigma": ("holds", "holds"),
        "gaussian.calibrated_sigma_audit": ("inconclusive", "inconclusive"),
        "gaussian.classical_sigma_eps_le_1": ("holds", "holds"),
        "gaussian.classical_sigma_eps_gt_1": ("refuted", "refuted"),
    }
    assert rc == 0
