"""Review findings: a claims file or a check that calls sys.exit (or is slower than its declared limit)
must be an `error` result that fails the run, never a silent exit 0."""

from __future__ import annotations

import json
import textwrap
import time

from dpverify.claims import Outcome, Source, Verdict, claim, get_claim, run_claims, unregister
from dpverify.cli import main


def test_sys_exit_at_import_is_an_error(tmp_path, capsys):
    f = tmp_path / "claims_exit_import.py"
    f.write_text("import sys\nsys.exit(0)\n")
    assert main(["verify", str(f), "--json"]) == 1
    out = json.loads(capsys.readouterr().out)
    assert [r["verdict"] for r in out] == ["error"]


def test_sys_exit_in_a_check_is_an_error(tmp_path, capsys):
    f = tmp_path / "claims_exit_check.py"
    f.write_text(textwrap.dedent('''
        import sys
        from dpverify.claims import Source, claim

        @claim("exitroom.bye", source=Source("mine"), statement="exits", method="property")
        def _bye(thorough=False):
            sys.exit(0)
    '''))
    assert main(["verify", str(f), "--json"]) == 1
    out = json.loads(capsys.readouterr().out)
    assert out[0]["id"] == "exitroom.bye" and out[0]["verdict"] == "error" and "SystemExit" in out[0]["summary"]


def test_a_check_over_its_declared_limit_is_an_error_in_process():
    def slow(thorough=False):
        time.sleep(1.2)
        return Outcome(Verdict.HOLDS)

    claim("zzexit.slow", source=Source("seed-x"), statement="slow", method="property", timeout=0.5)(slow)
    try:
        (r,) = run_claims([get_claim("zzexit.slow")])  # jobs=1, no --timeout: in-process
    finally:
        unregister("zzexit.slow")
    assert r.verdict == Verdict.ERROR and not r.as_expected and "declared time limit" in r.outcome.summary
