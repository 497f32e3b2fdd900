"""The adapters from the command line: ``dpverify audit dpverify.audit.adapters:FACTORY --param ...``.

Needs the ``dpverify audit`` of issue 11 (``--param``, ``--statistic offgrid``).  The
floating-point attack's refutation is structural (count_q = 0, see test_adapters.py: false
alarm < 1e-100); the OpenDP audit of a correct Laplace at confidence 1 − 1e-6 raises a false
alarm with probability at most 1e-6 (OpenDP cannot be seeded).
"""

from __future__ import annotations

import json

import pytest

from dpverify.cli import main

FP = ["audit", "dpverify.audit.adapters:diffprivlib", "--param", "mechanism=Laplace", "--param", "epsilon=1",
      "--param", "sensitivity=1", "--statistic", "offgrid", "--d", "0", "--d-prime", "1", "--epsilon", "1",
      "--samples", "100000", "--seed", "1", "--json"]


def _bound(out: dict) -> float:
    return out["epsilon_lb"] if "epsilon_lb" in out else out["epsilon"]


def test_fp_attack_on_diffprivlib_laplace_from_the_cli(capsys):
    pytest.importorskip("diffprivlib")
    rc = main(FP)
    out = json.loads(capsys.readouterr().out)
    assert rc == 1 and out["verdict"] == "refuted" and _bound(out) > 4.0  # four times the claim of 1
    # the same result again from the same seed
    assert main(FP) == 1
    again = json.loads(capsys.readouterr().out)
    assert _bound(again) == _bound(out) and again["count_p"] == out["count_p"]


def test_opendp_laplace_from_the_cli_not_refuted(capsys):
    pytest.importorskip("opendp")
    rc = main(["audit", "dpverify.audit.adapters:opendp", "--param", "measurement=laplace", "--param", "scale=1",
               "--param", "T=int", "--d", "0", "--d-prime", "1", "--epsilon", "1", "--samples", "20000",
               "--confidence", "0.999999", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert rc == 0 and out["verdict"] == "inconclusive" and _bound(out) <= 1.0


def test_unknown_adapter_mechanism_is_a_one_line_cli_error(capsys):
    pytest.importorskip("diffprivlib")
    rc = main(["audit", "dpverify.audit.adapters:diffprivlib", "--param", "mechanism=Laplacian", "--param",
               "epsilon=1", "--d", "0", "--d-prime", "1", "--epsilon", "1", "--samples", "1000", "--json"])
    err = capsys.readouterr()
    assert rc == 2 and "mechanism must be one of" in err.err and err.out == ""
