"""Exact words for what an audit tested: a set of integers, a union of intervals, an event, the
statistic it is defined through, and numbers as they are.

A set of values is listed in full, or described by runs that name every member ("an even integer from
-8 to 10"), or — when it has more than ``MAX_PARTS`` parts — counted, its members then being in the
event's machine form (:func:`event_form`); never an ellipsis.  Used by
:mod:`dpverify.audit.events` (an event's ``describe``), :mod:`dpverify.audit.report` and
:mod:`dpverify.audit.render`.

Example
-------
>>> values_words([-8, -6, -4, -2, 0, 2, 4, 6, 8, 10, 11])
'an even integer from -8 to 10, or 11'
>>> statistic_subject("identity")
'the released value'
"""

from __future__ import annotations

import math
from typing import Callable, Sequence

import numpy as np

from dpverify.validation import check_elements

__all__ = ["MAX_PARTS", "event_form", "event_words", "intervals_words", "number_text", "statistic_subject",
           "values_words"]

MAX_PARTS = 16  # values, runs or intervals named in one line; more are counted (the JSON lists them)

_CLASSIFIERS = {"logistic": "the logistic-regression classifier's score",
                "sparse logistic": "the sparse logistic-regression classifier's score",
                "boosting": "the gradient-boosted trees classifier's score"}
_FIXED = {"identity": "the released value",
          "log-likelihood ratio": "the log-likelihood ratio ln p_d(o) - ln p_d'(o) of the output o",
          "sum": "the sum of the released vector's entries (flag entries counted as 0)",
          "sign count": "how many released entries lie above their coordinate's median",
          "state counts": "the state-count code of the released vector (how many entries are low, high, or each "
                          "flag)",
          "float grid": "the float-grid code of the released value (1 when only the answer at D can produce it "
                        "as the answer plus a double noise value, 2 when only the answer at D' can, 3 when both, "
                        "0 when neither)",
          "float precision": "the float-precision code of the released double (its sign, binade and lowest set "
                             "bit; 0 is code -1, an infinity or NaN code -2)",
          "exact likelihood ratio": "the exact log-likelihood ratio ln P[M(D) = o] - ln P[M(D') = o] of the output "
                                    "o, from the mechanism's stated output law"}


def number_text(number: float) -> str:
    """A finite number exactly as it is: the shortest text that reads back to the same float, integral
    values without a decimal point.

    >>> number_text(3.0), number_text(0.1), number_text(-2), number_text(0.029100713336106858)
    ('3', '0.1', '-2', '0.029100713336106858')
    >>> number_text(float("nan"))
    Traceback (most recent call last):
    ...
    ValueError: number must be a finite real number, got nan
    """
    if isinstance(number, (bool, np.bool_)) or not isinstance(number, (int, float, np.integer, np.floating)):
        raise TypeError(f"number must be a real number, got {type(number).__name__} {number!r}")
    if isinstance(number, (int, np.integer)):
        return str(int(number))
    f = float(number)
    if not math.isfinite(f):
        raise ValueError(f"number must be a finite real number, got {number!r}")
    if f == int(f) and abs(f) < 2**53:
        return str(int(f))
    return repr(f)


def _runs(values: list[int]) -> list[tuple[int, int, int]]:
    """Sorted distinct integers as (start, stop, step) runs: arithmetic runs of ≥ 3 values, else single
    values (step 0)."""
    out, i, n = [], 0, len(values)
    while i < n:
        if i + 2 < n:
            step = values[i + 1] - values[i]
            j = i + 1
            while j + 1 < n and values[j + 1] - values[j] == step:
                j += 1
            if j - i >= 2:
                out.append((values[i], values[j], step))
                i = j + 1
                continue
        out.append((values[i], values[i], 0))
        i += 1
    return out


def _run_text(a: int, b: int, step: int, article: str) -> str:
    if step == 0:
        return str(a)
    if step == 1:
        return f"{article} integer from {a} to {b}"
    if step == 2:
        return f"{article} {'even' if a % 2 == 0 else 'odd'} integer from {a} to {b}"
    return f"{article} integer from {a} to {b} in steps of {step}"


def _join(parts: list[str], word: str) -> str:
    if len(parts) == 1:
        return parts[0]
    return ", ".join(parts[:-1]) + f"{',' if len(parts) > 2 or ' ' in parts[-2] else ''} {word} {parts[-1]}"


def _short(x) -> str:
    text = repr(x)
    return text if len(text) <= 80 else text[:77] + "..."


def _integers(values) -> list[int]:
    """``values`` as sorted distinct Python ints, checked."""
    if isinstance(values, (str, bytes, dict)) or not hasattr(values, "__iter__"):
        raise TypeError(f"values must be a collection of integers, got {type(values).__name__} {_short(values)}")
    if isinstance(values, np.ndarray):
        check_elements(values, "values")
    a = values if isinstance(values, np.ndarray) else np.asarray(list(values))
    if a.ndim != 1 or a.size == 0:
        raise ValueError(f"values must be a non-empty 1-d collection of integers, got {_short(values)}")
    if a.dtype.kind not in "iu":
        raise TypeError(f"values must hold integers, got {a.dtype} values {_short(values)}")
    return sorted(set(a.tolist()))


def values_words(values: Sequence[int], *, negate: bool = False) -> str:
    """A finite set of integers in exact words: every value, or runs that name every member; with more
    than ``MAX_PARTS`` parts, how many values there are.  ``negate``: words for "none of them".

    >>> values_words([3]), values_words([1, 4]), values_words([0, 1, 2, 3, 7])
    ('3', '1 or 4', 'an integer from 0 to 3, or 7')
    >>> values_words([1, 4], negate=True), values_words([1, 3, 5], negate=True)
    ('neither 1 nor 4', 'not an odd integer from 1 to 5')
    >>> values_words(range(0, 100, 3))
    'an integer from 0 to 99 in steps of 3'
    >>> values_words([])
    Traceback (most recent call last):
    ...
    ValueError: values must be a non-empty 1-d collection of integers, got []
    """
    vals = _integers(values)
    if not isinstance(negate, (bool, np.bool_)):
        raise TypeError(f"negate must be a bool, got {type(negate).__name__} {negate!r}")
    runs = _runs(vals)
    if len(runs) > MAX_PARTS:
        return f"{'none' if negate else 'one'} of {len(vals):,} values (listed in the event's machine form)"
    article = "any" if negate and len(runs) > 1 else "an"
    parts = [_run_text(a, b, s, article) for a, b, s in runs]
    if not negate:
        return _join(parts, "or")
    if len(parts) == 1:
        return f"not {parts[0]}"
    if len(parts) == 2 and all(" " not in p for p in parts):
        return f"neither {parts[0]} nor {parts[1]}"
    return "none of " + _join(parts, "or")


def _endpoint(x, intervals):
    if x is None:
        return None
    if isinstance(x, (bool, np.bool_)) or not isinstance(x, (int, float, np.integer, np.floating)) \
            or not math.isfinite(float(x)):
        raise ValueError(f"intervals must hold (lo, hi] pairs of finite numbers or None, got {_short(intervals)}")
    return float(x)


def intervals_words(intervals: Sequence[tuple]) -> str:
    """A union of intervals (lo, hi] in words (``None`` for an open end at ∓∞).

    >>> intervals_words([(None, 0.5)]), intervals_words([(None, -1.0), (2.0, None)])
    ('at most 0.5', 'at most -1, or above 2')
    >>> intervals_words([(0.25, 1.5)])
    'in (0.25, 1.5]'
    """
    if isinstance(intervals, (str, bytes, dict)) or not hasattr(intervals, "__iter__"):
        raise TypeError(f"intervals must be a sequence of (lo, hi] pairs, got {type(intervals).__name__} "
                        f"{_short(intervals)}")
    parts = []
    for iv in intervals:
        if not isinstance(iv, (list, tuple)) or len(iv) != 2:
            raise ValueError(f"intervals must hold (lo, hi] pairs, got {_short(iv)} in {_short(intervals)}")
        lo, hi = (_endpoint(x, intervals) for x in iv)
        if lo is not None and hi is not None and not lo < hi:
            raise ValueError(f"intervals must have lo < hi, got ({lo!r}, {hi!r}]")
        if lo is None and hi is None:
            parts.append("any value")
        elif lo is None:
            parts.append(f"at most {number_text(hi)}")
        elif hi is None:
            parts.append(f"above {number_text(lo)}")
        else:
            parts.append(f"in ({number_text(lo)}, {number_text(hi)}]")
    if not parts:
        raise ValueError("intervals must hold at least one interval, got none")
    if len(parts) > MAX_PARTS:
        return f"in one of {len(parts):,} intervals (listed in the event's machine form)"
    return _join(parts, "or")


def event_form(event) -> dict:
    """An event's set in machine form (:meth:`dpverify.audit.events.Event.to_json`): ``form`` is
    ``"at_most"``/``"above"`` (``threshold``: T ≤ t, T > t), ``"one_of"``/``"none_of"`` (``values``: T is
    one of them / any value but them — values never seen when the event was chosen are in a
    ``none_of`` set), ``"intervals"`` (``intervals``: T lies in one of the (lo, hi], ``None`` for ∓∞),
    ``"everything"`` or ``"nothing"``; ``description`` is the event's own text.

    >>> from dpverify.audit.events import Binner, make_event
    >>> b = Binner(np.linspace(0.0, 1.0, 11))
    >>> event_form(make_event("bins", np.arange(b.nbins) % 5 == 0, b))["intervals"]
    [[None, 0.0], [0.4, 0.5], [0.9, 1.0]]
    """
    if not isinstance(getattr(event, "kind", None), str) or not hasattr(event, "mask") or not hasattr(event, "edges"):
        raise TypeError(f"event must be a dpverify.audit.events.Event, got {type(event).__name__}")
    out: dict = {"form": ""}
    if event.kind in ("le", "gt"):
        out.update(form="at_most" if event.kind == "le" else "above", threshold=float(event.threshold))
        return {**out, "description": event.description}
    edges = np.asarray(event.edges)
    mask = np.zeros(len(edges) + 1, bool)
    mask[: len(event.mask)] = np.asarray(event.mask, bool)[: len(mask)]
    if mask.all() or not mask.any():
        out["form"] = "everything" if mask.all() else "nothing"
    elif event.discrete:
        inside = mask[-1]  # the bin of values unseen in selection: then S is the complement of the rest
        vals = edges[~mask[:-1]] if inside else edges[mask[:-1]]
        out.update(form="none_of" if inside else "one_of", values=[int(v) for v in vals])
    else:
        cuts = np.flatnonzero(np.diff(np.concatenate([[0], mask.astype(np.int8), [0]])))
        out.update(form="intervals", intervals=[
            [None if a == 0 else float(edges[a - 1]), None if b == len(mask) else float(edges[b - 1])]
            for a, b in zip(cuts[::2], cuts[1::2])])
    return {**out, "description": event.description}


def event_words(event, subject: str = "T") -> str:
    """The set ``event`` stands for, in words about ``subject`` (what the statistic T is).

    Reads the event's machine form (:meth:`~dpverify.audit.events.Event.to_json`), so the words say
    exactly which values are in the set.

    >>> from dpverify.audit.events import Binner, make_event
    >>> import numpy as np
    >>> b = Binner(np.array([0, 1, 2, 3, 5]))
    >>> event_words(make_event("le", np.array([True, True, False, False, False, False]), b), "the count")
    'the count is 0 or 1'
    >>> event_words(make_event("gt", np.array([False, False, True, True, True, True]), b), "the count")
    'the count is neither 0 nor 1'
    """
    if not isinstance(subject, str):
        raise TypeError(f"subject must be a string, got {type(subject).__name__} {subject!r}")
    form = event_form(event)
    kind = form["form"]
    if kind == "everything":
        return f"any output (every value of {subject})"
    if kind == "nothing":
        return "no output (the empty event)"
    if kind == "at_most":
        return f"{subject} is at most {number_text(form['threshold'])}"
    if kind == "above":
        return f"{subject} is above {number_text(form['threshold'])}"
    if kind in ("one_of", "none_of"):
        return f"{subject} is {values_words(form['values'], negate=kind == 'none_of')}"
    return f"{subject} is {intervals_words(form['intervals'])}"


def statistic_subject(name: str, statistic: Callable | None = None) -> str:
    """What the statistic T of an audit is, in words (``name`` as the audit names it; ``statistic``
    the object, when known, for its parameters).

    >>> statistic_subject("logistic"), statistic_subject("coordinate 2")
    ("the logistic-regression classifier's score", 'coordinate 2 of the released vector')
    >>> from dpverify.audit.events import PatternCode
    >>> statistic_subject("pattern", PatternCode(0, 1))
    'the pattern code of the released vector (its entries minus 0 read as base-2 digits; a fixed 63-bit hash when the codes would not fit)'
    """
    if not isinstance(name, str):
        raise TypeError(f"name must be a string, got {type(name).__name__} {name!r}")
    if statistic is not None and not callable(statistic):
        raise TypeError(f"statistic must be a callable statistic or None, got {type(statistic).__name__} {statistic!r}")
    if name in _FIXED:
        return _FIXED[name]
    if name in _CLASSIFIERS:
        return _CLASSIFIERS[name]
    if name == "pattern":
        low, high = getattr(statistic, "low", None), getattr(statistic, "high", None)
        if low is None or high is None:
            return "the pattern code of the released vector"
        return (f"the pattern code of the released vector (its entries minus {low} read as base-{high - low + 1} "
                "digits; a fixed 63-bit hash when the codes would not fit)")
    if name == "offgrid":
        e = getattr(statistic, "exponent", None)
        grid = f"2^{e}" if e is not None else "the grid"
        return f"the off-grid flag (1 when the released value is not a multiple of {grid}, else 0)"
    if name.startswith("coordinate "):
        j, _, rest = name[len("coordinate "):].partition(",")
        return f"coordinate {j} of the released vector" + (" (flag values ranked above every value)" if rest else "")
    return f"the statistic {name} of the output"
