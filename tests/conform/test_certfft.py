"""The blocked certified FFT (``dpverify.conform.certfft``) against the unblocked radix-2 version it
replaced (same operations, so bit for bit), against numpy's FFT within the proven bound, and with
planted errors that each check catches (proof ``conform/proofs/bracket.md``, step 4).
"""

from __future__ import annotations

import numpy as np
import pytest

from dpverify.conform import certfft


def _reference_fft(re, im):
    """The previous implementation, kept verbatim in its arithmetic: one radix-2 stage per pass
    over whole arrays, ``t = w x_odd`` as ``(w_re o_re - w_im o_im, w_re o_im + w_im o_re)``."""
    n = re.size
    wr, wi, _ = certfft.twiddles(n)
    xr, xi, m = re.reshape(1, n), im.reshape(1, n), 1
    while m < n:
        half = n // (2 * m)
        fr, fi = wr[::half][:m], wi[::half][:m]
        if m < half:
            fr, fi = fr[:, None], fi[:, None]
            er, ei, orr, oi = xr[:, :half], xi[:, :half], xr[:, half:], xi[:, half:]
            shape, top, bot = (2 * m, half), np.s_[:m], np.s_[m:]
        else:
            if xr.shape[0] == m:
                xr, xi = np.ascontiguousarray(xr.T), np.ascontiguousarray(xi.T)
            er, ei, orr, oi = xr[:half], xi[:half], xr[half:], xi[half:]
            shape, top, bot = (half, 2 * m), np.s_[:, :m], np.s_[:, m:]
        tr = fr * orr
        tr -= fi * oi
        ti = fr * oi
        ti += fi * orr
        nr, ni = np.empty(shape), np.empty(shape)
        np.add(er, tr, out=nr[top])
        np.subtract(er, tr, out=nr[bot])
        np.add(ei, ti, out=ni[top])
        np.subtract(ei, ti, out=ni[bot])
        xr, xi, m = nr, ni, 2 * m
    return xr.ravel(), xi.ravel()


def _reassociated(re, im):
    """A planted change of operation order: ``x_even + (w_re o_re) - (w_im o_im)`` summed left to
    right (one more rounding path); the bit-for-bit check must see it."""
    n = re.size
    wr, wi, _ = certfft.twiddles(n)
    xr, xi, m = re.reshape(1, n), im.reshape(1, n), 1
    while m < n:
        half = n // (2 * m)
        fr, fi = wr[::half][:m, None], wi[::half][:m, None]
        er, ei, orr, oi = xr[:, :half], xi[:, :half], xr[:, half:], xi[:, half:]
        xr = np.concatenate([(er + fr * orr) - fi * oi, (er - fr * orr) + fi * oi])
        xi = np.concatenate([(ei + fr * oi) + fi * orr, (ei - fr * oi) - fi * orr])
        m *= 2
    return xr.ravel(), xi.ravel()


def _inputs(n, seed):
    rng = np.random.default_rng(seed)
    return rng.standard_normal(n), rng.standard_normal(n)


@pytest.mark.parametrize("bits", [1, 2, 3, 6, 9, 15, 16, 17])
def test_bit_for_bit_with_the_unblocked_fft(bits):
    """Same numbers as the unblocked version (2**16, 2**17 take the blocked path); inputs unchanged."""
    x, y = _inputs(1 << bits, bits)
    x0, y0 = x.copy(), y.copy()
    got, want = certfft.fft(x, y), _reference_fft(x, y)
    assert np.array_equal(got[0], want[0]) and np.array_equal(got[1], want[1])
    assert np.array_equal(x, x0) and np.array_equal(y, y0)
    assert not np.shares_memory(got[0], x) and not np.shares_memory(got[1], y)


@pytest.mark.parametrize("block_bits,bits", [(2, 5), (2, 8), (3, 7), (4, 9), (5, 12), (1, 11)])
def test_bit_for_bit_with_small_blocks(monkeypatch, block_bits, bits):
    """Blocks far smaller than the size (odd and even log2 n, one-column and one-row blocks)."""
    monkeypatch.setattr(certfft, "_BLOCK", 1 << block_bits)
    x, y = _inputs(1 << bits, bits + 100)
    got, want = certfft.fft(x, y), _reference_fft(x, y)
    assert np.array_equal(got[0], want[0]) and np.array_equal(got[1], want[1])


def test_the_bit_for_bit_check_can_fail():
    """A reassociated butterfly (same algorithm, other rounding order) is not bit for bit."""
    x, y = _inputs(1 << 10, 5)
    got, other = certfft.fft(x, y), _reassociated(x, y)
    assert np.allclose(got[0], other[0]) and np.allclose(got[1], other[1])
    assert not (np.array_equal(got[0], other[0]) and np.array_equal(got[1], other[1]))


def _excess(x, y):
    """||fft - numpy fft||_2 / (e ||F z||_2): <= 1 + numpy's own relative error over e."""
    re, im = certfft.fft(x, y)
    ref = np.fft.fft(x + 1j * y)
    return float(np.linalg.norm(re + 1j * im - ref) / (certfft.fft_error(x.size) * np.linalg.norm(ref)))


@pytest.mark.parametrize("bits", [4, 10, 16, 18])
def test_within_the_proven_bound_of_numpy(bits):
    """Within Higham's bound e of numpy's FFT, with room 2e for numpy's own error (pocketfft is
    far more accurate than e; the bound itself is checked against a long-double DFT in
    ``test_bracket.test_fft_error_bound_holds_and_can_fail``)."""
    for seed in range(3):
        assert _excess(*_inputs(1 << bits, seed)) <= 2.0


def test_a_planted_error_beyond_the_bound_is_caught(monkeypatch):
    """One twiddle moved by 1e-10 on the blocked path: the same comparison fails."""
    x, y = _inputs(1 << 16, 9)
    assert _excess(x, y) <= 2.0
    wr, wi, mu = certfft.twiddles(1 << 16)
    bad = wr.copy()
    bad[3] += 1e-10
    monkeypatch.setattr(certfft, "twiddles", lambda n: (bad, wi, mu))
    assert _excess(x, y) > 2.0


def test_cpow_blocks_give_the_same_numbers(monkeypatch):
    """cpow in blocks equals cpow in one block; k is validated."""
    a, b = (v * 0.9 for v in _inputs(5000, 3))
    whole = certfft.cpow(a, b, 37)
    monkeypatch.setattr(certfft, "_BLOCK", 64)
    parts = certfft.cpow(a, b, 37)
    assert np.array_equal(whole[0], parts[0]) and np.array_equal(whole[1], parts[1])
    z = (a + 1j * b) ** 37
    assert np.allclose(whole[0] + 1j * whole[1], z, rtol=1e-12, atol=1e-300)
    with pytest.raises(ValueError, match="k"):
        certfft.cpow(a, b, 0)
