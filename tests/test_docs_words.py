"""Words a reader knows: no internal word reaches the command line, the JSON keys, the README or the docs.

Internal words: "seed" for a paper ("seed 001", "seed file"), "issue N", the hashed names of the
files that hold the papers' text (``001_7a790d3cdc47e125.txt``).  "room" may appear only because the
glossary defines it.  A paper is named by the field ``Source.paper`` (``Source(paper=...)``).
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BAD = re.compile(r"\bseeds? 00\d|\bseed file|\bissue \d|\bissue target|\b\d{3}_[0-9a-f]{16}(\.txt)?\b|Found in seed",
                 re.I)


def _helps() -> dict[str, str]:
    from dpverify.cli import build_parser

    parser = build_parser()
    out = {"dpverify --help": parser.format_help()}
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    for name, p in sub.choices.items():
        out[f"dpverify {name} --help"] = p.format_help()
        for a in p._actions:
            if isinstance(a, argparse._SubParsersAction):
                out.update({f"dpverify {name} {n} --help": c.format_help() for n, c in a.choices.items()})
    return out


def test_cli_help_uses_no_internal_word():
    from dpverify.cli import glossary_words

    helps = _helps()
    assert len(helps) >= 10
    bad = {k: BAD.findall(v) for k, v in helps.items() if BAD.search(v)}
    assert not bad, bad
    assert "room" in dict(glossary_words()), "the help says 'room': the glossary must define it"


def test_source_names_its_paper():
    from dpverify.claims import Source

    s = Source(paper="Balle & Wang, ICML 2018", section="§3", equation="Thm 8")
    assert s.paper == "Balle & Wang, ICML 2018" and s == Source("Balle & Wang, ICML 2018", "§3", "Thm 8")
    with pytest.raises(TypeError):
        Source(seed="001")  # the former field name is not a keyword any more
    with pytest.raises(TypeError, match="paper"):
        Source(paper=3)


def test_json_says_paper():
    from dpverify.claims import Outcome, Source, Verdict, run_claims
    from dpverify.claims.model import Claim, Method
    from dpverify.claims.runner import result_to_json

    c = Claim(id="words.demo", source=Source(paper="My paper", section="§1"), statement="s", method=Method.PROPERTY,
              expected=Verdict.HOLDS, check=lambda thorough=False: Outcome(Verdict.HOLDS, {"value": 1}))
    (r,) = run_claims([c])
    j = result_to_json(r)
    assert j["source_parts"] == {"paper": "My paper", "section": "§1", "equation": ""}
    assert "seed" not in j["source_parts"]


def test_shipped_sources_name_no_file():
    from dpverify.claims import all_claims

    bad = [(c.id, str(c.source)) for c in all_claims() if BAD.search(str(c.source)) or "seed" in str(c.source).lower()]
    assert not bad, bad


def test_readme_and_docs_use_no_internal_word():
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")),
             *sorted((ROOT / "examples").glob("*/README.md"))]
    bad = {str(p.relative_to(ROOT)): BAD.findall(p.read_text(encoding="utf-8")) for p in pages
           if BAD.search(p.read_text(encoding="utf-8"))}
    assert not bad, bad


def test_the_pattern_catches_what_it_should():
    for text in ("facts packaged from seed 000", "paper file 000_929f809c6507214f.txt", "issue 13", "issue target",
                 "Found in seed", "the seed file"):
        assert BAD.search(text), text
    for text in ("--seed 3", "seeded checks", "an RNG seed (integer)", "seeds 0–4"):
        assert not BAD.search(text), text
