"""Sphinx configuration of the dpverify documentation site (see docs/README.md)."""

from __future__ import annotations

import re
import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent
sys.path.insert(0, str(DOCS.parent))
sys.path.insert(0, str(DOCS))

import dpverify  # noqa: E402
from generate import generate_all  # noqa: E402

project = "dpverify"
author = "dpverify contributors"
copyright = "2026, dpverify contributors"
release = version = dpverify.__version__

extensions = ["myst_nb", "sphinx.ext.autodoc", "sphinx.ext.napoleon"]
myst_enable_extensions = ["deflist"]
nb_execution_mode = "off"          # notebooks are shown with the outputs stored in the repository
source_suffix = {".md": "myst-nb", ".ipynb": "myst-nb"}
exclude_patterns = ["_build", "README.md", "generate.py", "proof-documents.md", "_generated/own_claims_toc.md"]
html_theme = "alabaster"
html_theme_options = {"nosidebar": False}

autodoc_member_order = "bysource"
autodoc_typehints = "description"
napoleon_numpy_docstring = True
napoleon_google_docstring = False
suppress_warnings: list[str] = []

generate_all()



# Docstrings write absolute values as plain text, |x − μ|; reStructuredText would read |…| as a
# substitution.  Outside literals, doctest lines and table rows, such bars are escaped before autodoc
# parses them.
_BARS = re.compile(r"(?<![\\|`])\|([^|`\n]+)\|(?![|`_])")
_LITERAL = re.compile(r"(``.*?``|`[^`]*`)")


def _escape_bars(app, what, name, obj, options, lines):
    for i, line in enumerate(lines):
        if line.lstrip().startswith((">>>", "...", "|", "+")):
            continue
        parts = _LITERAL.split(line)
        parts[::2] = [_BARS.sub(lambda m: "\\|" + m.group(1) + "\\|", p) for p in parts[::2]]
        lines[i] = "".join(parts)


def setup(app):
    from pygments.lexers.python import PythonLexer

    app.connect("autodoc-process-docstring", _escape_bars)

    # proof documents quote library code in ```quote dpverify/<module>.py:<label> blocks
    app.add_lexer("quote", PythonLexer)
