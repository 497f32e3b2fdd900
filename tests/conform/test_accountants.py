"""Accountants classified against the certified bracket; defects are rows, never crashes."""

from __future__ import annotations

import importlib.util

import pytest

from dpverify.conform import epsilon_bracket
from dpverify.conform.accountants import accountants, classify, rdp_epsilon

CONFIG = {"noise_multiplier": 1.0, "sample_rate": 0.01, "steps": 200, "delta": 1e-5}


@pytest.fixture(scope="module")
def bracket():
    return epsilon_bracket(**CONFIG)


def _row(rows, name):
    return next(r for r in rows if r["accountant"] == name)


def test_own_rdp_is_inside_or_above(bracket):
    rows = accountants(CONFIG, installed=False, bracket=bracket)
    assert _row(rows, "dpverify.rdp")["verdict"] in ("inside", "loose")
    for sigma, q, steps in ((0.7, 0.1, 50), (2.0, 1.0, 10), (1.0, 0.001, 1000)):
        low, high = epsilon_bracket(noise_multiplier=sigma, sample_rate=q, steps=steps, delta=1e-6,
                                    rel_width=0.2)
        assert rdp_epsilon(sigma, q, steps, 1e-6) >= low


def test_optimistic_accountant_flips_to_unsafe(bracket):
    """A deliberately optimistic accountant (composition forgotten: one step's epsilon) and a
    faithful one (the bracket's own midpoint) are told apart."""
    one_step = epsilon_bracket(**{**CONFIG, "steps": 1})[1]
    mid = 0.5 * (bracket[0] + bracket[1])
    rows = accountants(CONFIG, installed=False, bracket=bracket,
                       extra={"forgot-composition": lambda c: one_step,
                              "half": lambda c: bracket[0] / 2,
                              "faithful": lambda c: mid,
                              "doubled": lambda c: 2 * bracket[1]})
    assert _row(rows, "forgot-composition")["verdict"] == "unsafe"
    assert _row(rows, "half")["verdict"] == "unsafe"
    assert _row(rows, "faithful")["verdict"] == "inside"
    doubled = _row(rows, "doubled")
    assert doubled["verdict"] == "loose" and doubled["looseness"] == pytest.approx(1.0)


@pytest.mark.parametrize("value,reason", [(float("nan"), "non-finite"), (float("inf"), "non-finite"),
                                          (-1.0, "non-positive"), (0.0, "non-positive"),
                                          ("1.0x", "not a number"), (None, "not a number")])
def test_defects_are_rows(bracket, value, reason):
    rows = accountants(CONFIG, installed=False, bracket=bracket, extra={"bad": lambda c: value})
    row = _row(rows, "bad")
    assert row["verdict"] == "defect" and reason in row["note"]


def test_raising_accountant_is_a_row(bracket):
    def boom(c):
        raise RuntimeError("overflow in log_a")
    rows = accountants(CONFIG, installed=False, bracket=bracket, extra={"boom": boom})
    assert _row(rows, "boom")["verdict"] == "defect"
    assert "overflow in log_a" in _row(rows, "boom")["note"]


def test_config_not_mutated_and_validated(bracket):
    config = dict(CONFIG)
    accountants(config, installed=False, bracket=bracket, extra={"m": lambda c: c.pop("delta")})
    assert config == CONFIG
    with pytest.raises(ValueError, match="missing"):
        accountants({"noise_multiplier": 1.0})
    with pytest.raises(ValueError, match="unknown"):
        accountants({**CONFIG, "epochs": 3})
    with pytest.raises(TypeError, match="config"):
        accountants([1, 2, 3])
    with pytest.raises(ValueError, match="bracket"):
        accountants(CONFIG, bracket=(2.0, 1.0))
    with pytest.raises(ValueError, match="sample_rate"):
        rdp_epsilon(1.0, 2.0, 10, 1e-5)


def test_classify_edges():
    assert classify(1.0, 1.0, 2.0)[0] == "inside"
    assert classify(2.0, 1.0, 2.0)[0] == "inside"
    assert classify(0.999, 1.0, 2.0)[0] == "unsafe"
    assert classify(2.5, 1.0, 2.0)[:2] == ("loose", 0.25)


@pytest.mark.skipif(importlib.util.find_spec("dp_accounting") is None,
                    reason="dp_accounting is not installed (optional)")
def test_dp_accounting_rows(bracket):
    rows = accountants(CONFIG, bracket=bracket)
    pld = _row(rows, "dp_accounting.pld")
    rdp = _row(rows, "dp_accounting.rdp")
    assert pld["verdict"] in ("inside", "loose") and pld["version"] != "unknown"
    assert rdp["verdict"] in ("inside", "loose")


@pytest.mark.skipif(importlib.util.find_spec("prv_accountant") is None,
                    reason="prv_accountant is not installed (optional)")
def test_prv_accountant_row(bracket):
    row = _row(accountants(CONFIG, bracket=bracket), "prv_accountant")
    assert row["verdict"] in ("inside", "loose", "unsafe", "defect")   # classified, never a crash
