"""Programs, not only matrices: exact output laws of programs with geometric noise.

A program is a plain Python function of a context (:mod:`.context`) and integer queries; the same
function runs on sampled noise (:class:`~.context.SampleContext`, for the statistical auditor) and
exactly (:func:`~.law.program_law`: every branch enumerated, the threshold noise summed out in closed
form, :mod:`.geometric`).  :mod:`.checkdp` holds the benchmark programs of CheckDP (Wang et al., CCS 2020).

Example
-------
>>> from dpverify.exact.programs import program_law, neighbour_pairs
>>> from dpverify.exact.programs.checkdp import sparsevector
>>> law = program_law(sparsevector, [(0, 1), (1, 0)], T=1, NN=1)
>>> law.exact, len(law.columns)
(True, 3)
"""

from dpverify.exact.programs.context import ExactContext, SampleContext
from dpverify.exact.programs.law import ProgramLaw, neighbour_pairs, program_law

__all__ = ["ExactContext", "ProgramLaw", "SampleContext", "neighbour_pairs", "program_law"]
