"""Draws of the unknown labels given parameter draws (method.md section 2, step 4).

Items sharing a group (a distinct score, or a fine bin of scores when N is huge) are
thresholded together by every performance curve, so only the *number* of positives per
group matters: for each parameter draw it is the group's labeled positives plus a
Binomial(unlabeled count, P(y = 1 | z, theta)) draw. That is exact for distinct-score
groups and keeps memory at draws x groups instead of draws x items.
"""

from __future__ import annotations

import numpy as np

from .model import MixtureModel
from .scores import ScoreData

_BLOCK_ELEMENTS = 2_000_000


def positive_counts(model: MixtureModel, theta, data: ScoreData, rng) -> np.ndarray:
    """(M, G) integer array: positives per group under each parameter draw."""
    theta = np.atleast_2d(theta)
    m, g = theta.shape[0], data.n_groups
    out = np.broadcast_to(data.n_pos, (m, g)).astype(np.int64)
    unl = np.flatnonzero(data.n_unlabeled > 0)
    if unl.size == 0:
        return out
    n = data.n_unlabeled[unl]
    step = max(1, _BLOCK_ELEMENTS // unl.size)
    for start in range(0, m, step):
        p = model.prob_positive(theta[start : start + step], data.z[unl])
        out[start : start + step, unl] += rng.binomial(n, np.clip(p, 0.0, 1.0))
    return out
