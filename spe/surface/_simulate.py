"""Synthetic accuracy surfaces: items with attributes, a true P(correct) per item, and a
classifier confidence that is informative but not calibrated.

The generating model is generic, not any estimator's own:

- **Arms.** ``A`` attributes with 2-6 levels; each level has a popularity, each cell of
  the Cartesian product a log-normal size on top, and items fall into cells by a
  multinomial draw, so arm sizes are very uneven (many arms with fewer than 5 items, a few
  with hundreds); empty cells are not arms.
- **Truth.** ``logit p_i = b0 + sum_k main_k[a_k] + sum_{k<l} pair_kl[a_k, a_l] + u_arm + h_i``:
  main effects, every pairwise interaction, an arm-level deviation and an item difficulty
  ``h_i``. ``correct_i ~ Bernoulli(p_i)``.
- **Confidence.** ``sigmoid(h_i / T + d + e_i)``: the classifier sees each item's difficulty
  but not its arm's effect, is globally miscalibrated (temperature ``T``, offset ``d``) and
  noisy (``e_i``). With ``informative=False`` the confidence is ``sigmoid(d + e_i)``, unrelated
  to anything.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations

import numpy as np
from scipy import special


@dataclass(frozen=True)
class SimulatedSurface:
    """Generated items.

    Attributes
    ----------
    attributes : dict name -> (N,) int level codes
    correct : ndarray (N,) of 0/1 (float), realised
    confidence : ndarray (N,) in (0, 1)
    p : ndarray (N,), the true P(correct) of each item

    Examples
    --------
    >>> from spe.surface import simulate_surface
    >>> sim = simulate_surface(1000, (2, 3), seed=0)
    >>> sim.n_items, bool(0 < sim.p.mean() < 1)
    (1000, True)
    """

    attributes: dict
    correct: np.ndarray
    confidence: np.ndarray
    p: np.ndarray

    @property
    def n_items(self) -> int:
        return self.p.size


def simulate_surface(n_items: int = 20_000, n_levels=(2, 3, 3, 4, 5, 6), *, informative: bool = True,
                     base_accuracy: float = 0.8, main_sd: float = 0.4, pair_sd: float = 0.2,
                     arm_sd: float = 0.25, difficulty_sd: float = 1.2, size_sd: float = 1.5,
                     temperature: float = 0.7, offset: float = 2.0, confidence_sd: float = 0.5,
                     seed=0) -> SimulatedSurface:
    """Generate items with attributes, true chances of being right, outcomes and confidences.

    Parameters
    ----------
    n_items : int
    n_levels : sequence of int, each in 2..6
        Levels per attribute; the Cartesian product bounds the number of arms.
    informative : bool
        False: the confidence carries no information about correctness.
    base_accuracy : float
        ``sigmoid(b0)``, the accuracy of a typical arm on an item of average difficulty.
    main_sd, pair_sd, arm_sd, difficulty_sd : float
        Standard deviations (logit scale) of main effects, pairwise interactions, arm
        deviations and item difficulties.
    size_sd : float
        Log-normal spread of cell sizes (larger: more uneven arms).
    temperature, offset, confidence_sd : float
        The confidence's miscalibration: ``sigmoid(h / temperature + offset + N(0, confidence_sd))``.
    seed : int or numpy Generator

    Returns
    -------
    SimulatedSurface

    Examples
    --------
    >>> sim = simulate_surface(5_000, (2, 3, 4), seed=1)
    >>> sorted(sim.attributes), sim.correct.shape
    (['attr0', 'attr1', 'attr2'], (5000,))
    """
    n_levels = tuple(int(k) for k in n_levels)
    if not n_levels or min(n_levels) < 2 or max(n_levels) > 6:
        raise ValueError(f"n_levels must be 1+ attributes with 2-6 levels each, got {n_levels}")
    if int(n_items) < 1:
        raise ValueError(f"n_items must be positive, got {n_items}")
    if not 0 < base_accuracy < 1:
        raise ValueError(f"base_accuracy must lie in (0, 1), got {base_accuracy}")
    rng = np.random.default_rng(seed)
    codes = _allocate(int(n_items), n_levels, size_sd, rng)
    arm_logit = _arm_logits(codes, n_levels, base_accuracy, main_sd, pair_sd, arm_sd, rng)
    h = difficulty_sd * rng.standard_normal(codes.shape[0])
    p = special.expit(arm_logit + h)
    correct = (rng.random(p.size) < p).astype(float)
    noise = confidence_sd * rng.standard_normal(p.size)
    signal = h / temperature if informative else 0.0
    confidence = special.expit(signal + offset + noise)
    attributes = {f"attr{k}": codes[:, k] for k in range(codes.shape[1])}
    return SimulatedSurface(attributes, correct, confidence, p)


def _allocate(n_items, n_levels, size_sd, rng) -> np.ndarray:
    """Level codes (N, A): items spread over the cells by popularity x log-normal size."""
    popularity = [rng.lognormal(0.0, 0.5, k) for k in n_levels]
    weight = popularity[0]
    for pop in popularity[1:]:
        weight = np.multiply.outer(weight, pop)
    weight = weight.ravel() * rng.lognormal(0.0, size_sd, weight.size)
    cell = rng.choice(weight.size, size=n_items, p=weight / weight.sum())
    return np.stack(np.unravel_index(cell, n_levels), axis=1).astype(np.int64)


def _arm_logits(codes, n_levels, base_accuracy, main_sd, pair_sd, arm_sd, rng) -> np.ndarray:
    """Each item's arm-level logit: intercept, main effects, pairwise interactions, arm noise."""
    out = np.full(codes.shape[0], special.logit(base_accuracy))
    for k, levels in enumerate(n_levels):
        out += (main_sd * rng.standard_normal(levels))[codes[:, k]]
    for k, j in combinations(range(len(n_levels)), 2):
        out += (pair_sd * rng.standard_normal((n_levels[k], n_levels[j])))[codes[:, k], codes[:, j]]
    cell = np.ravel_multi_index(codes.T, n_levels)
    arm_noise = arm_sd * rng.standard_normal(int(np.prod(n_levels)))
    return out + arm_noise[cell]
