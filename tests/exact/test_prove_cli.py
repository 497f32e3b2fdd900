"""The toolkit helper prove_privacy and the ``dpverify prove MODULE:FN`` command."""

import json

import sympy as sp

from dpverify.cli import main
from dpverify.toolkit import prove_privacy

EPS = sp.Symbol("epsilon", positive=True)


def test_prove_privacy_verdicts():
    keep = sp.exp(EPS) / (1 + sp.exp(EPS))
    assert prove_privacy(sp.Matrix([[keep, 1 - keep], [1 - keep, keep]]), epsilon=EPS).verdict.value == "holds"
    out = prove_privacy(sp.Matrix(3, 3, lambda i, o: keep if i == o else (1 - keep) / 2), epsilon=EPS)
    assert out.verdict.value == "refuted" and out.evidence["counterexample"]["pair"] == [0, 1]
    unk = prove_privacy(sp.Matrix([[1 / (1 + EPS), EPS / (1 + EPS)], [EPS / (1 + EPS), 1 / (1 + EPS)]]), epsilon=EPS)
    assert unk.verdict.value == "inconclusive"


def _write(tmp_path, monkeypatch, name, body):
    (tmp_path / f"{name}.py").write_text("import sympy as sp\n" + body, encoding="utf-8")
    monkeypatch.chdir(tmp_path)


def test_cli_proved_and_refuted(tmp_path, monkeypatch, capsys):
    _write(tmp_path, monkeypatch, "userlaw_ok",
           "def rr(eps):\n    q = sp.exp(eps) / (1 + sp.exp(eps))\n    return sp.Matrix([[q, 1 - q], [1 - q, q]])\n"
           "def fixed(eps):\n    return sp.Matrix([[sp.Rational(3, 4), sp.Rational(1, 4)], [sp.Rational(1, 4), sp.Rational(3, 4)]])\n")
    assert main(["prove", "userlaw_ok:rr"]) == 0
    assert capsys.readouterr().out.startswith("proved")
    assert main(["prove", "userlaw_ok:fixed", "--json"]) == 1
    d = json.loads(capsys.readouterr().out)
    assert d["verdict"] == "refuted" and d["counterexample"]["epsilon_fails"] == "Interval.open(0, log(3))"
    assert main(["prove", "userlaw_ok:fixed", "--low", "log(3)"]) == 0
    assert main(["prove", "userlaw_ok:fixed", "--delta", "1/2", "--pairs", "[(0, 1)]"]) == 0
    capsys.readouterr()


def test_cli_bad_input(tmp_path, monkeypatch, capsys):
    _write(tmp_path, monkeypatch, "userlaw_bad", "def bad(eps):\n    return sp.Matrix([[sp.Rational(1, 2), 0], [1, 0]])\n")
    assert main(["prove", "userlaw_bad:bad"]) == 2
    assert "sums to" in capsys.readouterr().err
    assert main(["prove", "userlaw_bad:nothere"]) == 2
    assert main(["prove", "userlaw_bad:bad", "--pairs", "[]"]) == 2
