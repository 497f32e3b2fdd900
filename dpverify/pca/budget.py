"""The white-box privacy accounting of the corrected PPCA-DP (:class:`~dpverify.pca.CorrectedPPCADP`).

:func:`corrected_noise_budget` runs the mechanism once with a generator that records every
Laplace draw, maps each draw to the released part it noises, and charges the draw's scale against
the sensitivity the proof (``pca/corrected_ppca_dp.md``) gives that part.  The claim
``pca.corrected_ppca_dp_is_dp`` checks that the total spent is at most ε.

Example
-------
>>> b = corrected_noise_budget(1, 2, 20, 1.0)
>>> sorted(b["parts"]), b["unmatched_draws"]
(['mean', 'moments', 'scores'], [])
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["corrected_noise_budget"]


class _RecordingGenerator(np.random.Generator):
    """A numpy Generator that records the (scale, size) of every Laplace draw (white-box reading)."""

    def __init__(self, seed: int):
        super().__init__(np.random.PCG64(seed))
        self.laplace_calls: list = []

    def laplace(self, loc=0.0, scale=1.0, size=None):
        self.laplace_calls.append((float(np.asarray(scale)), tuple(np.atleast_1d(size)) if size is not None else ()))
        return super().laplace(loc, scale, size)


def corrected_noise_budget(k: int, p: int, n: int, epsilon: float, split=None) -> dict:
    """Read the corrected PPCA-DP's actual Laplace scales and charge them against the proof's sensitivities.

    Runs ``CorrectedPPCADP.publish_many`` once with a recording Generator and maps each Laplace draw to
    the released part it noises by its shape: (1, p) the noisy sum behind μ̃ (ℓ1 sensitivity p),
    (1, p(p+1)/2) the upper triangle of the second moments (sensitivity p(p+1)/2), (1, n, k) the scores
    (sensitivity √(k p) given μ̃, Ũ).  Sequential composition spends Σ sensitivity / scale.

    Example
    -------
    >>> b = corrected_noise_budget(2, 4, 30, 1.0)
    >>> abs(b["epsilon_spent"] - 1.0) < 1e-12
    True
    """
    from dpverify.pca import CorrectedPPCADP
    from dpverify.validation import check_budget, check_positive_int

    p, n = check_positive_int(p, "p"), check_positive_int(n, "n")
    check_budget(64.0 * n * p + 64.0 * p * p, f"n × p = {n} × {p}")
    kw = {} if split is None else {"split": split}
    mech = CorrectedPPCADP(k=k, epsilon=epsilon, bounds=(np.zeros(p), np.ones(p)), **kw)
    g = _RecordingGenerator(11)
    mech.publish_many(np.random.default_rng(12).uniform(size=(n, p)), 1, rng=g)
    sens = {(1, p): ("mean", p), (1, p * (p + 1) // 2): ("moments", p * (p + 1) / 2), (1, n, k): ("scores", math.sqrt(k * p))}
    parts: dict = {}
    unknown = []
    for scale, size in g.laplace_calls:
        if size in sens:
            name, s = sens[size]
            parts[name] = parts.get(name, 0.0) + s / scale  # proof: ε spent by Lap(scale) on sensitivity s
        else:
            unknown.append(size)
    return {"parts": parts, "epsilon_spent": float(sum(parts.values())), "unmatched_draws": unknown,
            "scales": [c[0] for c in g.laplace_calls]}
