"""Self-tests of :func:`dpverify.audit.audit` itself, the path the CLI uses (ids ``audit.api.*``).

The other auditor self-tests read :func:`~dpverify.audit.epsilon_lower_bound` on a given pair.  These
run ``audit()`` as a user does — the pairs from the mechanism's relation, screening, the quick check,
the estimation stages with error spending, the safe event and, at δ = 0, the conditional (Poisson)
test — on :class:`~dpverify.selftest.rare_event.RareEvent`, whose only informative output is rare,
so that the audit's bound is close to the truth and its level is checked sharply:

- ``audit.api.exceedance`` — over 1,000 seeded audits of the correct mechanism, the fraction whose
  bound exceeds the true ε stays within α = 1 − confidence (one-sided binomial test), and every
  audit's levels sum to at most α;
- ``audit.api.staged_stop`` — a planted bug is refuted before the last estimation stage (the rest
  of the budget is not drawn); the correct mechanism runs every stage;
- ``audit.api.conditional_test`` — on the rare event the audit chooses the conditional test and
  refutes a bug only 10 % over the claim;
- ``audit.api.searched_pair`` — searching the relation, the audit refutes with a violating pair, not
  with one of the adjacent pairs the relation also offers.

Every audit is seeded (the seeds are in the evidence); each claim's false-alarm rate is stated.
The validity argument is ``dpverify/audit/proofs/selection.md``.
"""

from __future__ import annotations

import itertools

import numpy as np
from scipy import stats

from dpverify.audit import audit, clopper_pearson_upper
from dpverify.audit.intervals import clopper_pearson_lower
from dpverify.claims import Outcome, Source, Verdict, claim
from dpverify.claims import SELF_TEST
from dpverify.selftest.rare_event import RareEvent
from dpverify.validation import check_elements, check_nonneg_int, check_positive_int, check_work

__all__ = ["audit_rows", "exceedance_outcome"]

API = Source(SELF_TEST, "auditor, audit()", "searched pairs, staged levels, safe event, conditional test")

#: the exceedance claim: 1 − confidence = α = 0.1 gives ≈ 100 exceedances in 1,000 audits, so a rate
#: above α is seen (a lower confidence would make the check sharper still, at no cost in time)
CONFIDENCE = 0.9
SAMPLES = 100_000  # per input; the rare event (P = 0.1) then holds ≥ 100 draws of the quick check's size
# the exceedance claim's 1,000 audits: the rare event at P = 0.2 needs 8·10^4 draws per input for the same
# count (and for two estimation stages); measured 16 ms of CPU per audit, against 21 ms at P = 0.1, 10^5
EXC_P, EXC_SAMPLES = 0.2, 80_000
AUDITS, AUDITS_THOROUGH = 1000, 3000
FALSE_ALARM = 1e-3  # the one-sided binomial test's level: a valid auditor refutes the claim w.p. ≤ 1e-3
SEED = 26_000
BUG_AUDITS, BUG_SEED = 20, 27_000


def audit_rows(mechanism, seeds, *, epsilon: float, samples: int = SAMPLES, confidence: float = CONFIDENCE):
    """One row per seeded ``audit()`` of ``mechanism`` (pairs from its relation): the bound and the tests made.

    Example
    -------
    >>> rows = audit_rows(RareEvent(1.0), [0], epsilon=1.0, samples=20_000)
    >>> sorted(rows[0])[:4], rows[0]["levels"] <= 0.1 + 1e-12
    (['bound', 'candidates', 'estimation_stages', 'final_refuted'], True)
    """
    if isinstance(seeds, np.ndarray):
        check_elements(seeds, "seeds")
        seeds = seeds.tolist() if seeds.ndim == 1 else seeds
    if isinstance(seeds, (str, bytes, np.ndarray)) or not hasattr(seeds, "__iter__"):
        raise TypeError(f"seeds must be an iterable of integer seeds, got {seeds!r:.80} ({type(seeds).__name__})")
    samples = check_positive_int(samples, "samples")
    seeds = seeds if hasattr(seeds, "__len__") else list(itertools.islice(seeds, 10**6 + 1))
    check_work(len(seeds) * samples, f"{len(seeds)} seeds of samples = {samples} draws per input")
    rows = []
    for s in seeds:
        if isinstance(s, bool) or not isinstance(s, (int, np.integer)):
            raise TypeError(f"seeds must hold integers, got {s!r}")
        r = audit(mechanism, epsilon=epsilon, samples=samples, rng=int(s), confidence=confidence)
        kinds = [st.kind for st in r.stages]
        est = [st for st in r.stages if st.kind.startswith("stage") and "safe" not in st.kind]
        rows.append({"bound": float(r.epsilon), "levels": float(sum(st.level for st in r.stages)),
                     "poisson": any(st.test == "poisson" for st in r.stages),
                     "estimation_stages": len(est), "safe": any("safe" in k for k in kinds),
                     "refuted_at": next((st.kind for st in r.stages if st.bound > epsilon), None),
                     "final_refuted": bool(est) and est[-1].bound > epsilon,
                     "samples_used": int(r.samples_used), "candidates": len(r.pairs),
                     "pair": sorted(int(x) for x in r.pair)})
    return rows


def _binomial_test(x: int, n: int, alpha: float) -> dict:
    """One-sided test of H0 "the exceedance rate is at most α": p = P[Bin(n, α) ≥ x]."""
    p_value = float(stats.binom.sf(x - 1, n, alpha))
    return {"p_value": p_value, "rate_lower_99.9%": float(clopper_pearson_lower(x, n, FALSE_ALARM)),
            "rate_upper_99.9%": float(clopper_pearson_upper(x, n, FALSE_ALARM)),
            "rejects_rate_at_most_alpha": p_value < FALSE_ALARM}


def exceedance_outcome(audits: int, *, seed: int = SEED) -> Outcome:
    """The exceedance claim's check on ``audits`` seeded audits (the claim runs 1,000; tests run fewer).

    Example
    -------
    >>> exceedance_outcome(20).evidence["audits"]
    20
    """
    audits = check_positive_int(audits, "audits")
    seed = check_nonneg_int(seed, "seed")
    mech = RareEvent(1.0, p=EXC_P)
    check_work(audits * EXC_SAMPLES * mech.k, f"audits = {audits}")  # draws: the budget per input, at each input
    truth, alpha = mech.true_epsilon(), round(1.0 - CONFIDENCE, 12)
    rows = audit_rows(mech, range(seed, seed + audits), epsilon=mech.epsilon, samples=EXC_SAMPLES)
    x = sum(r["bound"] > truth for r in rows)
    test = _binomial_test(x, audits, alpha)
    worst_levels = max(r["levels"] for r in rows)
    cover = {"audits_with_conditional_test": sum(r["poisson"] for r in rows),
             "audits_with_2+_estimation_stages": sum(r["estimation_stages"] >= 2 for r in rows),
             "audits_with_a_safe_event": sum(r["safe"] for r in rows)}
    levels_ok = worst_levels <= alpha * (1 + 1e-12)
    covered = (2 * cover["audits_with_conditional_test"] >= audits
               and 2 * cover["audits_with_2+_estimation_stages"] >= audits)
    ok = not test["rejects_rate_at_most_alpha"] and levels_ok and covered
    why = ("" if ok else "The exceedance rate is significantly above α." if test["rejects_rate_at_most_alpha"]
           else "An audit's levels summed to more than α." if not levels_ok
           else "Fewer than half the audits ran the conditional test or two estimation stages.")
    return Outcome(Verdict.HOLDS if ok else Verdict.REFUTED, {
        "mechanism": repr(mech), "true_epsilon": truth, "alpha": alpha, "confidence": CONFIDENCE,
        "samples_per_input": EXC_SAMPLES, "audits": audits, "exceedances": x, "rate": x / audits,
        "rate/alpha": x / audits / alpha, **test,
        "binomial_test": f"H0: rate <= alpha = {alpha:g}; p = P[Bin({audits}, {alpha:g}) >= {x}]; the claim is "
                         f"refuted when p < {FALSE_ALARM:g} (a valid auditor is refuted with probability <= "
                         f"{FALSE_ALARM:g})",
        "max_levels_sum/alpha": worst_levels / alpha, **cover,
        "candidate_pairs_per_audit": sorted({r["candidates"] for r in rows}),
        "max_bound": max(r["bound"] for r in rows), "seeds": f"{seed}..{seed + audits - 1}"},
        summary=why)


@claim("audit.api.exceedance", source=API, method="simulation", expected="holds", proof="audit/selection.md",
       statement="audit() keeps its level on a mechanism it bounds almost exactly: over 1,000 seeded audits "
                 "(confidence 0.9, 8·10^4 draws per input, pairs from the mechanism's relation) of a correct "
                 "ε-DP mechanism whose only informative output is rare (ε = 1; P[rare] = 0.2 against "
                 "0.2·e^-1), the fraction of bounds above the true ε is not significantly above α = 0.1 "
                 "(one-sided binomial test, false alarm 1e-3); every audit's tests (quick check, estimation "
                 "stages, safe events) have levels summing to at most α, and most audits run the conditional "
                 "(Poisson) test and two estimation stages (3,000 audits with --thorough)")
def _exceedance(thorough: bool = False) -> Outcome:
    return exceedance_outcome(AUDITS_THOROUGH if thorough else AUDITS)


@claim("audit.api.staged_stop", source=API, method="simulation", expected="holds", proof="audit/selection.md",
       statement="audit() spends its level in stages and stops at the first that refutes: on the rare-event "
                 "mechanism with a planted bug (true ε = 2, claimed 1; 10^5 draws per input, confidence 0.9) "
                 "each of 20 seeded audits refutes the claim before its last estimation stage (at the quick "
                 "check or an earlier stage) and draws less than its budget; of 20 audits of the correct "
                 "mechanism, each that does not refute the claim (all but a fraction ≈ α) runs all its "
                 "estimation stages and draws its whole budget, and at least 12 do so (a valid auditor refutes "
                 "more than 8 of 20 with probability < 1e-4); in all 40 the levels sum to at most α = 0.1")
def _staged_stop(thorough: bool = False) -> Outcome:
    seeds = range(BUG_SEED, BUG_SEED + BUG_AUDITS)
    bug = audit_rows(RareEvent(1.0, factor=2.0), seeds, epsilon=1.0)
    good = audit_rows(RareEvent(1.0), seeds, epsilon=1.0)
    alpha = 1.0 - CONFIDENCE
    # a refutation before the last estimation stage leaves the last stage's draws undrawn
    early = [r["refuted_at"] is not None and r["samples_used"] < SAMPLES for r in bug]
    # a correct mechanism is refuted with probability <= alpha; the audits that do not refute run every stage
    kept = [r for r in good if r["refuted_at"] is None]
    full = [r["estimation_stages"] >= 2 and r["samples_used"] == SAMPLES for r in kept]
    levels = max(r["levels"] for r in bug + good) / alpha
    ok = all(early) and all(full) and len(kept) >= 12 and levels <= 1 + 1e-12
    return Outcome(Verdict.HOLDS if ok else Verdict.REFUTED, {
        "bug_refuted_before_the_last_stage": sum(early), "bug_refuted_at": sorted({str(r["refuted_at"]) for r in bug}),
        "bug_samples_used_max": max(r["samples_used"] for r in bug), "samples": SAMPLES,
        "correct_not_refuted": len(kept), "of_them_running_every_stage": sum(full),
        "correct_estimation_stages": sorted({r["estimation_stages"] for r in kept}),
        "max_levels_sum/alpha": levels, "audits": 2 * BUG_AUDITS, "seeds": f"{BUG_SEED}..{BUG_SEED + BUG_AUDITS - 1}"},
        summary="" if ok else "An audit did not stop at its first refuting stage, skipped a stage, or overspent α.")


@claim("audit.api.conditional_test", source=API, method="simulation", expected="holds", proof="audit/selection.md",
       statement="On a rare informative event at δ = 0, audit() chooses the conditional (Poisson) test and has "
                 "power close to the truth: for the rare-event mechanism with a planted bug only 10 % over the "
                 "claim (true ε = 1.1, claimed 1; 10^5 draws per input, confidence 0.9) each of 20 seeded "
                 "audits reports the conditional test and at least 18 refute the claim")
def _conditional_test(thorough: bool = False) -> Outcome:
    rows = audit_rows(RareEvent(1.0, factor=1.1), range(BUG_SEED, BUG_SEED + BUG_AUDITS), epsilon=1.0)
    poisson = sum(r["poisson"] for r in rows)
    refuted = sum(r["refuted_at"] is not None for r in rows)
    ok = poisson == len(rows) and refuted >= 18
    return Outcome(Verdict.HOLDS if ok else Verdict.REFUTED, {
        "audits": len(rows), "conditional_test": poisson, "refuted": refuted, "true_epsilon": 1.1,
        "bounds": [round(r["bound"], 4) for r in rows], "seeds": f"{BUG_SEED}..{BUG_SEED + BUG_AUDITS - 1}"},
        summary="" if ok else "The conditional test was not chosen, or the bug went unrefuted in more than 2 audits.")


@claim("audit.api.searched_pair", source=API, method="simulation", expected="holds", proof="audit/selection.md",
       statement="audit() searching a relation prefers a violating pair to the candidates that do not violate: "
                 "for the rare-event mechanism on inputs 0..3 with a planted bug (P[output 1] = "
                 "0.5·e^{-0.75(3-d)}: adjacent inputs have ratio e^0.75, within the claimed ε = 1, inputs two "
                 "or three apart e^1.5 and e^2.25; 10^5 draws per input, confidence 0.9), each of 10 seeded "
                 "audits with the pairs from the relation (which offers adjacent pairs too) refutes the claim "
                 "with a pair of inputs at least two apart")
def _searched_pair(thorough: bool = False) -> Outcome:
    mech = RareEvent(1.0, p=0.5, k=4, factor=2.25)
    rows = audit_rows(mech, range(BUG_SEED, BUG_SEED + 10), epsilon=1.0)
    found = [r["refuted_at"] is not None and r["pair"][1] - r["pair"][0] >= 2 for r in rows]
    ok = all(found) and min(r["candidates"] for r in rows) >= 2
    return Outcome(Verdict.HOLDS if ok else Verdict.REFUTED, {
        "audits": len(rows), "refuted_with_a_violating_pair": sum(found), "pairs": [r["pair"] for r in rows],
        "candidates": [r["candidates"] for r in rows], "bounds": [round(r["bound"], 4) for r in rows],
        "true_epsilon": mech.true_epsilon(), "seeds": f"{BUG_SEED}..{BUG_SEED + 9}"},
        summary="" if ok else "An audit searching the relation did not refute the claim with a violating pair.")
