"""Pages generated from the sources at every docs build (nothing here is committed, so nothing drifts).

* ``_generated/tour.md``      -- README.md, the tour (links into the repository made plain text)
* ``_generated/proofs/``      -- every proof document of every room (``dpverify/<room>/proofs/``),
  introduced by ``docs/proof-documents.md``
* ``_generated/notebooks/``   -- the notebooks as committed, with their stored outputs (not executed)
* ``_generated/findings.md``  -- what the papers got wrong: the claims of the papers whose expected
  verdict is not ``holds``, each checked now (so the page shows the verdict and the reason of this build)
* ``_generated/own_claims_toc.md`` -- the contents entry of ``docs/own-claims.md`` when that page exists
* ``_generated/glossary.md``  -- the glossary of ``dpverify --help`` (``dpverify.cli.glossary_words()``)
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent
OUT = DOCS / "_generated"


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.exists() or path.read_text(encoding="utf-8") != text:  # unchanged files keep Sphinx's cache
        path.write_text(text, encoding="utf-8")


def tour() -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    # links to repository files are not pages of the site: keep their text
    text = re.sub(r"\[([^\]]+)\]\((?!https?:)[^)]*\)", r"\1", text)
    _write(OUT / "tour.md", text)


def proofs() -> list[str]:
    """Every room's proof documents as ``_generated/proofs/<room>/<file>.md``, with an index."""
    from dpverify.proofdocs import all_documents, document_name

    names = []
    for src in all_documents(ROOT):
        rel = document_name(src)
        text = src.read_text(encoding="utf-8")
        text = re.sub(r"\[([^\]]+)\]\((?!https?:)[^)]*\)", r"\1", text)
        _write(OUT / "proofs" / rel, text)
        names.append(rel[: -len(".md")])
    intro = (DOCS / "proof-documents.md").read_text(encoding="utf-8").split("\n", 1)[1]
    index = ["# Proofs", intro.strip(), "", "```{toctree}", ":maxdepth: 1", ""]
    index += names
    index += ["```", ""]
    _write(OUT / "proofs" / "index.md", "\n".join(index))
    return names


def notebooks() -> None:
    dst = OUT / "notebooks"
    dst.mkdir(parents=True, exist_ok=True)
    for nb in sorted((ROOT / "notebooks").glob("*.ipynb")):
        data = nb.read_bytes()
        if not (dst / nb.name).exists() or (dst / nb.name).read_bytes() != data:
            shutil.copyfile(nb, dst / nb.name)
    names = [p.stem for p in sorted((ROOT / "notebooks").glob("*.ipynb"))]
    _write(dst / "index.md", "\n".join(
        ["# Notebooks", "", "The papers' figures recomputed, and each room's claims explored. Shown with the "
         "outputs stored in the repository (the docs build does not run them; `tests/test_notebooks.py` does).",
         "", "```{toctree}", ":maxdepth: 1", "", *names, "```", ""]))


def findings() -> None:
    from dpverify.claims import all_claims, run_claims
    from dpverify.report.entries import is_self_test, reason
    from dpverify.report.papers import paper_for_seed

    chosen = [c for c in all_claims() if c.expected.value != "holds"
              and not is_self_test({"id": c.id, "source_parts": {"seed": c.source.seed}})]
    results = run_claims(chosen)
    lines = ["# What the papers got wrong", "",
             "Generated at this build by running the checks of every claim of the papers whose expected "
             "verdict is not `holds` (`dpverify verify` fails whenever a verdict differs from the expected "
             "one, so this page cannot drift from the code). **erratum**: wrong as printed, the corrected "
             "statement holds; **refuted**: false; **inconclusive**: not reproduced. The full evidence is in "
             "the report: `dpverify report --out report/`.", ""]
    by_paper: dict[str, list] = {}
    for r in results:
        by_paper.setdefault(paper_for_seed(r.claim.source.seed).key, []).append(r)
    for key in sorted(by_paper):
        lines += [f"## {paper_for_seed(key).title}", ""]
        for r in by_paper[key]:
            e = {"summary": r.outcome.summary, "verdict": r.verdict.value, "method": r.claim.method.value,
                 "evidence": dict(r.outcome.evidence), "error": r.error}
            lines += [f"- **{r.verdict.value}** `{r.claim.id}` ({r.claim.source}): {_md(r.claim.statement)}",
                      f"  *Why:* {_md(reason(e))}", ""]
    _write(OUT / "findings.md", "\n".join(lines))


def _md(text: str) -> str:
    """Plain text safe in Markdown (no emphasis, roles or HTML from the text itself)."""
    return re.sub(r"([\\`*_{}\[\]<>|$])", r"\\\1", " ".join(str(text).split()))


def glossary() -> None:
    """The glossary of ``dpverify --help``: the engine's words and every room's (``dpverify.cli.glossary_words``)."""
    from dpverify.cli import EXIT_STATUS, glossary_words

    lines = ["# Glossary", "", "The words of the reports and the command line (also at the end of "
             "`dpverify --help`).", ""]
    for term, meaning in glossary_words():
        lines += [f"{_md(term)}", f": {_md(meaning)}", ""]
    lines += ["## Exit status", "", _md(EXIT_STATUS.split(":", 1)[1]), ""]
    _write(OUT / "glossary.md", "\n".join(lines))


def own_claims_toc() -> None:
    """``docs/own-claims.md`` (writing your own claims) joins the contents when it exists."""
    text = ("```{toctree}\n:caption: Writing claims\n:maxdepth: 1\n\nown-claims\n```\n"
            if (DOCS / "own-claims.md").is_file() else "")
    _write(OUT / "own_claims_toc.md", text)


def generate_all() -> None:
    OUT.mkdir(exist_ok=True)
    own_claims_toc()
    tour()
    proofs()
    notebooks()
    glossary()
    findings()


if __name__ == "__main__":
    generate_all()
