"""``dpverify audit``: JSON output, exit status, errors (deterministic, seeded)."""

import json

from dpverify.cli import main


def test_cli_json_refuted(capsys):
    """Half-scale noise, seeded; margin > 10 sd as in test_auditor_api (false alarm < 1e-20)."""
    rc = main(["audit", "dpverify.audit.examples:laplace_half_noise_eps1", "--d", "0", "--d-prime", "1",
               "--epsilon", "1", "--samples", "20000", "--seed", "1", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert rc == 1 and out["verdict"] == "refuted" and out["epsilon_lb"] > 1.0
    assert out["n_estimation"] + out["n_selection"] == 20000


def test_cli_table_inconclusive_with_list_inputs(capsys):
    """A correct mechanism audited at confidence 1 − 1e-6: false refutation ≤ 1e-6 (seeded)."""
    rc = main(["audit", "dpverify.audit.examples:noisy_max_index_eps1", "--d", "[1,1,1,1,1]",
               "--d-prime", "[2,0,0,0,0]", "--epsilon", "1", "--samples", "20000", "--seed", "2",
               "--confidence", "0.999999"])
    out = capsys.readouterr().out
    assert rc == 0 and "inconclusive" in out and "ε lower bound" in out


def test_cli_errors(capsys):
    assert main(["audit", "nope.module:x", "--d", "0", "--d-prime", "1", "--epsilon", "1", "--samples", "10"]) == 2
    assert main(["audit", "dpverify.audit.examples:laplace_eps1", "--d", "0", "--d-prime", "1", "--epsilon", "1",
                 "--samples", "0"]) == 2
    assert main(["audit", "dpverify.audit.examples:laplace_eps1", "--d", "0", "--d-prime", "1", "--epsilon", "-1",
                 "--samples", "10"]) == 2
    assert main(["audit", "dpverify.audit.mechanisms:LaplaceMechanism", "--d", "0", "--d-prime", "1", "--epsilon",
                 "1", "--samples", "10"]) == 2
    err = capsys.readouterr().err
    assert "cannot import" in err and "samples" in err and "epsilon" in err and "not a callable" in err


def test_cli_mechanism_error(capsys, tmp_path, monkeypatch):
    (tmp_path / "badmech.py").write_text("def mech(data, rng, n):\n    return rng.random(n + 1)\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    rc = main(["audit", "badmech:mech", "--d", "0", "--d-prime", "1", "--epsilon", "1", "--samples", "100"])
    assert rc == 2 and "shape" in capsys.readouterr().err
