"""Docstring examples of the primitives, audit (except exact/ldp), pca, datasets and continual
baselines/k-ary/experiments modules run under doctest and print what they say; every public
function and class of those modules carries a runnable example.

Exempt from the "has an example" rule (and only these): exception classes, the CLI glue
(``cli.py``: ``register`` and ``cmd_*``, exercised by the CLI tests) and private modules.
"""

from __future__ import annotations

import doctest
import importlib
import inspect
import pkgutil
import sys

import pytest

import dpverify

ROOMS = (
    "dpverify.continual.baselines",
    "dpverify.continual.kary",
    "dpverify.continual.experiments",
    "dpverify.continual.claims_experiments",
    "dpverify.primitives",
    "dpverify.pca",
    "dpverify.datasets",
    "dpverify.audit",
)
NOT_OURS = ("dpverify.audit.exact", "dpverify.audit.ldp", "dpverify.audit.claims_ldp")


def _ours(name: str) -> bool:
    return any(name == p or name.startswith(p + ".") for p in ROOMS) and name not in NOT_OURS


MODULES = sorted(m.name for m in pkgutil.walk_packages(dpverify.__path__, "dpverify.") if _ours(m.name))


def _module(name: str):
    importlib.import_module(name)
    return sys.modules[name]  # not the attribute: dpverify.primitives.laplace is a function


def test_module_list():
    assert "dpverify.continual.kary" in MODULES and "dpverify.audit.statistical" in MODULES
    assert "dpverify.audit.ldp" not in MODULES and len(MODULES) >= 25


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    mod = _module(name)
    finder = doctest.DocTestFinder(exclude_empty=True)
    runner = doctest.DocTestRunner(verbose=False)
    report: list[str] = []
    for test in finder.find(mod, name):
        runner.run(test, out=report.append)
    res = runner.summarize(verbose=False)
    assert res.failed == 0, "".join(report)


def _public(mod):
    names = getattr(mod, "__all__", None)
    if names is None:
        names = [n for n, o in vars(mod).items() if not n.startswith("_") and getattr(o, "__module__", None) == mod.__name__]
    for n in names:
        obj = getattr(mod, n)
        if getattr(obj, "__module__", None) != mod.__name__:
            continue  # re-exported: checked where it is defined
        if inspect.isfunction(obj) or inspect.isclass(obj):
            yield n, obj


@pytest.mark.parametrize("name", [m for m in MODULES if not m.rsplit(".", 1)[1].startswith("_")])
def test_public_callables_have_examples(name):
    mod = _module(name)
    missing = []
    for n, obj in _public(mod):
        if inspect.isclass(obj) and issubclass(obj, BaseException):
            continue
        if name.endswith(".cli") and (n == "register" or n.startswith("cmd_")):
            continue
        if ">>>" not in (obj.__doc__ or ""):
            missing.append(n)
    assert not missing, f"{name}: public functions/classes without a runnable example: {missing}"
