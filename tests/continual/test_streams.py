"""Every stream of the room is a BoundedStream: one push guard, one bound, one count check."""

import warnings

import numpy as np
import pytest

from dpverify.continual import method_names, stream
from dpverify.continual.methods import get_method
from dpverify.continual.streams import BoundedStream

ONLINE = [m for m in method_names() if get_method(m).stream is not None]


def _stream(method, n=3):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # the float-Laplace caveat
        return stream(n, 1.0, method, rng=0, noise="laplace")


@pytest.mark.parametrize("method", ONLINE)
def test_every_stream_is_bounded_by_the_one_base(method):
    s = _stream(method)
    assert isinstance(s, BoundedStream)
    assert s.remaining == 3
    for a in (1, 0, 2):
        s.push(a)
    assert s.remaining == 0
    with pytest.raises(ValueError, match="stream is bounded: n=3 releases already made, cannot push release 4"):
        s.push(1)


@pytest.mark.parametrize("method", ONLINE)
@pytest.mark.parametrize("bad, exc", [(-1, ValueError), (1.5, ValueError), (float("nan"), ValueError),
                                      (True, TypeError), ("2", TypeError), (None, TypeError)])
def test_every_stream_refuses_a_bad_count_alike(method, bad, exc):
    s = _stream(method)
    with pytest.raises(exc, match="a_t must be a non-negative integer"):
        s.push(bad)
    assert s.t == 0  # a refused count leaves the stream as it was


@pytest.mark.parametrize("method", [m for m in ONLINE if hasattr(_stream(m), "push_many")])
def test_a_chunk_beyond_the_bound_is_refused(method):
    s = _stream(method)
    s.push_many(np.array([1, 2]))
    with pytest.raises(ValueError, match="cannot push 2 more"):
        s.push_many(np.array([1, 1]))
