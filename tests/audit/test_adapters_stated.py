"""``dpverify audit`` with a library adapter and no ``--epsilon``: the library's stated claim, routed by its
measure (issue 28 item 1): ρ to the zCDP audit, a privacy profile δ(ε) to the δ(ε) audit.

OpenDP cannot be seeded: the consistent audits run at confidence 0.99 on correct measurements (a false
alarm has probability ≤ 1 %, well inside, measured bounds: ρ_lb ≈ 0.28 of 0.5 at 2·10^4 draws); the
mutations are seeded numpy mechanisms far beyond their claims.
"""

from __future__ import annotations

import json
import math
import sys
import textwrap

import pytest

from dpverify.cli import main

dp = pytest.importorskip("opendp.prelude")

MODULE = textwrap.dedent('''
    import math
    import opendp.prelude as dp
    from dpverify.audit.adapters import from_opendp
    from dpverify.mechanisms.privacy import DeltaCurve
    from dpverify.mechanisms.protocol import FunctionMechanism
    dp.enable_features("contrib")

    def profile():
        g = dp.m.make_gaussian(dp.atom_domain(T=float, nan=False), dp.absolute_distance(T=float), scale=1.0)
        return from_opendp(dp.c.make_zCDP_to_approxDP(g))

    def understated(d, rng, n):
        return d + rng.normal(0.0, 0.5, n)

    def planted():  # a Gaussian of σ 0.5 claiming the profile of σ 1 (as if its map were for another σ)
        return FunctionMechanism(understated, claim=DeltaCurve(profile().claim.delta_curve), name="planted")
''')


@pytest.fixture()
def module(tmp_path, monkeypatch):
    (tmp_path / "h4_stated.py").write_text(MODULE)
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    yield "h4_stated"
    sys.modules.pop("h4_stated", None)


def test_gaussian_claim_is_its_zcdp_rho_audited_as_zcdp(capsys):
    rc = main(["audit", "dpverify.audit.adapters:opendp", "--param", "measurement=gaussian", "--param", "scale=1",
               "--d", "0", "--d-prime", "1", "--samples", "20000", "--seed", "1", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert rc == 0 and out["verdict"] == "inconclusive"
    assert any("ρ = 0.5 (zCDP)" in n for n in out["notes"])


def test_a_privacy_profile_is_audited_as_a_curve_and_a_planted_one_is_refuted(module, capsys):
    rc = main(["audit", f"{module}:profile", "--d", "0.0", "--d-prime", "1.0", "--samples", "20000", "--seed", "1",
               "--json"])
    out = json.loads(capsys.readouterr().out)
    assert rc == 0 and out["claim"] == "delta_curve" and out["verdict"] == "inconclusive"
    assert any("a δ(ε) curve" in n for n in out["notes"]) and not out["refuted_at"]
    rc = main(["audit", f"{module}:planted", "--d", "0.0", "--d-prime", "1.0", "--samples", "20000", "--seed", "1",
               "--json"])
    out = json.loads(capsys.readouterr().out)
    assert rc == 1 and out["verdict"] == "refuted" and out["refuted_at"]


def test_stated_claims_in_every_measure():
    from dpverify.audit.adapters import from_opendp
    from dpverify.mechanisms.adapters.stated import opendp_claim
    from dpverify.mechanisms.privacy import ApproxDP, DeltaCurve, PureDP, ZCDP

    dp.enable_features("contrib")
    g = dp.m.make_gaussian(dp.atom_domain(T=float, nan=False), dp.absolute_distance(T=float), scale=2.0)
    assert opendp_claim(g, 1.0) == (ZCDP(0.125), "ZeroConcentratedDivergence")
    curve, measure = opendp_claim(dp.c.make_zCDP_to_approxDP(g), 1.0)
    assert isinstance(curve, DeltaCurve) and measure == "SmoothedMaxDivergence" and 0 < curve.delta_curve(1.0) < 1
    fixed, measure = opendp_claim(dp.c.make_fix_delta(dp.c.make_zCDP_to_approxDP(g), 1e-6), 1.0)
    assert isinstance(fixed, ApproxDP) and fixed.delta == 1e-6 and measure == "Approximate(MaxDivergence)"
    lap = from_opendp("laplace", scale=2.0, d_in=2)
    assert lap.claim == PureDP(1.0) and lap.measure == "MaxDivergence" and lap.d_in == 2.0
    with pytest.raises(ValueError, match="cannot be evaluated at d_in"):
        opendp_claim(dp.m.make_laplace(dp.atom_domain(T=int), dp.absolute_distance(T=int), scale=1.0), -1)
    with pytest.raises(TypeError, match="measurement must be an OpenDP Measurement"):
        opendp_claim(object(), 1.0)


def test_diffprivlib_claims_its_own_epsilon_delta():
    pytest.importorskip("diffprivlib")
    from dpverify.audit.adapters import from_diffprivlib
    from dpverify.mechanisms.privacy import ApproxDP

    m = from_diffprivlib("Gaussian", epsilon=0.5, delta=1e-5, sensitivity=1)
    assert m.claim == ApproxDP(0.5, 1e-5) and m.measure == "(epsilon, delta)" and m.library.startswith("diffprivlib ")
    assert from_diffprivlib("Laplace", epsilon=1.0, sensitivity=1).measure == "epsilon"
    assert math.isfinite(m.epsilon)
