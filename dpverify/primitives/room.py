"""The primitives room: the DP building blocks (Laplace, geometric, exponential, k-RR, composition)."""

from dpverify.rooms import Room

ROOM = Room(
    name="primitives",
    summary="the DP building blocks with exact samplers: Laplace, geometric, exponential mechanism, k-RR, composition",
)
