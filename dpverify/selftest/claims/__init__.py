"""The library's self-tests as claims (ids ``audit.*``), one module per subject.

- :mod:`.controls` — correct mechanisms the auditor must never refute (``audit.control.*``);
- :mod:`.planted_bugs` — broken mechanisms it must refute (``audit.bug.*``);
- :mod:`.validity` — its ε_lb never exceeds the exact ε(δ); its false-refutation rate;
- :mod:`.power` — its power and tightness on the Laplace mechanism;
- :mod:`.floating_point` — floating-point attacks on Laplace releases (``audit.fp_*``);
- :mod:`.ldp_checker` — the exact LDP checker against a brute force (``audit.ldp.checker``);
- :mod:`.audit_api` — :func:`dpverify.audit.audit` itself, the path the CLI uses (``audit.api.*``);
- :mod:`.checkdp` — the exact verifier on the CheckDP benchmark programs (``audit.checkdp.*``).

Every audit is seeded; the seeds are in the evidence.  The claims engine finds these modules
(:func:`dpverify.rooms.claim_module_names`); importing one registers its claims.
"""
