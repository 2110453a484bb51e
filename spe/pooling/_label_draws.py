"""Draws of the unknown labels given draws of P(y = 1 | score) (docs/method.md, section 1).

Items sharing a group (a distinct score, or a fine bin of scores when N is huge) are
thresholded together by every performance curve, so only the *number* of positives per
group matters: for each draw it is the group's labeled positives plus a
Binomial(unlabeled count, P(y = 1 | group)) draw. That is exact for distinct-score
groups and keeps memory at draws x groups instead of draws x items.
"""

from __future__ import annotations

import numpy as np

from ..scores import ScoreData


def draw_positive_counts(group_prob, data: ScoreData, rng) -> np.ndarray:
    """(M, G) integer array: positives per group under each draw of ``group_prob`` (M, G).

    Each group's labeled positives plus Binomial(unlabeled items, P(y = 1 | group)).

    Examples
    --------
    100 distinct scores, the first 5 labeled positive, the rest unlabeled at P = 1/2:

    >>> import numpy as np
    >>> from spe.pooling import draw_positive_counts
    >>> from spe.scores import prepare
    >>> data = prepare(np.arange(100.0), np.r_[np.ones(5), np.full(95, np.nan)])
    >>> counts = draw_positive_counts(np.full((3, 100), 0.5), data, np.random.default_rng(0))
    >>> counts.shape, counts[:, :5].tolist()
    ((3, 100), [[1, 1, 1, 1, 1], [1, 1, 1, 1, 1], [1, 1, 1, 1, 1]])
    """
    prob = np.clip(np.atleast_2d(group_prob), 0.0, 1.0)
    several = np.flatnonzero(data.n_unlabeled > 1)
    several_prob = prob[:, several]
    # A group with one unlabeled item (every group of distinct scores) is one Bernoulli
    # draw: one uniform per group and draw, compared in place (about 5x cheaper than
    # numpy's general binomial sampler, and no gather/scatter of the (M, G) array).
    single = data.n_unlabeled == 1
    if not single.all():
        prob *= single
    out = (rng.random(prob.shape) < prob).astype(np.int64)
    out += data.n_pos
    if several.size:
        out[:, several] += rng.binomial(data.n_unlabeled[several], several_prob)
    return out
