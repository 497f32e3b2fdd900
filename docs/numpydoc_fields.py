"""Keep "name : description" entries of numpy-style sections whole on the documentation site.

The house style writes many parameters as ``name : what it is (details)`` with no separate type.
napoleon reads the text after the colon as a *type*: it prints it in italics and cuts it at the
first parenthesis.  Before napoleon runs, :func:`descriptive_fields` rewrites such a section
(Parameters, Other Parameters, Keyword Arguments, Attributes are left to napoleon when every entry
is a type) as a reStructuredText field list, which napoleon leaves alone:

* ``name : int, optional`` + indented text stays ``:param name: text`` / ``:type name: int, optional``;
* ``name : the budget of draws (per input)`` + indented text becomes ``:param name: the budget of
  draws (per input) text``.

A Returns or Yields section whose first line is a sentence becomes ``:returns: sentence ...``.

Example
-------
>>> lines = ["Intro.", "", "Parameters", "----------", "samples : the budget (per input)",
...          "    more words", "rng : int, optional", "    the seed", "", "Returns", "-------",
...          "AuditReport with ``.epsilon`` (the bound)"]
>>> descriptive_fields(None, "function", "f", None, None, lines)
>>> print("\\n".join(lines))
Intro.
<BLANKLINE>
:param samples: the budget (per input)
    more words
:param rng: the seed
:type rng: int, optional
<BLANKLINE>
:returns: AuditReport with ``.epsilon`` (the bound)
"""

from __future__ import annotations

import re

PARAM_SECTIONS = {"parameters": "param", "other parameters": "param", "keyword arguments": "keyword",
                  "attributes": "ivar"}
RETURN_SECTIONS = {"returns": "returns", "yields": "returns"}
_TYPE_WORD = re.compile(r"^[A-Za-z_][\w.]*(\[[\w., \[\]]*\])?$")
_SMALL = {"or", "of", "optional", "default", "shape", "and", "None", "True", "False", "keyword-only"}


def is_type(text: str) -> bool:
    """Whether ``text`` reads as a type (``int``, ``float, optional``, ``list of str``, ``int, default 0``).

    >>> is_type("float, optional"), is_type("numpy.random.Generator or int"), is_type("the claim audited")
    (True, True, False)
    """
    text = re.split(r",?\s+default\b", text.strip(), maxsplit=1)[0]
    if not text or len(text) > 60 or any(c in text for c in "`()—:;'\""):
        return False
    words = [w for w in re.split(r"[,\s|]+", text) if w]
    return 0 < len(words) <= 6 and all(_type_word(w) for w in words)


def _type_word(w: str) -> bool:
    return (w in _SMALL or w.lower() in _BUILTIN_TYPES
            or bool(_TYPE_WORD.match(w)) and (w[0].isupper() or "." in w))


_BUILTIN_TYPES = {"int", "float", "str", "bool", "bytes", "list", "tuple", "dict", "set", "frozenset", "callable",
                  "object", "complex", "iterable", "sequence", "mapping", "array", "array_like", "array-like",
                  "ndarray", "number", "path", "generator", "function", "type", "any", "none", "optional"}


def _sections(lines: list[str]):
    """(start, end, kind) of each numpy-style section: a title line, then a line of dashes."""
    i = 0
    while i < len(lines) - 1:
        title = lines[i].strip().lower()
        if (title in PARAM_SECTIONS or title in RETURN_SECTIONS) and re.fullmatch(r"-{3,}", lines[i + 1].strip()):
            j = i + 2
            while j < len(lines) and not (j + 1 < len(lines) and lines[j].strip() and not lines[j].startswith(" ")
                                          and re.fullmatch(r"-{3,}", lines[j + 1].strip())):
                j += 1
            yield i, j, title
            i = j
        else:
            i += 1


def _entries(body: list[str]) -> list[tuple[str, list[str]]]:
    """The entries of a section body: each unindented line with the indented lines under it."""
    out: list[tuple[str, list[str]]] = []
    for line in body:
        if line.strip() and not line.startswith(" "):
            out.append((line, []))
        elif out:
            out[-1][1].append(line)
    return out


def _fields(kind: str, entries: list[tuple[str, list[str]]]) -> list[str]:
    out = []
    for head, rest in entries:
        names, sep, after = head.partition(" : ")
        if not sep:
            names, after = head.rstrip(" :"), ""
        more = list(rest)
        while more and not more[-1].strip():
            more.pop()
        text = [r.strip() for r in more]
        for name in (n.strip().replace("*", "\\*") for n in names.split(",") if n.strip()):
            # one field per name: Sphinx would read "a, b" as a type "a," and a name "b"
            if after and is_type(after):
                out.append(f":{kind} {name}: " + (text[0] if text else ""))
                out += ["    " + t for t in text[1:]]
                if kind == "param":
                    out.append(f":type {name}: {after.strip()}")
            else:
                out.append(f":{kind} {name}: " + (after.strip() or (text[0] if text else "")))
                out += ["    " + t for t in (text if after.strip() else text[1:])]
    return out


def descriptive_fields(app, what, name, obj, options, lines: list[str]) -> None:
    """``autodoc-process-docstring`` handler: rewrite the sections napoleon would cut (in place)."""
    for start, end, title in reversed(list(_sections(lines))):
        body = lines[start + 2:end]
        trailing = []
        while body and not body[-1].strip():
            trailing.append("")
            body.pop()
        entries = _entries(body)
        if not entries:
            continue
        if title in RETURN_SECTIONS:
            head = entries[0][0]
            if " : " not in head and not is_type(head) and len(head.split()) >= 4:  # a sentence: the whole section
                rest = [r.strip() for r in body[1:] if r.strip()]
                lines[start:end] = [":returns: " + head.strip(), *["    " + r for r in rest], *trailing]
            continue
        heads = [h.partition(" : ")[2] for h, _ in entries]
        if all(h and is_type(h) for h in heads):
            continue  # a section napoleon reads right
        lines[start:end] = _fields(PARAM_SECTIONS[title], entries) + trailing
