"""The AAA paper's ladder of estimators behind one registry, and their realised form.

Every entry takes arm-level data ``(codes (M, A), n_levels (A,), n_labeled (M,),
n_correct (M,), seed=0, n_draws=500)`` and returns an :class:`.ArmEstimate` of each arm's
accuracy rho_a (the paper's estimand, eq. 2: the accuracy of the arm's population).

    >>> from spe.aaa import LADDER
    >>> estimates = {name: fit(codes, n_levels, n_labeled, n_correct, seed=0)
    ...              for name, fit in LADDER.items()}                       # doctest: +SKIP

:func:`realised` turns such an estimate into one of the accuracy over the arm's own items
(labeled ones as observed, the others Bernoulli(rho_a)), the quantity a benchmark's truth
(all items of an arm) is.
"""

from __future__ import annotations

import numpy as np

from ..surface import ArmEstimate
from ._baselines import confidence_only, fit_beta_i, fit_cpredictor
from ._berngp import fit_berngp
from ._betagp import fit_betagp, fit_betagp_sl, fit_betagp_slp

LADDER = {
    "CPredictor": fit_cpredictor,
    "Beta-I": fit_beta_i,
    "BernGP": fit_berngp,
    "BetaGP": fit_betagp,
    "BetaGP-SL": fit_betagp_sl,
    "BetaGP-SLP": fit_betagp_slp,
}

__all__ = ["LADDER", "realised", "confidence_only"]


def realised(estimate: ArmEstimate, n_items, n_labeled, n_correct, seed=0) -> ArmEstimate:
    """Accuracy over each arm's own items, from an estimate of its population accuracy.

    ``(c_a + Binomial(N_a - n_a, rho_a)) / N_a`` for each draw of rho_a; the mean is
    ``(c_a + (N_a - n_a) E[rho_a]) / N_a``. Fractional counts are rounded for the draws.

    Parameters
    ----------
    estimate : ArmEstimate
        Of each arm's population accuracy (any :data:`LADDER` entry).
    n_items, n_labeled, n_correct : array-like (M,)
        Items, labeled items and right answers per arm.
    seed : int or numpy Generator

    Returns
    -------
    ArmEstimate

    Raises
    ------
    ValueError
        Counts of the wrong shape, an empty arm, or more labels than items.

    Examples
    --------
    >>> import numpy as np
    >>> from spe.aaa import realised
    >>> from spe.surface import ArmEstimate
    >>> est = ArmEstimate(np.array([0.5, 0.5]), np.full((100, 2), 0.5))
    >>> realised(est, n_items=[4, 10], n_labeled=[4, 2], n_correct=[3, 2]).mean.tolist()
    [0.75, 0.6]
    """
    n_items = np.asarray(n_items, dtype=float)
    n_labeled = np.asarray(n_labeled, dtype=float)
    n_correct = np.asarray(n_correct, dtype=float)
    if not (n_items.shape == n_labeled.shape == n_correct.shape == estimate.mean.shape):
        raise ValueError("n_items, n_labeled and n_correct must have one entry per arm of the estimate")
    if (n_items <= 0).any() or (n_labeled > n_items + 1e-9).any():
        raise ValueError("every arm needs n_items > 0 and n_labeled <= n_items")
    rest = np.maximum(n_items - n_labeled, 0.0)
    rng = np.random.default_rng(seed)
    unseen = rng.binomial(np.round(rest).astype(np.int64), np.clip(estimate.draws, 0.0, 1.0))
    draws = (n_correct + unseen) / n_items
    mean = (n_correct + rest * estimate.mean) / n_items
    return ArmEstimate(mean, draws, estimate.method)
