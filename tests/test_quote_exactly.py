"""The console quotes exactly (issue 26, findings 11 and 13): brackets, markup-like text, backslashes.

``rich`` reads ``[...]`` as markup, so a string printed as it is loses text ("B[p, pt] = 1" became
"B = 1").  Claims whose statements, sources, evidence, summaries and errors hold ``[...]``,
``[red]``, ``[/]``, ``[bold]x[/bold]``, a backslash before a bracket and an emoji code are printed by
``dpverify verify``, ``claims``, ``report`` and the room commands, and every string is looked for
verbatim in the captured text (a wide console, ``COLUMNS``, so nothing wraps; titles, which wrap
to their table's width, are compared with white space removed).  Then the authoring
mistakes: one bad claim id is one line naming the file, the line and the id (exit 2), from the
command and from pytest; and a user's file that cannot be read is one line naming it (exit 2).
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from dpverify.claims import registry, unregister
from dpverify.cli import main

pytest_plugins = ["pytester"]

#: every kind of text rich would misread, in one string
TRICKY = r"B[p, pt] = 1; Var[c̃(i)] = 2; [red] [/] [bold]x[/bold] \[y] :x:"

CLAIMS = r'''
from dpverify.claims import claim, Outcome, Verdict, Source

TRICKY = {tricky!r}

@claim("zzquote.finding", source=Source("paper [7] [red]", "§2 [bold]x[/bold]"), statement="S: " + TRICKY,
       method="exact computation", expected="erratum")
def _finding(thorough=False):
    return Outcome(Verdict.ERRATUM, {{"B[p, pt]": 1, "w": "[red]z[/] \\[q] :x:", "expr": {{"sympy": "Var[c(i)] [red]"}}}},
                   summary="transposed: " + TRICKY)

@claim("zzquote.error", source=Source("paper", "§3"), statement="E", method="exact computation")
def _error(thorough=False):
    raise ValueError("bad index a[i] in [red]")

@claim("zzquote.differs", source=Source("paper", "§4"), statement="D", method="exact computation")
def _differs(thorough=False):
    return Outcome(Verdict.REFUTED, {{"k": 1}}, summary="Var[c̃(i)] = 3 [bold]x[/bold] [/]")
'''

BAD_ID = '''
from dpverify.claims import claim, Outcome, Verdict, Source

@claim("zzbadid.fine", source=Source("paper", "§1"), statement="ok", method="exact computation")
def _fine(thorough=False):
    return Outcome(Verdict.HOLDS)

@claim("badid", source=Source("paper", "§2"), statement="x", method="exact computation")
def _bad(thorough=False):
    return Outcome(Verdict.HOLDS)
'''


def _joined(text: str) -> str:
    """The text without white space: a title wraps (even inside a long word) to its table's width."""
    return "".join(text.split())


@pytest.fixture
def wide(monkeypatch):
    """A wide console: no cell folds, so each string is on one line."""
    monkeypatch.setenv("COLUMNS", "400")


@pytest.fixture
def claims_file(tmp_path, forget_claims) -> Path:
    p = tmp_path / "quote_claims.py"
    p.write_text(textwrap.dedent(CLAIMS.format(tricky=TRICKY)), encoding="utf-8")
    return p


def _run(capsys, *argv) -> tuple[int, str, str]:
    rc = main(list(argv))
    out = capsys.readouterr()
    return rc, out.out, out.err


def test_verify_prints_evidence_summaries_and_errors_verbatim(claims_file, capsys, wide):
    rc, out, _ = _run(capsys, "verify", str(claims_file))
    assert rc == 1  # the error and the refuted claim differ from their expected verdicts
    lines = out.splitlines()
    error_line = next(ln for ln in lines if ln.startswith("error: zzquote.error"))
    assert error_line == "error: zzquote.error: the check raised ValueError: bad index a[i] in [red]"
    assert "ValueError: bad index a[i] in [red]" in lines  # the traceback's last line
    assert 'B[p, pt]=1; w=[red]z[/] \\[q] :x:; expr=Var[c(i)] [red]' in out  # the evidence cell
    assert "differs: zzquote.differs expected holds, got refuted: Var[c̃(i)] = 3 [bold]x[/bold] [/]" in lines


def test_claims_lists_statements_and_sources_verbatim(claims_file, capsys, wide):
    rc, out, _ = _run(capsys, "claims", str(claims_file))
    assert rc == 0
    row = next(ln for ln in out.splitlines() if "zzquote.finding" in ln)
    assert "S: " + TRICKY in row
    assert "paper [7] [red], §2 [bold]x[/bold]" in row


def test_report_and_compare_print_ids_paths_and_evidence_verbatim(claims_file, tmp_path, capsys, wide):
    saved = tmp_path / "old[red].json"
    assert _run(capsys, "verify", str(claims_file), "--save", str(saved), "--json")[0] == 1
    out_dir = tmp_path / "out [bold]x [i]"
    rc, out, _ = _run(capsys, "report", "--from", str(saved), "--out", str(out_dir))
    assert rc == 1
    assert _joined(f"wrote {out_dir / 'report.html'} and {out_dir / 'report.json'}") in _joined(out)
    assert "differs: zzquote.differs expected holds, got refuted" in out.splitlines()

    doc = json.loads(saved.read_text(encoding="utf-8"))
    entry = next(e for e in doc["claims"] if e["id"] == "zzquote.finding")
    entry["evidence"]["B[p, pt]"] = "[bold]moved[/bold] [/]"  # a number became text: a change
    entry["evidence"]["C[k] [red]"] = 2.0  # a new number
    new = tmp_path / "new [bold]y\\[z].json"
    new.write_text(json.dumps(doc), encoding="utf-8")
    rc, out, _ = _run(capsys, "report", "--compare", str(saved), str(new))
    rows = [ln for ln in out.splitlines() if "zzquote.finding" in ln]
    assert any("B[p, pt]" in r and "[bold]moved[/bold] [/]" in r for r in rows), out
    assert any("C[k] [red]" in r for r in rows), out
    assert _joined(f"changes from {saved} to {new}") in _joined(out)


def test_rr_prints_its_matrix_title_verbatim(capsys, wide):
    rc, out, _ = _run(capsys, "rr", "--epsilon", "1", "--pi", "0.2,0.3,0.5")
    assert rc == 0
    assert _joined("optimal design matrix P[i, j] = Pr(report j | true i), ε = 1, δ = 0") in _joined(out)
    assert "Regime: k = 2: 2-ary randomized response on the 2 most likely values [1, 2]" in out


def test_pca_audit_prints_the_statistic_name_verbatim(capsys, wide, monkeypatch):
    from dpverify.pca import thm3

    real = thm3.output_coordinate

    def renamed(mechanism, row=0, col=1):
        f = real(mechanism, row, col)
        f.__name__ = "X'[i, j] [red] [/]"
        return f

    monkeypatch.setattr(thm3, "output_coordinate", renamed)
    rc, out, _ = _run(capsys, "pca-audit", "--samples", "1000", "--method", "ppca-dp-corrected")
    assert rc in (0, 1)
    assert "statistic: X'[i, j] [red] [/]" in out.splitlines()


def test_continual_release_names_bracketed_columns_verbatim(tmp_path, capsys, wide):
    src = tmp_path / "counts.csv"
    src.write_text("n[red],d\n1,a\n2,b\n", encoding="utf-8")
    rc, _, err = _run(capsys, "continual", "release", "--input", str(src), "--column", "n[bold]",
                      "--epsilon", "1", "--output", str(tmp_path / "o.csv"))
    assert rc == 2 and "--column 'n[bold]' not in the header of" in err and "['n[red]', 'd']" in err
    rc, out, _ = _run(capsys, "continual", "release", "--input", str(src), "--column", "n[red]",
                      "--epsilon", "1", "--seed", "0", "--output", str(tmp_path / "o.csv"))
    assert rc == 0 and "column n[red]_noisy_total" in out


# ----- authoring mistakes: one line naming the file and the id ---------------------------------------------


@pytest.mark.parametrize("command", ["verify", "claims"])
def test_a_bad_claim_id_is_one_line_naming_the_file_and_the_id(tmp_path, capsys, forget_claims, command):
    bad = tmp_path / "badid_claims.py"
    bad.write_text(textwrap.dedent(BAD_ID), encoding="utf-8")
    line_no = textwrap.dedent(BAD_ID).splitlines().index(
        next(ln for ln in textwrap.dedent(BAD_ID).splitlines() if '"badid"' in ln)) + 1
    for source, shown in ((str(bad), str(bad)), (str(tmp_path), str(tmp_path / "badid_claims.py"))):
        rc, out, err = _run(capsys, command, source)
        assert rc == 2 and out == ""
        assert err == (f"dpverify {command}: error: {shown}:{line_no}: claim id must be '<room>.<name>' "
                       "(room: a Python identifier), got 'badid'\n")
        assert "zzbadid.fine" not in registry.snapshot()  # a file that fails registers nothing


def test_a_bad_claim_id_is_one_line_under_pytest(pytester):
    pytester.makepyfile(badid_claims=BAD_ID)
    res = pytester.runpytest_inprocess("-p", "dpverify.pytest_plugin", "-p", "no:cacheprovider",
                                       "-p", "no:randomly", "badid_claims.py")
    for cid in set(registry.snapshot()):
        if cid.startswith("zzbadid."):
            unregister(cid)
    text = res.stdout.str()
    assert text.count("ERROR collecting") == 1  # collected once, though named on the command line
    assert text.count("got 'badid'") == 1 and "Traceback" not in text
    res.stdout.fnmatch_lines(["badid_claims.py:*: claim id must be '<room>.<name>'*got 'badid'"])


def test_an_unreadable_user_file_is_one_line_naming_it(tmp_path, capsys):
    binary = tmp_path / "binary.json"
    binary.write_bytes(bytes(range(128, 256)) * 4)
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")
    for src, what in ((binary, "UTF-8"), (deep, "nested too deeply")):
        for argv in (["report", "--from", str(src), "--out", str(tmp_path / "o")],
                     ["report", "--compare", str(src), str(src)], ["verify", "--baseline", str(src)]):
            rc, out, err = _run(capsys, *argv)
            assert rc == 2 and err.count("\n") == 1 and str(src) in err and what.lower() in err.lower(), (argv, err)
    big = tmp_path / "big.csv"
    big.write_text('n\n"' + "x" * 200_000 + '"\n', encoding="utf-8")
    csv_binary = tmp_path / "binary.csv"
    csv_binary.write_bytes(b"n\n" + bytes(range(128, 256)) * 4)
    for src, what in ((big, "field larger than field limit"), (csv_binary, "UTF-8")):
        rc, out, err = _run(capsys, "continual", "release", "--input", str(src), "--column", "n",
                            "--epsilon", "1", "--output", str(tmp_path / "o.csv"))
        assert rc == 2 and err.count("\n") == 1 and str(src) in err and what in err, err


def test_the_console_helpers_quote_exactly():
    import io

    from dpverify.console import line, make_console, quote

    con = make_console(file=io.StringIO(), width=200)
    con.print(line(("differs", "red"), ": ", TRICKY), quote(TRICKY, style="bold"))
    assert con.file.getvalue() == f"differs: {TRICKY} {TRICKY}\n"
    with pytest.raises(ValueError, match="styled part"):
        line(("a", "b", "c"))
    with pytest.raises(TypeError, match="parts"):
        line(1.5)
    with pytest.raises(TypeError, match="text"):
        quote(float("nan"))
    with pytest.raises(ValueError, match="width"):
        make_console(width=0)
