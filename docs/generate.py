"""Pages generated from the sources at every docs build (nothing here is committed, so nothing drifts).

* ``_generated/tour.md``      -- README.md, the tour (links into the repository made plain text)
* ``_generated/proofs/``      -- every proof document of ``proofs/``
* ``_generated/notebooks/``   -- the notebooks as committed, with their stored outputs (not executed)
* ``_generated/findings.md``  -- what the papers got wrong: the claims of the papers whose expected
  verdict is not ``holds``, each checked now (so the page shows the verdict and the reason of this build)
* ``_generated/own_claims_toc.md`` -- the contents entry of ``docs/own-claims.md`` when that page exists
* ``_generated/glossary.md``  -- the glossary of ``dpverify --help`` (``dpverify.cli.GLOSSARY``)
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
    names = []
    for src in sorted((ROOT / "proofs").rglob("*.md")):
        rel = src.relative_to(ROOT / "proofs")
        text = src.read_text(encoding="utf-8")
        text = re.sub(r"\[([^\]]+)\]\((?!https?:)[^)]*\)", r"\1", text)
        _write(OUT / "proofs" / rel, text)
        names.append(rel.with_suffix("").as_posix())
    index = ["# Proofs", "", "Every derivation the library relies on, as a document whose every step "
             "`tests/test_proofs.py` executes.", "", "```{toctree}", ":maxdepth: 1", ""]
    index += [n for n in names if n != "README"]
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
    from dpverify.cli import GLOSSARY

    lines = ["# Glossary", "", "The words of the reports and the command line (also at the end of "
             "`dpverify --help`).", ""]
    term, body = None, []
    entries = []
    for ln in GLOSSARY.splitlines()[1:]:
        if not ln.strip():
            continue
        if ln.startswith("exit status"):
            break
        m = re.match(r"^  (\S.{0,11}?)\s{2,}(\S.*)$", ln) or re.match(r"^  (\S+)\s+(\S.*)$", ln)
        if m and not ln.startswith("    "):
            if term:
                entries.append((term, " ".join(body)))
            term, body = m.group(1).strip(), [m.group(2).strip()]
        else:
            body.append(ln.strip())
    if term:
        entries.append((term, " ".join(body)))
    for t, b in entries:
        lines += [f"{_md(t)}", f": {_md(b)}", ""]
    tail = GLOSSARY[GLOSSARY.index("exit status"):]
    lines += ["## Exit status", "", _md(tail.split(":", 1)[1]), ""]
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
