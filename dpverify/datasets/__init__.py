"""Data sets shipped with dpverify (UCI Adult and UCI MAGIC gamma telescope, CC BY 4.0).

The files live in ``dpverify/datasets/data/`` gzip-compressed; their provenance,
citation and the SHA-256 of the uncompressed originals are in the README there.
Every read of a packaged file is checked against that SHA-256.

Example
-------
>>> from dpverify.datasets import load_adult, load_magic
>>> X, y = load_adult()
>>> X.shape, y.shape
((32561, 21), (32561,))
>>> load_magic()[0].shape
(19020, 10)
"""

from dpverify.datasets.loaders import (
    ADULT_BOUNDS,
    ADULT_FEATURES,
    MAGIC_BOUNDS,
    MAGIC_FEATURES,
    SHA256,
    load_adult,
    load_magic,
)

__all__ = [
    "ADULT_BOUNDS",
    "ADULT_FEATURES",
    "MAGIC_BOUNDS",
    "MAGIC_FEATURES",
    "SHA256",
    "load_adult",
    "load_magic",
]
