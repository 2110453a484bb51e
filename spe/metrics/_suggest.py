"""Which items to label next: the expected reduction of a quantity's posterior variance.

Labeling item i reveals y_i. Under the current posterior the quantity Q (average
precision, the PR curve, ...) then has expected variance E[Var(Q | y_i)], and the
expected reduction is Var(E[Q | y_i]) (law of total variance). The label draws already
hold the joint posterior of Q and every item's label, so this is estimated from them:
for an unlabeled item of score group g, a draw says it is positive with probability
a_dg = (unlabeled positives of g in draw d) / (unlabeled items of g). With weights w_d
and d_d = Q_d - E[Q],

    p_g = sum_d w_d a_dg,    s_g = sum_d w_d a_dg d_d,
    reduction_g = |s_g|^2 / (p_g (1 - p_g))

(summed over the recall grid for a curve). This counts what the label teaches through the
model parameters as well as the item's own term, because the draws carry both.
"""

from __future__ import annotations

import numpy as np

from . import _curves as C
from . import _sweeps as SW
from ._thresholds import check_thresholds, rates_at

TARGETS = {
    "pr": lambda sweep: SW.sample_precision_at_recall(sweep, C.DEFAULT_RECALL_GRID),
    "ap": SW.sample_average_precision,
    "auroc": SW.sample_auroc,
    "max_f1": SW.sample_max_f1,
    "prevalence": lambda sweep: sweep.n_pos / sweep.n_items,
}
#: Precision and recall when predicting positive at score >= ``threshold`` (a decision
#: already taken: which labels make its performance certain).
THRESHOLD_TARGET = "threshold"


#: Share of suggested items drawn at random (see :meth:`~spe.report.SPEResult.suggest_labels`).
RANDOM_SHARE = 0.3


def check_share(share) -> float:
    if isinstance(share, bool) or not isinstance(share, (int, float, np.floating)) or not 0 <= share <= 1:
        raise ValueError(f"random_share must be a number in [0, 1], got {share!r}")
    return float(share)


def check_target(target, threshold=None) -> str:
    if target not in TARGETS and target != THRESHOLD_TARGET:
        names = ", ".join(map(repr, [*TARGETS, THRESHOLD_TARGET]))
        raise ValueError(f"target must be one of {names}, got {target!r}")
    if (target == THRESHOLD_TARGET) != (threshold is not None):
        raise ValueError("target='threshold' needs threshold= (the score at which items are predicted "
                         "positive), and threshold= needs target='threshold'")
    return target


def target_values(target, sweep, group_thresholds, threshold=None) -> np.ndarray:
    """(M,) or (M, K) draws of the target quantity."""
    if check_target(target, threshold) == THRESHOLD_TARGET:
        t = float(check_thresholds(threshold)[0])
        at = rates_at(sweep, group_thresholds, t)
        return np.column_stack([at["precision"], at["recall"]])
    return TARGETS[target](sweep)


def variance_reduction(values, weights, share_positive) -> np.ndarray:
    """(G,) expected reduction of Var(Q) from one label in each group.

    ``values``: (M,) or (M, K) draws of Q; ``weights``: (M,) normalised;
    ``share_positive``: (M, G) probability, per draw, that an unlabeled item of the
    group is positive. Groups where every draw agrees on the label get 0.
    """
    q = np.asarray(values, float).reshape(len(weights), -1)
    dev = q - weights @ q
    p = weights @ share_positive
    s = share_positive.T @ (weights[:, None] * dev)
    spread = p * (1.0 - p)
    out = np.zeros(p.size)
    ok = spread > 1e-12
    out[ok] = np.sum(s[ok] ** 2, axis=1) / spread[ok]
    return out


def unlabeled_share(positive_counts, data) -> np.ndarray:
    """(M, G) fraction of each group's unlabeled items that a draw makes positive."""
    unl = data.n_unlabeled
    return np.where(unl > 0, (positive_counts - data.n_pos) / np.maximum(unl, 1), 0.0)


def pick_items(item_value, group, labeled, k, rng, random_share=0.0) -> np.ndarray:
    """k unlabeled items: round(k * random_share) uniformly at random, the rest of highest
    value (one per group before any group's second), those first."""
    candidates = np.flatnonzero(~labeled)
    if k > candidates.size:
        raise ValueError(f"k = {k} but only {candidates.size} items are unlabeled")
    n_random = int(round(k * random_share))
    best = _best_items(item_value, group, candidates, k - n_random, rng)
    rest = np.setdiff1d(candidates, best)
    return np.r_[best, rng.choice(rest, n_random, replace=False)].astype(np.int64)


def _best_items(item_value, group, candidates, k, rng) -> np.ndarray:
    order = rng.permutation(candidates)
    g = group[order]
    # rank of each item within its group, in the random order
    first = np.argsort(g, kind="stable")
    rank = np.empty(order.size, dtype=np.int64)
    sorted_g = g[first]
    starts = np.r_[0, np.flatnonzero(np.diff(sorted_g)) + 1]
    run_start = np.repeat(starts, np.diff(np.r_[starts, sorted_g.size]))
    rank[first] = np.arange(sorted_g.size) - run_start
    chosen = np.lexsort((-item_value[order], rank))[:k]
    return order[chosen]


def label_values(sweep, weights, positive_counts, data, target, threshold=None) -> np.ndarray:
    """(N,) expected variance reduction of ``target`` per item, from one set of label draws
    (``sweep`` of ``positive_counts``); labeled items get 0."""
    values = target_values(target, sweep, data.threshold, threshold)
    per_group = variance_reduction(values, weights, unlabeled_share(positive_counts, data))
    return np.where(data.is_labeled, 0.0, per_group[data.group])


def suggest(item_value, data, k, random_share, rng) -> np.ndarray:
    """Indices of ``k`` unlabeled items to label next.

    Most are the items whose labels are expected to shrink the target's posterior variance
    most (``item_value``; one item per score group before any group's second), most
    useful first. A ``random_share`` of the k (rounded) are drawn uniformly from the other
    unlabeled items: labels picked only where the model is unsure teach a misspecified
    model nothing about the rest of the score range, and its bands then narrow around the
    wrong curve (``benchmarks/suggest.py``). Label them, then fit again. ``rng`` drives the
    random share and breaks ties among items of equal score.
    """
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
        raise ValueError(f"k must be a positive integer, got {k!r}")
    return pick_items(item_value, data.group, data.is_labeled, int(k), rng, check_share(random_share))
