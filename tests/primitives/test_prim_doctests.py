"""The runnable examples in the docstrings of the primitives and auditor modules run and print what they say."""

import doctest
import importlib

import pytest

MODULES = [
    "dpverify.primitives.composition",
    "dpverify.primitives.exponential",
    "dpverify.primitives.randomized_response",
    "dpverify.primitives.sensitivity",
    "dpverify.primitives.usefulness",
    "dpverify.primitives.sampling",
    "dpverify.audit.statistical",
    "dpverify.audit.mechanisms",
    "dpverify.audit.floating_point",
]


@pytest.mark.parametrize("name", MODULES + ["dpverify.primitives.additive"])
def test_docstring_examples(name):
    mod = importlib.import_module(name)
    res = doctest.testmod(mod)  # the module's own globals only, as tests/test_doctests.py runs them
    assert res.failed == 0 and res.attempted > 0
