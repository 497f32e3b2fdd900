"""Every docstring example of every dpverify module runs and prints what it says (doctest).

Modules of rooms still being written are skipped for now (listed in ``UNFINISHED``;
the lead enables them by deleting entries).  A module whose examples are all
``+SKIP`` or that has none passes trivially; the last test makes sure the
finished rooms' public functions do carry examples.
"""

from __future__ import annotations

import doctest
import importlib
import inspect
import pkgutil
import sys

import pytest

import dpverify

# Paths (module-name prefixes) still under construction by other engineers: skipped, not xfailed.
UNFINISHED = (
    "dpverify.continual.baselines",
    "dpverify.continual.kary",
    "dpverify.continual.experiments",
    "dpverify.continual.claims_experiments",
    "dpverify.primitives",
    "dpverify.pca",
    "dpverify.datasets",
)
# dpverify.audit is unfinished except these modules
AUDIT_FINISHED = ("dpverify.audit.ldp", "dpverify.audit.claims_ldp", "dpverify.audit.exact")


def _unfinished(name: str) -> bool:
    if any(name == p or name.startswith(p + ".") for p in UNFINISHED):
        return True
    return (name == "dpverify.audit" or name.startswith("dpverify.audit.")) and name not in AUDIT_FINISHED


ALL_MODULES = sorted(m.name for m in pkgutil.walk_packages(dpverify.__path__, "dpverify."))


def _module(name: str):
    importlib.import_module(name)
    # sys.modules, not the attribute: dpverify.primitives.laplace is shadowed by a function of that name
    return sys.modules[name]


@pytest.mark.parametrize("name", ALL_MODULES)
def test_docstring_examples(name):
    if _unfinished(name):
        pytest.skip(f"{name}: room still being written (see UNFINISHED in tests/test_doctests.py)")
    mod = _module(name)
    finder = doctest.DocTestFinder(exclude_empty=True)
    runner = doctest.DocTestRunner(verbose=False)
    report: list[str] = []
    for test in finder.find(mod, name):
        runner.run(test, out=report.append)
    res = runner.summarize(verbose=False)
    assert res.failed == 0, "".join(report)


def test_module_list_is_not_empty():
    assert len(ALL_MODULES) > 30
    assert "dpverify.rr.nary" in ALL_MODULES and "dpverify.continual.fda" in ALL_MODULES


FINISHED_PUBLIC = [
    "dpverify.rr.nary",
    "dpverify.rr.lp",
    "dpverify.rr.simulate",
    "dpverify.rr.symbolic",
    "dpverify.audit.ldp",
    "dpverify.continual.api",
    "dpverify.continual.fenwick",
    "dpverify.continual.fda",
    "dpverify.continual.naive",
    "dpverify.continual.symbolic",
]


@pytest.mark.parametrize("name", FINISHED_PUBLIC)
def test_public_functions_have_examples(name):
    """House rule: every public function's docstring has a short runnable example."""
    mod = _module(name)
    missing = []
    for fname in getattr(mod, "__all__", []):
        obj = getattr(mod, fname)
        if not inspect.isfunction(obj):
            continue
        if ">>>" not in (obj.__doc__ or ""):
            missing.append(fname)
    assert not missing, f"{name}: public functions without a runnable example: {missing}"
