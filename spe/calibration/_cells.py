"""A score model for scores with a few distinct values: a proportion per value.

    P(y = 1 | s = v_k) = p_k,    p_k ~ Beta(1/2, 1/2) independently (Jeffreys)

Hard predictions (0/1), decision trees with a handful of leaves and rounded scores carry
no shape for a mixture to fit and no continuum for a calibration map to be smooth over:
the only thing to estimate is the share of positives at each value. The posterior of
each share is Beta(1/2 + positives, 1/2 + negatives) among the labeled items with that
value, sampled exactly (equal weights). Values without a labeled item keep the prior
(mean 1/2, wide), which is what the labels support; nothing ties the values together,
so no order is assumed either (a tree whose leaves are mis-ranked shows it).

Used by :func:`spe.fit` for scores with two distinct values, and on request
(``model="cells"``) for scores with at most :data:`MAX_CELLS` values.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

#: Most distinct score values the per-value model accepts: with tens of labels, more
#: values would leave almost every share at its prior.
MAX_CELLS = 20
#: Jeffreys prior Beta(a, a) on each share.
PRIOR_SHAPE = 0.5
#: A score within this (times the values' span, at least 1) of a value is that value: the
#: score frame's round trip moves an exact 0 to 1e-6.
MATCH_TOLERANCE = 2e-6


@dataclass
class CellsFit:
    """Exact posterior draws of the share of positives at each distinct score value.

    Made by :func:`fit_cells`. ``shares`` is (draws, values); ``prob_positive(scores)``
    looks each score's value up.

    Examples
    --------
    >>> import numpy as np
    >>> from spe.calibration import fit_cells
    >>> fit = fit_cells([0, 0, 1, 1], [0, np.nan, 1, np.nan], n_draws=500, rng=np.random.default_rng(0))
    >>> fit.values, fit.n_labeled, fit.shares.shape, fit.prob_positive([1, 0, 1]).shape
    (array([0., 1.]), 2, (500, 2), (500, 3))
    """

    values: np.ndarray  # (K,) distinct scores, ascending
    positives: np.ndarray  # (K,) labeled positives at each value
    negatives: np.ndarray  # (K,) labeled negatives at each value
    shares: np.ndarray  # (M, K) draws of P(y = 1 | s = v_k)
    weights: np.ndarray

    name = "cells"
    khat = float("nan")

    @property
    def n_draws(self) -> int:
        return self.weights.size

    @property
    def ess(self) -> float:
        return float(self.n_draws)

    @property
    def n_labeled(self) -> int:
        return int(self.positives.sum() + self.negatives.sum())

    def chain_index(self) -> None:
        """Exact draws: no chains."""
        return None

    def prob_positive(self, scores, draws=None) -> np.ndarray:
        """(M, n) P(y = 1 | s) under each draw (or the draws indexed by ``draws``)."""
        rows = slice(None) if draws is None else draws
        return self.shares[rows][:, cell_of(self.values, scores)]

    def draws(self) -> dict[str, np.ndarray]:
        return {f"p[{v:.6g}]": self.shares[:, k] for k, v in enumerate(self.values)}

    def describe(self) -> dict:
        return {
            "model": "share of positives per distinct score value: P(y=1|s=v) ~ "
                     f"Beta({PRIOR_SHAPE:g} + positives, {PRIOR_SHAPE:g} + negatives) (Jeffreys prior)",
            "feature": f"{self.values.size} distinct score values",
            "prior": {"a": PRIOR_SHAPE, "b": PRIOR_SHAPE},
            "posterior_mean": {k: float(self.weights @ v) for k, v in self.draws().items()},
            "labeled_per_value": {f"{v:.6g}": int(p + n) for v, p, n in
                                  zip(self.values, self.positives, self.negatives)},
            "inference": "exact Beta draws",
            "pareto_khat": None,
            "ess": self.ess,
        }


def cell_of(values, scores) -> np.ndarray:
    """Index of the distinct value (``values``, ascending) each score equals, up to the
    round trip through the score frame; a score between the values has no share and is
    refused."""
    s = np.asarray(scores, float)
    cell = np.searchsorted((values[1:] + values[:-1]) / 2, s)
    off = np.abs(s - values[cell]) > MATCH_TOLERANCE * max(1.0, float(np.ptp(values)))
    if off.any():
        shown = ", ".join(f"{v:.6g}" for v in values)
        raise ValueError(f"the per-value model knows P(y = 1) only at the scores it was fitted on "
                         f"({shown}); {int(off.sum())} score(s) are none of them, the first "
                         f"{s[off][0]:.6g}")
    return cell


def fit_cells(scores, labels, *, n_draws: int, rng, reference=None) -> CellsFit:
    """Posterior draws of the share of positives at each distinct score value.

    ``scores``/``labels``: the items whose labels are known or NaN (only the labeled ones
    inform the shares). ``reference``: (scores, weights) of every item, whose distinct
    values are the cells (default: ``scores``).

    Returns
    -------
    CellsFit

    Raises
    ------
    ValueError
        If the scores have more than :data:`MAX_CELLS` distinct values.

    See Also
    --------
    fit_calibration_map : a monotone map for scores with many values.

    Examples
    --------
    Hard predictions: 10 labeled items predicted 0 (all negative), 10 predicted 1 (8 positive).

    >>> import numpy as np
    >>> from spe.calibration import fit_cells
    >>> predictions = np.r_[np.zeros(100), np.ones(100)]
    >>> labels = np.full(200, np.nan)
    >>> labels[:10], labels[100:110] = 0, [1] * 8 + [0] * 2
    >>> fit = fit_cells(predictions, labels, n_draws=1000, rng=np.random.default_rng(0))
    >>> fit.positives, fit.negatives, (fit.weights @ fit.shares).round(2)
    (array([0., 8.]), array([10.,  2.]), array([0.04, 0.77]))
    >>> fit_cells(np.arange(30.0), np.full(30, np.nan), n_draws=10,
    ...           rng=np.random.default_rng(0))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: the per-value model ('cells') takes scores with at most 20 distinct values; these have 30: ...
    """
    scores = np.asarray(scores, float)
    labels = np.asarray(labels, float)
    values = np.unique(scores if reference is None else np.asarray(reference[0], float))
    if values.size > MAX_CELLS:
        raise ValueError(f"the per-value model ('cells') takes scores with at most {MAX_CELLS} distinct "
                         f"values; these have {values.size}: use a calibration map or the mixture")
    known = ~np.isnan(labels)
    cell = cell_of(values, scores[known])
    positives = np.bincount(cell, weights=labels[known], minlength=values.size)
    negatives = np.bincount(cell, minlength=values.size) - positives
    shares = rng.beta(PRIOR_SHAPE + positives, PRIOR_SHAPE + negatives, size=(n_draws, values.size))
    return CellsFit(values, positives, negatives, shares, np.full(n_draws, 1.0 / n_draws))
