"""Calibration-form score models: Bayesian monotone maps from a score to P(y = 1).

    logit P(y = 1 | s) = c + sum_j exp(u_j) x_j(s)

The scores themselves are taken as they are (their empirical distribution is the model
of the score distribution), so only the labels inform the map, and unlabeled items enter
through their scores when labels are drawn for them. Slopes are exp(u_j) > 0, so every
map is increasing in the score. Two maps, each a few lines below:

* ``platt``: one feature, x(s) = logit(s) for probability scores (clipped to
  [1e-6, 1 - 1e-6]: real files hold thousands of exact 0s and 1s), the standardised score
  otherwise (Platt 1999);
* ``beta``: two features, log s and -log(1 - s) for probabilities (beta calibration,
  Kull, Silva Filho & Flach 2017), which nests Platt (equal slopes) but lets the two ends
  of the scale be miscalibrated differently; for other scores, the standardised score
  below and above its median, with a slope each.

Priors are Normal on c and on each u_j. For probability scores they are centred on "the
classifier is calibrated" (c = 0, slopes 1) with the spread of miscalibration seen in
practice: c ~ Normal(0, 1.5) (a shift of up to e^2.5 in odds at 90%), u_j ~ Normal(0, 1)
(temperatures 0.2-5 at 90%: deep networks are often over-confident by a factor of 2-3,
cross-validated or strongly regularised models under-confident). For other scores they
are weak: c ~ Normal(0, 2) at the median score, u_j ~ Normal(log 2, 1) per standard
deviation.

The posterior is low-dimensional and close to Gaussian: importance sampling from a
Student t around the mode (Newton's method, exact gradient and Hessian) with
Pareto-smoothed weights; with no labels it is the prior, sampled exactly.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
from scipy import special

from .posterior import KHAT_THRESHOLD, Proposal, SamplingWarning, adaptive_importance_draws
from .frame import PROBABILITY_EPS

MAPS = ("platt", "beta")
_MAX_NEWTON = 100


@dataclass(frozen=True)
class MapPrior:
    """Normal priors: c ~ N(c_mean, c_sd), each log slope u_j ~ N(u_mean, u_sd)."""

    c_mean: float
    c_sd: float
    u_mean: float
    u_sd: float


CALIBRATED_PRIOR = MapPrior(0.0, 1.5, 0.0, 1.0)
WEAK_PRIOR = MapPrior(0.0, 2.0, float(np.log(2.0)), 1.0)


@dataclass(frozen=True)
class Features:
    """x(s) for one calibration map: the columns whose positive slopes are fitted."""

    form: str
    probabilities: bool
    center: float = 0.0
    scale: float = 1.0

    @classmethod
    def for_scores(cls, form, scores, probabilities: bool) -> "Features":
        if form not in MAPS:
            raise ValueError(f"unknown calibration map {form!r}; choose from {MAPS}")
        if probabilities:
            return cls(form, True)
        s = np.asarray(scores, float)
        return cls(form, False, float(np.median(s)), float(np.std(s)) or 1.0)

    def __call__(self, scores) -> np.ndarray:
        """(n, J) feature matrix."""
        s = np.asarray(scores, float)
        if self.probabilities:
            p = np.clip(s, PROBABILITY_EPS, 1.0 - PROBABILITY_EPS)
            if self.form == "platt":
                return special.logit(p)[:, None]
            return np.stack([np.log(p), -np.log1p(-p)], axis=1)
        x = (s - self.center) / self.scale
        if self.form == "platt":
            return x[:, None]
        return np.stack([np.minimum(x, 0.0), np.maximum(x, 0.0)], axis=1)

    @property
    def n_slopes(self) -> int:
        return 1 if self.form == "platt" else 2

    def describe(self) -> str:
        if self.probabilities:
            return "logit of the probability" if self.form == "platt" else "log s and -log(1 - s)"
        std = f"(s - {self.center:.4g}) / {self.scale:.4g}"
        return f"standardised score {std}" + ("" if self.form == "platt" else ", below and above 0")


@dataclass
class CalibrationFit:
    """Weighted posterior draws of (c, slopes) and the item probabilities they imply."""

    features: Features
    prior: MapPrior
    c: np.ndarray
    slopes: np.ndarray
    weights: np.ndarray
    khat: float
    ess: float
    n_labeled: int

    @property
    def name(self) -> str:
        return self.features.form

    @property
    def n_draws(self) -> int:
        return self.c.size

    def chain_index(self) -> None:
        """Importance draws: no chains."""
        return None

    def prob_positive(self, scores, draws=None) -> np.ndarray:
        """(M, n) P(y = 1 | s) under each draw (or the draws indexed by ``draws``)."""
        rows = slice(None) if draws is None else draws
        return special.expit(self.c[rows, None] + self.slopes[rows] @ self.features(scores).T)

    def draws(self) -> dict[str, np.ndarray]:
        names = ["b"] if self.features.n_slopes == 1 else ["b_low", "b_high"]
        return {"c": self.c} | {n: self.slopes[:, j] for j, n in enumerate(names)}

    def describe(self) -> dict:
        w = self.weights
        title = ("Bayesian Platt scaling: P(y=1|s) = sigmoid(c + b x(s))" if self.name == "platt" else
                 "Bayesian beta calibration: P(y=1|s) = sigmoid(c + b1 x1(s) + b2 x2(s))")
        return {
            "model": title,
            "feature": self.features.describe(),
            "prior": self.prior.__dict__,
            "posterior_mean": {k: float(w @ v) for k, v in self.draws().items()},
            "inference": "prior draws (no labels)" if self.n_labeled == 0 else "importance sampling",
            "pareto_khat": None if np.isnan(self.khat) else self.khat,
            "ess": self.ess,
        }


def _prior_moments(prior: MapPrior, n_slopes: int):
    mean = np.array([prior.c_mean] + [prior.u_mean] * n_slopes)
    sd = np.array([prior.c_sd] + [prior.u_sd] * n_slopes)
    return mean, sd


def _log_posterior(u, x, y, prior: MapPrior):
    """Log posterior of parameter rows u = (c, u_1..u_J)."""
    mean, sd = _prior_moments(prior, x.shape[1])
    eta = u[:, :1] + np.exp(u[:, 1:]) @ x.T
    loglik = np.sum(y * eta - np.logaddexp(0.0, eta), axis=1)
    return loglik - 0.5 * np.sum(((u - mean) / sd) ** 2, axis=1)


def _gradient_hessian(u, x, y, prior: MapPrior):
    mean, sd = _prior_moments(prior, x.shape[1])
    slopes = np.exp(u[1:])
    p = special.expit(u[0] + x @ slopes)
    r, v = y - p, p * (1.0 - p)
    jac = np.column_stack([np.ones(y.size), x * slopes])  # d eta / d u
    grad = jac.T @ r - (u - mean) / sd**2
    hess = -(jac * v[:, None]).T @ jac - np.diag(1.0 / sd**2)
    hess[1:, 1:] += np.diag((r[:, None] * x * slopes).sum(axis=0))  # d2 eta / d u_j^2 = d eta / d u_j
    return grad, hess


def _mode(x, y, prior: MapPrior):
    """Newton's method with step halving from the prior mean (the posterior is smooth)."""
    u = _prior_moments(prior, x.shape[1])[0]
    f = _log_posterior(u[None, :], x, y, prior)[0]
    for _ in range(_MAX_NEWTON):
        grad, hess = _gradient_hessian(u, x, y, prior)
        precision = -hess
        low = np.linalg.eigvalsh(precision).min()
        if low <= 0:
            precision = precision + (1.0 - low) * np.eye(u.size)
        step = np.linalg.solve(precision, grad)
        for _ in range(30):
            cand = u + step
            f_new = _log_posterior(cand[None, :], x, y, prior)[0]
            if f_new >= f - 1e-12:
                break
            step = step / 2
        done = np.max(np.abs(cand - u)) < 1e-9
        u, f = cand, f_new
        if done:
            break
    return u


def fit_calibration_map(form, scores, labels, *, probabilities: bool, n_draws: int, rng,
                        prior: MapPrior | None = None) -> CalibrationFit:
    """Posterior draws of one calibration map from all scores (feature scaling) and the labels."""
    scores = np.asarray(scores, float)
    labels = np.asarray(labels, float)
    features = Features.for_scores(form, scores, probabilities)
    prior = prior or (CALIBRATED_PRIOR if probabilities else WEAK_PRIOR)
    known = ~np.isnan(labels)
    x, y = features(scores[known]), labels[known]
    mean, sd = _prior_moments(prior, features.n_slopes)
    if not known.any():
        u = mean + rng.standard_normal((n_draws, mean.size)) * sd
        weights, khat = np.full(n_draws, 1.0 / n_draws), float("nan")
    else:
        mode = _mode(x, y, prior)
        _, hess = _gradient_hessian(mode, x, y, prior)
        precision = -hess
        cov = np.linalg.inv(precision) if np.linalg.eigvalsh(precision).min() > 0 else np.diag(sd**2)
        q = Proposal("student_t", mode, 0.5 * (cov + cov.T))
        u, weights, khat, _ = adaptive_importance_draws(lambda v: _log_posterior(v, x, y, prior), q,
                                                        n_draws, rng)
        if khat > KHAT_THRESHOLD:
            warnings.warn(f"{form} calibration map: importance weights are unreliable (Pareto k-hat = "
                          f"{khat:.2f} > {KHAT_THRESHOLD}); its draws are approximate", SamplingWarning,
                          stacklevel=2)
    return CalibrationFit(
        features=features, prior=prior, c=u[:, 0], slopes=np.exp(u[:, 1:]), weights=weights,
        khat=float(khat), ess=float(1.0 / np.sum(weights**2)), n_labeled=int(known.sum()),
    )
