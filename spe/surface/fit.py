"""``spe.accuracy_surface``: the entry point for accuracy over attribute combinations."""

from __future__ import annotations

import numbers
from dataclasses import replace

import numpy as np
from scipy import special

from .._util.seeds import child_generators
from .._util.threads import one_blas_thread
from .arms import attribute_columns
from .counts import ArmCounts, as_confidence, as_correct, count_arms, logit_confidence
from .estimate import ArmEstimate
from .model import fit_surface
from .result import AccuracySurface
from .uncertain import expand


def _check_draws(n_draws):
    if not isinstance(n_draws, numbers.Integral) or isinstance(n_draws, bool) or n_draws < 10:
        raise ValueError(f"n_draws must be an integer >= 10, got {n_draws!r}")


@one_blas_thread
def accuracy_surface(attributes, correct, confidence=None, *, pairs: bool = True, n_draws: int = 400,
                     seed=None) -> AccuracySurface:
    """A classifier's accuracy on every combination of attributes, from a few labels.

    Each attribute combination present among the items (an *arm*) gets the posterior of
    its accuracy on its items. The model: every item is right with probability
    sigmoid(alpha + beta * logit(confidence) + attribute effects), where the first two
    terms recalibrate the classifier's own confidence from the labels (so arms without a
    single label still get an informed estimate) and the attribute effects (main effects,
    pairwise interactions, an arm's own deviation) let the labels correct it where the
    confidence is wrong about a group. Simpler members (the confidence as it is; only
    recalibrated) are pooled with it by their marginal likelihoods.

    Parameters
    ----------
    attributes : DataFrame, dict name -> (N,) values, or (N, A) array
        Categorical attributes of the N items (strings, integers, ...). Every attribute
        needs at least two values; missing values need a level of their own. A dict value
        may be an :class:`~spe.surface.UncertainAttribute` (an attribute classifier's
        probabilities): items are then split across arms by its recalibrated probabilities.
    correct : array-like (N,)
        1 where the classifier was right on the item, 0 where wrong, NaN where not labeled.
    confidence : array-like (N,), optional
        The classifier's confidence in its prediction (e.g. its top-1 probability), in [0, 1].
        Without it, every arm's estimate comes from labels alone (pooled across arms).
    pairs : bool
        Model pairwise interactions of attributes (default) or main effects only.
    n_draws : int
        Posterior draws of every arm's accuracy.
    seed : int, numpy Generator or None

    Returns
    -------
    AccuracySurface
        ``to_frame()``, ``marginal(**values)``, ``suggest_labels(k)``, ``plot(rows, cols)``,
        ``summary()``.

    Examples
    --------
    >>> surf = spe.accuracy_surface({"sex": sex, "race": race}, correct, confidence=p.max(1), seed=0)
    >>> surf.to_frame().sort_values("accuracy").head()
    >>> surf.marginal(sex="Female")
    """
    _check_draws(n_draws)
    columns = attribute_columns(attributes)
    first = next(iter(columns.values()))
    n = (first.probs if hasattr(first, "probs") else first).shape[0]
    y = as_correct(correct, n)
    conf = as_confidence(confidence, n)
    labeled = ~np.isnan(y)
    if conf is None and not labeled.any():
        raise ValueError("no item is labeled and no confidence is given: nothing informs the accuracy; "
                         "label some items (correct = 1/0) or pass the classifier's confidence")
    columns, item, share, uncertain = expand(columns, n)
    fit_rng, pick_seed = child_generators(seed, 2)
    row_conf = None if conf is None else conf[item]
    counts, row_arm = count_arms(columns, y[item], row_conf, weights=share, return_item_arm=True)
    fit = fit_surface(counts, pairs=pairs, n_draws=n_draws, rng=fit_rng)
    if item.size > n:  # some item may sit in more than one arm
        fit = _with_uncertain_membership(fit, columns, item, share, row_arm, y, conf, pairs, n_draws, fit_rng)
    return AccuracySurface(fit, rows=(row_arm, item, share), labeled=labeled, uncertain=uncertain,
                           seed=int(pick_seed.integers(2**63)))


#: EM steps for items split across arms (their labels also say which arm they are in), and
#: imputations of every item's arm from the result, whose fits are pooled.
EM_STEPS = 3
IMPUTATIONS = 20


def _with_uncertain_membership(fit, columns, item, share, row_arm, y, conf, pairs, n_draws, rng):
    """Memberships that learn from the labels: EM to the mode, then a short data
    augmentation chain (draw every item's arm given one posterior draw of the arms'
    accuracies, refit) whose fits are pooled, so intervals carry the uncertainty of which
    items are in which arm."""
    row_conf = None if conf is None else conf[item]
    for _ in range(EM_STEPS):
        weights = membership(fit, share, item, row_arm, y, conf)
        fit = fit_surface(count_arms(columns, y[item], row_conf, weights=weights), pairs=pairs,
                          n_draws=n_draws, rng=rng)
    per = max(n_draws // IMPUTATIONS, 10)
    draws, sizes, constants, slopes = [], [], [], []
    for _ in range(IMPUTATIONS):
        weights = membership(fit, share, item, row_arm, y, conf, draw=int(rng.integers(fit.slope.size)))
        imputed = count_arms(columns, y[item], row_conf, weights=_draw_rows(weights, item, rng).astype(float))
        fit = fit_surface(imputed, pairs=pairs, n_draws=per, rng=rng)
        draws.append(np.where(imputed.arm_items < 0.5, np.nan, fit.accuracy.draws))
        sizes.append(np.broadcast_to(imputed.arm_items, fit.accuracy.draws.shape))
        constants.append(fit.arm_constant)
        slopes.append(fit.slope)
    draws = np.concatenate(draws)
    accuracy = ArmEstimate(np.nanmean(draws, axis=0), draws, "spe", items=np.concatenate(sizes))
    return replace(fit, arm_constant=np.concatenate(constants), slope=np.concatenate(slopes), accuracy=accuracy)


def _draw_rows(weights, item, rng) -> np.ndarray:
    """One row per item, drawn with the rows' shares of the item (a boolean mask over rows)."""
    order = np.argsort(item, kind="stable")
    cum = np.cumsum(weights[order])
    start = np.searchsorted(item[order], np.arange(item.max() + 1))
    base = np.concatenate([[0.0], cum])[start]
    u = base + rng.random(start.size) * (np.append(base[1:], cum[-1]) - base)
    picked = np.minimum(np.searchsorted(cum, u, side="right"), cum.size - 1)
    chosen = np.zeros(item.size, dtype=bool)
    chosen[order[picked]] = True
    return chosen


def membership(fit, share, item, row_arm, y, conf, draw=None) -> np.ndarray:
    """Each row's share of its item, given the item's label: P(arm | x, right or wrong).

    A labeled item that was right is more likely in an arm where the classifier is often
    right (Bayes' rule with the arms' accuracies: posterior means, or one posterior
    ``draw``); unlabeled items keep their prior shares.
    """
    x = np.zeros(item.size) if conf is None else logit_confidence(conf[item])
    rows = slice(None) if draw is None else slice(draw, draw + 1)
    p = special.expit(fit.arm_constant[rows][:, row_arm] + fit.slope[rows, None] * x).mean(axis=0)
    c = y[item]
    lik = np.where(np.isnan(c), 1.0, np.where(c == 1, p, 1 - p))
    post = share * lik
    total = np.bincount(item, weights=post)
    return post / total[item]


@one_blas_thread
def surface_from_counts(counts: ArmCounts, *, pairs: bool = True, n_draws: int = 400, seed=None) -> AccuracySurface:
    """An accuracy surface from counts (:func:`spe.surface.count_arms`, merged over chunks).

    For data larger than memory: count each chunk, merge, fit. The result knows no items,
    so ``suggest_labels`` is not available.
    """
    if not isinstance(counts, ArmCounts):
        raise TypeError(f"counts must be an ArmCounts (spe.surface.count_arms), got {type(counts).__name__}")
    _check_draws(n_draws)
    if not counts.has_confidence and counts.n_labeled.sum() == 0:
        raise ValueError("no item is labeled and no confidence was counted: nothing informs the accuracy")
    (fit_rng,) = child_generators(seed, 1)
    return AccuracySurface(fit_surface(counts, pairs=pairs, n_draws=n_draws, rng=fit_rng))
