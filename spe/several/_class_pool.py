"""Several multiclass models on the same items: a log-linear pool of their log-probabilities.

    P(y_i = k | f_1i, ..., f_Ji) = (1 - epsilon) softmax_k(sum_j a_j f_jik) + epsilon / K,
    a_j = exp(t_j)

the product of the models' tempered probabilities, renormalised (a product of experts).
Models that agree on an item sharpen it; where they disagree the pool follows the
larger a_j. With one model it is temperature scaling (``_class_maps``).

Prior: t_j ~ N(-log J, 1), centred on the equal-weight geometric mean of the models'
probabilities (a_j = 1/J: calibrated if the models are calibrated and make the same
errors; independent errors would call for a_j = 1, inside the prior's 90% range for
J <= 5); epsilon as in ``_class_maps``. Posterior: mode by L-BFGS-B with the exact
gradient, Student-t importance sampling with PSIS, or the prior with no labels.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import special

from ..multiclass import (OUTLIER_PRIOR, PRIOR_SD, classes_from_draws, outlier_softmax, outlier_softmax_gradient,
                          posterior_draws)
from ..pooling import systematic_resample

NAME = "log-linear pool"


def _prior_mean_sd(n_models: int):
    mean = np.r_[np.full(n_models, -np.log(n_models)), OUTLIER_PRIOR[0]]
    sd = np.r_[np.full(n_models, PRIOR_SD), OUTLIER_PRIOR[1]]
    return mean, sd


def _log_lik_terms(theta, F, y):
    """Per-item pieces: a (J,), epsilon, softmax q (L, K), q_y, r_i = P(y_i | F_i)."""
    a, eps = np.exp(theta[:-1]), special.expit(theta[-1])
    return (a, eps, *outlier_softmax(np.tensordot(a, F, axes=1), y, eps))


def _log_posterior_and_grad(theta, F, y):
    """Log posterior of (t_1..t_J, e) and its gradient; ``F`` is (J, L, K)."""
    a, eps, q, q_y, r = _log_lik_terms(theta, F, y)
    resid, d_e = outlier_softmax_gradient(q, q_y, r, y, eps)
    grad = np.r_[a * np.tensordot(F, resid, axes=([1, 2], [0, 1])), d_e]
    mean, sd = _prior_mean_sd(F.shape[0])
    return (float(np.sum(np.log(r))) - 0.5 * float(np.sum(((theta - mean) / sd) ** 2)),
            grad - (theta - mean) / sd**2)


@dataclass
class ClassPoolFit:
    """Weighted posterior draws of (t_1..t_J, e); inputs are (J, N, K) log-probabilities."""

    names: tuple
    theta: np.ndarray
    weights: np.ndarray
    khat: float
    ess: float
    n_labeled: int

    @property
    def model_temperatures(self) -> np.ndarray:
        """(draws, J) a_j = exp(t_j): each model's weight in the pool."""
        return np.exp(self.theta[:, :-1])

    @property
    def outlier_share(self) -> np.ndarray:
        return special.expit(self.theta[:, -1])

    def logits(self, rows, F) -> np.ndarray:
        """(len(rows), N, K) pooled logits under draws ``rows``."""
        return np.tensordot(self.model_temperatures[rows], F, axes=1)

    def log_likelihood(self, F, y, n: int, rng) -> np.ndarray:
        """(n, L) log P(y_i | F_i) of labeled items under n equally weighted draws."""
        rows = systematic_resample(self.weights, n, rng)
        return np.log(np.stack([_log_lik_terms(self.theta[r], F, y)[4] for r in rows]))

    def draw_classes(self, F, n: int, rng) -> np.ndarray:
        return classes_from_draws(self, F, systematic_resample(self.weights, n, rng), rng)

    def describe(self) -> dict:
        w = self.weights
        return {
            "model": "log-linear pool of the models' log-probabilities: softmax(sum_j a_j log p_j)",
            "posterior_mean_model_weights": dict(zip(self.names, (w @ self.model_temperatures).tolist())),
            "posterior_mean_outlier_share": float(w @ self.outlier_share),
            "inference": "prior draws (no labels)" if self.n_labeled == 0 else "importance sampling",
            "pareto_khat": None if np.isnan(self.khat) else self.khat,
            "ess": self.ess,
        }


def fit_class_pool(names, F, labels, n_draws: int, rng) -> ClassPoolFit:
    """Posterior draws of the pool from (J, N, K) log-probabilities ``F`` and labels (-1 = unlabeled)."""
    mean, sd = _prior_mean_sd(F.shape[0])
    known = labels >= 0
    Fk, yk = F[:, known], labels[known]
    return ClassPoolFit(tuple(names), *posterior_draws(
        mean, sd, int(known.sum()), lambda th: _log_posterior_and_grad(th, Fk, yk),
        lambda th: _log_lik_terms(th, Fk, yk)[4], n_draws, rng, what=NAME))
