"""Replay active assessment against an oracle (all labels known) and score it.

Estimation: RMSE of per-group accuracy, sum_g p_g (theta_hat_g - theta_g)^2 under the
square root, with theta_hat the posterior mean, after each budget. Identification: the
number of labels after which the m groups with the lowest posterior-mean accuracy are the
true m least accurate (mean reciprocal rank 1, :func:`~spe.assessment.mrr`) and stay so
up to the budget.
"""

from __future__ import annotations

import numpy as np

from ._assessor import Assessor
from ._identify import mrr
from ._priors import check_groups


def true_accuracy(groups, correct):
    g = check_groups(groups)
    return np.bincount(g, weights=np.asarray(correct, float)) / np.bincount(g)


def run(groups, correct, prior, strategy, budgets, seed, m=1, **options):
    """One replay; returns per-budget RMSE and the labels needed to identify the m worst groups."""
    correct = np.asarray(correct, dtype=int)
    groups = np.asarray(groups)
    truth = true_accuracy(groups, correct)
    p = np.bincount(groups) / groups.size
    assessor = Assessor(groups, None, prior, strategy, seed=seed, **options)
    rmse, identified_at = {}, None
    budgets = sorted(budgets)
    for n in range(1, budgets[-1] + 1):
        idx = assessor.next_items(1)
        if idx.size == 0:
            break
        assessor.update(int(idx[0]), int(correct[idx[0]]))
        mean = assessor.posterior.mean()
        if mrr(mean, truth, m) == 1.0:
            identified_at = n if identified_at is None else identified_at
        else:
            identified_at = None
        if n in budgets:
            rmse[n] = float(np.sqrt(p @ (mean - truth) ** 2))
    return rmse, identified_at


def compare_methods(groups, correct, methods: dict, budgets, runs, seed=0):
    """{method: {"rmse": {budget: mean RMSE}, "identify": median labels (inf if never)}}."""
    out = {}
    for name, (prior, strategy, options) in methods.items():
        rm = {b: [] for b in budgets}
        ident = []
        for r in range(runs):
            res, at = run(groups, correct, prior, strategy, budgets, seed + r, **options)
            for b, v in res.items():
                rm[b].append(v)
            ident.append(np.inf if at is None else at)
        out[name] = {"rmse": {b: float(np.mean(v)) for b, v in rm.items()},
                     "identify": float(np.median(ident)),
                     "identified_fraction": float(np.mean(np.isfinite(ident)))}
    return out
