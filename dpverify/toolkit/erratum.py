"""The erratum rule, written once: the printed statement fails and the corrected one holds.

Every room's erratum claims return :func:`erratum_outcome`, so the rule that turns "does the
printed statement hold?" and "does the corrected statement hold?" into a verdict is the same
everywhere:

=================  ===============  ==================  ================
printed in paper?  corrected holds  printed holds       verdict
=================  ===============  ==================  ================
no (excerpt gone)  --               --                  ``inconclusive``
yes / not checked  no               --                  ``refuted``
yes / not checked  yes              yes                 ``holds``
yes / not checked  yes              no                  ``erratum``
=================  ===============  ==================  ================

A corrected statement that fails refutes the claim even when the printed one happens to hold:
the erratum is then wrong itself, and the room must say so.

Example
-------
>>> erratum_outcome(printed_holds=False, corrected_holds=True, evidence={"n": 3},
...                 why="Eq. (5) drops a factor 2.").verdict.value
'erratum'
>>> erratum_outcome(printed_holds=True, corrected_holds=True, evidence={}).verdict.value
'holds'
>>> erratum_outcome(printed_holds=False, corrected_holds=False, evidence={}).verdict.value
'refuted'
>>> erratum_outcome(printed_holds=False, corrected_holds=True, evidence={}, found_in_seed=False).verdict.value
'inconclusive'
"""

from __future__ import annotations

from typing import Any, Mapping

import numpy as np

from dpverify.claims.model import Outcome, Verdict

__all__ = ["erratum_outcome", "erratum_verdict"]

#: the summaries used when a room gives none
SUMMARIES = {
    Verdict.INCONCLUSIVE: "The printed excerpt is not in this copy of the paper's text.",
    Verdict.REFUTED: "The corrected statement fails as well.",
    Verdict.HOLDS: "The printed statement holds.",
}


def _check_bool(value: Any, name: str) -> bool:
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be a bool, got {value!r} of type {type(value).__name__}")
    return bool(value)


def erratum_verdict(*, printed_holds: bool, corrected_holds: bool, found_in_seed: bool | None = None) -> Verdict:
    """The verdict of an erratum claim (the table in this module's docstring).

    Parameters
    ----------
    printed_holds : bool
        Whether the statement as printed holds.
    corrected_holds : bool
        Whether the corrected statement holds.
    found_in_seed : bool or None
        False when the printed excerpt is not in the copy of the paper at hand (then nothing
        is claimed of it: ``inconclusive``); None when the excerpt was not looked up.

    Example
    -------
    >>> erratum_verdict(printed_holds=False, corrected_holds=True).value
    'erratum'
    """
    printed = _check_bool(printed_holds, "printed_holds")
    corrected = _check_bool(corrected_holds, "corrected_holds")
    if found_in_seed is not None and not _check_bool(found_in_seed, "found_in_seed"):
        return Verdict.INCONCLUSIVE
    if not corrected:
        return Verdict.REFUTED
    return Verdict.HOLDS if printed else Verdict.ERRATUM


def erratum_outcome(*, printed_holds: bool, corrected_holds: bool, evidence: Mapping[str, Any],
                    why: str = "", found_in_seed: bool | None = None,
                    summaries: Mapping[Verdict, str] | None = None) -> Outcome:
    """An erratum claim's :class:`~dpverify.claims.Outcome`: the verdict and its one-sentence summary.

    ``why`` explains the erratum (the summary of an ``erratum`` verdict); ``summaries`` may
    replace the default summary of the other verdicts.  ``evidence`` is copied, never mutated.

    Example
    -------
    >>> out = erratum_outcome(printed_holds=False, corrected_holds=True, evidence={"k": 1}, why="off by one")
    >>> out.verdict.value, out.summary, dict(out.evidence)
    ('erratum', 'off by one', {'k': 1})
    """
    if not isinstance(evidence, Mapping):
        raise TypeError(f"evidence must be a mapping, got {type(evidence).__name__}")
    if not isinstance(why, str):
        raise TypeError(f"why must be a string, got {type(why).__name__}")
    v = erratum_verdict(printed_holds=printed_holds, corrected_holds=corrected_holds, found_in_seed=found_in_seed)
    texts = {**SUMMARIES, Verdict.ERRATUM: why, **(summaries or {})}
    return Outcome(v, dict(evidence), summary=texts[v])
