"""Typed use of dpverify's public API: mypy must accept this file and infer these types.

Checked by tests/test_typing.py (not executed by pytest: it only has to type-check).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, assert_type

import numpy as np

from dpverify.audit import LDPResult, check_ldp
from dpverify.claims import Claim, Outcome, Result, Source, Verdict, all_claims, run_claims
from dpverify.continual import expected_mse, fda_weights
from dpverify.report import ReportFiles, load_report, make_report
from dpverify.report.figures import FigureImage, figure_caption

claims = all_claims("rr.")
assert_type(claims, list[Claim])
results = run_claims(claims, jobs=1, timeout=None)
assert_type(results, list[Result])
first: Result = results[0]
assert_type(first.verdict, Verdict)
assert_type(first.as_expected, bool)
assert_type(first.claim.source, Source)
out = Outcome(Verdict.HOLDS, {"n": 1}, summary="one sentence")
assert_type(out.summary, str)

mse = expected_mse(7, 1.0, "fda")
assert_type(mse, np.ndarray)
assert_type(fda_weights(7), np.ndarray)

res = check_ldp([[0.75, 0.25], [0.25, 0.75]], 1.1, 0.0, "standard", exact=False)
assert_type(res, LDPResult)

rep = make_report(Path("out"), only="rr.example", jobs=1, thorough=False)
assert_type(rep, ReportFiles)
assert_type(rep.all_as_expected, bool)
assert_type(load_report("out/report.json"), dict[str, Any])
assert_type(figure_caption(None), str)
img: FigureImage = FigureImage("", 1, 1, caption="a caption")
