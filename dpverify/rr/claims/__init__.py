"""Claims of Zhou, Lu and Wu's paper (2019, utility optimisation of randomized response), by subject.

The paper's formulas are transcribed only as the *statements under test*; every verdict is
computed by comparing them with the LP-derived optimum (:mod:`dpverify.rr.symbolic`), solver
optima with dual certificates (:mod:`dpverify.rr.lp`), the closed form with its exact dual
certificate (:mod:`dpverify.rr.nary`), the exact LDP checker and seeded simulations.

==============================  ===============================================================
module                          claims
==============================  ===============================================================
:mod:`.binary`                  models I and II: vertices, optima (4)/(15), ties, §4's extreme
                                points, the §3.3 remarks (``rr.model*``, ``rr.sec4.extreme_points``,
                                ``rr.sec3_3.*``)
:mod:`.simplex`                 the simplex proofs (7)–(9), (16)–(18) and the numeric solvers
                                (``rr.model*.simplex``, ``rr.binary.solvers``)
:mod:`.nary`                    model (19)–(20): the closed form, the extreme-point results of
                                refs. [11], [12], the counts (``rr.nary.closed_form``, ``rr.sec4.*``)
:mod:`.survey`                  the worked example and the simulated surveys (``rr.example``,
                                ``rr.simulation``)
:mod:`.delta_optima`            the (ε,δ) optima decided exactly for every ε > 0 (``rr.model2.optimum_ldp``,
                                ``rr.nary.optimum_ldp``)
:mod:`.errata`                  every erratum of the paper (``rr.model2.standard_form``,
                                ``rr.sec4.case2``, ``rr.nary.definition``)
==============================  ===============================================================

Importing this package registers every claim of the room (discovery imports each module too).

Example
-------
>>> from dpverify.claims import all_claims
>>> sorted(c.id for c in all_claims("rr.") if c.expected.value == "erratum")
['rr.model2.standard_form', 'rr.nary.definition', 'rr.sec4.case2']
"""

from dpverify.rr.claims import binary, delta_optima, errata, nary, simplex, survey

__all__ = ["binary", "delta_optima", "errata", "nary", "simplex", "survey"]
