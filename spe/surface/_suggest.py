"""Which items to label next: the largest expected fall in the arms' posterior variance.

The goal is the macro average over arms (every arm counts the same, as in the AAA paper),
so a label is worth what it removes from its arm's posterior variance of the realised
accuracy. For arm a with N_a items, that variance has two parts: the arm's linear
predictor b_a (posterior variance v_a, seen through the slope J_a of the realised accuracy
in b_a) and the unlabeled items' own outcomes (sum p_i (1 - p_i) / N_a^2). One more label
with curvature w = p (1 - p) updates v_a to v_a / (1 + w v_a) (a Gaussian site update),
takes its item out of the slope (J_a - w / N_a) and removes its outcome variance w / N_a^2. A batch is chosen greedily, each pick
updating its arm as if its label had arrived; sharing through attribute effects is left
out, which only undervalues labels in crowded neighbourhoods.
"""

from __future__ import annotations

import numpy as np


def after_one_label(jacobian, latent_var, item_var, n_items):
    """(J', v') once one more label lands in the arm: v' = v / (1 + w v), J' = J - w / N
    (the labeled item no longer depends on the arm's predictor)."""
    w = np.maximum(item_var, 1e-12)
    return np.maximum(jacobian - w / np.maximum(n_items, 1), 0.0), latent_var / (1 + w * latent_var)


def expected_gains(jacobian, latent_var, item_var, n_items):
    """Fall in each arm's realised-accuracy variance from one more random label in it:
    J^2 v - J'^2 v' + w / N^2 (:func:`after_one_label`)."""
    jacobian_after, after = after_one_label(jacobian, latent_var, item_var, n_items)
    w, n = np.maximum(item_var, 1e-12), np.maximum(n_items, 1)
    return jacobian**2 * latent_var - jacobian_after**2 * after + w / n**2


def choose_arms(k, jacobian, latent_var, item_var, n_items, n_unlabeled, eligible):
    """Greedy batch of k arms (repeats allowed), each pick updating its arm's state."""
    jac, var = jacobian.astype(float).copy(), latent_var.astype(float).copy()
    left = n_unlabeled.astype(float).copy()
    picks = []
    for _ in range(k):
        gains = np.where(eligible & (left >= 1), expected_gains(jac, var, item_var, n_items), -np.inf)
        a = int(np.argmax(gains))
        if not np.isfinite(gains[a]):
            break
        picks.append(a)
        jac[a], var[a] = after_one_label(jac[a], var[a], item_var[a], n_items[a])
        left[a] -= 1
    return np.array(picks, dtype=np.int64)


def items_for_arms(picks, row_arm, row_item, row_share, unlabeled, rng):
    """One unlabeled item per pick: the one most surely in the arm (an item split across
    arms by uncertain attributes counts by its share; ties, as with exact attributes, at
    random), never the same item twice."""
    noise = rng.random(row_arm.size)
    taken, chosen, queues = set(), [], {}
    for a in picks:
        if a not in queues:
            rows = np.flatnonzero((row_arm == a) & unlabeled[row_item])
            queues[a] = list(row_item[rows[np.lexsort((noise[rows], -row_share[rows]))]][::-1])
        queue = queues[a]
        while queue and queue[-1] in taken:
            queue.pop()
        if queue:
            taken.add(queue[-1])
            chosen.append(int(queue.pop()))
    return np.array(chosen, dtype=np.int64)
