"""The sweep's driver of ``make_randomized_response_bitvec`` (RAPPOR's bitwise randomized response).

The check flips on the bug of OpenDP before 0.15 (opendp/opendp#2707: the last bit is never randomized),
replayed here with a seeded numpy sampler under OpenDP's own claim; the installed OpenDP's rows are
consistent.  False alarm of the consistent checks: at most their level α = 0.01.
"""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("opendp")

from dpverify.conform import opendp_sweep as osw  # noqa: E402
from dpverify.conform.rows import Case, check  # noqa: E402


def _rappor(flip_first: bool, f: float):
    """Draws of the first two output bits as cells 0..3; the first bit kept verbatim unless flip_first."""
    def sample(x, n, rng):
        bits = np.array([int(b) for b in x[:2]])[None, :].repeat(n, axis=0)
        flips = rng.random((n, 2)) < f / 2
        if not flip_first:
            flips[:, 0] = False
        out = bits ^ flips
        return 2 * out[:, 0] + out[:, 1]
    return sample


def test_cells_and_law_of_the_first_two_bits():
    assert [osw._bit_cell(bytes([b])) for b in (0x00, 0x40, 0x80, 0xC0, 0x3F)] == [0, 1, 2, 3, 0]
    law = osw._bitvec_law("10000000", 0.5)
    assert np.isclose(law.sum(), 1.0) and np.allclose(law, [0.25 * 0.75, 0.25 * 0.25, 0.75 * 0.75, 0.75 * 0.25])


@pytest.mark.parametrize("f", [0.5, 0.95])
def test_the_unrandomized_last_bit_of_old_releases_is_refuted_and_the_fix_is_consistent(f):
    (case,) = [c for c in osw.cases(["make_randomized_response_bitvec"]) if c.params["f"] == f]
    assert case.claim.epsilon == pytest.approx(2 * np.log((2 - f) / f))  # OpenDP's map: 2·m·ln((2 − f)/f), m = 1
    rows = {}
    for fixed in (True, False):
        replay = Case(case.constructor, case.params, case.claim, case.measure, case.pairs, _rappor(fixed, f), 4,
                      case.laws, case.library)
        rows[fixed] = check(replay, samples=20_000, alpha=0.01, rng=np.random.default_rng(7))
    assert rows[True].verdict == "consistent" and rows[True].law == "bitwise randomized response"
    assert rows[False].verdict == "refuted" and rows[False].bound > 2 * case.claim.epsilon


def test_the_installed_release_is_consistent():
    from dpverify.mechanisms.adapters.stated import library_version

    if tuple(int(v) for v in library_version("opendp").split()[1].split(".")[:2]) < (0, 15):
        pytest.skip("the installed OpenDP has the unrandomized last bit (opendp/opendp#2707): refuted by design")
    rows = [check(c, samples=6000, alpha=0.01, rng=0) for c in osw.cases(["make_randomized_response_bitvec"])]
    assert len(rows) == 2 and {r.verdict for r in rows} == {"consistent"}
