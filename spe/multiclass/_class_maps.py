"""Multiclass calibration maps: Bayesian temperature and vector scaling.

On the classifier's log-probabilities f_ik (Guo et al. 2017):

    P(y_i = k | f_i) = (1 - epsilon) softmax_k(a f_ik + b_k) + epsilon / K,    a = exp(t) = 1 / T

with b = 0 for temperature scaling. The prior is centred on "the classifier is
calibrated": t ~ N(0, 1) (inverse temperatures 0.19-5.2 at 90%), b_k ~ N(0, 1). The
outlier share epsilon (label noise, items a model gets confidently wrong: real probability
files hold exact 0s for the true class) keeps one such label from dragging the
temperature: without it, a labeled item whose true class has probability 1e-6 forces the
map to soften every item's probabilities. The labeled items give the likelihood; the
posterior is drawn by importance sampling around its mode (multivariate Student-t
proposal, PSIS weights, Pareto k-hat reported), or from the prior with no labels.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import special

from ..pooling import systematic_resample
from ..sampling import mode_importance_draws

CLASS_MAPS = ("temperature", "vector")
PRIOR_SD = 1.0
#: Outlier share epsilon = expit(e), e ~ N(-6, 1.5): median 0.25%, 90% within 0.02%-3%.
OUTLIER_PRIOR = (-6.0, 1.5)
#: Gumbel noise is drawn in blocks of at most this many numbers (memory stays draws x items).
BLOCK_ELEMENTS = 4_000_000


def _prior_mean_sd(dim):
    mean = np.zeros(dim)
    sd = np.full(dim, PRIOR_SD)
    mean[1], sd[1] = OUTLIER_PRIOR
    return mean, sd


def outlier_softmax(eta, y, eps):
    """softmax q of logits ``eta`` (L, K), q_y of the labels ``y``, and r = P(y | eta) =
    (1 - eps) q_y + eps / K, the likelihood with the outlier share."""
    q = special.softmax(eta, axis=1)
    q_y = q[np.arange(y.size), y]
    return q, q_y, (1.0 - eps) * q_y + eps / eta.shape[1]


def outlier_softmax_gradient(q, q_y, r, y, eps):
    """Gradient of sum_i log r_i: (L, K) with respect to the logits, and the scalar with
    respect to e = logit(eps)."""
    share = (1.0 - eps) * q_y / r  # P(item i follows the map, not the outlier term)
    resid = -q * share[:, None]
    resid[np.arange(y.size), y] += share
    return resid, eps * (1.0 - eps) * np.sum((1.0 / q.shape[1] - q_y) / r)


def posterior_draws(mean, sd, n_labeled: int, log_post_and_grad, likelihood, n_draws: int, rng, *, what: str):
    """Draws of a parameter vector with a Normal(mean, sd) prior: from the prior with no
    labels, else by :func:`~spe.sampling.mode_importance_draws` (``log_post_and_grad``:
    the log posterior and its gradient; ``likelihood(theta)``: each labeled item's r_i).
    Returns draws, weights, k-hat, effective sample size and ``n_labeled``."""
    if n_labeled == 0:
        theta = mean + rng.standard_normal((n_draws, mean.size)) * sd
        return theta, np.full(n_draws, 1.0 / n_draws), float("nan"), float(n_draws), 0

    def log_post_rows(thetas):
        loglik = np.array([np.sum(np.log(likelihood(th))) for th in thetas])
        return loglik - 0.5 * np.sum(((thetas - mean) / sd) ** 2, axis=1)

    theta, weights, khat = mode_importance_draws(log_post_and_grad, log_post_rows, mean, sd, n_draws, rng, what=what,
                                                 stacklevel=4)  # the warning points at fit_*'s caller
    return theta, weights, khat, float(1.0 / np.sum(weights**2)), n_labeled


def _log_lik_terms(theta, f, y, vector: bool):
    """Per-item likelihood pieces: a, epsilon, softmax q, q_y, r_i = P(y_i | f_i)."""
    a, eps = np.exp(theta[0]), special.expit(theta[1])
    q, q_y, r = outlier_softmax(a * f + (theta[2:] if vector else 0.0), y, eps)
    return a, eps, q, q_y, r


def _log_posterior_and_grad(theta, f, y, vector: bool):
    """Log posterior of one parameter vector (t, e, b_1..b_K) and its gradient."""
    a, eps, q, q_y, r = _log_lik_terms(theta, f, y, vector)
    resid, d_e = outlier_softmax_gradient(q, q_y, r, y, eps)
    grad = [a * np.sum(resid * f), d_e]
    if vector:
        grad += list(resid.sum(axis=0))
    mean, sd = _prior_mean_sd(theta.size)
    grad = np.array(grad) - (theta - mean) / sd**2
    return float(np.sum(np.log(r))) - 0.5 * float(np.sum(((theta - mean) / sd) ** 2)), grad


@dataclass
class MulticlassFit:
    """Weighted posterior draws of (t, b) and the class probabilities they imply."""

    form: str
    theta: np.ndarray
    weights: np.ndarray
    khat: float
    ess: float
    n_labeled: int

    @property
    def inverse_temperature(self) -> np.ndarray:
        """a = exp(t) = 1 / T per draw: > 1 sharpens the classifier's probabilities, < 1 softens them."""
        return np.exp(self.theta[:, 0])

    def logits(self, rows, f) -> np.ndarray:
        """(len(rows), n, K) calibrated logits of items ``f`` under draws ``rows``."""
        th = self.theta[rows]
        out = np.exp(th[:, 0])[:, None, None] * f[None]
        return out + th[:, None, 2:] if self.form == "vector" else out

    @property
    def outlier_share(self) -> np.ndarray:
        """epsilon per draw: the share of items whose class ignores the scores (label noise)."""
        return special.expit(self.theta[:, 1])

    def log_likelihood(self, f, y, n: int, rng) -> np.ndarray:
        """(n, L) log P(y_i | f_i) of labeled items under n equally weighted draws."""
        return log_likelihood_rows(self, systematic_resample(self.weights, n, rng), f, y)

    def draw_classes(self, f, n: int, rng) -> np.ndarray:
        """(n, N) one class per item under n equally weighted draws (labels not yet fixed)."""
        return classes_from_draws(self, f, systematic_resample(self.weights, n, rng), rng)

    def describe(self) -> dict:
        w = self.weights
        return {
            "model": ("Bayesian temperature scaling" if self.form == "temperature" else
                      "Bayesian vector scaling (shared temperature, bias per class)"),
            "posterior_mean_inverse_temperature": float(w @ self.inverse_temperature),
            "posterior_mean_outlier_share": float(w @ self.outlier_share),
            "inference": "prior draws (no labels)" if self.n_labeled == 0 else "importance sampling",
            "pareto_khat": None if np.isnan(self.khat) else self.khat,
            "ess": self.ess,
        }


def fit_class_map(f, labels, form, n_draws, rng) -> MulticlassFit:
    """Posterior draws of the calibration map from the labeled rows of ``f``."""
    vector = form == "vector"
    dim = 2 + (f.shape[1] if vector else 0)
    mean, sd = _prior_mean_sd(dim)
    known = labels >= 0
    fk, yk = f[known], labels[known]
    return MulticlassFit(form, *posterior_draws(
        mean, sd, int(known.sum()), lambda th: _log_posterior_and_grad(th, fk, yk, vector),
        lambda th: _log_lik_terms(th, fk, yk, vector)[4], n_draws, rng, what=f"{form} scaling"))


def log_likelihood_rows(fit: MulticlassFit, rows, f, y) -> np.ndarray:
    """(len(rows), L) log P(y_i | f_i) of labeled items ``f``, ``y`` under draws ``rows``."""
    return np.log(np.stack([_log_lik_terms(fit.theta[r], f, y, fit.form == "vector")[4] for r in rows]))


def classes_from_draws(fit: MulticlassFit, f, rows, rng, excluded=None) -> np.ndarray:
    """(len(rows), N) one class per item under each draw in ``rows`` (Gumbel-max); the
    outlier share draws a uniform class. ``excluded``: a class per item never drawn
    (its logit must already be masked in ``f``). ``f``: whatever ``fit.logits`` takes,
    items and classes on its last two axes."""
    n, k = f.shape[-2:]
    dtype = np.int16 if k < 2**15 else np.int32
    out = np.empty((len(rows), n), dtype=dtype)
    step = max(1, BLOCK_ELEMENTS // (n * k))
    for start in range(0, len(rows), step):
        block = rows[start : start + step]
        gumbel = rng.gumbel(size=(block.size, n, k))
        classes = np.argmax(fit.logits(block, f) + gumbel, axis=2)
        outlier = rng.random((block.size, n)) < fit.outlier_share[block][:, None]
        if excluded is None:
            classes[outlier] = rng.integers(0, k, size=int(outlier.sum()))
        else:
            other = rng.integers(0, k - 1, size=int(outlier.sum()))
            skip = np.broadcast_to(excluded, outlier.shape)[outlier]
            classes[outlier] = other + (other >= skip)
        out[start : start + block.size] = classes
    return out
