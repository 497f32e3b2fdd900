"""The rr room: utility-optimal randomized response (Zhou, Lu and Wu's paper).

The room holds the LPs of models I, II and (19)–(20) (``lp.py``), their symbolic and closed-form
optima (``symbolic.py``, ``nary.py``), survey simulation (``simulate.py``), the claims by subject
(``claims/``), the proofs (``proofs/``) and the ``dpverify rr`` command (``cli.py``).
"""

from dpverify.rooms import Command, Paper, Room

ROOM = Room(
    name="rr",
    summary="utility-optimal randomized response for a prior: the LPs, their optima and the paper's errata",
    acronyms=("RR",),
    papers=(Paper("003", "Study on utility optimization for randomized response mechanism",
                  authors="Zhou, Lu, Wu", venue="J. on Communications 2019",
                  seed_file="003_fd0dbb2a33bed91b.txt"),),
    commands=(Command("rr", "dpverify.rr.cli", "utility-optimal randomized response for a prior (Zhou, Lu, Wu 2019)"),),
    glossary=(("u*", "the optimal utility of randomized response: the largest probability of reporting "
                     "the true value, averaged over the prior π"),
              ("π", "the prior of randomized response: the probability of each true answer, e.g. "
                    "`dpverify rr --pi 0.2,0.8` for a yes/no question"),
              ("per-output", "Zhou, Lu and Wu's (ε, δ) condition p(j|i1) ≤ e^ε p(j|i2) + δ for each single output j; "
                             "with more than 2 outputs it is weaker than (ε, δ)-LDP over sets of outputs "
                             "(the erratum rr.nary.definition)")),
)
