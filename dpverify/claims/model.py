"""The data model of a claim: what the paper says, how it is checked, what came out."""

from __future__ import annotations

import contextlib
import contextvars
import math
import numbers
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Callable, Iterable, Iterator

import numpy as np

from dpverify.claims.checks import check_instance, check_text, shown
from dpverify.rooms import room_of
from dpverify.validation import check_real


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
    if (isinstance(seconds, (bool, np.bool_)) or not isinstance(seconds, numbers.Real) or math.isnan(seconds)
            or not seconds > 0 or math.isinf(seconds)):
        raise ValueError(f"{name} must be a finite number of seconds > 0, got {shown(seconds)}")
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
    """How a claim is checked, and the *route* by which a check reached its verdict.

    ``simulation`` and ``audit`` are the sampling routes (:data:`SAMPLING`): their verdicts
    rest on random draws, with a stated false-alarm rate.  The others are exact routes: a
    claim labelled with one of them may not return a verdict that rests on sampling (the
    engine turns such a result into an ``error``).
    """

    SYMBOLIC = "symbolic"
    SOLVER = "solver cross-check"
    PROPERTY = "property"
    SIMULATION = "simulation"
    AUDIT = "audit"
    EXACT = "exact computation"


#: The routes whose verdicts rest on sampling.
SAMPLING = frozenset({Method.SIMULATION, Method.AUDIT})

#: The only verdicts an audit (a statistical lower bound) can reach: finding no
#: violation proves nothing, so an audit never concludes ``holds`` or ``erratum``.
AUDIT_VERDICTS = frozenset({Verdict.REFUTED, Verdict.INCONCLUSIVE})

_SAMPLING_NOTES: contextvars.ContextVar[tuple[set, list] | None] = contextvars.ContextVar(
    "dpverify_sampling_notes", default=None)  # (the kinds noted, [calls noted]) of the innermost collection
_SAMPLING_LOCK = threading.Lock()
_SAMPLING_CALLS = [0]  # note_sampling calls in every thread of this process (under the lock)

#: What :func:`sampling_notes` records when sampling was noted outside its context (another thread).
OTHER_THREAD = "audit or simulation (seen in another thread)"


def note_sampling(kind: str) -> None:
    """Tell the claims engine that sampling-based inference ran (``"simulation"`` or ``"audit"``).

    Called by :func:`dpverify.toolkit.simulate_against` and the auditor's entry points (``audit``,
    ``epsilon_lower_bound``, ``audit_delta_curve``, the Rényi/zCDP audits).  Outside a claim's
    check it only counts; inside, the engine records it in the result's evidence
    (``sampling_ran``) and requires a claim labelled with an exact method that sampled to say by
    which route its verdict was reached (:attr:`Outcome.route`).

    A thread does not inherit the context of the check that started it, so every call also
    increments a process-wide counter (under a lock): :func:`sampling_notes` compares it before
    and after the check and records :data:`OTHER_THREAD` when calls were made outside its
    context.  A process the check forks (or spawns) counts in its own memory: sampling there
    stays undetected.

    Example
    -------
    >>> with sampling_notes() as notes:
    ...     note_sampling("simulation")
    >>> sorted(notes)
    ['simulation']
    """
    if kind not in ("simulation", "audit"):
        raise ValueError(f"kind must be 'simulation' or 'audit', got {kind!r}")
    with _SAMPLING_LOCK:
        _SAMPLING_CALLS[0] += 1
        mine = _SAMPLING_NOTES.get()
        if mine is not None:
            mine[0].add(kind)
            mine[1][0] += 1


@contextlib.contextmanager
def sampling_notes() -> Iterator[set]:
    """Collect the :func:`note_sampling` calls made inside the ``with`` block (the engine wraps each check).

    Calls made meanwhile in another thread of the process (which does not see this context) add
    :data:`OTHER_THREAD`; calls in a nested collection are passed on to the enclosing one.  Only
    one collection should run at a time per process (the engine runs one claim at a time in
    process, and one claim per worker process): otherwise each sees the others' calls.

    Example
    -------
    >>> import threading
    >>> with sampling_notes() as notes:
    ...     t = threading.Thread(target=note_sampling, args=("audit",)); t.start(); t.join()
    >>> sorted(notes)
    ['audit or simulation (seen in another thread)']
    """
    notes: set = set()
    calls = [0]
    outer = _SAMPLING_NOTES.get()
    with _SAMPLING_LOCK:
        start = _SAMPLING_CALLS[0]
    token = _SAMPLING_NOTES.set((notes, calls))
    try:
        yield notes
    finally:
        _SAMPLING_NOTES.reset(token)
        with _SAMPLING_LOCK:
            if _SAMPLING_CALLS[0] - start > calls[0]:
                notes.add(OTHER_THREAD)
            if outer is not None:  # the enclosing collection saw these calls happen: they are its own
                outer[0].update(notes)
                outer[1][0] += _SAMPLING_CALLS[0] - start


@dataclass(frozen=True)
class Source:
    """Where a statement comes from: the paper, its section, its equation (or algorithm, figure).

    ``paper`` names the paper: the key a room declares for it (``"003"``; the report shows its
    title, authors and venue), :data:`SELF_TEST` for a claim about dpverify itself, or any text
    for a paper of your own (``"Balle & Wang, ICML 2018"``).  The fields may also be given by
    position.

    Example
    -------
    >>> s = Source(paper="Balle & Wang, ICML 2018", section="§3", equation="Thm 8")
    >>> str(s), s == Source("Balle & Wang, ICML 2018", "§3", "Thm 8")
    ('Balle & Wang, ICML 2018, §3, Thm 8', True)
    """

    paper: str
    section: str = ""
    equation: str = ""

    def __post_init__(self) -> None:
        for name in ("paper", "section", "equation"):
            check_text(getattr(self, name), name)

    @property
    def seed(self) -> str:
        """The former name of :attr:`paper` (kept so that code written against it still reads it)."""
        return self.paper

    def __str__(self) -> str:
        parts = [self.paper]
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
    did (the report shows it beside every finding).  ``route`` says how the
    verdict was reached (a :class:`Method`; by default the claim's method): a
    check that also samples, e.g. as a cross-check, names the route its verdict
    rests on.  The engine records it as the evidence key ``route``.
    """

    verdict: Verdict
    evidence: Mapping[str, Any] = field(default_factory=dict)
    figure_data: Mapping[str, Any] | None = None
    summary: str = ""
    route: Method | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.verdict, Verdict):
            object.__setattr__(self, "verdict", Verdict(self.verdict))
        check_instance(self.evidence, Mapping, "evidence")
        check_text(self.summary, "summary")
        if self.route is not None and not isinstance(self.route, Method):
            try:
                object.__setattr__(self, "route", Method(self.route))
            except ValueError:
                raise ValueError(f"route must be one of {[m.value for m in Method]}, got {self.route!r}") from None


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
    return check_text(claim_id, "claim_id").split(".", 1)[0]


def room_name_of(claim_id: str) -> str:
    """The name of the room that holds a claim id (:func:`dpverify.rooms.room_of`), else its namespace.

    Example
    -------
    >>> room_name_of("audit.tightness_laplace"), room_name_of("rr.model2.optimum"), room_name_of("zzmine.x")
    ('selftest', 'rr', 'zzmine')
    """
    r = room_of(check_text(claim_id, "claim_id"))
    return namespace_of(claim_id) if r is None else r.name


@dataclass(frozen=True)
class Result:
    """A claim after its check ran."""

    claim: Claim
    outcome: Outcome
    seconds: float
    error: str | None = None

    def __post_init__(self) -> None:
        check_instance(self.claim, Claim, "claim")
        check_instance(self.outcome, Outcome, "outcome")
        object.__setattr__(self, "seconds", check_real(self.seconds, "seconds", nonneg=True))
        if self.error is not None:
            check_text(self.error, "error")

    @property
    def verdict(self) -> Verdict:
        return self.outcome.verdict

    @property
    def as_expected(self) -> bool:
        """True when the check concluded, and concluded what the claim expects.

        An ``error`` (the check raised or timed out) is never as expected.
        """
        return self.outcome.verdict is not Verdict.ERROR and self.outcome.verdict == self.claim.expected


def label_error(c: Claim, outcome: Outcome, sampled: Iterable[str] = ()) -> str | None:
    """Why a concluded outcome contradicts its claim's label, or None (the engine makes it an ``error``).

    - an audit concludes only ``refuted`` or ``inconclusive`` (:data:`AUDIT_VERDICTS`);
    - a claim labelled with an exact method may not conclude by a sampling route (:data:`SAMPLING`);
    - a check of such a claim that sampled (``sampled``: what :func:`note_sampling` recorded) must
      name the route its verdict rests on (:attr:`Outcome.route`);
    - the evidence key ``route`` is the engine's: a check may not set it to another route.

    Example
    -------
    >>> c = Claim("demo.x", Source("none"), "x", Method.EXACT, Verdict.HOLDS, lambda thorough=False: None)
    >>> label_error(c, Outcome(Verdict.HOLDS, route="audit"))  # doctest: +ELLIPSIS
    "the claim demo.x is labelled 'exact computation', but its check says its verdict 'holds' rests on 'audit' ..."
    >>> label_error(c, Outcome(Verdict.HOLDS)) is None
    True
    """
    if not isinstance(c, Claim):
        raise TypeError(f"c must be a Claim, got {type(c).__name__}")
    if not isinstance(outcome, Outcome):
        raise TypeError(f"outcome must be an Outcome, got {type(outcome).__name__}")
    try:
        kinds = sorted(sampled) if not isinstance(sampled, (str, bytes)) else None
    except TypeError:
        kinds = None
    if kinds is None or not all(isinstance(k, str) for k in kinds):
        raise TypeError(f"sampled must be an iterable of strings ('simulation', 'audit'), got {sampled!r}")
    route = outcome.route or c.method
    if c.method is Method.AUDIT and outcome.verdict not in AUDIT_VERDICTS:
        return (f"an audit can only conclude 'refuted' or 'inconclusive' (finding no violation proves nothing), "
                f"but the check of {c.id} returned {outcome.verdict.value!r}")
    if "route" in outcome.evidence and outcome.evidence["route"] != route.value:
        return (f"the evidence key 'route' is the engine's (the route of the verdict, {route.value!r}), but the "
                f"check of {c.id} set it to {outcome.evidence['route']!r}")
    if c.method in SAMPLING:
        return None
    if route in SAMPLING:
        return (f"the claim {c.id} is labelled {c.method.value!r}, but its check says its verdict "
                f"{outcome.verdict.value!r} rests on {route.value!r} (sampling): label the claim "
                f"'{route.value}', or reach the verdict by an exact route")
    if kinds and outcome.route is None:
        return (f"the claim {c.id} is labelled {c.method.value!r}, but its check ran sampling "
                f"({', '.join(kinds)}) without saying what its verdict rests on: return "
                f"Outcome(..., route=...) naming the route, or label the claim by its sampling method")
    return None
