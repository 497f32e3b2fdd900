"""``dpverify pca-audit`` refuses bad arguments with a usage error (exit status 2), not a traceback.

Regression: ``--k 0`` was silently replaced by the default (``args.k or 1``), and ``--epsilon -1``
or ``--k`` above p surfaced as a MechanismError traceback (exit 1) from inside the auditor.
"""

from __future__ import annotations

import json

import pytest

from dpverify.cli import main


@pytest.mark.parametrize(
    "argv, word",
    [
        (["--epsilon", "-1"], "epsilon"),
        (["--epsilon", "nan"], "epsilon"),
        (["--k", "0"], "k"),
        (["--k", "3"], "k"),
        (["--samples", "0"], "samples"),
        (["--confidence", "1"], "confidence"),
    ],
)
def test_pca_audit_bad_arguments_exit_2(argv, word, capsys):
    assert main(["pca-audit", "--samples", "2000", *argv]) == 2
    err = capsys.readouterr().err
    assert "error" in err and word in err and "Traceback" not in err


def test_pca_audit_explicit_k_is_used(capsys):
    assert main(["pca-audit", "--samples", "2000", "--k", "2", "--json"]) in (0, 1)  # 1 = refuted
    out = json.loads(capsys.readouterr().out)
    assert out["k"] == 2
