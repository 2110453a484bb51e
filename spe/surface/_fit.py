"""``spe.accuracy_surface``: the entry point for accuracy over attribute combinations."""

from __future__ import annotations

import numpy as np

from .._util.seeds import child_generators
from .._util.threads import one_blas_thread
from ..metrics import check_n_draws
from ..scores import align_on_index
from ._arms import attribute_columns, column_length
from ._counts import ArmCounts, as_confidence, as_correct, count_arms
from ._membership import with_uncertain_membership
from ._model import fit_surface
from ._result import AccuracySurface
from ._uncertain import expand


@one_blas_thread
def accuracy_surface(attributes, correct, confidence=None, *, bins=None, pairs: bool = True, n_draws: int = 400,
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
        Attributes of the N items (strings, integers, categories, numbers). Every attribute
        needs at least two values. Missing values (None, NaN, pandas NA) are refused with
        an error naming the attribute and the first such item: give them a level of their
        own (e.g. ``"unknown"``). Levels are sorted, except that a pandas ordered
        ``Categorical`` keeps its categories' order in tables and plots. A numeric
        attribute with more than 12 distinct values is continuous and is cut into bins
        (see ``bins``); the bins, e.g. ``"[25, 45)"``, are its levels, in order. A dict
        value may be an :class:`~spe.surface.UncertainAttribute` (an attribute
        classifier's probabilities): items are then split across arms by its recalibrated
        probabilities.
    correct : array-like (N,)
        Matched to ``attributes`` on their pandas index when both have one (a mismatch
        is an error), by position otherwise. 1 where the classifier was right on the item, 0 where wrong, NaN where not labeled;
        or a graded correctness in [0, 1] (e.g. a BLEU score; the AAA paper's
        ``Agree(y, y_hat)``), and the surface is then the mean score. A graded score
        enters the model as a fraction of a success (a quasi-binomial likelihood: the
        means are those of the scores; the intervals treat each unlabeled item's score as
        if it were 0 or 1, so they are wider than the scores' spread needs).
    confidence : array-like (N,), optional
        The classifier's confidence in its prediction (e.g. its top-1 probability), in [0, 1].
        Without it, every arm's estimate comes from labels alone (pooled across arms).
    bins : int or dict name -> int or sequence of edges, optional
        How continuous attributes are cut: a number of quantile bins for every continuous
        attribute (default 4), or per attribute a number of bins or increasing edges
        covering its values (``{"age": [18, 25, 45, 100]}``; an attribute named here is cut
        even if it has 12 or fewer values).
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

    Raises
    ------
    ValueError
        Missing attribute values, an attribute with a single value, correctness outside
        [0, 1], a confidence outside [0, 1], or nothing to learn from (no label and no
        confidence).

    See Also
    --------
    spe.surface.surface_from_counts : the same from counts merged over chunks.
    spe.aaa : the AAA paper's own estimators.

    Examples
    --------
    >>> import numpy as np, spe
    >>> rng = np.random.default_rng(0)
    >>> n = 600
    >>> group = rng.choice(["a", "b", "c"], n)
    >>> age = rng.uniform(18, 80, n)                   # continuous: cut into 4 quantile bins
    >>> p_right = np.where(group == "c", 0.6, 0.9)
    >>> correct = np.where(rng.random(n) < 0.3, (rng.random(n) < p_right) * 1.0, np.nan)
    >>> surf = spe.accuracy_surface({"group": group, "age": age}, correct, seed=0)
    >>> surf.n_arms
    12
    >>> surf.table("age")["rows"].tolist()  # doctest: +ELLIPSIS
    ['[18..., ...)', ..., '[..., 79.9...]']
    >>> est = surf.marginal(group="c")
    >>> bool(est.lower < 0.75 < est.upper)
    True
    """
    check_n_draws(n_draws)
    items, attributes, correct, confidence = align_on_index(attributes, correct, confidence,
                                                            names=("attributes", "correct", "confidence"))
    orders = {}
    columns = attribute_columns(attributes, bins=bins, orders=orders)
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
    counts, row_arm = count_arms(columns, y[item], row_conf, weights=share, return_item_arm=True, order=orders)
    fit = fit_surface(counts, pairs=pairs, n_draws=n_draws, rng=fit_rng)
    if item.size > n:  # some item may sit in more than one arm
        fit = with_uncertain_membership(fit, columns, item, share, row_arm, y, conf, pairs, n_draws, fit_rng,
                                        order=orders)
    return AccuracySurface(fit, rows=(row_arm, item, share), labeled=labeled, uncertain=uncertain,
                           seed=int(pick_seed.integers(2**63)), items=items,
                           orders={k: v for k, v in orders.items() if k not in uncertain})


@one_blas_thread
def surface_from_counts(counts: ArmCounts, *, pairs: bool = True, n_draws: int = 400, seed=None) -> AccuracySurface:
    """An accuracy surface from counts (:func:`spe.surface.count_arms`, merged over chunks).

    For data larger than memory: count each chunk, merge, fit. The result knows no items,
    so ``suggest_labels`` is not available.

    Parameters
    ----------
    counts : ArmCounts
        From :func:`spe.surface.count_arms`, merged over chunks with ``merge``.
    pairs, n_draws, seed
        As in :func:`spe.accuracy_surface`.

    Returns
    -------
    AccuracySurface

    Raises
    ------
    TypeError
        ``counts`` is not an ArmCounts.
    ValueError
        No label and no confidence counted, or an attribute with a single value.

    Examples
    --------
    >>> import numpy as np
    >>> from spe.surface import count_arms, surface_from_counts
    >>> rng = np.random.default_rng(0)
    >>> g = rng.choice(["a", "b"], 400)
    >>> correct = np.where(rng.random(400) < 0.3, (rng.random(400) < 0.8) * 1.0, np.nan)
    >>> counts = count_arms({"g": g[:200]}, correct[:200]).merge(count_arms({"g": g[200:]}, correct[200:]))
    >>> surface_from_counts(counts, seed=0).n_arms
    2
    """
    if not isinstance(counts, ArmCounts):
        raise TypeError(f"counts must be an ArmCounts (spe.surface.count_arms), got {type(counts).__name__}")
    check_n_draws(n_draws)
    if not counts.has_confidence and counts.n_labeled.sum() == 0:
        raise ValueError("no item is labeled and no confidence was counted: nothing informs the accuracy")
    single = [n for j, n in enumerate(counts.names) if np.unique(counts.codes[:, j]).size < 2]
    if single:
        raise ValueError(f"attribute {single[0]!r} takes a single value in all the counts: it splits nothing; "
                         "leave it out")
    (fit_rng,) = child_generators(seed, 1)
    return AccuracySurface(fit_surface(counts, pairs=pairs, n_draws=n_draws, rng=fit_rng))
