"""The claims of the continual room (the thesis chapter and Cai, Wu and Wang's paper), one module per subject.

- :mod:`~dpverify.continual.claims.structure`: the factorization W = B·M and what the Fenwick tree is;
- :mod:`~dpverify.continual.claims.thm5`: Thms 5.1-5.4 of the thesis chapter (sensitivity, MSE, optimum);
- :mod:`~dpverify.continual.claims.symbolic`: Thms 5.1/5.2 derived symbolically;
- :mod:`~dpverify.continual.claims.fda`: FDA's recursion, Alg. 4, Fig. 1, any n, Alg. 5;
- :mod:`~dpverify.continual.claims.fda_paper`: the paper's FDA by name (``fda-paper``), as printed, at any N;
- :mod:`~dpverify.continual.claims.release`: the releases' MSE, the stream, privacy;
- :mod:`~dpverify.continual.claims.errata`: every ``continual.erratum.*`` claim;
- :mod:`~dpverify.continual.claims.experiments`: Cai, Wu and Wang's paper, §5, and the beyond-FDA table;
- :mod:`~dpverify.continual.claims.elders`: the elders tree and the matrix-mechanism verifier.

The engine finds these modules (:func:`dpverify.rooms.claim_module_names`); nothing imports them by name.

Example
-------
>>> SUBJECTS[:3]
('structure', 'thm5', 'symbolic')
"""

#: the subject modules of this package, in reading order
SUBJECTS = ("structure", "thm5", "symbolic", "fda", "fda_paper", "release", "errata", "experiments", "elders")

from dpverify.continual.seed_facts import packaged_reference_facts, reference_facts  # noqa: F401  (an older path)
