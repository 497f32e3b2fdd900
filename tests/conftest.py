"""Shared test settings.

Statistical tests in this suite are seeded; each states its false-alarm rate
in its docstring.  Hypothesis runs derandomised so that CI is reproducible.
"""

import os
import signal
import sys
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


@pytest.fixture
def forget_claims(tmp_path):
    """Forget the claims and the modules a test loaded from its ``tmp_path`` (file basenames recur across tests)."""
    from dpverify.claims import registry

    before = set(registry.snapshot())
    yield
    for cid in set(registry.snapshot()) - before:
        registry.unregister(cid)
    for name, mod in list(sys.modules.items()):
        if str(getattr(mod, "__file__", "") or "").startswith(str(tmp_path)):
            del sys.modules[name]
