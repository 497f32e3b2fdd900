"""Ready-made mechanisms for ``dpverify audit MODULE:NAME`` (callables ``mechanism(data, rng, n)``).

Example
-------
``dpverify audit dpverify.audit.examples:laplace_half_noise_eps1 --d 0 --d-prime 1 --epsilon 1 --samples 100000``

The geometric, exponential and k-RR controls sample through the primitives room's code:
``dpverify audit dpverify.selftest.controls:GeometricMechanism --param epsilon=1 ...``.
"""

from dpverify.audit.controls import LaplaceMechanism, NoisyMax

__all__ = [
    "laplace_eps1",
    "laplace_half_noise_eps1",
    "noisy_max_index_eps1",
    "noisy_max_value_eps1",
]

laplace_eps1 = LaplaceMechanism(1.0)
laplace_half_noise_eps1 = LaplaceMechanism(1.0, scale_factor=0.5)
noisy_max_index_eps1 = NoisyMax(1.0)
noisy_max_value_eps1 = NoisyMax(1.0, returns="value")
