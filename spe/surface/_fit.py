"""``spe.accuracy_surface``: the entry point for accuracy over attribute combinations."""

from __future__ import annotations

import numpy as np

from .._util.seeds import child_generators
from .._util.threads import one_blas_thread
from ..metrics import check_n_draws
from ._arms import attribute_columns, column_length
from ._counts import ArmCounts, as_confidence, as_correct, count_arms
from ._membership import with_uncertain_membership
from ._model import fit_surface
from ._result import AccuracySurface
from ._uncertain import expand


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
    check_n_draws(n_draws)
    columns = attribute_columns(attributes)
    n = column_length(next(iter(columns.values())))
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
        fit = with_uncertain_membership(fit, columns, item, share, row_arm, y, conf, pairs, n_draws, fit_rng)
    return AccuracySurface(fit, rows=(row_arm, item, share), labeled=labeled, uncertain=uncertain,
                           seed=int(pick_seed.integers(2**63)))


@one_blas_thread
def surface_from_counts(counts: ArmCounts, *, pairs: bool = True, n_draws: int = 400, seed=None) -> AccuracySurface:
    """An accuracy surface from counts (:func:`spe.surface.count_arms`, merged over chunks).

    For data larger than memory: count each chunk, merge, fit. The result knows no items,
    so ``suggest_labels`` is not available.
    """
    if not isinstance(counts, ArmCounts):
        raise TypeError(f"counts must be an ArmCounts (spe.surface.count_arms), got {type(counts).__name__}")
    check_n_draws(n_draws)
    if not counts.has_confidence and counts.n_labeled.sum() == 0:
        raise ValueError("no item is labeled and no confidence was counted: nothing informs the accuracy")
    single = [n for n, lv in zip(counts.names, counts.levels) if lv.size < 2]
    if single:
        raise ValueError(f"attribute {single[0]!r} takes a single value in all the counts: it splits nothing; "
                         "leave it out")
    (fit_rng,) = child_generators(seed, 1)
    return AccuracySurface(fit_surface(counts, pairs=pairs, n_draws=n_draws, rng=fit_rng))
