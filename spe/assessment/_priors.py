"""Priors for per-group accuracy: uninformative, score-informed (Ji et al.), SPE-informed.

SPE-informed (docs/method.md, section 7): under posterior draw m, group g's accuracy is the
fraction of its items whose label agrees with the prediction. Given theta_m the items'
labels are independent, so that fraction has exact conditional mean and variance; the
law of total variance over the weighted draws gives its posterior mean and variance, and
a Beta is moment-matched to them. Its strength is capped (default 10 pseudo-labels) so a
handful of real labels can overrule it, and floored at the uninformative strength.
"""

from __future__ import annotations

import numpy as np
from scipy import stats

from ._metrics import BetaGroups

DEFAULT_STRENGTH = 2.0
DEFAULT_MAX_STRENGTH = 10.0
_BLOCK_ELEMENTS = 2_000_000
#: Share of the draws cut from each end for the centre of a multiclass prior.
CENTRE_TRIM = 0.25


def typical(draws):
    """The interquartile mean of ``draws`` along axis 0: the centre of a skewed posterior's bulk
    (its mean is pulled by the tail) that, unlike the median, does not jump between the few
    values a small group's share can take.

    Examples
    --------
    >>> round(float(typical([0.1, 0.8, 0.85, 0.9, 0.95])), 3)   # the mean is 0.72
    0.85
    """
    return stats.trim_mean(np.asarray(draws, dtype=float), CENTRE_TRIM, axis=0)


def check_groups(groups, n=None, *, allow_empty=False):
    """Integer codes 0..G-1, one per item; every code must have items unless ``allow_empty``
    (a group with no items has no mean to centre a prior on)."""
    g = np.asarray(groups)
    if g.ndim != 1 or not np.issubdtype(g.dtype, np.integer) or g.size == 0 or g.min() < 0:
        raise ValueError("groups must be a non-empty 1-D array of integer codes >= 0 (see encode_groups)")
    if n is not None and g.size != n:
        raise ValueError(f"groups has length {g.size} but there are {n} items")
    empty = np.flatnonzero(np.bincount(g) == 0)
    if empty.size and not allow_empty:
        raise ValueError(f"group code(s) {empty[:5].tolist()} have no items, so their prior would be undefined; "
                         "number the groups 0..G-1 with every code used (encode_groups does)")
    return g


def uninformative_prior(n_groups, strength=DEFAULT_STRENGTH) -> BetaGroups:
    """Beta(N0/2, N0/2) for every group (N0 = 2: uniform).

    Examples
    --------
    >>> uninformative_prior(2).alpha.tolist()
    [1.0, 1.0]
    """
    half = np.full(int(n_groups), strength / 2.0)
    return BetaGroups(half, half.copy())


def score_informed_prior(confidence, groups, strength=DEFAULT_STRENGTH) -> BetaGroups:
    """Ji et al.: Beta(N0 s_g, N0 (1 - s_g)), s_g = mean model confidence in group g.

    ``confidence`` is the model's own probability that its prediction is correct (the
    top-1 probability for multiclass models).

    Examples
    --------
    >>> prior = score_informed_prior([0.9, 0.7, 0.6], [0, 0, 1])
    >>> prior.alpha.round(2).tolist(), prior.beta.round(2).tolist()
    ([1.6, 1.2], [0.4, 0.8])
    """
    g = check_groups(groups)
    c = np.asarray(confidence, dtype=float)
    if c.shape != g.shape or np.any((c < 0) | (c > 1)) or not np.all(np.isfinite(c)):
        raise ValueError("confidence must be probabilities in [0, 1], one per item")
    s = np.clip(np.bincount(g, weights=c) / np.bincount(g), 1e-3, 1 - 1e-3)
    return BetaGroups(strength * s, strength * (1 - s))


def spe_group_moments(result, groups, predicted=None):
    """Posterior mean and variance of each group's accuracy under an SPE result.

    ``predicted`` (0/1 per item) compares drawn labels with predictions; ``None`` means
    the SPE "positive" class already is "the prediction is correct" (top-1 route).
    """
    data = result.data
    g = check_groups(groups, data.n_items)
    n_groups = int(g.max()) + 1
    w = result.weights
    p_by_score = result.group_prob  # (M, score groups): the label posterior, any score model
    if predicted is None:
        flip = np.zeros(data.n_items, dtype=bool)
    else:
        pred = np.asarray(predicted, dtype=float)
        if pred.shape != g.shape or not np.all(np.isin(pred, (0.0, 1.0))):
            raise ValueError("predicted must be 0/1, one per item")
        flip = pred == 0.0
    known = data.is_labeled
    known_correct = np.where(flip, 1.0 - data.labels, data.labels)
    m = w.size
    mean_m = np.zeros((m, n_groups))
    var_m = np.zeros((m, n_groups))
    step = max(1, _BLOCK_ELEMENTS // m)
    for start in range(0, data.n_items, step):
        sl = slice(start, start + step)
        q = p_by_score[:, data.group[sl]]
        q = np.where(flip[sl], 1.0 - q, q)
        q = np.where(known[sl], known_correct[sl], q)
        onehot = np.zeros((q.shape[1], n_groups))
        onehot[np.arange(q.shape[1]), g[sl]] = 1.0
        mean_m += q @ onehot
        var_m += (q * (1.0 - q)) @ onehot
    size = np.bincount(g, minlength=n_groups).astype(float)
    mean_m /= size
    var_m /= size**2
    mean = w @ mean_m
    var = np.maximum(w @ (var_m + mean_m**2) - mean**2, 0.0)
    return mean, var


def spe_informed_prior(result, groups, predicted=None, *, max_strength=DEFAULT_MAX_STRENGTH,
                       min_strength=DEFAULT_STRENGTH) -> BetaGroups:
    """Moment-matched Beta per group from an :class:`~spe.report.SPEResult`.

    ``max_strength``: a number of pseudo-labels, or ``"group size"``: strength earned from
    the posterior's own uncertainty, mean (1 - mean) / var - 1, bounded only by the number
    of items in the group (a group's accuracy cannot be worth more labels than it has items).

    Examples
    --------
    >>> import numpy as np, spe
    >>> scores, labels = spe.datasets.load_demo()
    >>> known = np.where(np.arange(scores.size) % 60 == 0, labels, np.nan)    # 30 labels
    >>> res = spe.fit(scores, known, seed=0, progress=False)  # doctest: +SKIP
    >>> prior = spe_informed_prior(res, (scores > 0).astype(int), (scores > 0).astype(float))  # doctest: +SKIP
    >>> prior.n_groups  # doctest: +SKIP
    2
    """
    mean, var = spe_group_moments(result, groups, predicted)
    if isinstance(max_strength, str):
        if max_strength != "group size":
            raise ValueError(f"max_strength must be a number or 'group size', got {max_strength!r}")
        max_strength = np.maximum(np.bincount(np.asarray(groups), minlength=mean.size).astype(float), min_strength)
    elif not 0 < min_strength <= max_strength:
        raise ValueError("need 0 < min_strength <= max_strength")
    mean = np.clip(mean, 1e-3, 1 - 1e-3)
    with np.errstate(divide="ignore", invalid="ignore"):
        strength = mean * (1 - mean) / var - 1.0
    strength = np.clip(np.where(np.isfinite(strength), strength, max_strength), min_strength, max_strength)
    return BetaGroups(mean * strength, (1 - mean) * strength)


def multiclass_informed_prior(result, groups=None, *, min_strength=DEFAULT_STRENGTH) -> BetaGroups:
    """Beta per group from a :class:`~spe.multiclass.MulticlassResult`, strength earned.

    Under each coherent labelling the result draws, group g's accuracy is the share of
    its items whose drawn class is the predicted one; the Beta has the interquartile mean c
    of that share's draws (:func:`typical`) as its mean and the draws' mean squared
    deviation v from c as its variance. Its strength, c (1 - c) / v - 1, is what the
    posterior's own uncertainty supports: no fixed cap, so an honest, sharp posterior
    counts for many labels and a vague one for few (never fewer than ``min_strength``, the
    uninformative prior's). ``groups`` default: predicted classes.

    Averaging a group's accuracy over the label models is not neutral: a temperature that
    flattens the probabilities costs far more accuracy than one that sharpens them gains,
    so the draws are skewed towards low accuracy and their mean sinks below their bulk
    (20 Newsgroups, no labels: 0.71 against the classifier's own 0.72 and a truth of
    0.92). The centre is therefore the bulk's, the draws' interquartile mean (on real files
    the truth sits well above the draws' mean, less above their interquartile mean or
    median: ``python -m benchmarks.assessment_tables`` measures it; on a calibrated
    classifier a low centre turns into a large ECE), and with no labels, where nothing has
    yet contradicted the classifier, its own probabilities (Ji et al.'s score-informed
    mean). The draws then say how far from the centre the accuracy may be: the strength
    comes from their mean squared deviation from it.

    Parameters
    ----------
    result : MulticlassResult
        From :func:`spe.fit_multiclass`; the labels it was fitted on are held by the prior
        (pass them as ``Assessor(prior_labels=...)``).
    groups : (N,) integer codes, optional
        Default: the predicted classes. A code with no items gets Beta(1, 1).
    min_strength : float
        The least strength (pseudo-labels) of a group's Beta.

    Returns
    -------
    BetaGroups

    See Also
    --------
    multiclass_confusion_prior : the same centre and spread for the confusion matrix.

    Examples
    --------
    >>> import numpy as np, spe
    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(0, 3, 150)
    >>> probs = np.full((150, 3), 0.1); probs[np.arange(150), y] = 0.8
    >>> res = spe.fit_multiclass(probs, np.where(np.arange(150) < 20, y, -1), model="temperature",
    ...                          n_draws=100, seed=0)
    >>> prior = multiclass_informed_prior(res)
    >>> bool(np.all(prior.mean() > 0.7))
    True
    """
    if min_strength <= 0:
        raise ValueError("min_strength must be positive")
    predicted = result.predicted
    g = check_groups(predicted if groups is None else groups, predicted.size, allow_empty=True)
    n_groups = int(g.max()) + 1
    size = np.bincount(g, minlength=n_groups).astype(float)
    correct = result.class_draws == predicted  # (draws, N)
    acc = np.stack([np.bincount(g, weights=row, minlength=n_groups) for row in correct]) / np.maximum(size, 1)
    if result.n_labeled == 0:  # the classifier's own accuracy per group
        centre = np.bincount(g, weights=np.exp(result.log_probs.max(axis=1)), minlength=n_groups) / np.maximum(size, 1)
    else:
        centre = typical(acc)
    var = np.mean((acc - centre) ** 2, axis=0)
    mean = np.clip(centre, 1e-3, 1 - 1e-3)
    with np.errstate(divide="ignore"):
        strength = mean * (1 - mean) / var - 1.0
    strength = np.maximum(np.nan_to_num(strength, nan=min_strength, posinf=1e6), min_strength)
    empty = size == 0  # a code with no items (e.g. a class never predicted): uninformative
    mean, strength = np.where(empty, 0.5, mean), np.where(empty, min_strength, strength)
    return BetaGroups(mean * strength, (1 - mean) * strength)
