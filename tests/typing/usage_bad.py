"""Wrong uses of the public API that mypy must reject (tests/test_typing.py counts the errors)."""

from __future__ import annotations

from dpverify.claims import all_claims, run_claims
from dpverify.report import make_report

all_claims(3)                                   # error: prefix is str | None
run_claims(all_claims(), 2)                     # error: thorough, jobs, ... are keyword-only
make_report("out", jobs="two")                  # error: jobs is int
n: int = all_claims()[0].id                     # error: id is str
