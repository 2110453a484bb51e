"""Variance-based exploration (AAA paper 3.4, eq. 12), in batches.

The paper labels one item at a time: the arm with the highest posterior variance of its
accuracy (eq. 12) among arms with items left to label, then an item of that arm (the one
with the highest affiliation P(a | x); with exactly known attributes every item of the arm
has affiliation 1, so one at random, seeded).

For a batch of k without refitting, arms are chosen greedily: after an arm is picked, its
variance is lowered to what one more label would leave, ``1 / (1/v + 1/(m (1 - m)))`` with
``m`` its posterior mean (one Bernoulli observation's Fisher information added to the
precision; exact for a Beta posterior in the limit of many labels), and the next arm is
the highest again. An arm can thus get several labels in one batch when its variance stays
the largest, and no arm gets more labels than it has unlabeled items. Ties (e.g. arms
without labels under Beta-I) are broken at random, seeded.
"""

from __future__ import annotations

import numpy as np

from ..surface import ArmEstimate


def variance_policy(estimate: ArmEstimate, n_unlabeled, k: int, seed=0) -> np.ndarray:
    """How many items to label next in each arm: (M,) ints summing to min(k, unlabeled items).

    Parameters
    ----------
    estimate : ArmEstimate
        Any estimator's posterior; its draws' variance is the policy's score.
    n_unlabeled : (M,) items not yet labeled per arm
    k : batch size
    seed : int or numpy Generator (breaks ties)

    Returns
    -------
    ndarray (M,) of int

    Raises
    ------
    ValueError
        ``n_unlabeled`` not one entry per arm, or a negative ``k``.

    Examples
    --------
    >>> import numpy as np
    >>> from spe.aaa import variance_policy
    >>> from spe.surface import ArmEstimate
    >>> draws = np.random.default_rng(0).beta([50, 2], [50, 2], size=(500, 2))  # arm 1 far more uncertain
    >>> variance_policy(ArmEstimate(draws.mean(0), draws), n_unlabeled=[10, 10], k=3).tolist()
    [0, 3]
    """
    left = np.asarray(n_unlabeled, dtype=float).copy()
    if left.shape != estimate.mean.shape:
        raise ValueError(f"n_unlabeled has shape {left.shape}, the estimate covers {estimate.mean.shape} arms")
    if int(k) < 0:
        raise ValueError(f"k must be nonnegative, got {k}")
    rng = np.random.default_rng(seed)
    order = rng.permutation(left.size)  # random tie-breaking: argmax takes the first of equals
    var = estimate.variance[order]
    info = 1.0 / np.clip(estimate.mean * (1 - estimate.mean), 1e-4, None)[order]
    left = left[order]
    picks = np.zeros(left.size, dtype=np.int64)
    score = np.where(left >= 1, var, -np.inf)
    for _ in range(int(k)):
        j = int(np.argmax(score))
        if not np.isfinite(score[j]):
            break
        picks[j] += 1
        left[j] -= 1
        var[j] = 1.0 / (1.0 / max(var[j], 1e-300) + info[j])
        score[j] = var[j] if left[j] >= 1 else -np.inf
    out = np.zeros_like(picks)
    out[order] = picks
    return out


def pick_items(item_arm, labeled, per_arm, seed=0) -> np.ndarray:
    """Item indices: ``per_arm[a]`` unlabeled items of each arm a, drawn at random (seeded).

    Examples
    --------
    >>> import numpy as np
    >>> from spe.aaa import pick_items
    >>> item_arm = np.array([0, 0, 0, 1, 1, 1])
    >>> labeled = np.array([True, False, False, False, False, True])
    >>> picks = pick_items(item_arm, labeled, per_arm=[1, 2], seed=0)
    >>> len(picks), bool(set(picks.tolist()) <= {1, 2, 3, 4})
    (3, True)
    """
    item_arm = np.asarray(item_arm, dtype=np.int64)
    labeled = np.asarray(labeled, dtype=bool)
    rng = np.random.default_rng(seed)
    candidates = np.flatnonzero(~labeled)
    candidates = candidates[rng.permutation(candidates.size)]
    arms = item_arm[candidates]
    # rank of each candidate within its arm, in the shuffled order
    order = np.argsort(arms, kind="stable")
    sorted_arms = arms[order]
    start = np.searchsorted(sorted_arms, sorted_arms, side="left")
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size) - start
    chosen = candidates[rank < np.asarray(per_arm)[arms]]
    return np.sort(chosen)


def suggest_items(estimate: ArmEstimate, item_arm, labeled, k: int, seed=0) -> np.ndarray:
    """The method's own policy: k unlabeled item indices (variance-greedy arms, random items).

    Examples
    --------
    >>> import numpy as np
    >>> from spe.aaa import suggest_items
    >>> from spe.surface import ArmEstimate
    >>> draws = np.random.default_rng(0).beta([50, 2], [50, 2], size=(500, 2))
    >>> item_arm = np.array([0, 0, 0, 1, 1, 1])
    >>> suggest_items(ArmEstimate(draws.mean(0), draws), item_arm, np.zeros(6, bool), k=2, seed=0).tolist()
    [3, 5]
    """
    item_arm = np.asarray(item_arm, dtype=np.int64)
    labeled = np.asarray(labeled, dtype=bool)
    rng = np.random.default_rng(seed)
    n_unlabeled = np.bincount(item_arm[~labeled], minlength=estimate.mean.size)
    per_arm = variance_policy(estimate, n_unlabeled, k, rng)
    return pick_items(item_arm, labeled, per_arm, rng)
