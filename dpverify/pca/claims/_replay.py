"""The value check of the corrected PPCA-DP (claim ``pca.corrected_ppca_dp_is_dp``): known noise in,
released values out, against the proof ``pca/corrected_ppca_dp.md``.

A :class:`Tape` is a ``numpy.random.Generator`` passed to the mechanism as its ``rng``.  Recording,
it draws from its own stream and keeps every draw (method, parameters, values); replaying, it
returns a script of draws instead and refuses a call that differs from the script's (another
method, scale or size).  With it the check reads the mechanism's values, not only its scales:

- **replay**: the release on D is recomputed from the recorded noise by the proof's steps 1–4;
- **coupling**: the mechanism is run on a neighbour D′ with the recorded noise shifted by
  f(D) − f(D′) for each noised quantity f (the sum of the rows, the upper triangle of Σ x xᵀ, the
  scores (X − μ̃)Ũ_k), with f computed from the proof's definitions (public bounds, clipping).
  The proof says the two releases are then equal (the output depends on the data only through
  the noisy quantities) and that the shifts' ℓ1 norms (the observed sensitivities) are at most
  p, p(p+1)/2 and √(kp), so the coupling costs at most ε.  Noise drawn but not added, clipping
  removed, raw data reaching the post-processing, or noise at the wrong scale all break one of these.

Example
-------
>>> t = Tape(0)
>>> x = t.laplace(0.0, 2.0, size=3)
>>> r = Tape(1, script=[d._replace(values=d.values + 1) for d in t.draws])
>>> bool(np.array_equal(r.laplace(0.0, 2.0, size=3), x + 1))
True
"""

from __future__ import annotations

import math
from typing import Any, NamedTuple

import numpy as np

#: The Generator methods a Tape intercepts: every draw (not the bit generator or spawning).
DRAW_METHODS = frozenset(n for n in dir(np.random.Generator) if not n.startswith("_")
                         and n not in ("bit_generator", "spawn"))


class Draw(NamedTuple):
    """One call of a draw method: its name, arguments and the values it returned."""

    name: str
    args: tuple
    kwargs: dict
    values: Any


class ReplayMismatch(Exception):
    """The mechanism asked a replaying Tape for a draw the script does not have."""


def _same(a: Any, b: Any) -> bool:
    try:
        return bool(np.array_equal(np.asarray(a), np.asarray(b)))
    except (TypeError, ValueError):
        return a == b


class Tape(np.random.Generator):
    """A Generator that records its draws (``script=None``) or returns a scripted list of draws."""

    def __init__(self, seed: int, script: list[Draw] | None = None):
        super().__init__(np.random.PCG64(seed))
        self.draws: list[Draw] = []
        self._script = None if script is None else list(script)
        self._pos = 0
        self._depth = 0

    def __getattribute__(self, name: str):
        attr = super().__getattribute__(name)
        if name in DRAW_METHODS and callable(attr):
            return lambda *args, **kwargs: Tape._call(self, name, attr, args, kwargs)
        return attr

    def _call(self, name: str, real, args: tuple, kwargs: dict):
        if self._depth:  # a draw made inside another draw method is part of that draw
            return real(*args, **kwargs)
        if self._script is None:
            self._depth += 1
            try:
                out = real(*args, **kwargs)
            finally:
                self._depth -= 1
            self.draws.append(Draw(name, args, dict(kwargs), np.array(out, copy=True)))
            return out
        if self._pos >= len(self._script):
            raise ReplayMismatch(f"draw {self._pos + 1}: {name}{args} asked for, the script has {len(self._script)} draws")
        want = self._script[self._pos]
        same = (want.name == name and len(want.args) == len(args) and set(want.kwargs) == set(kwargs)
                and all(_same(x, y) for x, y in zip(want.args, args))
                and all(_same(want.kwargs[k], kwargs[k]) for k in kwargs))
        if not same:
            raise ReplayMismatch(f"draw {self._pos + 1}: {name}{args} {kwargs} asked for, the script has "
                                 f"{want.name}{want.args} {want.kwargs}")
        self._pos += 1
        v = np.array(want.values, copy=True)
        return v if v.ndim else v.item()


def _size(d: Draw) -> tuple:
    size = d.kwargs.get("size", d.args[2] if len(d.args) > 2 else None)
    return tuple(np.atleast_1d(size)) if size is not None else ()


def _scale(d: Draw) -> float:
    return float(np.asarray(d.kwargs.get("scale", d.args[1] if len(d.args) > 1 else 1.0)))


def normalise(X: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """The proof's public normalisation, written from its statement: clip((x − lower)/(upper − lower), 0, 1)."""
    return np.clip((X - lo) / (hi - lo), 0.0, 1.0)


def laplace_parts(draws: list[Draw], n: int, p: int, k: int) -> list[Draw] | str:
    """The three Laplace draws of the proof (mean (1, p), moments (1, p(p+1)/2), scores (1, n, k)), in
    this order; otherwise a sentence saying what the mechanism drew instead."""
    lap = [d for d in draws if d.name == "laplace"]
    want = [(1, p), (1, p * (p + 1) // 2), (1, n, k)]
    got = [_size(d) for d in lap]
    if got != want:
        return f"the mechanism's Laplace draws have sizes {got}, the proof's are {want}"
    if any(d.name != "laplace" and d.name != "standard_normal" for d in draws):
        return "the mechanism draws with " + ", ".join(sorted({d.name for d in draws})) + ", not only the proof's laws"
    return lap


def _eig_k(mu: np.ndarray, S: np.ndarray, n: int, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Eigenvalues (decreasing) and eigenvectors of Σ̃ = S̃/n − μ̃μ̃ᵀ (the proof's step 2)."""
    C = S / n - mu[:, :, None] * mu[:, None, :]
    lam, U = np.linalg.eigh(C)
    return lam[..., ::-1], U[..., ::-1]


def noisy_quantities(Z: np.ndarray, lap: list[Draw], k: int) -> dict:
    """μ̃, S̃, Ũ, λ̃ and K̃ of the proof (steps 1–3) from normalised rows Z and the three Laplace draws."""
    n, p = Z.shape
    mu = np.clip((Z.sum(axis=0) + lap[0].values) / n, 0.0, 1.0)
    iu = np.triu_indices(p)
    E = np.zeros((1, p, p))
    E[:, iu[0], iu[1]] = lap[1].values
    E = E + np.swapaxes(E, -1, -2) - E * np.eye(p)
    S = Z.T @ Z + E
    lam, U = _eig_k(mu, S, n, k)
    K = np.einsum("rnp,rpk->rnk", Z[None, :, :] - mu[:, None, :], U[..., :k]) + lap[2].values
    return {"mu": mu, "S": S, "lam": lam, "U": U, "K": K}


def replay_release(X, lo, hi, k: int, draws: list[Draw]) -> np.ndarray | str:
    """The release on X recomputed from the recorded draws by the proof's steps 1–4 (step 4, the
    posterior draw, through the room's sampler with the recorded normal draws)."""
    from dpverify.pca.ppca import PPCAFit, sample_from_scores

    Z = normalise(X, lo, hi)
    lap = laplace_parts(draws, Z.shape[0], Z.shape[1], k)
    if isinstance(lap, str):
        return lap
    q = noisy_quantities(Z, lap, k)
    fit = PPCAFit(mean=q["mu"], eigvals=np.maximum(q["lam"], 0.0), U=q["U"], k=k)
    normals = Tape(0, script=[d for d in draws if d.name != "laplace"])
    try:
        out = sample_from_scores(fit, q["K"], normals)
    except ReplayMismatch as exc:
        return f"the mechanism's other draws are not the sampler's: {exc}"
    return (lo + (hi - lo) * out)[0]


def coupled_script(X, Xp, lo, hi, k: int, draws: list[Draw], signs) -> tuple[list[Draw], dict] | str:
    """The draws that should make the release on the neighbour Xp equal the release on X.

    Each Laplace draw is shifted by f(X) − f(Xp) of the quantity it noises; ``signs`` (±1 per
    component) orient Ũ_k (any orientation fixed by the first two noisy quantities is a valid coupling).
    Returns the script and the shifts' ℓ1 norms with their privacy cost Σ ‖shift‖₁/scale.
    """
    Z, Zp = normalise(X, lo, hi), normalise(Xp, lo, hi)
    n, p = Z.shape
    lap = laplace_parts(draws, n, p, k)
    if isinstance(lap, str):
        return lap
    q = noisy_quantities(Z, lap, k)
    iu = np.triu_indices(p)
    shift_mu = Z.sum(axis=0) - Zp.sum(axis=0)
    shift_mom = (Z.T @ Z - Zp.T @ Zp)[iu]
    shift_k = (Z - Zp) @ (q["U"][0, :, :k] * np.asarray(signs, dtype=float))
    shifts = {id(lap[0]): shift_mu[None, :], id(lap[1]): shift_mom[None, :], id(lap[2]): shift_k[None, :, :]}
    script = [d._replace(values=d.values + shifts[id(d)]) if id(d) in shifts else d for d in draws]
    l1 = [float(np.abs(shift_mu).sum()), float(np.abs(shift_mom).sum()), float(np.abs(shift_k).sum())]
    cost = sum(s / _scale(d) for s, d in zip(l1, lap))
    return script, {"l1": l1, "cost": cost, "bounds": [p, p * (p + 1) / 2, math.sqrt(k * p)]}
