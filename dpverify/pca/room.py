"""The pca room: PPCA and PPCA-DP privacy-preserving data publishing (paper 001)."""

from dpverify.rooms import Command, Paper, Room

ROOM = Room(
    name="pca",
    summary="PPCA and PPCA-DP data publishing: the model, Thm 3's counterexample, the corrected mechanism",
    papers=(Paper("001", "PPCA and PPCA-DP privacy-preserving data publishing", authors="Gu, Zhang, Song",
                  seed_file="001_7a790d3cdc47e125.txt"),),
    commands=(Command("pca-evaluate", "dpverify.pca.cli", "paper 001's utility grid: MSE and SVM accuracy (Figs. 3-6)"),
              Command("pca-audit", "dpverify.pca.cli", "audit a pca-room mechanism on the Thm 3 neighbouring pairs")),
)
