"""The data model of a claim: what the paper says, how it is checked, what came out."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Callable, Mapping

from dpverify.rooms import room_of


def check_timeout(seconds: Any, name: str = "timeout") -> float:
    """A time limit: a finite number of seconds > 0 (the one check of every timeout of the engine).

    Example
    -------
    >>> check_timeout(2)
    2.0
    >>> check_timeout(float("nan"))
    Traceback (most recent call last):
    ...
    ValueError: timeout must be a finite number of seconds > 0, got nan
    """
    if (isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or math.isnan(seconds)
            or not seconds > 0 or math.isinf(seconds)):
        raise ValueError(f"{name} must be a finite number of seconds > 0, got {seconds!r}")
    return float(seconds)


class Verdict(str, Enum):
    """What a check concluded about a statement as printed.

    ``holds``: the statement is true as printed.  ``erratum``: as printed it is
    wrong, and the corrected statement (given in the evidence) holds.
    ``refuted``: false, with a counterexample.  ``inconclusive``: the evidence
    decides neither way (e.g. an audit that found no violation).  ``error``:
    the check itself raised or ran out of time; it concluded nothing, it is
    never the expected verdict of a claim and it always fails a run.
    """

    HOLDS = "holds"
    ERRATUM = "erratum"
    REFUTED = "refuted"
    INCONCLUSIVE = "inconclusive"
    ERROR = "error"


#: The source of a claim about dpverify itself (planted-bug controls, the
#: auditor's tightness, the library's own mechanisms): never a paper's finding.
SELF_TEST = "dpverify self-test"


class Method(str, Enum):
    """How a claim is checked."""

    SYMBOLIC = "symbolic"
    SOLVER = "solver cross-check"
    PROPERTY = "property"
    SIMULATION = "simulation"
    AUDIT = "audit"
    EXACT = "exact computation"


@dataclass(frozen=True)
class Source:
    """Where a statement comes from: seed file, section, equation/algorithm/figure."""

    seed: str
    section: str = ""
    equation: str = ""

    def __str__(self) -> str:
        parts = [self.seed]
        if self.section:
            parts.append(self.section)
        if self.equation:
            parts.append(self.equation)
        return ", ".join(parts)


@dataclass(frozen=True)
class Outcome:
    """What a check returns: a verdict and the evidence for it.

    ``evidence`` maps short names to numbers, arrays, strings or sympy
    expressions; the engine converts it to JSON.  ``figure_data`` is optional
    plotting data consumed by the claim's ``figure`` function (reports).
    ``summary`` is one plain sentence saying why the verdict came out as it
    did (the report shows it beside every finding).
    """

    verdict: Verdict
    evidence: Mapping[str, Any] = field(default_factory=dict)
    figure_data: Mapping[str, Any] | None = None
    summary: str = ""

    def __post_init__(self) -> None:
        if not isinstance(self.verdict, Verdict):
            object.__setattr__(self, "verdict", Verdict(self.verdict))


CheckFn = Callable[..., Outcome]


@dataclass(frozen=True)
class Claim:
    """A registered statement of a paper with its machine check.

    ``check(thorough=False)`` returns an :class:`Outcome`.  With
    ``thorough=True`` it may run the long sweeps.  ``proof`` names the proof
    document, ``"<room>/<file>.md"`` (the file ``<room folder>/proofs/<file>.md``,
    found by :func:`dpverify.rooms.proof_path`), if any.  ``figure`` is an
    optional function ``figure(outcome) -> matplotlib.figure.Figure``.
    """

    id: str
    source: Source
    statement: str
    method: Method
    expected: Verdict
    check: CheckFn
    proof: str | None = None
    figure: Callable[[Outcome], Any] | None = None
    timeout: float = 300.0

    @property
    def namespace(self) -> str:
        """The id's prefix (``"audit"`` for ``"audit.tightness_laplace"``): what the registry reserves.

        Ids are stable, so a claim may keep its namespace when it moves to another room.
        """
        return namespace_of(self.id)

    @property
    def room(self) -> str:
        """The room that holds the claim (``"selftest"`` for ``"audit.tightness_laplace"``): the room whose
        namespaces hold the id's prefix (:func:`dpverify.rooms.room_of`), else the prefix itself
        (a claim from outside any room, e.g. a file given to ``dpverify verify``)."""
        return room_name_of(self.id)


def namespace_of(claim_id: str) -> str:
    """A claim id's namespace, its prefix before the first dot.

    Example
    -------
    >>> namespace_of("audit.tightness_laplace")
    'audit'
    """
    return claim_id.split(".", 1)[0]


def room_name_of(claim_id: str) -> str:
    """The name of the room that holds a claim id (:func:`dpverify.rooms.room_of`), else its namespace.

    Example
    -------
    >>> room_name_of("audit.tightness_laplace"), room_name_of("rr.model2.optimum"), room_name_of("zzmine.x")
    ('selftest', 'rr', 'zzmine')
    """
    r = room_of(claim_id)
    return namespace_of(claim_id) if r is None else r.name


@dataclass(frozen=True)
class Result:
    """A claim after its check ran."""

    claim: Claim
    outcome: Outcome
    seconds: float
    error: str | None = None

    @property
    def verdict(self) -> Verdict:
        return self.outcome.verdict

    @property
    def as_expected(self) -> bool:
        """True when the check concluded, and concluded what the claim expects.

        An ``error`` (the check raised or timed out) is never as expected.
        """
        return self.outcome.verdict is not Verdict.ERROR and self.outcome.verdict == self.claim.expected
