"""The installed OpenDP's noisy max against its own stated zCDP budget (ids ``conform.opendp.*``).

The issue's bug class is a privacy map that states the budget of a different mechanism than the one the
code samples.  OpenDP's ``make_noisy_max`` samples Gumbel noise under zero-concentrated divergence (the
exponential mechanism, ρ = (2Δ/scale)²/8) and exponential noise under max divergence (report noisy max,
ε = 2Δ/scale, whose ρ is larger: 0.83 at scale 1 on the scores checked, against 0.5).

- ``conform.opendp.noisy_max_zcdp`` — the zCDP measurement at scale 1 is consistent with its own ρ = 0.5
  (expected ``inconclusive``: a sampling check cannot prove; the sample fits the Gumbel law, whose exact ρ on
  the pairs checked is below 0.5);
- ``conform.opendp.zcdp_map_of_another_sampler`` — the exponential-noise sampler stated with the zCDP
  measurement's map (ρ = 0.5) is refuted: the bug class, planted from OpenDP's own parts.

Both read the installed OpenDP (its release is in the evidence; measured on 0.16.0, and by the sweep on
0.12.1, 0.14.2 and 0.15.1, none refuted).  OpenDP cannot be seeded: each check is at level
:data:`ALPHA`, and the planted bug's bound (10^4 draws per input) was above 0.62 in 30 of 30 runs.
The bounds' validity is ``conform/finite_bounds.md``.
"""

from __future__ import annotations

import numpy as np

from dpverify.claims import SELF_TEST, Outcome, Source, Verdict, claim
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


@claim("conform.opendp.noisy_max_zcdp", source=CONFORM, method="audit", expected="inconclusive",
       proof="conform/finite_bounds.md",
       statement="OpenDP's make_noisy_max under ZeroConcentratedDivergence (installed release; scale 1, three "
                 "scores, L-infinity distance 1) satisfies the zCDP budget its own privacy map states, rho = 0.5")
def _noisy_max_zcdp(thorough: bool = False) -> Outcome:
    return conform_outcome(sampled=SAMPLED["consistent"], stated="zero_concentrated_divergence",
                           samples=10 * SAMPLES if thorough else SAMPLES)


@claim("conform.opendp.zcdp_map_of_another_sampler", source=CONFORM, method="audit", expected="refuted",
       proof="conform/finite_bounds.md",
       statement="OpenDP's exponential-noise noisy max (built for MaxDivergence; scale 1, three scores) satisfies "
                 "the zCDP budget rho = 0.5 that the map of its Gumbel (ZeroConcentratedDivergence) sibling states")
def _zcdp_map_of_another_sampler(thorough: bool = False) -> Outcome:
    return conform_outcome(sampled=SAMPLED["planted"], stated="zero_concentrated_divergence",
                           samples=10 * SAMPLES if thorough else SAMPLES)
