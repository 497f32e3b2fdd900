"""The continual room: matrix-mechanism continual release of running counts (a thesis chapter; Cai, Wu, Wang 2016).

The room holds the Fenwick tree and its optimal weights (``fenwick_tree.py``, ``fenwick.py``,
``fda_optimal.py``, ``fda.py``), the k-ary and elders trees, the baselines, the streams
(``streams.py``: the one bounded-stream base), the input checks (``checks.py``), the matrix-mechanism
verifier (``matrix.py``), the claims by subject (``claims/``), the proofs (``proofs/``) and the
``dpverify continual`` command (``cli.py``).
"""

from dpverify.rooms import Command, Paper, Room

ROOM = Room(
    name="continual",
    summary="continual release of running counts: Fenwick strategy, FDA weights, baselines, release and streams",
    papers=(Paper("000", "Thesis chapter 5: matrix-mechanism continual release (text ends at h(α))",
                  seed_file="000_929f809c6507214f.txt"),
            Paper("004", "Method based on matrix mechanism for DP continual data release",
                  authors="Cai, Wu, Wang", venue="J. Frontiers of CS&T 10(4) 2016",
                  seed_file="004_2063bbaa5f69f7be.txt")),
    commands=(Command("continual", "dpverify.continual.cli", "continual release of running counts (the thesis chapter; Cai, Wu, Wang 2016)"),),
    glossary=(("Fenwick tree", "the strategy of the thesis chapter and Cai, Wu, Wang: node i sums the counts (i − lowbit(i), i]; release t "
                               "adds the nodes on its descent path t, t − lowbit(t), … (W = B·M)"),
              ("λ", "the node weights of the weighted Fenwick strategy ΣM: node i gets noise of scale 1/(ε λ_i); "
                    "every count's weights sum to at most 1, so the release is ε-DP"),
              ("FDA", "the optimal λ of the thesis chapter and Cai, Wu, Wang (minimum total MSE), for any number n of releases: "
                      "`dpverify continual release --method fda`"),
              ("fda-paper", "the paper's FDA as printed: Alg. 5 with the bound T = 2^m − 1 ≥ n, first n releases "
                            "(`--method fda-paper`; equal to `fda` at n = 2^m − 1)")),
)
