"""Recalibration: P(y = 1) per item and for new scores, from the pooled label posterior."""

from __future__ import annotations

import numpy as np

from ..scores import as_score_array

_BLOCK_ELEMENTS = 2_000_000


def item_probabilities(group_mean_prob, data) -> np.ndarray:
    """P(y_i = 1 | data) per item from the posterior mean per score group; labeled items: their label.

    Raises
    ------
    ValueError
        If ``data`` holds counts rather than items (a fit on :class:`spe.ScoreCounts`).

    See Also
    --------
    calibrate : the same for any scores.

    Examples
    --------
    >>> import warnings
    >>> from spe.scores import prepare
    >>> from spe.calibration import item_probabilities
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")  # only 4 items
    ...     data = prepare([0.1, 0.4, 0.4, 0.9], [None, 1, None, None])
    >>> item_probabilities([0.2, 0.5, 0.9], data)  # groups: 0.1, 0.4, 0.9
    array([0.2, 1. , 0.5, 0.9])
    """
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

    Parameters
    ----------
    label_posterior : spe.pooling.LabelPosterior
        A fit's pooled draws (``SPEResult.label_posterior``).
    scores : array-like of shape (n,)

    Returns
    -------
    ndarray of shape (n,)

    See Also
    --------
    spe.SPEResult.calibrate : the same, as a method of the result.

    Examples
    --------
    >>> import numpy as np
    >>> import spe
    >>> from spe.calibration import calibrate
    >>> rng = np.random.default_rng(0)
    >>> scores = rng.uniform(0.01, 0.99, 200)
    >>> labels = np.where(np.arange(200) < 40, rng.uniform(size=200) < scores, np.nan)
    >>> res = spe.fit(scores, labels, seed=0)
    >>> calibrate(res.label_posterior, [0.2, 0.8]).round(1)
    array([0.2, 0.8])
    """
    s = as_score_array(scores)
    step = max(1, _BLOCK_ELEMENTS // max(label_posterior.n_draws, 1))
    return np.concatenate([label_posterior.mean_prob_positive(s[i : i + step]) for i in range(0, s.size, step)])
