"""A report over real claims of the library (a fast subset), checked like the demo report."""

from __future__ import annotations

import html
import json

import pytest
from report_html_checks import check_report_html

from dpverify.claims import all_claims
from dpverify.cli import main
from dpverify.report.papers import paper_for_seed

# the fastest real subset that exists (about a second of checks); rooms are still growing
PREFIXES = ("audit.bug.", "audit.")


def test_report_of_real_claims(tmp_path, capsys):
    prefix = next((p for p in PREFIXES if all_claims(p)), None)
    assert prefix is not None, f"none of the real claim subsets {PREFIXES} is registered"
    ids = [c.id for c in all_claims(prefix)]
    rc = main(["report", "--only", prefix, "--out", str(tmp_path), "--jobs", "2", "--timeout", "60", "--json"])
    doc = json.loads(capsys.readouterr().out)
    assert [c["id"] for c in doc["claims"]] == ids
    assert sum(doc["summary"]["counts"].values()) == len(ids)
    assert rc == (1 if doc["summary"]["differ_from_expected"] else 0)
    page = (tmp_path / "report.html").read_text(encoding="utf-8")
    check_report_html(page)
    selftests = page[page.index('<section id="self-tests"'):] if 'id="self-tests"' in page else ""
    for c in all_claims(prefix):
        assert html.escape(c.statement, quote=True) in page, c.id
        entry = next(e for e in doc["claims"] if e["id"] == c.id)
        if entry["self_test"]:  # the library's own tests: in their section, never credited to a paper
            assert f'id="claim-{c.id.replace(".", "-")}"' in selftests, c.id
        else:
            assert html.escape(paper_for_seed(c.source.paper).title, quote=True) in page
    assert json.loads((tmp_path / "report.json").read_text(encoding="utf-8")) == doc
