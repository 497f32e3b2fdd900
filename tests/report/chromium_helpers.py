"""Headless Chromium for the report's browser tests: find it, run it, read a probe the page wrote."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess

import pytest


def chromium() -> str:
    """The Chromium executable; skips the test when there is none, and fails it under ``CI=true``."""
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        path = shutil.which(name)
        if path:
            return path
    msg = "headless Chromium not found: install Debian's chromium (apt-get install chromium) to run this test"
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(msg + " -- in CI it must be installed (.ci/run does it)")
    pytest.skip(msg)


def run_chromium(exe: str, tmp, *args: str) -> subprocess.CompletedProcess:
    """Chromium headless with no network, a fresh profile under ``tmp`` and scale factor 1."""
    cmd = [exe, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
           "--disable-background-networking", "--disable-component-update", "--disable-sync",
           "--hide-scrollbars", "--force-device-scale-factor=1", f"--user-data-dir={tmp / 'chromium-profile'}",
           *args]
    env = dict(os.environ, HOME=str(tmp))
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120, env=env)


def dom_probe(exe: str, tmp, html_path, probe_id: str) -> dict:
    """Render ``html_path`` at 1280×800 and return the JSON its script wrote into ``<pre id=probe_id>``."""
    dom = run_chromium(exe, tmp, "--window-size=1280,800", "--dump-dom", html_path.as_uri())
    m = re.search(rf'<pre id="{probe_id}">(.*?)</pre>', dom.stdout, re.S)
    assert m, f"chromium did not render the page: rc={dom.returncode}\n{dom.stderr[-2000:]}"
    return json.loads(m.group(1).replace("&quot;", '"').replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&"))


def print_rules(css: str) -> str:
    """The body of the stylesheet's ``@media print`` block (the last block of the stylesheet)."""
    start = css.index("@media print {")
    return css[start + len("@media print {"): css.rindex("}")]
