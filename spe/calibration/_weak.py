"""The weak-ranker score model: a classifier that ranks these items little better than chance, or worse.

logit P(y = 1 | s) = c + b z(s), z the normal score of s's mid-rank among all items, and a
Normal prior on b centred at 0 (a slope of either sign). A monotone map cannot say "this
classifier is useless here": its slopes are positive and its prior, learned on classifiers
that mostly work, keeps them away from 0; for classifiers at chance its AUROC intervals sat
above the truth (docs/method.md 2f). This member carries that possibility into the pool,
with the prior weight learned across classifiers (:mod:`spe.learned`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import special

from ..sampling import student_t_importance_draws
from ._maps import CalibrationFit

WEAK_RANKER = "weak"
_MAX_NEWTON = 50


@dataclass(frozen=True)
class WeakRankerPrior:
    """c ~ N(c_mean, c_sd), b ~ N(0, slope_sd); ``weight``: the prior probability that a
    classifier is this weak on its items (its share of the pool before any label).

    Examples
    --------
    >>> from spe.calibration import WeakRankerPrior
    >>> WeakRankerPrior(weight=0.08, slope_sd=0.05, c_mean=-1.0, c_sd=1.0).moments()[0].tolist()
    [-1.0, 0.0]
    """

    weight: float
    slope_sd: float
    c_mean: float
    c_sd: float

    def __post_init__(self):
        if not 0.0 <= self.weight <= 1.0:
            raise ValueError(f"the weak ranker's weight is a probability in [0, 1], got {self.weight}")
        if not (self.slope_sd > 0 and self.c_sd > 0):
            raise ValueError(f"the weak ranker's sds must be positive, got {self.slope_sd}, {self.c_sd}")

    def moments(self) -> tuple[np.ndarray, np.ndarray]:
        """Mean and covariance of (c, b)."""
        return np.array([self.c_mean, 0.0]), np.diag([self.c_sd**2, self.slope_sd**2])


@dataclass(frozen=True)
class RankFeature:
    """z(s): the normal score of s's mid-rank among the reference scores (weighted by counts);
    scores between reference values are interpolated, beyond them held at the ends."""

    values: np.ndarray
    z: np.ndarray
    form: str = WEAK_RANKER
    n_slopes: int = 1

    @classmethod
    def for_scores(cls, scores, weights=None) -> RankFeature:
        s = np.asarray(scores, float)
        w = np.ones(s.size) if weights is None else np.asarray(weights, float)
        values, where = np.unique(s, return_inverse=True)
        counts = np.bincount(where, weights=w)
        mid = (np.cumsum(counts) - counts / 2) / counts.sum()
        return cls(values, special.ndtri(mid))

    def __call__(self, scores) -> np.ndarray:
        return np.interp(np.asarray(scores, float), self.values, self.z)[:, None]

    def describe(self) -> str:
        return "normal score of the score's rank among all items"


class WeakRankerFit(CalibrationFit):
    """Weighted posterior draws of (c, b) of the weak ranker (:func:`fit_weak_ranker`).

    Examples
    --------
    >>> import numpy as np
    >>> from spe.calibration import WeakRankerPrior, fit_weak_ranker
    >>> fit = fit_weak_ranker([0.1, 0.4, 0.6, 0.9], [0, 1, 0, 1], prior=WeakRankerPrior(0.08, 0.1, -0.6, 0.7),
    ...                       n_draws=200, rng=np.random.default_rng(0))
    >>> fit.name, sorted(fit.draws()), fit.describe()["inference"]
    ('weak', ['b', 'c'], 'importance sampling')
    """

    def draws(self) -> dict[str, np.ndarray]:
        return {"c": self.c, "b": self.slopes[:, 0]}

    def describe(self) -> dict:
        w = self.weights
        return {
            "model": "weak ranker: P(y=1|s) = sigmoid(c + b z(s)), b near 0 of either sign",
            "feature": self.features.describe(),
            "prior": {"c_mean": self.prior.c_mean, "c_sd": self.prior.c_sd, "slope_sd": self.prior.slope_sd,
                      "weight": self.prior.weight},
            "posterior_mean": {k: float(w @ v) for k, v in self.draws().items()},
            "inference": "prior draws (no labels)" if self.n_labeled == 0 else "importance sampling",
            "pareto_khat": None if np.isnan(self.khat) else self.khat,
            "ess": self.ess,
        }


def _log_posterior(u, x, y, mean, precision):
    eta = u[:, :1] + u[:, 1:] * x[None, :]
    d = u - mean
    return np.sum(y * eta - np.logaddexp(0.0, eta), axis=1) - 0.5 * np.einsum("ij,jk,ik->i", d, precision, d)


def _mode_and_cov(x, y, mean, precision):
    """Newton's method on a log-concave posterior: (mode, inverse negative Hessian)."""
    design = np.column_stack([np.ones(x.size), x])
    u = mean.copy()
    for _ in range(_MAX_NEWTON):
        p = special.expit(design @ u)
        hess = -(design * (p * (1 - p))[:, None]).T @ design - precision
        step = np.linalg.solve(-hess, design.T @ (y - p) - precision @ (u - mean))
        u = u + step
        if np.max(np.abs(step)) < 1e-10:
            break
    p = special.expit(design @ u)
    return u, np.linalg.inv((design * (p * (1 - p))[:, None]).T @ design + precision)


def fit_weak_ranker(scores, labels, *, prior: WeakRankerPrior, n_draws: int, rng, reference=None) -> WeakRankerFit:
    """Posterior draws of the weak ranker from all scores (their ranks) and the labels.

    Parameters
    ----------
    scores, labels : array-like of shape (n,)
        Labels 0/1, NaN for unlabeled items.
    prior : WeakRankerPrior
    n_draws : int
    rng : numpy.random.Generator
    reference : (scores, weights), optional
        All items' scores and their counts (default: ``scores``, once each).

    Returns
    -------
    WeakRankerFit

    See Also
    --------
    fit_calibration_map : the monotone maps it is pooled with.

    Examples
    --------
    Scores unrelated to 40 labels: the slope's posterior stays near 0.

    >>> import numpy as np
    >>> from spe.calibration import WeakRankerPrior, fit_weak_ranker
    >>> rng = np.random.default_rng(0)
    >>> scores, labels = rng.random(500), np.full(500, np.nan)
    >>> labels[:40] = rng.random(40) < 0.3
    >>> fit = fit_weak_ranker(scores, labels, prior=WeakRankerPrior(0.08, 0.05, -1.0, 1.5), n_draws=400, rng=rng)
    >>> bool(abs(fit.weights @ fit.slopes[:, 0]) < 0.1), fit.prob_positive([0.1, 0.9]).shape
    (True, (400, 2))
    """
    scores, labels = np.asarray(scores, float), np.asarray(labels, float)
    ref_scores, ref_weights = (scores, None) if reference is None else reference
    feature = RankFeature.for_scores(ref_scores, ref_weights)
    known = ~np.isnan(labels)
    x, y = feature(scores[known])[:, 0], labels[known]
    mean, cov = prior.moments()
    if not known.any():
        u = mean + rng.standard_normal((n_draws, 2)) * np.sqrt(np.diag(cov))
        weights, khat = np.full(n_draws, 1.0 / n_draws), float("nan")
    else:
        precision = np.linalg.inv(cov)
        mode, post_cov = _mode_and_cov(x, y, mean, precision)
        u, weights, khat = student_t_importance_draws(mode, post_cov, lambda v: _log_posterior(v, x, y, mean, precision),
                                                      n_draws, rng, what="weak ranker", stacklevel=2)
    return WeakRankerFit(features=feature, prior=prior, c=u[:, 0], slopes=u[:, 1:], weights=weights,
                         khat=float(khat), ess=float(1.0 / np.sum(weights**2)), n_labeled=int(known.sum()),
                         map_name=WEAK_RANKER)
