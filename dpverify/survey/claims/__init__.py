"""The claims of the survey of Zhu et al. (ids ``primitives.*``), one module per subject.

- :mod:`.laplace` — the Laplace mechanism is ε-DP;
- :mod:`.exponential` — the exponential mechanism is ε-DP, and its factor 2 matters;
- :mod:`.composition` — sequential (Σ ε_i) and parallel (max ε_i) composition;
- :mod:`.usefulness` — (α, β)-usefulness of Laplace answers (an erratum: ``≥``, not ``>``);
- :mod:`.interactive` — the interactive vs non-interactive example (an erratum);
- :mod:`.discrete` — the library's discrete analogues: geometric noise and k-ary randomized response.

Each check recomputes the statement from the library's own code paths (scale, weights, composed
laws), so that breaking the code changes the verdict.  The claims engine finds these modules
(:func:`dpverify.rooms.claim_module_names`); importing one registers its claims.
"""
