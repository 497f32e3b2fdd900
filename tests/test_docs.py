"""The documentation site builds offline with warnings as errors, from a read-only checkout, and holds
what it promises.

Slow (about a minute: it runs the findings' checks and autodoc imports every room); ``.ci/run``
also builds the site after the tests.  The build writes only into its output folder: the site's
source is assembled in ``<output>/.source`` (``docs/generate.py``), so the test builds from a
read-only copy of the repository and checks that the copy is unchanged.
"""

from __future__ import annotations

import html
import os
import re
import shutil
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "docs"))


def _read_only_copy(dst: Path) -> Path:
    ignore = shutil.ignore_patterns(".git", "__pycache__", "_build", "_generated", "*.egg-info", "build", ".pytest_cache",
                                    "out", "report", ".hypothesis")
    for name in ("dpverify", "docs", "notebooks", "examples"):
        shutil.copytree(ROOT / name, dst / name, ignore=ignore)
    for name in ("README.md", "pyproject.toml"):
        shutil.copy(ROOT / name, dst / name)
    for p in [dst, *dst.rglob("*")]:
        p.chmod(p.stat().st_mode & ~(stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH))
    return dst


def _tree(root: Path) -> dict[str, int]:
    return {str(p.relative_to(root)): p.stat().st_mtime_ns for p in root.rglob("*") if "__pycache__" not in p.parts}


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    pytest.importorskip("sphinx", reason="the docs extra is in the test extra: pip install -e '.[test]'")
    pytest.importorskip("myst_nb")
    src = _read_only_copy(tmp_path_factory.mktemp("checkout") / "repo")
    before = _tree(src)
    out = tmp_path_factory.mktemp("site") / "html"
    t = time.perf_counter()
    env = {**os.environ, "PYTHONPATH": str(src), "PYTHONDONTWRITEBYTECODE": "1"}
    res = subprocess.run([sys.executable, "-m", "sphinx", "-W", "--keep-going", "-b", "html", "-q",
                          str(src / "docs"), str(out)], capture_output=True, text=True, timeout=900, env=env, cwd=out.parent)
    secs = time.perf_counter() - t
    for p in [src, *src.rglob("*")]:  # let pytest remove it
        p.chmod(p.stat().st_mode | stat.S_IWUSR)
    assert res.returncode == 0, res.stderr[-5000:]
    assert _tree(src) == before, "the build wrote into the source tree"
    return out, secs


@pytest.mark.slow
def test_docs_build_read_only_with_warnings_as_errors(site):
    out, secs = site
    assert secs < 300, f"the docs build took {secs:.0f} s (target: under 5 minutes)"
    page = lambda p: (out / p).read_text(encoding="utf-8")  # noqa: E731
    assert "Thm 3" in page("_generated/findings.html") and "refuted" in page("_generated/findings.html")
    api = page("api.html")
    for name in ("optimal_mechanism", "epsilon_lower_bound", "make_report", "PPCADP", "fda_weights",
                 # the engine's other public parts, every room, and the modules a newcomer needs first
                 "as_mechanism", "catalogue", "room_of", "proof_path", "erratum_outcome", "best_event_bound",
                 "hockey_stick", "SafeLaplace", "laplace_log_ratio_sup", "dpverify.selftest", "dpverify.survey",
                 "dpverify.toolkit", "dpverify.audit.adapters", "from_opendp", "from_diffprivlib", "dpverify.mechanisms",
                 "dpverify.exact", "dpverify.conform", "epsilon_bracket", "derive_and_compare"):
        assert name in api, name
    assert "erratum" in page("_generated/glossary.html") and "e^ε" in page("_generated/glossary.html")
    assert (out / "_generated" / "proofs" / "rr" / "nary_optimum.html").is_file()
    assert (out / "_generated" / "notebooks" / "rr_paper_figures.html").is_file()
    assert "Check your own paper" in page("_generated/readme.html")
    assert "How the search works" in page("audit-a-mechanism.html")
    for example in ("gaussian_mechanism", "composition", "ldp_frequency_oracles"):
        assert "claims_" in page(f"_generated/gallery/{example}.html"), example
    assert "pre-commit" in page("ci.html") and "completion" in page("ci.html")


def _param_descriptions(api_html: str, function: str) -> dict[str, str]:
    """The parameters of ``function`` on the API page: name -> its description as text."""
    start = api_html.index(f'id="{function}"')
    block = api_html[start:api_html.index("</dl>", api_html.index("Parameters", start))]
    items = re.findall(r"<li><p><strong>(.*?)</strong>(.*?)</p></li>", block, re.S)
    text = lambda s: html.unescape(re.sub(r"<[^>]+>", "", s)).strip()  # noqa: E731
    return {text(n).lstrip("*"): " ".join(text(d).lstrip(" –—").split()) for n, d in items}


@pytest.mark.slow
def test_audit_parameters_keep_their_descriptions_whole(site):
    from numpydoc_fields import is_type

    out, _ = site
    shown = _param_descriptions((out / "api.html").read_text(encoding="utf-8"), "dpverify.audit.audit")
    from dpverify.audit import audit

    doc = audit.__doc__.split("Parameters\n", 1)[1].split("Returns\n", 1)[0]
    written = {}
    for head, body in re.findall(r"^    (\S[^\n]*?) : ([^\n]*(?:\n        [^\n]*)*)", doc, re.M):
        for name in head.split(","):
            written[name.strip()] = " ".join(body.split())
    assert len(written) >= 8
    words = lambda t: " ".join(re.findall(r"\w+", re.sub(r":[a-z]+:", "", t)))  # noqa: E731  (markup and quotes aside)
    for name, desc in written.items():
        assert name in shown, f"{name} is not on the audit() page"
        if not is_type(desc):  # a description: on the page whole, not cut at its first parenthesis
            assert words(desc) in words(shown[name]), (name, desc, shown[name])
