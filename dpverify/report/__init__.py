"""The audit report: every claim, its evidence and its figures, in one page an auditor can hand on.

``dpverify report [PATH ...] --out DIR`` runs the claims (every room's, or those of the
claims files and modules named, as for ``dpverify verify``), each supervised, and writes
``DIR/report.html`` (self-contained: a status line first, figures embedded as PNG, formulas
as MathML, proof documents embedded, no JavaScript, nothing fetched from the network; it
opens with what the papers got wrong, keeps the library's self-tests apart, and prints to at
most 40 A4 pages with every evidence table open) and
``DIR/report.json`` (the same content for machines, with the provenance
needed to rerun it).  ``dpverify report --compare OLD.json`` shows what
changed between two runs; ``--baseline OLD.json`` adds those changes to the page (the one
drift comparison, :mod:`dpverify.claims.drift`).  ``dpverify report --from RESULTS.json`` writes
the report of saved results (``dpverify verify --save RESULTS.json``, or a ``report.json``)
without running any claim again (:func:`report_from_file`).  Every room's claims and papers
appear without changes here: the report iterates :func:`dpverify.claims.all_claims` and reads
the papers the rooms declare.

Example
-------
>>> from dpverify.report import make_report, compare_reports, load_report
>>> rep = make_report("out", only="audit.")            # doctest: +SKIP
>>> compare_reports(load_report("old/report.json"), rep.document).changes   # doctest: +SKIP
"""

from dpverify.report.build import SCHEMA, ReportFiles, build_document, load_report, make_report, report_from_file
from dpverify.claims.drift import Change, Comparison, compare_reports
from dpverify.report.render import render_html
from dpverify.report.papers import PAPERS, Paper, paper_for_seed
from dpverify.report.provenance import collect_provenance

__all__ = [
    "SCHEMA",
    "ReportFiles",
    "build_document",
    "make_report",
    "report_from_file",
    "load_report",
    "render_html",
    "Change",
    "Comparison",
    "compare_reports",
    "PAPERS",
    "Paper",
    "paper_for_seed",
    "collect_provenance",
]
