"""Primitives: Laplace, discrete Laplace, exponential mechanism, composition, usefulness."""

from dpverify.primitives.sampling import discrete_laplace, laplace

__all__ = ["discrete_laplace", "laplace"]
