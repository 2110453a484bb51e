"""What scores show before any label: the kind of score a classifier gives.

The prior over how a classifier's scores map to P(y = 1) differs by kind: probabilities
that are nearly calibrated, probabilities pushed to exact 0s and 1s (naive Bayes, an
over-fitted network), a handful of distinct probabilities (k-NN, a shallow tree), and
margins on an open scale (SVMs). The kind is read off the scores alone, so a prior
conditioned on it is still a prior.
"""

from __future__ import annotations

import numpy as np

#: Score kinds, each with its own calibration-map prior.
KINDS = ("probability", "saturated", "few-values", "margin")
#: Probabilities with at least this share of items at exactly 0 or 1 are "saturated".
SATURATED_SHARE = 0.1
#: At most this many distinct values: "few-values" (spe.fit's own limit for a tree's leaves).
FEW_VALUES = 20


def score_kind(scores, probabilities: bool, weights=None) -> str:
    """The kind of ``scores`` (one of :data:`KINDS`); ``weights``: items per score when the
    scores are group representatives.

    ``"margin"`` for scores that are not probabilities; else ``"few-values"`` (at most
    :data:`FEW_VALUES` distinct), ``"saturated"`` (at least :data:`SATURATED_SHARE` of the
    items at exactly 0 or 1) or ``"probability"``.

    See Also
    --------
    ClassifierPrior.map_prior : the map prior of a kind.

    Examples
    --------
    >>> import numpy as np
    >>> from spe.learned import score_kind
    >>> score_kind(np.linspace(0.01, 0.99, 100), probabilities=True)
    'probability'
    >>> score_kind(np.r_[np.zeros(20), np.linspace(0.01, 0.99, 80)], probabilities=True)
    'saturated'
    >>> score_kind([0.1, 0.5, 0.9], probabilities=True), score_kind([-1.0, 2.0, 3.5], probabilities=False)
    ('few-values', 'margin')
    """
    s = np.asarray(scores, float)
    w = np.ones(s.size) if weights is None else np.asarray(weights, float)
    if not probabilities:
        return "margin"
    if np.unique(s).size <= FEW_VALUES:
        return "few-values"
    at_ends = w[(s <= 0.0) | (s >= 1.0)].sum() / w.sum()
    return "saturated" if at_ends >= SATURATED_SHARE else "probability"
