"""The catalogue, proved for every ε where it can be: which families are proved exactly, which fall back to points.

:func:`prove_catalogue` walks :func:`dpverify.mechanisms.catalogue` (one default mechanism per family).
A family whose mechanism carries ``symbolic_law`` is decided for every ε > 0 by
:func:`dpverify.exact.prove_mechanism` (a proof, an exact counterexample or ``unknown`` with the
reason), on the neighbouring pairs its relation lists (the proof covers those pairs, at every ε; it is
a proof over the whole relation where the listed pairs are its worst case, as for k-RR's all pairs). Every other family falls back to points (the exact check of a numeric law at drawn ε, or the
statistical audit), and the row says why it has no symbolic law, from what the mechanism gives:

- a finite law known only numerically (``law`` without ``symbolic_law``);
- outputs that are real numbers (continuous noise: no finite law at all);
- integer or vector outputs with no exact law attached (unbounded integer noise, or a finite output
  whose probabilities are not rational in e^{ε/L}, such as the argmax of Laplace noise).

The output kind is read from two draws at the mechanism's first candidate input.
``dpverify prove --catalogue`` prints the same table.

Example
-------
>>> s = prove_catalogue(names=["primitives.randomized_response", "primitives.laplace_mechanism"])
>>> [(r.family, r.status) for r in s.rows]
[('primitives.randomized_response', 'proved'), ('primitives.laplace_mechanism', 'points')]
>>> s.rows[1].reason
'real-valued outputs (continuous noise): no finite law'
"""

from __future__ import annotations

import time
import warnings
from dataclasses import dataclass

import numpy as np

__all__ = ["CatalogueProofs", "FamilyProof", "prove_catalogue"]

#: a row's status: proved for every ε > 0, refuted, unknown (the proof did not settle), or points (no symbolic law)
STATUSES = ("proved", "refuted", "unknown", "points")


@dataclass(frozen=True)
class FamilyProof:
    """One family of the catalogue: its default mechanism's status, the reason, and the seconds it took."""

    family: str
    mechanism: str
    status: str
    reason: str
    seconds: float

    def to_dict(self) -> dict:
        return {"family": self.family, "mechanism": self.mechanism, "status": self.status, "reason": self.reason,
                "seconds": round(self.seconds, 3)}


@dataclass(frozen=True)
class CatalogueProofs:
    """The rows of :func:`prove_catalogue`, with the counts a user reads first (:meth:`summary`)."""

    rows: tuple

    def with_status(self, status: str) -> tuple:
        if status not in STATUSES:
            raise ValueError(f"status must be one of {STATUSES}, got {status!r}")
        return tuple(r for r in self.rows if r.status == status)

    def summary(self) -> str:
        """One line: how many families are proved for all ε > 0 and how many fall back to points.

        Example
        -------
        >>> prove_catalogue(names=["audit.mechanisms.KRR"]).summary()
        'catalogue: 1 family; 1 proved for all ε > 0 on their listed pairs; 0 fall back to points'
        """
        n = {s: len(self.with_status(s)) for s in STATUSES}
        extra = "".join(f"; {n[s]} {s}" for s in ("refuted", "unknown") if n[s])
        fams = "family" if len(self.rows) == 1 else "families"
        return (f"catalogue: {len(self.rows)} {fams}; {n['proved']} proved for all ε > 0 on their listed pairs{extra}; "
                f"{n['points']} fall back to points")

    def lines(self) -> list[str]:
        """The summary, then one line per family: status, family, reason."""
        width = max((len(r.family) for r in self.rows), default=0)
        return [self.summary()] + [f"  {r.status:<8} {r.family:<{width}}  {r.reason}" for r in self.rows]

    def to_dict(self) -> dict:
        return {"summary": self.summary(), "rows": [r.to_dict() for r in self.rows]}


def _output_kind(m, rng: np.random.Generator) -> str:
    """Why ``m`` has no finite law, from two draws at its first candidate input."""
    from dpverify.mechanisms import checked_sample

    pairs = m.relation.candidates(rng)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # the continual releases' float-noise warnings
        out = np.asarray(checked_sample(m, pairs[0][0], rng, 2))
    if out.dtype.kind == "f" and not np.all(out == np.round(out)):
        return "real-valued outputs (continuous noise): no finite law"
    shape = "vector" if out.ndim > 1 else "integer"
    return f"{shape} outputs with no exact law attached (unbounded noise, or probabilities not rational in e^(ε/L))"


def _row(name: str, m, rng: np.random.Generator) -> FamilyProof:
    from dpverify.exact.mechanism import prove_mechanism

    t0 = time.process_time()
    if hasattr(m, "symbolic_law"):
        r = prove_mechanism(m, rng=rng)
        status, reason = r.verdict, r.reason
    elif hasattr(m, "law"):
        status, reason = "points", "a finite law known only numerically (no symbolic_law): exact at each ε drawn"
    else:
        status, reason = "points", _output_kind(m, rng)
    return FamilyProof(name, m.name, status, reason, time.process_time() - t0)


def prove_catalogue(*, names=None, rng: np.random.Generator | None = None) -> CatalogueProofs:
    """Prove every catalogue family with a symbolic law for all ε > 0; say why each other one falls back to points.

    Parameters
    ----------
    names : iterable of str, optional
        Family names to walk (default: the whole catalogue, in its order); a repeated name is walked once.
    rng : numpy.random.Generator, optional
        For the proofs' spot checks and the two draws that classify the outputs (default ``default_rng(0)``).

    Returns
    -------
    CatalogueProofs
        One :class:`FamilyProof` per family (CPU seconds each); :meth:`CatalogueProofs.summary` gives the counts.

    Example
    -------
    >>> prove_catalogue(names=["rr.optimal_mechanism"]).rows[0].status
    'proved'
    """
    from dpverify.mechanisms import catalogue
    from dpverify.progress import progress

    if rng is not None and not isinstance(rng, np.random.Generator):
        raise TypeError(f"rng must be a numpy.random.Generator, got {type(rng).__name__}")
    rng = np.random.default_rng(0) if rng is None else rng
    cat = catalogue()
    if names is None:
        names = cat.names()
    elif isinstance(names, (str, bytes)) or not hasattr(names, "__iter__"):
        raise TypeError(f"names must be an iterable of family names, got {names!r:.80}")
    names = list(names)
    names = list(dict.fromkeys(names)) if all(isinstance(n, str) for n in names) else names  # each family once
    unknown = [n for n in names if not isinstance(n, str) or n not in cat.families]
    if unknown:
        raise ValueError(f"names must be catalogue families, got {unknown[0]!r:.80}")
    rows = []
    with progress("prove catalogue", total=len(names), unit="families") as tick:
        for name in names:
            rows.append(_row(name, cat[name], rng))
            tick(note=name)
    return CatalogueProofs(tuple(rows))
