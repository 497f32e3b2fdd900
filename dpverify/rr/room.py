"""The rr room: utility-optimal randomized response (paper 003)."""

from dpverify.rooms import Command, Paper, Room

ROOM = Room(
    name="rr",
    summary="utility-optimal randomized response for a prior: the LPs, their optima and the paper's errata",
    papers=(Paper("003", "Study on utility optimization for randomized response mechanism",
                  authors="Zhou, Lu, Wu", venue="J. on Communications 2019",
                  seed_file="003_fd0dbb2a33bed91b.txt"),),
    commands=(Command("rr", "dpverify.rr.cli", "utility-optimal randomized response for a prior (paper 003)"),),
    glossary=(("u*", "the optimal utility of randomized response: the largest probability of reporting "
                     "the true value, averaged over the prior π"),),
)
