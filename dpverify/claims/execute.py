"""The outcomes the engine writes: a check's outcome with its route, or turned into an ``error``.

Shared by :func:`dpverify.claims.runner.run_claim` and :mod:`dpverify.claims.supervisor`.
"""

from __future__ import annotations

from typing import Iterable

from dpverify.claims.model import Claim, Outcome, Verdict

__all__ = ["as_error", "with_route"]


def as_error(outcome: Outcome, why: str) -> Outcome:
    """The outcome turned into an ``error`` saying ``why`` (its verdict kept as ``returned_verdict``)."""
    return Outcome(Verdict.ERROR, {**dict(outcome.evidence), "error": why, "returned_verdict": outcome.verdict.value},
                   outcome.figure_data, summary=why, route=outcome.route)


def with_route(c: Claim, outcome: Outcome, sampled: Iterable[str] = ()) -> Outcome:
    """The outcome with the evidence keys ``route`` (and ``sampling_ran`` when the check sampled).

    Parameters
    ----------
    c : Claim
        The claim whose method is the route when the outcome names none.
    outcome : Outcome
        The check's outcome.
    sampled : iterable of str
        What the check sampled (:func:`~dpverify.claims.model.sampling_notes`).
    """
    route = outcome.route or c.method
    ev = dict(outcome.evidence)
    ev["route"] = route.value
    if sampled:
        ev["sampling_ran"] = ", ".join(sorted(sampled))
    return Outcome(outcome.verdict, ev, outcome.figure_data, outcome.summary, route)
