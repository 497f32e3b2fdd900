"""The pca room: PPCA and PPCA-DP privacy-preserving data publishing (Gu, Zhang and Song's paper).

The room holds the PPCA model (``ppca.py``), the paper's mechanisms and a corrected ε-DP one
(``ppca_dp.py``, ``pca_ppdp.py``, ``corrected.py``, sharing ``noise.py``), the utility evaluation
(``evaluate.py``, ``grid.py``), the Thm 3 counterexample (``thm3.py``) and the corrected
mechanism's privacy accounting (``budget.py``), the claims by subject (``claims/``), the proofs
(``proofs/``) and the ``dpverify pca-evaluate`` / ``pca-audit`` commands (``cli.py``).
"""

from dpverify.rooms import Command, Paper, Room

ROOM = Room(
    name="pca",
    summary="PPCA and PPCA-DP data publishing: the model, Thm 3's counterexample, the corrected mechanism",
    acronyms=("PCA",),
    papers=(Paper("001", "PPCA and PPCA-DP privacy-preserving data publishing", authors="Gu, Zhang, Song",
                  seed_file="001_7a790d3cdc47e125.txt"),),
    commands=(Command("pca-evaluate", "dpverify.pca.cli", "the PPCA-DP paper's utility grid (Gu, Zhang, Song): MSE and SVM accuracy (Figs. 3-6)"),
              Command("pca-audit", "dpverify.pca.cli", "audit a pca-room mechanism on the Thm 3 neighbouring pairs")),
    glossary=(("PPCA", "probabilistic PCA (Gu, Zhang and Song's paper, Alg. 1): publish records drawn from a k-component PPCA "
                       "model fitted to the data; no noise, and no privacy when the discarded eigenvalues are 0"),
              ("PPCA-DP", "Gu, Zhang and Song's paper, Alg. 2: PPCA with Laplace noise on the score matrix; Thm 3 says ε-DP, "
                          "refuted (pca.thm3_ppca_dp_is_dp); `--method ppca-dp-corrected` is the ε-DP repair")),
)
