"""Recalibration: P(y = 1) per item and for new scores, from the pooled label posterior."""

from __future__ import annotations

import numpy as np

from ..scores import as_score_array

_BLOCK_ELEMENTS = 2_000_000


def item_probabilities(group_mean_prob, data) -> np.ndarray:
    """P(y_i = 1 | data) per item from the posterior mean per score group; labeled items: their label."""
    data.require_items("prob_positive() (one probability per item)")
    out = np.asarray(group_mean_prob, float)[data.group]
    labeled = data.is_labeled
    out[labeled] = data.labels[labeled]
    return out


def calibrate(label_posterior, scores) -> np.ndarray:
    """Recalibrated P(y = 1 | score), averaged over the draws and score models.

    The mixture clamps scores outside its frame to the frame's edge (it has not seen
    scores there); the calibration maps extrapolate their sigmoid; the per-value model
    (``cells``) refuses a score that is none of its values. Evaluated in blocks so memory
    stays draws x block, whatever the number of scores.
    """
    s = as_score_array(scores)
    step = max(1, _BLOCK_ELEMENTS // max(label_posterior.n_draws, 1))
    return np.concatenate([label_posterior.mean_prob_positive(s[i : i + step]) for i in range(0, s.size, step)])
