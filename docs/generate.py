"""The site's source, assembled at every build inside the output folder (nothing is written into docs/).

``assemble(dest)`` copies the hand-written pages of ``docs/`` to ``dest`` and adds the pages made
from the code, so no page can drift from it:

* ``_generated/readme.md``    -- README.md ("Start here"; links into docs/ kept, other repository links made plain text)
* ``_generated/proofs/``      -- every proof document of every room (``dpverify/<room>/proofs/``),
  introduced by ``docs/proof-documents.md``
* ``_generated/notebooks/``   -- the notebooks as committed, with their stored outputs (not executed)
* ``_generated/gallery/``     -- the worked examples of ``examples/`` (each folder's README and files)
* ``_generated/findings.md``  -- what the papers got wrong: the claims of the papers whose expected
  verdict is not ``holds``, each checked now (so the page shows the verdict and the reason of this build)
* ``_generated/glossary.md``  -- the glossary of ``dpverify --help`` (``dpverify.cli.glossary_words()``)

``conf.py`` calls :func:`assemble` with ``<output folder>/.source`` and points Sphinx there, so the
build works from a read-only checkout and leaves the source tree as it was.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent
#: the hand-written files of docs/ that are not pages of the site
NOT_PAGES = {"README.md", "generate.py", "conf.py", "proof-documents.md"}
#: the worked examples shown in the gallery, in this order (the folder names of examples/)
GALLERY = ("gaussian_mechanism", "composition", "ldp_frequency_oracles", "exact_proof")
_LINK = re.compile(r"\[([^\]]+)\]\((?!https?:|#)([^)]*)\)")


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.exists() or path.read_text(encoding="utf-8") != text:  # unchanged files keep Sphinx's cache
        path.write_text(text, encoding="utf-8")


def _copy(src: Path, dst: Path) -> None:
    dst.parent.mkdir(parents=True, exist_ok=True)
    if not dst.exists() or dst.read_bytes() != src.read_bytes():
        shutil.copyfile(src, dst)


def _plain_links(text: str, keep_docs: str | None = None) -> str:
    """Links to repository files are not pages of the site: keep their text (``docs/X.md`` -> ``keep_docs + X.md``)."""
    def sub(m: re.Match) -> str:
        if keep_docs is not None and m.group(2).startswith("docs/") and m.group(2).endswith(".md"):
            return f"[{m.group(1)}]({keep_docs}{m.group(2)[len('docs/'):]})"
        return m.group(1)
    return _LINK.sub(sub, text)


def pages(out: Path) -> None:
    """The hand-written pages of docs/, copied as they are."""
    for src in DOCS.iterdir():
        if src.is_file() and src.name not in NOT_PAGES and src.suffix in (".md", ".txt", ".css", ".png"):
            _copy(src, out / src.name)


def readme(out: Path) -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    _write(out / "_generated" / "readme.md", _plain_links(text, keep_docs="../"))


def proofs(out: Path) -> list[str]:
    """Every room's proof documents as ``_generated/proofs/<room>/<file>.md``, with an index."""
    from dpverify.proofdocs import all_documents, document_name

    names = []
    for src in all_documents(ROOT):
        rel = document_name(src)
        _write(out / "_generated" / "proofs" / rel, _plain_links(src.read_text(encoding="utf-8")))
        names.append(rel[: -len(".md")])
    intro = (DOCS / "proof-documents.md").read_text(encoding="utf-8").split("\n", 1)[1]
    index = ["# Proofs", intro.strip(), "", "```{toctree}", ":maxdepth: 1", ""]
    index += names
    index += ["```", ""]
    _write(out / "_generated" / "proofs" / "index.md", "\n".join(index))
    return names


def notebooks(out: Path) -> None:
    dst = out / "_generated" / "notebooks"
    for nb in sorted((ROOT / "notebooks").glob("*.ipynb")):
        _copy(nb, dst / nb.name)
    names = [p.stem for p in sorted((ROOT / "notebooks").glob("*.ipynb"))]
    _write(dst / "index.md", "\n".join(
        ["# Notebooks", "", "The papers' figures recomputed, and each subject's claims explored. Shown with the "
         "outputs stored in the repository (the docs build does not run them; `tests/test_notebooks.py` does).",
         "", "```{toctree}", ":maxdepth: 1", "", *names, "```", ""]))


def gallery(out: Path) -> list[str]:
    """Each worked example of examples/ as a page: its README, then every file of the folder in full."""
    shown = []
    for name in GALLERY:
        folder = ROOT / "examples" / name
        if not (folder / "README.md").is_file():
            continue
        text = _plain_links((folder / "README.md").read_text(encoding="utf-8")).rstrip() + "\n"
        text += f"\n## The files\n\nEverything below is the folder `examples/{name}/` as it is in the repository.\n"
        for f in sorted(folder.glob("*.py")):
            text += f"\n### `{f.name}`\n\n````python\n{f.read_text(encoding='utf-8').rstrip()}\n````\n"
        _write(out / "_generated" / "gallery" / f"{name}.md", text)
        shown.append(name)
    return shown


def findings(out: Path) -> None:
    from dpverify.claims import all_claims, run_claims
    from dpverify.report.entries import is_self_test, reason
    from dpverify.report.papers import paper_for

    chosen = [c for c in all_claims() if c.expected.value != "holds"
              and not is_self_test({"id": c.id, "source_parts": {"paper": c.source.paper}})]
    results = run_claims(chosen)
    lines = ["# What the papers got wrong", "",
             "Generated at this build by running the checks of every claim of the papers whose expected "
             "verdict is not `holds` (`dpverify verify` fails whenever a verdict differs from the expected "
             "one, so this page cannot drift from the code). **erratum**: wrong as printed, the corrected "
             "statement holds; **refuted**: false; **inconclusive**: not reproduced. The full evidence is in "
             "the report: `dpverify report --out report/`.", ""]
    by_paper: dict[str, list] = {}
    for r in results:
        by_paper.setdefault(paper_for(r.claim.source.paper).key, []).append(r)
    for key in sorted(by_paper):
        lines += [f"## {_md(paper_for(key).title)}", ""]
        for r in by_paper[key]:
            e = {"summary": r.outcome.summary, "verdict": r.verdict.value, "method": r.claim.method.value,
                 "evidence": dict(r.outcome.evidence), "error": r.error}
            where = ", ".join(x for x in (r.claim.source.section, r.claim.source.equation) if x)
            lines += [f"- **{r.verdict.value}** `{r.claim.id}`" + (f" ({_md(where)})" if where else "")
                      + f": {_md(r.claim.statement)}", f"  *Why:* {_md(reason(e))}", ""]
    _write(out / "_generated" / "findings.md", "\n".join(lines))


def _md(text: str) -> str:
    """Plain text safe in Markdown (no emphasis, roles or HTML from the text itself)."""
    return re.sub(r"([\\`*_{}\[\]<>|$])", r"\\\1", " ".join(str(text).split()))


def glossary(out: Path) -> None:
    """The glossary of ``dpverify --help``: the engine's words and every room's (``dpverify.cli.glossary_words``)."""
    from dpverify.cli import EXIT_STATUS, glossary_words

    lines = ["# Glossary", "", "The words of the reports, the documentation and the command line (also at the "
             "end of `dpverify --help`).", ""]
    for term, meaning in glossary_words():
        lines += [f"{_md(term)}", f": {_md(meaning)}", ""]
    lines += ["## Exit status", "", _md(EXIT_STATUS.split(":", 1)[1]), ""]
    _write(out / "_generated" / "glossary.md", "\n".join(lines))


def assemble(out: Path | str) -> Path:
    """Write the whole source of the site into ``out`` (created if needed) and return it."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    pages(out)
    readme(out)
    proofs(out)
    notebooks(out)
    gallery(out)
    glossary(out)
    findings(out)
    return out


if __name__ == "__main__":
    import sys

    if len(sys.argv) != 2:
        raise SystemExit("usage: python3 docs/generate.py OUT_DIR   (writes the site's source into OUT_DIR)")
    print(assemble(sys.argv[1]))
