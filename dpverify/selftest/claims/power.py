"""The auditor's power and tightness on the Laplace mechanism.

Ids ``audit.power`` (a Laplace mechanism with 15 % too little noise is refuted in ≥ 90 % of
seeded audits) and ``audit.tightness_laplace`` / ``audit.tightness_laplace_eps0.1`` (ε_lb close to
the true ε at the issue's sample sizes).  All read the auditor through
:func:`dpverify.audit.epsilon_lower_bound`, so a blind auditor refutes them.
"""

from __future__ import annotations

import numpy as np

from dpverify.audit import epsilon_lower_bound
from dpverify.audit.controls import LaplaceMechanism
from dpverify.claims import Outcome, Verdict, claim
from dpverify.selftest.audits import LAP


@claim("audit.power", source=LAP, method="simulation", expected="holds",
       statement="At confidence 1 − 1e-6 the auditor refutes a Laplace mechanism whose noise is 15 % too small "
                 "(ε = 1) in at least 90 % of seeded audits with 60 000 samples per input",
       proof="audit/auditor_validity.md")
def _power(thorough: bool = False) -> Outcome:
    runs = 100 if thorough else 20
    mech = LaplaceMechanism(1.0, scale_factor=0.85)
    hits = [epsilon_lower_bound(mech, 0.0, 1.0, samples=60_000, confidence=1 - 1e-6, rng=500 + s).refutes(1.0)
            for s in range(runs)]
    rate = float(np.mean(hits))
    return Outcome(Verdict.HOLDS if rate >= 0.9 else Verdict.REFUTED,
                   {"refuted_fraction": rate, "audits": runs, "true_epsilon": 1 / 0.85, "seeds": f"500..{499 + runs}"})


@claim("audit.tightness_laplace", source=LAP, method="simulation", expected="holds",
       statement="Laplace mechanism ε = 1: ε_lb ≥ 0.98 at 99 % confidence from 10^6 samples per input "
                 "(the target; seed 0, seeds 0–4 with --thorough)",
       proof="audit/auditor_validity.md")
def _tightness(thorough: bool = False) -> Outcome:
    seeds = range(5) if thorough else range(1)
    vals = [epsilon_lower_bound(LaplaceMechanism(1.0), 0.0, 1.0, samples=10**6, rng=s).epsilon for s in seeds]
    ok = min(vals) >= 0.98 and max(vals) <= 1.0
    return Outcome(Verdict.HOLDS if ok else Verdict.REFUTED, {"eps_lb": vals, "seeds": list(seeds), "target": 0.98})


@claim("audit.tightness_laplace_eps0.1", source=LAP, method="simulation", expected="holds",
       statement="Laplace mechanism ε = 0.1: ε_lb ≥ 0.098 at 99 % confidence from 10^7 samples per input "
                 "(the target; best published black-box bound 0.0968), with selection_fraction = 0.2; "
                 "seed 0 by default, the median of seeds 0–4 with --thorough",
       proof="audit/auditor_validity.md")
def _tightness01(thorough: bool = False) -> Outcome:
    seeds = range(5) if thorough else range(1)
    vals = [epsilon_lower_bound(LaplaceMechanism(0.1), 0.0, 1.0, samples=10**7, rng=s,
                                selection_fraction=0.2).epsilon for s in seeds]
    ok = float(np.median(vals)) >= 0.098 and max(vals) <= 0.1
    return Outcome(Verdict.HOLDS if ok else Verdict.REFUTED,
                   {"eps_lb": vals, "seeds": list(seeds), "target": 0.098, "met": sum(v >= 0.098 for v in vals),
                    "best_published": 0.0968, "selection_fraction": 0.2})
