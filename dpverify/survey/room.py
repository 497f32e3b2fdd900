"""The survey room: the definitions of the survey of Zhu et al. (DP data publishing), checked against the primitives.

Its claims keep the ids ``primitives.*`` they had when they lived beside the building blocks, so
the room registers that namespace.
"""

from dpverify.rooms import Paper, Room

ROOM = Room(
    name="survey",
    summary="the survey's definitions checked on the library's primitives: Laplace and exponential mechanisms, "
            "composition, (α, β)-usefulness, the interactive example, discrete analogues",
    papers=(Paper("002", "Differentially Private Data Publishing and Analysis: A Survey (definitions)",
                  authors="Blog translation of Zhu et al.", seed_file="002_514c0aac27c4ee30.txt"),),
    namespaces=("primitives",),
    glossary=(("usefulness", "the survey's (α, β)-usefulness: with probability at least 1 − β every answer lies "
                             "within α of the truth (printed '> 1 − β': the erratum primitives.usefulness_laplace; "
                             "the survey's claims are `--only primitives.`)"),),
)
