"""A log-linear pool of several models' recalibrated log-odds: one label model from all scores.

Each model j is recalibrated by its own Bayesian Platt posterior
(``_maps``), giving x_ij = logit of its posterior-mean P(y = 1 | s_ij);
then

    P(y_i = 1) = sigmoid(c + sum_j beta_j x_ij),

prior centred on the equal-weight pool (beta_j ~ N(1/J, 1/sqrt(J)), c ~ N(0, 1.5)),
posterior by Newton's method and Student-t importance sampling (PSIS). Unlike any one
model's map, it uses the models' agreement: two models with independent errors together
say more about an item than either alone. But the labels enter twice (each
recalibration, then the pool), so alone it is over-confident with few labels;
:func:`spe.fit_many` therefore stacks it with the models' own maps.

The pool is a score model over *item indices* (each model looks up its own scores), so it
plugs into :func:`spe.pooling.combine` like any other.
"""

from __future__ import annotations

import warnings

import numpy as np
from scipy import special

from ..calibration import fit_calibration_map
from ..exceptions import SamplingWarning
from ..sampling import student_t_importance_draws
from ..scores import PROBABILITY_EPS

NAME = "log-linear pool"
INTERCEPT_SD = 1.5
RECALIBRATION_DRAWS = 400


def platt_fits(scores: dict, labels, probabilities: dict, rng) -> dict:
    """Each model's own Bayesian Platt posterior ({model: fit}), fitted in the models' order.

    Recalibrating first (prior centred on "calibrated" for probabilities) puts every model
    on the log-odds scale its labels support: an over-confident model's exact 0s and 1s
    (logits of +-14) are tempered instead of outvoting the rest. The pool and the joint
    model (``_joint``) share these fits.
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SamplingWarning)
        return {m: fit_calibration_map("platt", s, labels, probabilities=probabilities[m],
                                       n_draws=RECALIBRATION_DRAWS, rng=rng) for m, s in scores.items()}


def recalibrated_log_odds(fit, s) -> np.ndarray:
    """Logit of a Platt fit's posterior-mean P(y = 1 | s)."""
    p = fit.weights @ fit.prob_positive(s)
    return special.logit(np.clip(p, PROBABILITY_EPS, 1 - PROBABILITY_EPS))


class LogLinearPool:
    """Weighted posterior draws of (c, beta) and the item probabilities they imply."""

    name = NAME

    def __init__(self, models: list, features: np.ndarray, theta: np.ndarray, weights: np.ndarray, khat: float):
        self.models = models
        self.features = features  # (N, J) recalibrated log-odds of every item
        self.theta = theta
        self.weights = weights
        self.khat = khat

    @property
    def n_draws(self) -> int:
        return self.weights.size

    @property
    def ess(self) -> float:
        return float(1.0 / np.sum(self.weights**2))

    def prob_positive(self, items, draws=None) -> np.ndarray:
        """(M, n) P(y = 1) of the items at indices ``items`` under each draw."""
        th = self.theta if draws is None else self.theta[draws]
        x = self.features[np.asarray(items, dtype=np.intp)]
        return special.expit(th[:, :1] + th[:, 1:] @ x.T)

    def draws(self) -> dict:
        return {"c": self.theta[:, 0]} | {f"beta[{m}]": self.theta[:, j + 1] for j, m in enumerate(self.models)}

    def describe(self) -> dict:
        return {"model": "log-linear pool: P(y=1) = sigmoid(c + sum_j beta_j x_j), x_j = model j's "
                         "Platt-recalibrated log-odds",
                "feature": "models' Platt-recalibrated log-odds",
                "posterior_mean": {k: float(self.weights @ v) for k, v in self.draws().items()},
                "inference": "prior draws (no labels)" if np.isnan(self.khat) else "importance sampling",
                "pareto_khat": None if np.isnan(self.khat) else self.khat, "ess": self.ess}

    def chain_index(self) -> None:
        return None


def _prior(n_models):
    """c ~ N(0, 1.5); beta_j ~ N(1/J, 1/sqrt(J)): centred on the log-linear pool with equal weights."""
    mean = np.r_[0.0, np.full(n_models, 1.0 / n_models)]
    sd = np.r_[INTERCEPT_SD, np.full(n_models, 1.0 / np.sqrt(n_models))]
    return mean, sd


def _log_posterior(theta, x, y, mean, sd):
    eta = theta[:, :1] + theta[:, 1:] @ x.T
    return np.sum(y * eta - np.logaddexp(0.0, eta), axis=1) - 0.5 * np.sum(((theta - mean) / sd) ** 2, axis=1)


def _mode(x, y, mean, sd, iterations=100):
    """Newton's method for the (log-concave) logistic posterior."""
    theta = mean.copy()
    design = np.column_stack([np.ones(y.size), x])
    for _ in range(iterations):
        p = special.expit(design @ theta)
        grad = design.T @ (y - p) - (theta - mean) / sd**2
        precision = (design * (p * (1 - p))[:, None]).T @ design + np.diag(1 / sd**2)
        step = np.linalg.solve(precision, grad)
        theta = theta + step
        if np.max(np.abs(step)) < 1e-10:
            break
    p = special.expit(design @ theta)
    precision = (design * (p * (1 - p))[:, None]).T @ design + np.diag(1 / sd**2)
    return theta, precision


def fit_log_linear_pool(scores: dict, labels, probabilities: dict, n_draws: int, rng, fits=None) -> LogLinearPool:
    """The pool of ``scores`` ({model: (N,) scores}) given ``labels`` (NaN = unlabeled);
    ``fits``: the models' :func:`platt_fits` when already made."""
    fits = fits or platt_fits(scores, labels, probabilities, rng)
    x = np.column_stack([recalibrated_log_odds(fits[m], s) for m, s in scores.items()])
    mean, sd = _prior(x.shape[1])
    known = ~np.isnan(labels)
    if not known.any():
        theta = mean + rng.standard_normal((n_draws, mean.size)) * sd
        return LogLinearPool(list(scores), x, theta, np.full(n_draws, 1.0 / n_draws), float("nan"))
    xk, yk = x[known], labels[known]
    mode, precision = _mode(xk, yk, mean, sd)
    cov = np.linalg.inv(precision)
    theta, weights, khat = student_t_importance_draws(mode, cov, lambda t: _log_posterior(t, xk, yk, mean, sd),
                                                      n_draws, rng, what=NAME, stacklevel=3)
    return LogLinearPool(list(scores), x, theta, weights, float(khat))
