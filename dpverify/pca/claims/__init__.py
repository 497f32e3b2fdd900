"""Claims of Gu, Zhang and Song's paper (PPCA and PPCA-DP privacy-preserving data publishing), by subject.

Default runs use subsamples and few repetitions (the whole room stays within its ~12 s budget);
``thorough=True`` runs the paper's full grid (all rows, every k, 5 runs) and larger audits.

==========================  ==================================================================
module                      claims
==========================  ==================================================================
:mod:`.model`               the data of §3, Fig. 2, the PPCA model (Thms 1–2), Alg. 1's privacy
:mod:`.thm3`                Theorem 3 (PPCA-DP is ε-DP) and the sensitivity its proof uses
:mod:`.corrected`           the corrected PPCA-DP: budget, values with known noise, audit
:mod:`.experiments`         Figs. 3–6: MSE and SVM accuracy of the published data
:mod:`.errata`              every erratum of the paper (``pca.erratum.*``)
==========================  ==================================================================

Importing this package registers every claim of the room (discovery imports each module too).

Example
-------
>>> from dpverify.claims import all_claims
>>> sorted(c.id for c in all_claims("pca.thm3"))
['pca.thm3_ppca_dp_is_dp', 'pca.thm3_score_sensitivity']
"""

from dpverify.pca.claims import corrected, errata, experiments, model, thm3

__all__ = ["corrected", "errata", "experiments", "model", "thm3"]
