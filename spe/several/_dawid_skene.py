"""A joint label model of hard predictions: conditionally independent given the class.

Models with a few distinct scores (hard 0/1 predictions) carry no ranking for a
calibration map or a copula, but together they are the classic setting of Dawid and
Skene (1979): each model j gives value v with probability phi_jk(v) among the items of
class k, the models independently given the class, and

    P(y_i = 1 | s_i) = sigmoid(logit pi + sum_j log phi_j1(s_ij) / phi_j0(s_ij)),

pi the prevalence. Semi-supervised: the labeled items count with their class, and the
unlabeled items' agreement patterns inform pi and every phi (with three or more models
the patterns alone identify them, up to swapping the classes). Prior: pi ~ Beta(1, 1),
each phi_jk ~ Dirichlet(1, ..., 1) over model j's values. Posterior by Gibbs sampling with
data augmentation over the items' patterns (the distinct value vectors): the number of
positives among each pattern's unlabeled items given the parameters, then the
parameters given the counts (conjugate), so the cost does not grow with the items. The
chain starts where the models' top values say "positive", which picks the labelled side
of the class swap; the labels keep it there.

Where the models' errors are shared (families trained on the same features) the product
overstates agreement, as the log-linear pool does; :func:`spe.fit_many` stacks it with
each model's per-value map and the pool, weighted by the labels. Like the pool, it is a
score model over *item indices*, so it plugs into :func:`spe.pooling.combine`.
"""

from __future__ import annotations

import numpy as np
from scipy import special

from ..scores import PROBABILITY_EPS

NAME = "Dawid-Skene"
#: Dirichlet (and Beta) prior shape of every P(value | class) and of the prevalence.
PRIOR_SHAPE = 1.0
N_DRAWS = 1000
BURN_IN = 200
THIN = 2


class DawidSkene:
    """Equally weighted Gibbs draws of the prevalence and each model's P(value | class).

    Made by :func:`fit_dawid_skene`; ``prob_positive(items)`` looks each item's pattern up.
    """

    name = NAME

    def __init__(self, models: list, values: list, pattern: np.ndarray, log_odds: np.ndarray, pi: np.ndarray,
                 phi: np.ndarray):
        self.models = models
        self.values = values  # per model, its distinct scores (ascending)
        self.pattern = pattern  # (N,) each item's pattern
        self.log_odds = log_odds  # (draws, patterns)
        self.pi = pi
        self.phi = phi  # (draws, J, 2, max values): P(value | class)
        self.weights = np.full(pi.size, 1.0 / pi.size)

    @property
    def n_draws(self) -> int:
        return self.pi.size

    @property
    def ess(self) -> float:
        return float(self.n_draws)

    def prob_positive(self, items, draws=None) -> np.ndarray:
        """(M, n) P(y = 1) of the items at indices ``items`` under each draw."""
        rows = slice(None) if draws is None else np.asarray(draws, dtype=np.intp)
        return special.expit(self.log_odds[rows][:, self.pattern[np.asarray(items, dtype=np.intp)]])

    def draws(self) -> dict:
        out = {"pi": self.pi}
        for j, (model, values) in enumerate(zip(self.models, self.values)):
            for k in (0, 1):
                for c, v in enumerate(values):
                    out[f"P({model}={v:.6g}|y={k})"] = self.phi[:, j, k, c]
        return out

    def describe(self) -> dict:
        return {"model": "Dawid-Skene: the models' values independent given the class, P(value | class) per model",
                "feature": f"{int(self.pattern.max()) + 1} patterns of {len(self.models)} models' values",
                "prior": {"pi": f"Beta({PRIOR_SHAPE:g}, {PRIOR_SHAPE:g})",
                          "P(value | class)": f"Dirichlet({PRIOR_SHAPE:g})"},
                "posterior_mean": {k: float(v.mean()) for k, v in self.draws().items()},
                "inference": f"Gibbs sampling with the unlabeled items' classes ({self.n_draws} draws)",
                "pareto_khat": None, "ess": self.ess}

    def chain_index(self) -> None:
        return None


def _patterns(scores: dict):
    """Each model's distinct values, each item's (J,) value indices as a pattern id, and
    the (P, J) value indices of every pattern."""
    values, cells = zip(*(np.unique(np.asarray(s, float), return_inverse=True) for s in scores.values()))
    codes, pattern = np.unique(np.column_stack(cells), axis=0, return_inverse=True)
    return list(values), pattern.ravel(), codes


def _draw_parameters(codes, sizes, positives, negatives, rng):
    """pi and (J, 2, max values) P(value | class) given the classes' counts per pattern."""
    n_models, width = codes.shape[1], int(sizes.max())
    flat = (np.arange(n_models) * width + codes).ravel()
    counts = np.stack([np.bincount(flat, weights=np.repeat(c, n_models), minlength=n_models * width)
                       .reshape(n_models, width) for c in (negatives, positives)], axis=1)
    shape = np.where(np.arange(width) < sizes[:, None, None], PRIOR_SHAPE + counts, 0.0)
    gammas = rng.standard_gamma(shape)
    pi = rng.beta(PRIOR_SHAPE + positives.sum(), PRIOR_SHAPE + negatives.sum())
    return pi, gammas / gammas.sum(axis=2, keepdims=True)


def _pattern_log_odds(pi, phi, codes):
    """(P,) logit P(y = 1 | pattern) under one draw."""
    j = np.arange(codes.shape[1])
    log_phi = np.log(np.clip(phi[j[None, :], :, codes], PROBABILITY_EPS, 1))  # (P, J, 2)
    ratio = log_phi[..., 1] - log_phi[..., 0]
    return special.logit(np.clip(pi, PROBABILITY_EPS, 1 - PROBABILITY_EPS)) + ratio.sum(axis=1)


def fit_dawid_skene(scores: dict, labels, rng, n_draws: int = N_DRAWS) -> DawidSkene:
    """The Dawid-Skene posterior of ``scores`` ({model: (N,) scores with a few distinct
    values}) given ``labels`` (NaN = unlabeled).

    Returns
    -------
    DawidSkene

    Raises
    ------
    ValueError
        If fewer than two models are given.

    Examples
    --------
    Three hard classifiers, 90% right in either class, 20 of 500 items labeled:

    >>> import numpy as np
    >>> from spe.several._dawid_skene import fit_dawid_skene
    >>> rng = np.random.default_rng(0)
    >>> y = rng.random(500) < 0.3
    >>> scores = {m: np.where(rng.random(500) < 0.9, y, ~y).astype(float) for m in "abc"}
    >>> labels = np.where(np.arange(500) < 20, y, np.nan)
    >>> fit = fit_dawid_skene(scores, labels, np.random.default_rng(1))
    >>> round(float(fit.pi.mean()), 1), fit.prob_positive(np.arange(5)).shape
    (0.3, (1000, 5))
    """
    if len(scores) < 2:
        raise ValueError(f"the Dawid-Skene model needs two or more models, got {len(scores)}")
    labels = np.asarray(labels, float)
    values, pattern, codes = _patterns(scores)
    sizes = np.array([v.size for v in values])
    known = ~np.isnan(labels)
    n_patterns = codes.shape[0]
    unlabeled = np.bincount(pattern[~known], minlength=n_patterns).astype(float)
    labeled_pos = np.bincount(pattern[known], weights=labels[known], minlength=n_patterns)
    labeled_neg = np.bincount(pattern[known], minlength=n_patterns) - labeled_pos
    positive = unlabeled * np.mean(codes == sizes - 1, axis=1)  # start: each model's top value says positive
    log_odds, pis, phis = [], [], []
    for step in range(BURN_IN + n_draws * THIN):
        pi, phi = _draw_parameters(codes, sizes, positive + labeled_pos, unlabeled - positive + labeled_neg, rng)
        eta = _pattern_log_odds(pi, phi, codes)
        positive = rng.binomial(unlabeled.astype(np.int64), special.expit(eta)).astype(float)
        if step >= BURN_IN and (step - BURN_IN) % THIN == 0:
            log_odds.append(eta)
            pis.append(pi)
            phis.append(phi)
    return DawidSkene(list(scores), values, pattern, np.array(log_odds), np.array(pis), np.array(phis))
