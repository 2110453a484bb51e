"""Fast replays of active assessment against an oracle, with the package's own strategies.

:class:`spe.assessment.Assessor` recounts its answers at every step (it is built for a
person answering, not for 10^4-step simulations). These replays keep running counts and
call the same choice functions (``_strategies.choose``, ``confusion_choice``); labeling
a random unlabeled item of the chosen group is the same as taking the next item of a
per-group random order, which is what :class:`Pool` does.
"""

from __future__ import annotations

import numpy as np
from spe.assessment import BetaGroups, DirichletColumns
from spe.assessment._strategies import choose, confusion_choice


class Pool:
    """The unlabeled items of each group in a random order; ``exclude``: already labeled."""

    def __init__(self, groups, rng, exclude=()):
        groups = np.asarray(groups)
        self.n_groups = int(groups.max()) + 1
        order = rng.permutation(groups.size)
        if len(exclude):
            order = order[~np.isin(order, np.asarray(list(exclude)))]
        self.queues = [order[groups[order] == g] for g in range(self.n_groups)]
        self.taken = np.zeros(self.n_groups, dtype=np.int64)
        self.sizes = np.bincount(groups, minlength=self.n_groups).astype(float)

    def remaining(self):
        return np.array([q.size for q in self.queues]) - self.taken

    def take(self, g):
        i = self.queues[g][self.taken[g]]
        self.taken[g] += 1
        return int(i)


def beta_replay(groups, correct, prior: BetaGroups, strategy, n_steps, rng, *, plays=1, exclude=(),
                check=None, every=1, allowed=None, stop=None, **options):
    """Label up to ``n_steps`` items chosen by ``strategy`` over Beta posteriors of accuracy.

    ``check(n, alpha, beta)`` is called after every ``every`` labels (and at the end);
    ``allowed``: a mask of groups that may be labeled; ``stop(alpha, beta) -> bool`` ends
    the replay early. ``exclude`` items are labeled already (held by the prior, not
    counted). Returns the number of labels taken.
    """
    pool = Pool(groups, rng, exclude)
    ok, bad = np.zeros(pool.n_groups), np.zeros(pool.n_groups)
    weights = pool.sizes / pool.sizes.sum()
    n = 0
    while n < n_steps:
        remaining = pool.remaining()
        available = remaining > 0 if allowed is None else (remaining > 0) & allowed
        if not available.any():
            break
        post = BetaGroups(prior.alpha + ok, prior.beta + bad)
        chosen = choose(strategy, post, available, remaining if strategy == "random" else weights, rng,
                        plays, **options)
        for g in chosen:
            if pool.remaining()[g] > 0 and n < n_steps:
                i = pool.take(g)
                (ok if correct[i] else bad)[g] += 1
                n += 1
                if check is not None and n % every == 0:
                    check(n, prior.alpha + ok, prior.beta + bad)
        if stop is not None and stop(prior.alpha + ok, prior.beta + bad):
            break
    return n


def confusion_replay(predicted, truth, prior_alpha, strategy, budgets, rng, *, exclude=()):
    """Posterior means of the confusion matrix (K x K, true x predicted) after each budget;
    ``strategy``: "random" or "ts-confusion". Groups are the predicted classes 0..K-1."""
    k = prior_alpha.shape[0]
    pool = Pool(predicted, rng, exclude)
    counts = np.zeros((k, k))
    weights = pool.sizes / pool.sizes.sum()
    columns = np.arange(pool.n_groups)
    out = {}
    for n in range(1, max(budgets) + 1):
        remaining = pool.remaining()
        if strategy == "random":
            g = int(rng.choice(remaining.size, p=remaining / remaining.sum()))
        else:
            g = confusion_choice(DirichletColumns(prior_alpha + counts), columns, remaining > 0, weights, rng, 1)[0]
        i = pool.take(g)
        counts[truth[i], predicted[i]] += 1
        if n in budgets:
            alpha = prior_alpha + counts
            out[n] = alpha / alpha.sum(axis=0, keepdims=True)
    return out
