"""Which paper a claim comes from: seed ids mapped to titles (the table of SPEC.md).

A claim's ``source.seed`` names the seed file it restates, e.g. ``"004"`` or
``"004_2063bbaa5f69f7be.txt"``.  The report groups claims by paper; a seed
that is not in the table gets a section of its own.

Example
-------
>>> paper_for_seed("004").title.startswith("Cai, Wu, Wang")
True
>>> paper_for_seed("4").key == paper_for_seed("004_2063bbaa5f69f7be.txt").key == "004"
True
>>> paper_for_seed("seed-x").known
False
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

__all__ = ["Paper", "PAPERS", "paper_for_seed", "papers_from_spec"]


@dataclass(frozen=True)
class Paper:
    """A paper (seed) section of the report.

    ``key`` is the normalised seed id (three digits for the known seeds,
    the seed string itself otherwise); ``known`` says whether it is in the table.
    """

    key: str
    title: str
    seed_file: str = ""
    room: str = ""
    known: bool = True


# The table at the top of shared/SPEC.md beside the source tree (seed file | paper | room); the test
# tests/report/test_report_papers.py re-reads that table when it exists and
# fails if this copy drifted from it.
PAPERS: dict[str, Paper] = {
    p.key: p
    for p in (
        Paper("000", "Thesis chapter 5: matrix-mechanism continual release (text ends at h(α))",
              "000_929f809c6507214f.txt", "continual"),
        Paper("001", "Gu, Zhang, Song, PPCA and PPCA-DP privacy-preserving data publishing",
              "001_7a790d3cdc47e125.txt", "pca"),
        Paper("002", "Blog translation of Zhu et al., Differentially Private Data Publishing and Analysis: "
                     "A Survey (definitions)", "002_514c0aac27c4ee30.txt", "primitives"),
        Paper("003", "Zhou, Lu, Wu, Study on utility optimization for randomized response mechanism, "
                     "J. on Communications 2019", "003_fd0dbb2a33bed91b.txt", "rr"),
        Paper("004", "Cai, Wu, Wang, Method based on matrix mechanism for DP continual data release, "
                     "J. Frontiers of CS&T 10(4) 2016", "004_2063bbaa5f69f7be.txt", "continual"),
    )
}

_SEED_RE = re.compile(r"^\s*0*(\d+)(?:_[0-9a-f]*)?(?:\.txt)?\s*$")


def _normalise(seed: str) -> str | None:
    m = _SEED_RE.match(seed)
    return f"{int(m.group(1)):03d}" if m else None


def paper_for_seed(seed: str, papers: dict[str, Paper] | None = None) -> Paper:
    """The paper a ``Source.seed`` refers to; an unknown seed becomes its own :class:`Paper`.

    Parameters
    ----------
    seed : str
        ``"004"``, ``"4"``, ``"004_2063bbaa5f69f7be.txt"`` all name seed 004.
    papers : dict, optional
        The table to look in (default :data:`PAPERS`).
    """
    if not isinstance(seed, str):
        raise TypeError(f"seed must be a string, got {seed!r} of type {type(seed).__name__}")
    table = PAPERS if papers is None else papers
    key = _normalise(seed)
    if key is not None and key in table:
        return table[key]
    label = seed.strip() or "(no seed)"
    return Paper(label, f"Other source: {label}", "", "", known=False)


def papers_from_spec(path: str | Path) -> dict[str, Paper]:
    """Parse the ``| seed file | paper | room |`` table of a SPEC.md into :class:`Paper` s.

    Markdown emphasis and back-ticks are removed; the paper column is cut at
    the first " — " (the remark after the title).
    """
    text = Path(path).read_text(encoding="utf-8")
    out: dict[str, Paper] = {}
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 3 or not line.lstrip().startswith("|"):
            continue
        seed_file = cells[0].strip("` ")
        key = _normalise(seed_file)
        if key is None:
            continue
        title = cells[1].split(" — ")[0].replace("*", "").strip()
        out[key] = Paper(key, title, seed_file, cells[2].strip("` "))
    return out
