"""Draws of the unknown labels given draws of P(y = 1 | score) (docs/method.md, section 1).

Items sharing a group (a distinct score, or a fine bin of scores when N is huge) are
thresholded together by every performance curve, so only the *number* of positives per
group matters: for each draw it is the group's labeled positives plus a
Binomial(unlabeled count, P(y = 1 | group)) draw. That is exact for distinct-score
groups and keeps memory at draws x groups instead of draws x items.
"""

from __future__ import annotations

import numpy as np

from .scores import ScoreData


def draw_positive_counts(group_prob, data: ScoreData, rng) -> np.ndarray:
    """(M, G) integer array: positives per group under each draw of ``group_prob`` (M, G)."""
    group_prob = np.atleast_2d(group_prob)
    out = np.broadcast_to(data.n_pos, group_prob.shape).astype(np.int64)
    prob = np.clip(group_prob, 0.0, 1.0)
    # One unlabeled item (every group of distinct scores): a uniform is ~5x cheaper than
    # numpy's general binomial sampler, and the same Bernoulli law.
    single = np.flatnonzero(data.n_unlabeled == 1)
    if single.size:
        out[:, single] += rng.random((prob.shape[0], single.size)) < prob[:, single]
    several = np.flatnonzero(data.n_unlabeled > 1)
    if several.size:
        out[:, several] += rng.binomial(data.n_unlabeled[several], prob[:, several])
    return out
