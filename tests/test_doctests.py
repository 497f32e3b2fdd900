"""Every docstring example of every dpverify module runs and prints what it says (doctest),
and every public function and class of the library carries a runnable example.

Exempt from the "has an example" rule (and only these): exception classes, dataclass result
records (the functions that return them carry the examples), the CLI glue
(``cli.py``: ``register`` and ``cmd_*``, exercised by the CLI tests), private modules, and the
modules listed in ``EXAMPLE_EXEMPT`` (internal machinery of the report and the claims engine,
covered by their own tests).
"""

from __future__ import annotations

import dataclasses
import doctest
import importlib
import inspect
import pkgutil

import pytest

import dpverify

ALL_MODULES = sorted(m.name for m in pkgutil.walk_packages(dpverify.__path__, "dpverify."))
EXAMPLE_EXEMPT = ("dpverify.report", "dpverify.claims", "dpverify.cli", "dpverify.proofdocs", "dpverify.__main__")


def _public_module(name: str) -> bool:
    return not any(part.startswith("_") for part in name.split(".")[1:])


@pytest.mark.parametrize("name", ALL_MODULES)
def test_docstring_examples(name):
    mod = importlib.import_module(name)
    finder = doctest.DocTestFinder(exclude_empty=True)
    runner = doctest.DocTestRunner(verbose=False)
    report: list[str] = []
    for test in finder.find(mod, name):
        runner.run(test, out=report.append)
    res = runner.summarize(verbose=False)
    assert res.failed == 0, "".join(report)


def test_module_list_is_not_empty():
    assert len(ALL_MODULES) > 30
    assert {"dpverify.rr.nary", "dpverify.continual.fda", "dpverify.audit.statistical", "dpverify.pca.ppca"} <= set(
        ALL_MODULES
    )


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


EXAMPLE_MODULES = [
    m for m in ALL_MODULES if _public_module(m) and not any(m == e or m.startswith(e + ".") for e in EXAMPLE_EXEMPT)
]


@pytest.mark.parametrize("name", EXAMPLE_MODULES)
def test_public_callables_have_examples(name):
    """House rule: every public function's and class's docstring has a short runnable example."""
    mod = importlib.import_module(name)
    missing = []
    for n, obj in _public(mod):
        if inspect.isclass(obj) and (issubclass(obj, BaseException) or dataclasses.is_dataclass(obj)):
            continue  # exceptions and result records (their producers carry the examples)
        if name.endswith(".cli") and (n == "register" or n.startswith("cmd_")):
            continue
        if ">>>" not in (obj.__doc__ or ""):
            missing.append(n)
    assert not missing, f"{name}: public functions/classes without a runnable example: {missing}"
