"""The installed OpenDP's noisy max against its own stated zCDP budget: the sweep's finding, as a check.

The issue's bug class is a privacy map that states the budget of a different mechanism than the one the
code samples.  OpenDP's ``make_noisy_max`` samples Gumbel noise under zero-concentrated divergence (the
exponential mechanism, ρ = (2Δ/scale)²/8) and exponential noise under max divergence (report noisy max,
ε = 2Δ/scale, whose ρ is larger: 0.83 at scale 1 on the scores checked, against 0.5).

- the zCDP measurement at scale 1 is consistent with its own ρ = 0.5 (``inconclusive``: a sampling check
  cannot prove; the sample fits the Gumbel law, whose exact ρ on the pairs checked is below 0.5);
- the exponential-noise sampler stated with the zCDP measurement's map (ρ = 0.5) is refuted: the bug class,
  planted from OpenDP's own parts.

These are not registered claims of the self-test room: OpenDP is an optional dependency, so
``dpverify verify`` on a base install could not run them, and OpenDP's samplers cannot be seeded, so
their evidence could not be kept under the baseline gate.  ``tests/conform/test_sweep_claims.py``
runs both (marked slow) and shows each verdict flips when the sampler is swapped.

Both read the installed OpenDP (its release is in the evidence; measured on 0.16.0, and by the sweep on
0.12.1, 0.14.2 and 0.15.1, none refuted).  OpenDP cannot be seeded: each check is at level
:data:`ALPHA`, and the planted bug's bound (10^4 draws per input) was above 0.62 in 30 of 30 runs.
The bounds' validity is ``conform/finite_bounds.md``.
"""

from __future__ import annotations

import numpy as np

from dpverify.claims import SELF_TEST, Outcome, Source, Verdict
from dpverify.validation import check_nonneg_int, check_positive_int

__all__ = ["ALPHA", "SAMPLES", "conform_outcome"]

CONFORM = Source(SELF_TEST, "conform, OpenDP", "make_noisy_max's stated zCDP budget against its draws")
ALPHA = 1e-3  # the level of each check: a correct measurement is refuted with probability at most 1e-3
SAMPLES = 10_000  # draws per input (three inputs); 10^5 when thorough
#: which output measure each claim's sampler is built for (the mutation tests change them)
SAMPLED = {"consistent": "zero_concentrated_divergence", "planted": "max_divergence"}


def conform_outcome(*, sampled: str, stated: str, samples: int, seed: int = 0) -> Outcome:
    """The :class:`~dpverify.claims.Outcome` of OpenDP's noisy max (scale 1) drawn as built for ``sampled``
    and claimed with the map of ``stated`` (:func:`dpverify.conform.opendp_sweep.noisy_max_case`).

    Example
    -------
    >>> out = conform_outcome(sampled="zero_concentrated_divergence", stated="zero_concentrated_divergence",
    ...                       samples=2_000)
    >>> out.evidence["claim"]
    'ρ = 0.5'
    """
    from dpverify.conform.opendp_sweep import noisy_max_case
    from dpverify.conform.rows import check

    samples = check_positive_int(samples, "samples", maximum=10**7)
    seed = check_nonneg_int(seed, "seed")
    row = check(noisy_max_case(sampled=sampled, stated=stated), samples=samples, alpha=ALPHA,
                rng=np.random.default_rng(seed))
    if row.verdict == "error":
        raise RuntimeError(f"the noisy max case could not be checked: {row.detail}")
    verdict = Verdict.REFUTED if row.verdict == "refuted" else Verdict.INCONCLUSIVE
    evidence = {"library": row.library, "claim": row.claim, "measure": row.measure, "rho_lower_bound": row.bound,
                "law_fitted": row.law or "none", "exact_rho_of_fitted_law": row.exact, "where": row.detail,
                "draws_per_input": samples, "alpha": ALPHA, "sampled_as": sampled, "map_of": stated}
    said = (f"ρ ≥ {row.bound:.3f} with probability ≥ {1 - ALPHA:g} against the stated {row.claim}"
            if row.verdict == "refuted" else
            f"the lower bound {row.bound:.3f} stays below the stated {row.claim}")
    return Outcome(verdict, evidence, summary=f"{row.library}: {said}; the sample fits {row.law or 'no closed form'}.")
