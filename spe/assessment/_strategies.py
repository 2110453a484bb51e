"""Which group to label next (Ji et al., Table 1 and Algorithms 1-4).

A strategy maps the current Beta posteriors (plus which groups still have unlabeled
items, and the group sizes) to ``k`` groups; the assessor then labels a random item of
each. Thompson variants sample accuracies from the posterior and act on the sample.
"""

from __future__ import annotations

import numpy as np

from scipy import stats

from ._metrics import BetaGroups, beta_variance, rope_quadrature

#: Every strategy the :class:`~spe.assessment.Assessor` takes, e.g. ``"ucb-worst" in STRATEGIES``.
STRATEGIES = ("random", "ts-estimate", "ts-worst", "ttts-worst", "ts-compare", "greedy-estimate",
              "epsilon-greedy-estimate", "epsilon-greedy-worst", "ucb-worst", "ts-confusion", "ts-costliest",
              "ts-least-calibrated")
#: Strategies whose reward needs more than the per-group accuracy posterior.
RICH_STRATEGIES = ("ts-confusion", "ts-costliest", "ts-least-calibrated")
#: Bayesian UCB's bound (Ji et al.'s supplement: the 97.5% quantile of the reward -theta).
UCB_QUANTILE = 0.975
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
        return _top_k(-post.sample(rng), available, k)
    if strategy == "ucb-worst":  # Bayesian UCB of the reward -theta: the lowest 2.5% quantiles
        return _top_k(-stats.beta.ppf(1 - UCB_QUANTILE, post.alpha, post.beta), available, k)
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
        elif strategy == "epsilon-greedy-worst":
            if rng.random() < epsilon:
                g = int(rng.choice(np.flatnonzero(available)))
            else:
                g = _pick_max(-post.mean(), available, rng)
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


def _compare(post, available, rng, pair, epsilon):
    """Greedy expected ROPE confidence lambda after one more label from g1 or g2 (Ji et al.),
    the outcome's probability a Thompson draw, lambda by quadrature."""
    if pair is None or len(pair) != 2:
        raise ValueError("strategy 'ts-compare' needs compare=(g1, g2)")
    g1, g2 = (int(x) for x in pair)
    theta = post.sample(rng)
    best, best_val = None, -np.inf
    for g in (g1, g2):
        if not available[g]:
            continue
        val = 0.0
        for z, pz in ((1, theta[g]), (0, 1 - theta[g])):
            a, b = post.alpha.copy(), post.beta.copy()
            (a if z else b)[g] += 1
            val += pz * rope_quadrature(a[g1], b[g1], a[g2], b[g2], epsilon).max()
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


def dirichlet_total_variance(alpha):
    """sum_j Var(theta_j) of Dirichlet(alpha) along axis 0 (also for stacked updates)."""
    a0 = alpha.sum(axis=0)
    return (a0**2 - np.sum(alpha**2, axis=0)) / (a0**2 * (a0 + 1.0))


def confusion_reward(alpha, theta, weight):
    """Ji et al.'s Table 1 confusion reward of one column: weight * (sum_j Var now - E_z sum_j
    Var after one label), the true class z ~ Multinomial(theta) (a Thompson draw)."""
    now = dirichlet_total_variance(alpha)
    a0, sq = alpha.sum(), np.sum(alpha**2)
    after = ((a0 + 1.0) ** 2 - (sq + 2.0 * alpha + 1.0)) / ((a0 + 1.0) ** 2 * (a0 + 2.0))
    return weight * (now - theta @ after)


def confusion_choice(confusion, group_column, available, weights, rng, k=1):
    """Thompson sampling for the confusion matrix: each group's (predicted class's) column
    drawn, the ``k`` groups of largest expected posterior-variance reduction."""
    theta = confusion.sample(rng, 1)[0]
    col = np.asarray(group_column)
    reward = np.array([confusion_reward(confusion.alpha[:, c], theta[:, c], w) if c >= 0 else -np.inf
                       for c, w in zip(col, weights)])
    return _top_k(reward, available, k)
