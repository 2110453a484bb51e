"""How often classifiers rank their items little better than chance, learned across labeled sets.

The calibration map's prior is learned from Gaussian summaries of each set's likelihood
(``_learn``), which describe sets with flat maps poorly: its predictive AUROC falls short
near and below 0.5 (docs/method.md 2f). The weak ranker (``spe.calibration.fit_weak_ranker``: a slope of either sign on the rank of the
score) fills that gap, and its share ``weight`` and spread ``slope_sd`` are chosen so that
the pooled prior predicts each set's AUROC best: the sets' labeled AUROCs scored under the
mixture of the map's prior predictive and the weak ranker's (a kernel density, widened by
each AUROC's sampling error), maximised over the two numbers with a weak Normal hyperprior
around the base prior's. The intercept's prior is the log odds of a positive across sets.
"""

from __future__ import annotations

import numpy as np
from scipy import optimize, special, stats

from ..calibration import RankFeature, WeakRankerPrior

#: Sets needed to learn the weak ranker when the base prior has none.
MIN_SETS = 30
#: Where the fit starts (and, with a base that has no weak part, what it is pulled toward):
#: logit weight, log slope_sd.
START = np.array([special.logit(0.05), np.log(0.2)])
#: Spread of the hyperprior around the base's two numbers (on the scale above).
HYPER_SD = 1.0
#: Kernel width on the AUROC scale, before each set's sampling error is added.
KERNEL = 0.015
#: Draws of the map's prior per set, and the weak ranker's slopes at which each set's AUROC is
#: computed once (the slope's prior weighs them).
PRIOR_DRAWS = 100
SLOPE_GRID = np.linspace(-3.0, 3.0, 121)
C_SD_FLOOR = 0.25


def expected_auroc(scores, prob) -> np.ndarray:
    """AUROC expected when each item is positive with ``prob`` (rows: draws), ties half
    (ratio of expectations); with 0/1 ``prob`` the AUROC of those labels.

    Examples
    --------
    >>> from spe.learned._weak import expected_auroc
    >>> expected_auroc([1.0, 2.0, 2.0, 3.0], [[0, 0, 1, 1]]).tolist()
    [0.875]
    """
    s = np.asarray(scores, float)
    p = np.atleast_2d(np.asarray(prob, float))
    values, group = np.unique(s, return_inverse=True)
    pos = np.zeros((p.shape[0], values.size))
    neg = np.zeros_like(pos)
    np.add.at(pos.T, group, p.T)
    np.add.at(neg.T, group, 1.0 - p.T)
    below = np.cumsum(neg, axis=1) - neg
    self_pairs = np.sum(p * (1.0 - p), axis=1)
    num = np.sum(pos * (below + 0.5 * neg), axis=1) - 0.5 * self_pairs
    den = pos.sum(axis=1) * neg.sum(axis=1) - self_pairs
    return num / np.where(den > 0, den, np.nan)


def set_aurocs(scores, labels, reference, map_features, map_prior, rng) -> dict | None:
    """One set's labeled AUROC with its sampling error, the map prior's predictive AUROCs
    (:data:`PRIOR_DRAWS`, on the set's piecewise-Platt ``map_features``) and the weak
    ranker's on a grid of unit slopes, on its labeled items."""
    y = np.asarray(labels, float)
    n_pos, n_neg = int((y == 1).sum()), int((y == 0).sum())
    if n_pos < 2 or n_neg < 2:
        return None
    s = np.asarray(scores, float)
    observed = float(expected_auroc(s, y[None])[0])
    q1, q2 = observed / (2 - observed), 2 * observed**2 / (1 + observed)  # Hanley & McNeil (1982)
    var = (observed * (1 - observed) + (n_pos - 1) * (q1 - observed**2) + (n_neg - 1) * (q2 - observed**2))
    mean, cov = map_prior.moments(map_features.n_slopes)
    u = mean + rng.standard_normal((PRIOR_DRAWS, mean.size)) @ np.linalg.cholesky(cov).T
    under_map = expected_auroc(s, special.expit(u[:, :1] + np.exp(u[:, 1:]) @ map_features(s).T))
    z = RankFeature.for_scores(*reference)(s)[:, 0]
    c = special.logit(n_pos / y.size)
    width = np.hypot(KERNEL, np.sqrt(max(var, 0.0) / (n_pos * n_neg)))
    under_weak = expected_auroc(s, special.expit(c + SLOPE_GRID[:, None] * z[None]))
    return {"auroc": observed, "c": float(c), "c_se": float(np.sqrt(y.size / (n_pos * n_neg))),
            "map_density": float(np.mean(stats.norm.pdf(observed, np.nan_to_num(under_map, nan=0.5), width))),
            "weak_density": stats.norm.pdf(observed, np.nan_to_num(under_weak, nan=0.5), width)}


def _log_score(theta, map_density, weak_density):
    weight, slope_sd = special.expit(theta[0]), np.exp(theta[1])
    mass = stats.norm.pdf(SLOPE_GRID, 0.0, slope_sd)
    mass /= mass.sum()
    return np.sum(np.log((1 - weight) * map_density + weight * (weak_density @ mass) + 1e-300))


def learn_weak_ranker(sets, base: dict | None) -> dict | None:
    """The weak-ranker part of a prior from per-set :func:`set_aurocs` results; ``base``:
    the base prior's part (None: none, and then fewer than :data:`MIN_SETS` sets learn nothing).

    Examples
    --------
    Forty sets whose labels ignore the scores: most of the prior goes to the weak ranker.

    >>> import numpy as np
    >>> from spe.calibration import Features, MapPrior
    >>> from spe.learned._weak import learn_weak_ranker, set_aurocs
    >>> rng = np.random.default_rng(0)
    >>> sets = []
    >>> for _ in range(40):
    ...     s, y = rng.normal(size=300), (rng.random(300) < 0.3).astype(float)
    ...     features = Features.for_scores("spline", s, probabilities=False)
    ...     sets.append(set_aurocs(s, y, (s, None), features, MapPrior(0.0, 1.0, 1.0, 0.3), rng))
    >>> learn_weak_ranker(sets, base=None)["weight"] > 0.5
    True
    """
    sets = [d for d in sets if d is not None]
    if not sets or (base is None and len(sets) < MIN_SETS):
        return base
    centre = START if base is None else np.array([special.logit(base["weight"]), np.log(base["slope_sd"])])
    map_density = np.array([d["map_density"] for d in sets])
    weak_density = np.stack([d["weak_density"] for d in sets])

    def objective(theta):
        return -(_log_score(theta, map_density, weak_density) - 0.5 * np.sum((theta - centre) ** 2) / HYPER_SD**2)

    best = optimize.minimize(objective, centre, method="Nelder-Mead",
                             options={"maxiter": 400, "xatol": 1e-4, "fatol": 1e-6})
    c, c_se = np.array([d["c"] for d in sets]), np.array([d["c_se"] for d in sets])
    # the log odds of a positive across sets, net of each share's sampling error; the floor keeps it proper
    spread = np.var(c) - np.mean(c_se**2)
    return {"weight": float(special.expit(best.x[0])), "slope_sd": float(np.exp(best.x[1])),
            "c_mean": float(np.mean(c)), "c_sd": float(np.sqrt(max(spread, 0.0) + C_SD_FLOOR**2)),
            "n_sets": len(sets)}


def as_prior(weak: dict | None) -> WeakRankerPrior | None:
    """The weak ranker's prior from a ``weak_ranker`` dict (None: none)."""
    if not weak:
        return None
    return WeakRankerPrior(float(weak["weight"]), float(weak["slope_sd"]), float(weak["c_mean"]),
                           float(weak["c_sd"]))
