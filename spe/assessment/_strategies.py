"""Which group to label next (Ji et al., Table 1 and Algorithms 1-4).

A strategy maps the current Beta posteriors (plus which groups still have unlabeled
items, and the group sizes) to ``k`` groups; the assessor then labels a random item of
each. Thompson variants sample accuracies from the posterior and act on the sample.
"""

from __future__ import annotations

import numpy as np

from ._metrics import BetaGroups, beta_variance, rope_probabilities

STRATEGIES = ("random", "ts-estimate", "ts-worst", "ttts-worst", "ts-compare", "greedy-estimate",
              "epsilon-greedy-estimate", "ts-costliest", "ts-least-calibrated")
#: Strategies whose reward needs more than the per-group accuracy posterior.
RICH_STRATEGIES = ("ts-costliest", "ts-least-calibrated")
#: Options :func:`choose` takes; the assessor's other options feed the rich strategies and
#: :meth:`~spe.assessment.Assessor.calibration_error`.
CHOOSE_OPTIONS = ("epsilon", "top_two_beta", "compare", "rope")
OPTIONS = CHOOSE_OPTIONS + ("cost", "confidence", "n_bins")


def _pick_max(scores, available, rng):
    s = np.where(available, scores, -np.inf)
    best = np.flatnonzero(s == s.max())
    return int(rng.choice(best))


def estimation_reward(post: BetaGroups, theta, weights):
    """Expected p_g * (Var now - Var after one label), outcome z ~ Bernoulli(theta)."""
    a, b = post.alpha, post.beta
    now = beta_variance(a, b)
    after = theta * beta_variance(a + 1, b) + (1 - theta) * beta_variance(a, b + 1)
    return weights * (now - after)


def choose(strategy, post: BetaGroups, available, weights, rng, k=1, *, epsilon=0.1,
           top_two_beta=0.5, compare=None, rope=0.05):
    """Indices of ``k`` groups to label next (repeats allowed only when one group is left)."""
    if strategy not in STRATEGIES:
        raise ValueError(f"unknown strategy {strategy!r}; choose from {STRATEGIES}")
    available = np.asarray(available, bool).copy()
    if not available.any():
        raise ValueError("every item is already labeled")
    chosen = []
    if strategy == "ts-worst":  # multiple-play TS: the k lowest sampled accuracies
        theta = post.sample(rng)
        order = np.argsort(np.where(available, theta, np.inf))
        return [int(g) for g in order[: min(k, int(available.sum()))]]
    for _ in range(k):
        if strategy == "random":  # a uniformly random unlabeled item = group by remaining size
            p = np.where(available, weights, 0.0)
            g = int(rng.choice(p.size, p=p / p.sum()))
        elif strategy == "ts-estimate":
            g = _pick_max(estimation_reward(post, post.sample(rng), weights), available, rng)
        elif strategy in ("greedy-estimate", "epsilon-greedy-estimate"):
            if strategy.startswith("epsilon") and rng.random() < epsilon:
                g = int(rng.choice(np.flatnonzero(available)))
            else:
                g = _pick_max(estimation_reward(post, post.mean(), weights), available, rng)
        elif strategy == "ttts-worst":
            g = _top_two(post, available, rng, top_two_beta)
        else:  # ts-compare
            g = _compare(post, available, rng, compare, rope)
        chosen.append(g)
        if available.sum() > 1:
            available[g] = False
    return chosen


def _top_two(post, available, rng, beta, max_resample=100):
    theta = post.sample(rng)
    first = int(np.argmin(np.where(available, theta, np.inf)))
    if rng.random() >= beta or available.sum() < 2:
        return first
    for _ in range(max_resample):  # re-sample until another arm is the lowest
        theta = post.sample(rng)
        second = int(np.argmin(np.where(available, theta, np.inf)))
        if second != first:
            return second
    return first


def _compare(post, available, rng, pair, epsilon, n_mc=2000):
    """Greedy expected ROPE confidence lambda after one more label from g1 or g2."""
    if pair is None or len(pair) != 2:
        raise ValueError("strategy 'ts-compare' needs compare=(g1, g2)")
    g1, g2 = (int(x) for x in pair)
    theta = post.sample(rng)
    seed = int(rng.integers(2**31))
    best, best_val = None, -np.inf
    for g in (g1, g2):
        if not available[g]:
            continue
        val = 0.0
        for z, pz in ((1, theta[g]), (0, 1 - theta[g])):
            a, b = post.alpha.copy(), post.beta.copy()
            (a if z else b)[g] += 1
            val += pz * rope_probabilities(BetaGroups(a, b), g1, g2, epsilon, seed, n_mc).max()
        if val > best_val:
            best, best_val = g, val
    if best is None:
        raise ValueError("both compared groups are fully labeled")
    return best


def _top_k(values, available, k):
    order = np.argsort(np.where(available, -values, np.inf))
    return [int(g) for g in order[: min(k, int(available.sum()))]]


def costliest(confusion, cost, group_column, available, rng, k=1):
    """Multiple-play TS for the most costly predicted classes: reward sum_j c_jk theta_jk of
    each group's predicted class k (``group_column``; -1 for a group with no items)."""
    theta = confusion.sample(rng, 1)[0]
    reward = np.einsum("jk,jk->k", np.asarray(cost, float), theta)
    col = np.asarray(group_column)
    return _top_k(np.where(col >= 0, reward[col], -np.inf), available, k)


def least_calibrated(cells, available, rng, k=1):
    """Multiple-play TS for the least calibrated groups: reward sum_b p_gb |theta_gb - s_gb|
    (``cells``: a ``_calibration.BinnedAccuracy``)."""
    theta = cells.theta_draws(rng, 1)[0]
    gap = np.bincount(cells.group, weights=cells.weight * np.abs(theta - cells.confidence),
                      minlength=available.size)
    return _top_k(gap, available, k)
