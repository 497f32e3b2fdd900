"""Read OpenDP's stated privacy and check it against OpenDP's own draws (see README.md).

``main(samples=N)`` returns the three rows: ``consistent``, ``consistent``, ``refuted`` (the planted bug);
``test_check_opendp.py`` runs it.
"""

from __future__ import annotations

import numpy as np

from dpverify.audit.adapters import from_opendp
from dpverify.conform.opendp_sweep import noisy_max_case
from dpverify.conform.rows import check


def main(samples: int = 20_000, show: bool = True) -> list:
    """Print the stated claims of two measurements, then check two real cases and one planted bug."""
    if show:
        for name, params in (("laplace", {"scale": 2.0}), ("gaussian", {"scale": 1.0})):
            m = from_opendp(name, **params)
            print(f"{m.name}: {m.claim} in {m.measure} at d_in = {m.d_in} ({m.library})")
    cases = [noisy_max_case(sampled="max_divergence", stated="max_divergence"),
             noisy_max_case(sampled="zero_concentrated_divergence", stated="zero_concentrated_divergence"),
             noisy_max_case(sampled="max_divergence", stated="zero_concentrated_divergence")]  # the planted bug
    rng = np.random.default_rng(0)
    rows = [check(c, samples=samples, alpha=0.01 / len(cases), rng=rng) for c in cases]
    if show:
        for c, r in zip(cases, rows):
            print(f"sampled as {c.params['sampled']}, map of {c.params['stated']}: {r.claim}, lower bound "
                  f"{r.bound:.3f} -> {r.verdict} (law fitted: {r.law or 'none'}, its exact loss {r.exact})")
    return rows


if __name__ == "__main__":
    main()
