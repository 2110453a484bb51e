"""Performance on the population the items come from, for models scored on the same items.

Two estimands, two kinds (``kind=`` in :class:`~spe.several.ManyResult`):

* ``"sample"``: the metric of *these* N items, with their own labels; each posterior
  draw of the label model draws the unknown ones. With every item labeled it is exact.
* ``"population"``: the metric of the population the items were drawn from, the value
  a large held-out set of items like these would show (SSME's protocol scores this). Two
  things are unknown then: P(y = 1) of each kind of item (the label model's draw q, with
  no label-draw noise) and how often each kind of item occurs (these N items are one
  sample of them). The second is the Bayesian bootstrap (Rubin 1981): per draw, weights
  w ~ Dirichlet(1, ..., 1) over the items, so a score group's positives are
  sum_i w_i q_i (a labeled item counts its label) and its items sum_i w_i. The weights
  are independent Exp(1) variables, unnormalised, since every metric is a ratio.

The two differ by more than the noise of N labels: sample average precision over a
thousand items with few positives is biased upwards against the population's (the
precision at the first few positives is a ratio of small counts), and an interval about
these items does not cover the population's value as often as it says.

``spe.fit``'s ``kind="population"`` takes the items' scores as given (no bootstrap of
the items); for one model's result in :func:`spe.fit_many` (``res[name]``) the population
sweep is this one, so its accessors agree with :meth:`ManyResult.metric_draws`.
"""

from __future__ import annotations

import numpy as np

from ..metrics import Sweep

#: Items per block when weights and probabilities are evaluated, so memory stays (draws x block).
_BLOCK_CELLS = 4_000_000


def bootstrap_blocks(seed: int, n_draws: int, n_items: int):
    """(items, (draws, len(items)) Exp(1) weights) per block of items, the same for every
    model of one result (each block seeded by ``seed`` and its index)."""
    step = max(1, _BLOCK_CELLS // max(n_draws, 1))
    for b, start in enumerate(range(0, n_items, step)):
        items = np.arange(start, min(n_items, start + step))
        yield items, np.random.default_rng([seed, b]).standard_exponential((n_draws, items.size))


def population_sums(model, labels, group, n_groups: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """(draws, groups) bootstrap-weighted positives and items per score group.

    ``model``: the label posterior (``prob_positive(item indices)`` and ``n_draws``);
    ``labels``: (N,) 0/1 or NaN; ``group``: (N,) each item's score group.
    """
    known = ~np.isnan(labels)
    pos = np.zeros((model.n_draws, n_groups))
    items_per_group = np.zeros((model.n_draws, n_groups))
    for items, w in bootstrap_blocks(seed, model.n_draws, labels.size):
        q = model.prob_positive(items)
        k = known[items]
        q[:, k] = labels[items[k]]
        order = np.argsort(group[items], kind="stable")
        g = group[items][order]
        starts = np.flatnonzero(np.r_[True, g[1:] != g[:-1]])
        pos[:, g[starts]] += np.add.reduceat((w * q)[:, order], starts, axis=1)
        items_per_group[:, g[starts]] += np.add.reduceat(w[:, order], starts, axis=1)
    return pos, items_per_group


def population_sweep(model, labels, group, n_groups: int, seed: int) -> Sweep:
    """The sweep of the population kind over score groups in ascending order."""
    return Sweep(*population_sums(model, labels, group, n_groups, seed))


def population_accuracy(sweep: Sweep, predicted_positive_groups) -> np.ndarray:
    """(draws,) accuracy of predicting positive in the groups flagged (ascending order)."""
    k = int(np.sum(predicted_positive_groups))  # the flagged groups are the k highest
    if k == 0:
        return sweep.n_neg / sweep.n_items
    tp, fp = sweep.tp[:, k - 1], sweep.fp[:, k - 1]
    return (tp + sweep.n_neg - fp) / sweep.n_items
