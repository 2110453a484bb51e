"""Memberships of items whose attributes are uncertain, learned with the surface.

An item split across arms by an attribute classifier's probabilities (``_uncertain``)
has a label that also speaks to its arm: a right answer is likelier in an arm where the
classifier is often right. EM takes the shares of labeled items to their posterior given
the fitted surface; a data-augmentation chain then draws every item's arm (given one
posterior draw of the arms' accuracies) and refits, and the chain's fits are pooled, so
intervals carry the uncertainty of which items are in which arm. Counts, members and
weights reported are those of the EM fit (expected shares); the draws are the chain's.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
from scipy import special

from ._counts import count_arms, logit_confidence
from ._estimate import ArmEstimate
from ._model import fit_surface

#: EM steps for items split across arms (their labels also say which arm they are in), and
#: imputations of every item's arm from the result, whose fits are pooled.
EM_STEPS = 3
IMPUTATIONS = 20
_DRAWS_AT_ONCE = 8


def with_uncertain_membership(fit, columns, item, share, row_arm, y, conf, pairs, n_draws, rng, order=None):
    """Memberships that learn from the labels: EM to the mode, then a short data
    augmentation chain (draw every item's arm given one posterior draw of the arms'
    accuracies, refit) whose fits are pooled, so intervals carry the uncertainty of which
    items are in which arm."""
    row_conf = None if conf is None else conf[item]
    for _ in range(EM_STEPS):
        weights = membership(fit, share, item, row_arm, y, conf)
        fit = fit_surface(count_arms(columns, y[item], row_conf, weights=weights, order=order), pairs=pairs,
                          n_draws=n_draws, rng=rng)
    expected = fit
    per = max(n_draws // IMPUTATIONS, 10)
    draws, sizes, constants, slopes = [], [], [], []
    for _ in range(IMPUTATIONS):
        weights = membership(fit, share, item, row_arm, y, conf, draw=int(rng.integers(fit.slope.size)))
        imputed = count_arms(columns, y[item], row_conf, weights=_draw_rows(weights, item, rng).astype(float),
                             order=order)
        fit = fit_surface(imputed, pairs=pairs, n_draws=per, rng=rng)
        draws.append(np.where(imputed.arm_items < 0.5, np.nan, fit.accuracy.draws))
        sizes.append(np.broadcast_to(imputed.arm_items, fit.accuracy.draws.shape))
        constants.append(fit.arm_constant)
        slopes.append(fit.slope)
    draws = np.concatenate(draws)
    never = np.isnan(draws).all(axis=0)  # arms no imputation populated: their expected-share draws
    fill = expected.accuracy.draws[np.arange(draws.shape[0]) % expected.accuracy.draws.shape[0]]
    draws[:, never] = fill[:, never]
    accuracy = ArmEstimate(np.nanmean(draws, axis=0), draws, "spe", items=np.concatenate(sizes))
    return replace(expected, arm_constant=np.concatenate(constants), slope=np.concatenate(slopes), accuracy=accuracy)


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
    draws = range(fit.slope.size) if draw is None else [draw]
    p = np.zeros(item.size)
    for start in range(0, len(draws), _DRAWS_AT_ONCE):  # bounded memory: (a few draws) x rows
        rows = list(draws[start:start + _DRAWS_AT_ONCE])
        p += special.expit(fit.arm_constant[rows][:, row_arm] + fit.slope[rows, None] * x).sum(axis=0)
    p /= len(draws)
    c = y[item]
    known = np.nan_to_num(c)  # graded correctness c in [0, 1]: p^c (1 - p)^(1 - c)
    lik = np.where(np.isnan(c), 1.0, p ** known * (1 - p) ** (1 - known))
    post = share * lik
    total = np.bincount(item, weights=post)
    return post / total[item]


