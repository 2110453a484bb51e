"""A joint label model of several scores: a Gaussian copula per class over the models' marginals.

The log-linear pool (``_log_linear_pool``) multiplies the models' evidence, which is right
when their errors are independent given the class and overstates the top of the ranking
when they share them (fine-tuned variants of one network, families on the same
features). This model represents the dependence: the joint density of the score vector
given the class,

    f_k(s_i1, ..., s_iJ) = c_{R_k}(F_k1(s_i1), ..., F_kJ(s_iJ)) prod_j f_kj(s_ij),   k = 0, 1,

with c_R the Gaussian copula of correlation R. The per-model marginals come from each
model's own calibration, q_j(s) = P(y = 1 | s_j = s) (its Bayesian Platt map, the pool's
recalibration): by Bayes f_1j(s) = q_j(s) p_j(s) / pi and f_0j(s) = (1 - q_j(s)) p_j(s) /
(1 - pi), p_j the scores' distribution over the items, so F_kj is the items' distribution
function weighted by q_j (class 1) or 1 - q_j (class 0). Then

    logit P(y_i = 1 | s_i) = logit pi + sum_j (logit q_j(s_ij) - logit pi)
                             + log c_{R_1}(z_i^1) - log c_{R_0}(z_i^0),
    z_ij^k = Phi^-1(F_kj(s_ij)),  log c_R(z) = -(log det R + z'(R^-1 - I)z) / 2.

With independent errors (R_k = I) it is the product of the calibrated models (naive
Bayes); with shared errors the copula term takes back what the agreement of correlated
models does not add (J copies of one model give that model's q). R_k is the weighted
correlation of z^k over the items, each weighted by its own P(y_i = k) under the model
(three fixed-point steps from R = I), shrunk towards I by ``SHRINK`` pseudo-items;
pi is the items' mean q. Labeled items count with their label.

Uncertainty: per draw, one posterior draw of every model's Platt map and the Bayesian
bootstrap of the items (weights w_i ~ Exp(1)) for pi, the marginals and R_k; the draws
are equally weighted. Like the pool it is a score model over *item indices*, so it plugs
into :func:`spe.pooling.combine`, where the labels' leave-one-out densities weigh it.
"""

from __future__ import annotations

import numpy as np
from scipy import special

from ..pooling import systematic_resample
from ..scores import PROBABILITY_EPS

NAME = "Gaussian copula"
#: Pseudo-items of independence (R = I) in each class's copula correlation.
SHRINK = 2.0
N_DRAWS = 200


def _class_normal_scores(s, weights) -> np.ndarray:
    """(B, N) Phi^-1 of each item's mid-rank under the (B, N) weights over the items."""
    order = np.argsort(s, kind="stable")
    sorted_s = s[order]
    last = np.r_[sorted_s[1:] != sorted_s[:-1], True]  # the last item of each run of tied scores
    cum = np.cumsum(weights[:, order], axis=1)
    end = cum[:, last]
    tied = np.diff(end, axis=1, prepend=0.0)
    group = np.cumsum(np.r_[True, last[:-1]]) - 1  # each sorted item's run
    u = np.empty_like(weights)
    u[:, order] = ((end - 0.5 * tied) / cum[:, -1:])[:, group]
    edge = 0.5 / s.size
    return special.ndtri(np.clip(u, edge, 1 - edge))


def _copula_log_density(z, weights) -> np.ndarray:
    """(B, N) log c_R(z_i) with R the shrunk weighted correlation of ``z`` (B, N, J)."""
    n_eff = weights.sum(axis=1)
    scatter = np.einsum("bn,bni,bnj->bij", weights, z, z, optimize=True)
    eye = np.eye(z.shape[2])
    cov = (scatter + SHRINK * eye) / (n_eff + SHRINK)[:, None, None]
    sd = np.sqrt(np.diagonal(cov, axis1=1, axis2=2))
    corr = cov / (sd[:, :, None] * sd[:, None, :])
    inner = np.linalg.inv(corr) - eye
    quad = np.sum((z @ inner) * z, axis=2)
    return -0.5 * (np.linalg.slogdet(corr)[1][:, None] + quad), corr


class GaussianCopula:
    """Equally weighted draws of every item's log-odds under the copula model."""

    name = NAME

    def __init__(self, models: list, log_odds: np.ndarray, pi: np.ndarray, correlation: np.ndarray):
        self.models = models
        self.log_odds = log_odds  # (B, N) float32
        self.pi = pi
        self.correlation = correlation  # (B, 2, J, J)
        self.weights = np.full(pi.size, 1.0 / pi.size)

    @property
    def n_draws(self) -> int:
        return self.pi.size

    def prob_positive(self, items, draws=None) -> np.ndarray:
        """(M, n) P(y = 1) of the items at indices ``items`` under each draw."""
        rows = slice(None) if draws is None else np.asarray(draws, dtype=np.intp)
        return special.expit(self.log_odds[rows][:, np.asarray(items, dtype=np.intp)].astype(float))

    def draws(self) -> dict:
        out = {"pi": self.pi}
        for k in (0, 1):
            for a in range(len(self.models)):
                for b in range(a + 1, len(self.models)):
                    out[f"R{k}[{self.models[a]},{self.models[b]}]"] = self.correlation[:, k, a, b]
        return out

    def describe(self) -> dict:
        mean = self.correlation.mean(axis=0)
        off = ~np.eye(len(self.models), dtype=bool)
        return {"model": "Gaussian copula per class over the models' Platt-calibrated marginals",
                "feature": "each model's class-conditional normal scores",
                "posterior_mean": {"pi": float(self.pi.mean()),
                                   "mean correlation given y=0": float(mean[0][off].mean()),
                                   "mean correlation given y=1": float(mean[1][off].mean())},
                "inference": f"Platt draws and the Bayesian bootstrap of the items ({self.n_draws} draws)",
                "pareto_khat": None, "ess": float(self.n_draws)}

    def chain_index(self) -> None:
        return None


def _map_draws(fit, s, n_draws, rng) -> np.ndarray:
    rows = systematic_resample(fit.weights, n_draws, rng)
    return np.clip(fit.prob_positive(s, np.unique(rows))[np.searchsorted(np.unique(rows), rows)],
                   PROBABILITY_EPS, 1 - PROBABILITY_EPS)


def fit_gaussian_copula(scores: dict, labels, maps: dict, rng, n_draws: int = N_DRAWS) -> GaussianCopula:
    """The copula model of ``scores`` ({model: (N,) scores}) given ``labels`` (NaN =
    unlabeled) and each model's Platt posterior ``maps`` ({model: fit})."""
    known = ~np.isnan(labels)
    q = np.stack([_map_draws(maps[m], np.asarray(s, float), n_draws, rng) for m, s in scores.items()], axis=2)
    known_q = q.copy()
    known_q[:, known] = labels[known][None, :, None]  # (B, N, J): in the marginals a labeled item is its class
    w = rng.standard_exponential((n_draws, labels.size))
    pi = np.einsum("bn,bn->b", w, known_q.mean(axis=2)) / w.sum(axis=1)
    z = [np.stack([_class_normal_scores(np.asarray(s, float), w * (known_q[..., j] if k else 1 - known_q[..., j]))
                   for j, s in enumerate(scores.values())], axis=2) for k in (0, 1)]
    base = special.logit(pi)[:, None] + np.sum(special.logit(q) - special.logit(pi)[:, None, None], axis=2)
    r = known_q.mean(axis=2)
    c0, r0 = _copula_log_density(z[0], w * (1 - r))
    c1, r1 = _copula_log_density(z[1], w * r)
    return GaussianCopula(list(scores), (base + c1 - c0).astype(np.float32), pi, np.stack([r0, r1], axis=1))

