"""``dpverify claims`` from the listing cache (:mod:`dpverify.claims.listing`): the same rows as a full
load, never a stale or damaged cache, and no sympy, scipy.stats or cvxpy imported when it answers."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

import dpverify
from dpverify.claims import listing


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("DPVERIFY_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache"


def _claims_json(env, *args):
    proc = subprocess.run([sys.executable, "-m", "dpverify", "claims", "--json", *args], env=env,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return json.loads(proc.stdout)


def test_the_cached_listing_is_the_loaded_one_and_imports_no_solver(cache):
    env = {**os.environ, "PYTHONPATH": os.path.dirname(os.path.dirname(dpverify.__file__))}
    loaded = _claims_json(env)  # a full load, which writes the cache
    assert list(cache.glob("claims-*.json")), "the full load wrote no cache"
    assert listing.cached_listing() == loaded
    assert _claims_json(env) == loaded
    assert _claims_json(env, "--only", "rr.") == [r for r in loaded if r["id"].startswith("rr.")]
    code = ("import sys, runpy; sys.argv = ['dpverify', 'claims', '--json']\n"
            "try:\n    runpy.run_module('dpverify', run_name='__main__')\nexcept SystemExit:\n    pass\n"
            "print('HEAVY', sorted(m for m in ('sympy', 'scipy.stats', 'cvxpy') if m in sys.modules), file=sys.stderr)")
    proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)
    assert "HEAVY []" in proc.stderr, proc.stderr[-2000:]


def test_a_stale_or_damaged_cache_is_never_read(cache, monkeypatch):
    from dpverify.claims.registry import all_claims

    assert listing.remember()
    rows = listing.cached_listing()
    shipped = {c.id for c in all_claims() if c.check.__module__.startswith("dpverify.")}  # not other tests' claims
    assert rows and {r["id"] for r in rows} == shipped
    (f,) = cache.glob("claims-*.json")
    monkeypatch.setattr(listing, "package_digest", lambda: "0" * 64)  # the package's files changed
    assert listing.cached_listing() is None
    monkeypatch.undo()
    monkeypatch.setenv("DPVERIFY_CACHE_DIR", str(cache))
    data = json.loads(f.read_text())
    for damage in ({**data, "claims": [{**data["claims"][0], "expected": 3}]}, {**data, "claims": {}},
                   {**data, "digest": "x"}, [1], "not json"):
        f.write_text(damage if isinstance(damage, str) else json.dumps(damage))
        assert listing.cached_listing() is None, damage
    f.write_text(json.dumps(data))
    assert listing.cached_listing() == rows


def test_a_load_with_a_failed_module_is_not_cached(cache, monkeypatch):
    from dpverify.claims import registry
    from dpverify.claims.model import Claim, Method, Outcome, Source, Verdict

    def broken(thorough=False):
        return Outcome(Verdict.ERROR, {})

    broken.__module__ = "dpverify.claims.store"  # what an import failure's claim looks like
    c = Claim("rr.import:x", Source("dpverify"), "s", Method.PROPERTY, Verdict.HOLDS, broken)
    monkeypatch.setattr(registry, "all_claims", lambda *a, **k: [c])
    assert listing.remember() is False
    assert not (cache.exists() and list(cache.glob("claims-*.json")))
    monkeypatch.undo()
    monkeypatch.setenv("DPVERIFY_CACHE_DIR", str(cache))
    assert listing.remember() is True and listing.cached_listing()
