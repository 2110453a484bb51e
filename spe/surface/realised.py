"""Draws of each arm's realised accuracy: its labeled items as they are, the rest drawn.

The accuracy a user asks for is that of *these* items in the arm ("how often is it right
on the Hispanic women over 45 in my data?"). Its labeled items are known; each unlabeled
item is right with its own probability sigmoid(b_a + beta x_i), so under one posterior
draw of (b, beta) the count of right unlabeled items in a confidence cell is binomial.
That binomial part is the floor no estimator can pass: even exact per-item chances miss
the realised accuracy by sum p_i (1 - p_i) / n^2 in expectation.
"""

from __future__ import annotations

import numpy as np
from scipy import special

from .counts import ArmCounts

#: Draws handled at once (bounds memory at ``chunk x cells`` floats).
_CHUNK_CELLS = 4_000_000


def realised_accuracy(counts: ArmCounts, arm_constant: np.ndarray, slope, rng: np.random.Generator,
                      expected: bool = False) -> np.ndarray:
    """(S, M) draws of each arm's accuracy over all its items.

    Parameters
    ----------
    counts : ArmCounts
    arm_constant : (S, M) draws of each arm's linear predictor at zero logit-confidence
    slope : (S,) draws of the confidence slope beta, or 0 without confidence
    expected : bool
        Use each unlabeled item's probability instead of a drawn outcome (the arm's
        expected accuracy given the model, without the binomial part).
    """
    n_draws = arm_constant.shape[0]
    unlabeled = counts.n_items - counts.n_labeled
    keep = unlabeled > 1e-12
    arm, x, m = counts.cell_arm[keep], counts.cell_x[keep], unlabeled[keep]
    slope = np.broadcast_to(np.asarray(slope, float).reshape(-1, 1) if np.ndim(slope) else slope, (n_draws, 1))
    whole = np.allclose(m, np.round(m))
    right = np.zeros((n_draws, counts.n_arms))
    step = max(1, _CHUNK_CELLS // max(arm.size, 1))
    for start in range(0, n_draws, step):
        rows = slice(start, min(start + step, n_draws))
        p = special.expit(arm_constant[rows][:, arm] + slope[rows] * x)
        if expected:
            hits = m * p
        elif whole:
            hits = rng.binomial(np.round(m).astype(np.int64), p).astype(float)
        else:  # fractional items (uncertain attributes): a normal approximation of the count
            hits = np.clip(m * p + np.sqrt(m * p * (1 - p)) * rng.standard_normal(p.shape), 0, m)
        for j, r in enumerate(range(rows.start, rows.stop)):
            right[r] = np.bincount(arm, weights=hits[j], minlength=counts.n_arms)
    items = counts.arm_items
    return (counts.arm_correct + right) / np.where(items > 0, items, 1.0)
