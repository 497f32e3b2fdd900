"""Adapters: the DP libraries' own mechanisms as auditable protocol objects, without glue code.

- :func:`from_opendp` — OpenDP measurements by name and parameters, or built ``Measurement``
  objects (``pip install 'dpverify[opendp]'``);
- :func:`from_diffprivlib` — diffprivlib mechanisms by class name and parameters, or instances
  (``pip install 'dpverify[diffprivlib]'``).

From the command line, :func:`opendp` and :func:`diffprivlib` are factories whose parameters are
all keyword strings/numbers, e.g. the floating-point attack on diffprivlib's Laplace::

    dpverify audit dpverify.audit.adapters:diffprivlib --param mechanism=Laplace \\
        --param epsilon=1 --param sensitivity=1 --statistic offgrid \\
        --d 0 --d-prime 1 --epsilon 1 --samples 100000 --seed 1 --json

    dpverify audit dpverify.audit.adapters:opendp --param measurement=laplace \\
        --param scale=1 --param T=int --d 0 --d-prime 1 --epsilon 1 --samples 100000 --seed 1

(audits of OpenDP mechanisms are not reproducible from ``--seed``: OpenDP cannot be seeded).
"""

from __future__ import annotations

from dpverify.mechanisms.adapters.diffprivlib_adapter import DIFFPRIVLIB_MECHANISMS, from_diffprivlib
from dpverify.mechanisms.adapters.opendp_adapter import OPENDP_MEASUREMENTS, from_opendp

__all__ = ["DIFFPRIVLIB_MECHANISMS", "OPENDP_MEASUREMENTS", "diffprivlib", "from_diffprivlib", "from_opendp", "opendp"]


def opendp(measurement: str, **params):
    """CLI factory: ``from_opendp(measurement, **params)`` with every value a string or number.

    Example
    -------
    >>> opendp("nope")
    Traceback (most recent call last):
    ...
    ValueError: measurement must be one of ('laplace', 'discrete_laplace', 'geometric', 'gaussian', 'randomized_response_bool', 'randomized_response') or an OpenDP Measurement, got 'nope'
    """
    if not isinstance(measurement, str):
        raise TypeError(f"measurement must be a name, got {type(measurement).__name__}")
    return from_opendp(measurement, **params)


def diffprivlib(mechanism: str, **params):
    """CLI factory: ``from_diffprivlib(mechanism, **params)`` with every value a string or number.

    Example
    -------
    >>> diffprivlib("Nope", epsilon=1)
    Traceback (most recent call last):
    ...
    ValueError: mechanism must be one of ('Binary', 'Exponential', 'ExponentialCategorical', 'Gaussian', 'GaussianAnalytic', 'GaussianDiscrete', 'Geometric', 'GeometricFolded', 'GeometricTruncated', 'Laplace', 'LaplaceBoundedDomain', 'LaplaceBoundedNoise', 'LaplaceFolded', 'LaplaceTruncated', 'PermuteAndFlip', 'Snapping', 'Staircase') or a diffprivlib mechanism, got 'Nope'
    """
    if not isinstance(mechanism, str):
        raise TypeError(f"mechanism must be a class name, got {type(mechanism).__name__}")
    return from_diffprivlib(mechanism, **params)
