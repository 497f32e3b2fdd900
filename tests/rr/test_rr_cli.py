"""``dpverify rr`` prints the optimum and the checker's verdict; bad input exits 2 naming the parameter."""

from __future__ import annotations

import json

from dpverify.cli import main


def test_json(capsys):
    assert main(["rr", "--epsilon", "0.1", "--delta", "0.15", "--pi", "0.2,0.8", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert abs(out["u_star"] - 0.83) < 1e-12 and abs(out["lp_u"] - 0.83) < 1e-9
    assert out["P"] == [[0.15, 0.85], [0.0, 1.0]]
    assert out["ldp"]["standard"]["holds"] and out["ldp"]["per_output"]["holds"]
    assert out["regime"].startswith("pi0 <= 1/(e^eps+1)")


def test_table(capsys):
    assert main(["rr", "--epsilon", "1", "--pi", "0.5,0.3,0.2"]) == 0
    out = capsys.readouterr().out
    assert "k = 2" in out and "u*" in out and "per_output" in out


def test_errors(capsys):
    assert main(["rr", "--epsilon", "0", "--pi", "0.5,0.5"]) == 2
    assert "epsilon" in capsys.readouterr().err
    assert main(["rr", "--epsilon", "1", "--pi", "0.5,0.6"]) == 2
    assert "pi" in capsys.readouterr().err
    assert main(["rr", "--epsilon", "1", "--delta", "1", "--pi", "0.5,0.5"]) == 2
    assert "delta" in capsys.readouterr().err
    assert main(["rr", "--epsilon", "1", "--pi", "a,b"]) == 2
    assert "--pi" in capsys.readouterr().err
