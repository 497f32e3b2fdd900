"""Sphinx configuration of the dpverify documentation site (see docs/README.md)."""

from __future__ import annotations

import re
import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent
sys.path.insert(0, str(DOCS.parent))
sys.path.insert(0, str(DOCS))

import dpverify  # noqa: E402
from generate import assemble  # noqa: E402
from numpydoc_fields import descriptive_fields  # noqa: E402

project = "dpverify"
author = "dpverify contributors"
copyright = "2026, dpverify contributors"
release = version = dpverify.__version__

extensions = ["myst_nb", "sphinx.ext.autodoc", "sphinx.ext.napoleon"]
myst_enable_extensions = ["deflist"]
myst_heading_anchors = 2           # README's "#1-check-your-own-paper" links
nb_execution_mode = "off"          # notebooks are shown with the outputs stored in the repository
source_suffix = {".md": "myst-nb", ".ipynb": "myst-nb"}
exclude_patterns = ["_build"]
html_theme = "alabaster"
html_theme_options = {"nosidebar": False, "page_width": "1100px"}
html_static_path = [str(DOCS / "_static")]
html_css_files = ["dpverify.css"]   # code blocks wrap instead of being clipped at the right edge

autodoc_member_order = "bysource"
autodoc_typehints = "description"
napoleon_numpy_docstring = True
napoleon_google_docstring = False
suppress_warnings: list[str] = []


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


def _skip_former_names(app, what, name, obj, skip, options):
    """``Source.seed`` is the former name of ``Source.paper``: kept for old code, not documented."""
    return True if name == "seed" and what == "class" and getattr(obj, "fget", None) is not None else None


def setup(app):
    from pygments.lexers.python import PythonLexer

    # The site's source is assembled inside the output folder (docs/generate.py), never in docs/:
    # the build works from a read-only checkout.  Sphinx reads its sources from app.srcdir, which
    # is set here, before it scans the source folder.
    app.srcdir = type(app.srcdir)(assemble(Path(app.outdir) / ".source"))

    app.connect("autodoc-process-docstring", _escape_bars)
    # before napoleon (priority 500): "name : description" lines become fields napoleon keeps whole
    app.connect("autodoc-process-docstring", descriptive_fields, priority=400)
    app.connect("autodoc-skip-member", _skip_former_names)

    # proof documents quote library code in ```quote dpverify/<module>.py:<label> blocks
    app.add_lexer("quote", PythonLexer)
