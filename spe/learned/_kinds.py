"""What scores show before any label: the kind of score a classifier gives.

The prior over how a classifier's scores map to P(y = 1) differs by kind: probabilities
that are nearly calibrated, probabilities pushed to exact 0s and 1s (naive Bayes, an
over-fitted network), a handful of distinct probabilities (k-NN, a shallow tree), margins
on an open scale whose zero is the classifier's boundary (SVMs), and other scores whose
zero means nothing (counts, distances, a margin shifted to be positive). The kind is read
off the scores alone, so a prior conditioned on it is still a prior.
"""

from __future__ import annotations

import numpy as np

from ..calibration import straddles_zero

#: Score kinds, each with its own calibration-map prior.
KINDS = ("probability", "saturated", "few-values", "margin", "score")
#: The kinds of scores that are probabilities (the others are margins and other scores).
PROBABILITY_KINDS = ("probability", "saturated", "few-values")
#: Probabilities with at least this share of items at exactly 0 or 1 are "saturated".
SATURATED_SHARE = 0.1
#: At most this many distinct values: "few-values" (spe.fit's own limit for a tree's leaves).
FEW_VALUES = 20


def score_kind(scores, probabilities: bool, weights=None) -> str:
    """The kind of ``scores`` (one of :data:`KINDS`); ``weights``: items per score when the
    scores are group representatives.

    Scores that are not probabilities are a ``"margin"`` when their zero lies inside their
    range (:func:`spe.calibration.straddles_zero`: the map's origin is that zero, the decision
    boundary) and a ``"score"`` otherwise (the origin is their median). Probabilities are
    ``"few-values"`` (at most :data:`FEW_VALUES` distinct), ``"saturated"`` (at least
    :data:`SATURATED_SHARE` of the items at exactly 0 or 1) or ``"probability"``.

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
    >>> score_kind([3.0, 4.5, 6.0], probabilities=False)
    'score'
    """
    s = np.asarray(scores, float)
    w = np.ones(s.size) if weights is None else np.asarray(weights, float)
    if not probabilities:
        return "margin" if straddles_zero(s, w) else "score"
    if np.unique(s).size <= FEW_VALUES:
        return "few-values"
    at_ends = w[(s <= 0.0) | (s >= 1.0)].sum() / w.sum()
    return "saturated" if at_ends >= SATURATED_SHARE else "probability"
