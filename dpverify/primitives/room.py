"""The primitives room: the DP building blocks' code (Laplace, geometric, exponential, k-RR, composition).

The statements these blocks implement are those of the survey (Zhu et al.), checked in the survey room
(:mod:`dpverify.survey`), whose claims keep the ids ``primitives.*`` they were given when they
lived here.  So this room registers no claims of its own (``namespaces=()``); the proofs of its
code (e.g. the exact discrete Laplace sampler) sit in its ``proofs/`` folder.
"""

from dpverify.rooms import Room

ROOM = Room(
    name="primitives",
    summary="the DP building blocks with exact samplers: Laplace, geometric, exponential mechanism, k-RR, "
            "composition, sensitivity, (α, β)-usefulness",
    namespaces=(),
)
