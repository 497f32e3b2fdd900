"""What the thesis chapter says about the algorithms and matrices its proofs cite, read from its text or from
the facts recorded with the package (``seed000_facts.json``, used when the text is not beside the install).

Example
-------
>>> packaged_reference_facts()["citations_of_alg_5.4"] > 0
True
"""

from __future__ import annotations

import json
import re
from pathlib import Path

__all__ = ["reference_facts", "packaged_reference_facts"]


def reference_facts(text: str) -> dict:
    """What the thesis chapter says about the algorithms and matrices its proofs cite (counts and excerpts).

    Example
    -------
    >>> reference_facts("根据算法5.4,有 ... 当矩阵L为行满秩矩阵时")["citations_of_alg_5.4"]
    1
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__}")

    def lines(pat):
        out = []
        for m in re.finditer(pat, text):
            a = text.rfind("\n", 0, m.start()) + 1
            b = text.find("\n", m.end())
            out.append(text[a : b if b >= 0 else len(text)].strip())
        return out

    return {
        "algorithms_named": sorted(set(re.findall(r"算法(5\.\d)", text))),
        "citations_of_alg_5.4": len(re.findall(r"根据算法5\.4", text)),  # "according to Algorithm 5.4"
        "definitions_of_alg_5.4": len(re.findall(r"(?<!根据)算法5\.4", text)),  # any other occurrence
        "mentions_of_matrix_L": len(re.findall(r"矩阵L", text)),
        "excerpts": lines(r"根据算法5\.4") + lines(r"矩阵L"),
    }


def packaged_reference_facts() -> dict:
    """The facts of :func:`reference_facts` recorded with the package (used when the thesis chapter's text is absent).

    Example
    -------
    >>> packaged_reference_facts()["definitions_of_alg_5.4"]
    0
    """
    return json.loads((Path(__file__).with_name("seed000_facts.json")).read_text(encoding="utf-8"))
