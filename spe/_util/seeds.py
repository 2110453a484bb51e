"""Independent random streams for each step of a fit, from the user's one ``seed``."""

from __future__ import annotations

import numbers

import numpy as np


def _check_seed(seed):
    if seed is not None and not isinstance(seed, (numbers.Integral, np.random.SeedSequence, np.random.Generator)):
        raise TypeError(f"seed must be an int, a numpy Generator, a SeedSequence or None, got {seed!r}")


def child_seeds(seed, n) -> list[int]:
    """n integer seeds (``spe.fit``'s steps)."""
    _check_seed(seed)
    if isinstance(seed, np.random.Generator):
        return [int(s) for s in seed.integers(0, 2**63 - 1, size=n)]
    ss = seed if isinstance(seed, np.random.SeedSequence) else np.random.SeedSequence(seed)
    return [int(c.generate_state(1, np.uint64)[0]) for c in ss.spawn(n)]


def child_generators(seed, n) -> list[np.random.Generator]:
    """n generators spawned from ``seed`` (a Generator contributes one draw as the entropy)."""
    _check_seed(seed)
    if isinstance(seed, np.random.Generator):
        seed = int(seed.integers(2**63))
    ss = seed if isinstance(seed, np.random.SeedSequence) else np.random.SeedSequence(seed)
    return [np.random.default_rng(c) for c in ss.spawn(n)]
