"""The continual room: matrix-mechanism continual release of running counts (papers 000 and 004)."""

from dpverify.rooms import Command, Paper, Room

ROOM = Room(
    name="continual",
    summary="continual release of running counts: Fenwick strategy, FDA weights, baselines, release and streams",
    papers=(Paper("000", "Thesis chapter 5: matrix-mechanism continual release (text ends at h(α))",
                  seed_file="000_929f809c6507214f.txt"),
            Paper("004", "Method based on matrix mechanism for DP continual data release",
                  authors="Cai, Wu, Wang", venue="J. Frontiers of CS&T 10(4) 2016",
                  seed_file="004_2063bbaa5f69f7be.txt")),
    commands=(Command("continual", "dpverify.continual.cli", "continual release of running counts (papers 000, 004)"),),
)
