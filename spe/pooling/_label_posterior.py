"""The seam between score models and every output: weighted draws of P(y = 1 | score).

A score model (:mod:`spe.mixture`, :mod:`spe.calibration`) is anything with ``name``,
``weights`` (normalised, one per draw), ``prob_positive(scores) -> (draws, n)``,
``draws()``, ``describe()`` and ``chain_index()`` (MCMC chains for export, or None). Curves, metrics, thresholds, item probabilities and
assessment priors need nothing else.

Several score models are combined into one :class:`LabelPosterior`: weights per model
from their leave-one-out predictive densities on the labeled items (pseudo-BMA with the
Bayesian bootstrap, or stacking: ``_stacking``), multiplied by stated prior weights
(pseudo-BMA only: its weights are exp(elpd), and prior odds multiply them as in BMA), or
the prior weights alone when there are no labels; then each model
contributes a share of the draws equal to its weight, resampled from its own weighted
draws (systematic resampling, seeded), so the result has exactly ``n_draws`` draws.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._stacking import pointwise_log_likelihood, stacking_weights

LOO_DRAWS = 1000


def systematic_resample(weights, n, rng) -> np.ndarray:
    """n indices drawn in proportion to ``weights`` with one uniform (low variance).

    Parameters
    ----------
    weights : array-like of shape (M,)
        Normalised weights.
    n : int
    rng : numpy.random.Generator

    Returns
    -------
    ndarray of shape (n,)
        Indices into ``weights``, ascending.

    See Also
    --------
    allocate : deterministic integer shares.

    Examples
    --------
    >>> import numpy as np
    >>> from spe.pooling import systematic_resample
    >>> systematic_resample(np.array([0.5, 0.25, 0.25]), 8, np.random.default_rng(0))
    array([0, 0, 0, 0, 1, 1, 2, 2])
    """
    positions = (rng.random() + np.arange(n)) / n
    idx = np.searchsorted(np.cumsum(weights), positions)
    return np.minimum(idx, len(weights) - 1)


def allocate(weights, n) -> np.ndarray:
    """Integer shares of n proportional to weights (largest remainder).

    Examples
    --------
    >>> from spe.pooling import allocate
    >>> allocate([0.5, 0.3, 0.2], 7)
    array([4, 2, 1])
    """
    raw = np.asarray(weights, float) * n
    out = np.floor(raw).astype(int)
    out[np.argsort(raw - out)[::-1][: n - out.sum()]] += 1
    return out


@dataclass
class LabelPosterior:
    """Draws of P(y = 1 | score) pooled over score models.

    Attributes
    ----------
    fits : the score models, by name.
    model_weights : weight of each model (stacking, or the prior weights with no labels).
    weighting : how ``model_weights`` were obtained.
    source : (M,) index into ``fits`` of each draw; ``draw`` (M,) the draw within it.
    weights : (M,) normalised weights of the pooled draws.

    See Also
    --------
    combine : builds it from score-model fits.
    spe.calibration.calibrate : recalibrated probabilities from it.

    Examples
    --------
    >>> import numpy as np
    >>> from spe.calibration import fit_calibration_map
    >>> from spe.pooling import combine
    >>> rng = np.random.default_rng(0)
    >>> scores = rng.uniform(0.01, 0.99, 200)
    >>> labels = np.where(np.arange(200) < 40, rng.uniform(size=200) < scores, np.nan)
    >>> fits = {form: fit_calibration_map(form, scores, labels, probabilities=True, n_draws=400, rng=rng)
    ...         for form in ("platt", "spline")}
    >>> known = ~np.isnan(labels)
    >>> pool = combine(fits, scores[known], labels[known], n_draws=1000, rng=rng)
    >>> pool.n_draws, pool.prob_positive([0.2, 0.8]).shape
    (1000, (1000, 2))
    >>> pool.mean_prob_positive([0.2, 0.8]).round(1)
    array([0.2, 0.8])
    """

    fits: dict
    model_weights: dict
    weighting: str
    source: np.ndarray
    draw: np.ndarray
    weights: np.ndarray

    @property
    def n_draws(self) -> int:
        return self.weights.size

    def prob_positive(self, scores) -> np.ndarray:
        """(M, n) P(y = 1 | s) for every pooled draw."""
        scores = np.asarray(scores, float)
        out = np.empty((self.n_draws, scores.size))
        for k, fit in enumerate(self.fits.values()):
            rows = np.flatnonzero(self.source == k)
            if rows.size:
                # Resampling repeats draws and skips others: evaluate each needed draw once.
                needed, where = np.unique(self.draw[rows], return_inverse=True)
                out[rows] = fit.prob_positive(scores, draws=needed)[where]
        return out

    def equally_weighted(self, n: int, rng) -> LabelPosterior:
        """n draws of equal weight: itself when it already is that, else its draws resampled
        systematically (a single model keeps its importance weights in :func:`combine`)."""
        if self.n_draws == n and np.allclose(self.weights, 1.0 / n):
            return self
        rows = systematic_resample(self.weights, n, rng)
        return LabelPosterior(self.fits, self.model_weights, self.weighting, self.source[rows], self.draw[rows],
                              np.full(n, 1.0 / n))

    def mean_prob_positive(self, scores) -> np.ndarray:
        """Posterior-averaged P(y = 1 | s)."""
        return self.weights @ self.prob_positive(scores)


def _loo_log_likelihood(fit, scores, labels, rng):
    idx = systematic_resample(fit.weights, min(LOO_DRAWS, fit.n_draws), rng)
    return pointwise_log_likelihood(fit.prob_positive(scores)[idx], labels)


def combine(fits: dict, labeled_scores, labels, *, n_draws: int, rng, prior_weights=None,
            method: str = "BB-pseudo-BMA") -> LabelPosterior:
    """Pool score models into one :class:`LabelPosterior` (see the module docstring).

    Parameters
    ----------
    fits : dict of str to score-model fit
        E.g. :func:`spe.mixture.fit_mixture` and :func:`spe.calibration.fit_calibration_map` results.
    labeled_scores, labels : array-like of shape (L,)
        The labeled items (labels 0/1); empty for none.
    n_draws : int
    rng : numpy.random.Generator
    prior_weights : dict of str to float, optional
        Prior weight of each model (equal by default).
    method : {"BB-pseudo-BMA", "stacking"}, default="BB-pseudo-BMA"

    Returns
    -------
    LabelPosterior

    Raises
    ------
    ValueError
        If ``method`` is unknown.

    See Also
    --------
    stacking_weights : the weights from the leave-one-out densities.

    Examples
    --------
    >>> import numpy as np
    >>> from spe.calibration import fit_calibration_map
    >>> from spe.pooling import combine
    >>> rng = np.random.default_rng(0)
    >>> scores = rng.uniform(0.01, 0.99, 200)
    >>> labels = np.where(np.arange(200) < 40, rng.uniform(size=200) < scores, np.nan)
    >>> fits = {form: fit_calibration_map(form, scores, labels, probabilities=True, n_draws=400, rng=rng)
    ...         for form in ("platt", "spline")}
    >>> known = ~np.isnan(labels)
    >>> pool = combine(fits, scores[known], labels[known], n_draws=1000, rng=rng)
    >>> pool.weighting, sorted(pool.model_weights)
    ('BB-pseudo-BMA of LOO predictive densities on 40 labels', ['platt', 'spline'])
    """
    names = list(fits)
    if len(names) == 1:
        fit = fits[names[0]]
        return LabelPosterior(fits, {names[0]: 1.0}, "single model",
                              np.zeros(fit.n_draws, int), np.arange(fit.n_draws), fit.weights)
    prior = np.ones(len(names)) if prior_weights is None else np.array([prior_weights[k] for k in names], float)
    if len(labels):
        log_lik = {k: _loo_log_likelihood(f, labeled_scores, labels, rng) for k, f in fits.items()}
        model_weights = stacking_weights(log_lik, method, seed=int(rng.integers(2**31 - 1)))
        weighting = f"{method} of LOO predictive densities on {len(labels)} labels"
        if prior_weights is not None and method == "BB-pseudo-BMA":
            # pseudo-BMA weights are exp(elpd) normalised: prior odds multiply them as in BMA
            posterior = prior * np.array([model_weights[k] for k in names])
            model_weights = dict(zip(names, (posterior / posterior.sum()).tolist()))
            weighting += ", times prior weights"
    else:
        model_weights = dict(zip(names, (prior / prior.sum()).tolist()))
        weighting = "prior weights (no labels)"
    shares = allocate([model_weights[k] for k in names], n_draws)
    source = np.repeat(np.arange(len(names)), shares)
    draw = np.concatenate([systematic_resample(fits[k].weights, s, rng) for k, s in zip(names, shares)])
    return LabelPosterior(fits, model_weights, weighting, source, draw.astype(int),
                          np.full(n_draws, 1.0 / n_draws))
