"""Shared test settings.

Statistical tests in this suite are seeded; each states its false-alarm rate
in its docstring.  Hypothesis runs derandomised so that CI is reproducible.
"""

import os
import signal
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

ROOT = Path(__file__).resolve().parent.parent

# The claims listing cache (dpverify.claims.listing) of the tests' `dpverify claims` and `verify`
# runs goes to a folder of this session, never to the user's cache folder.
os.environ.setdefault("DPVERIFY_CACHE_DIR", tempfile.mkdtemp(prefix="dpverify-test-cache-"))

# The Ctrl-C tests send SIGINT to a dpverify process and expect its KeyboardInterrupt.  A run started
# in the background of a non-interactive shell (`cmd &`) inherits SIGINT ignored, and Python then keeps
# it ignored in every child it starts, so those tests would hang: give the run, and so its children,
# the default Ctrl-C.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

settings.register_profile(
    "dpverify", derandomize=True, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile("dpverify")


@pytest.fixture
def repo_root() -> Path:
    return ROOT
