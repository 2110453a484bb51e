"""Bayesian group metrics: Beta-Bernoulli accuracy, Dirichlet-multinomial confusion columns.

Every posterior here is conjugate, so updates are counts and summaries are closed form;
rankings and comparisons use Monte Carlo draws from the independent group posteriors.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import stats


def check_positive(values, name):
    """Refuse NaN, infinite and non-positive parameters (a group with no items gives NaN)."""
    bad = ~(np.isfinite(values) & (values > 0))
    if bad.any():
        where = np.argwhere(bad)[:5].tolist()
        raise ValueError(f"{name} must be finite and positive; entries {where} are {values[bad][:5].tolist()} "
                         "(NaN usually means a group with no items)")


def beta_variance(a, b):
    a, b = np.asarray(a, float), np.asarray(b, float)
    n = a + b
    return a * b / (n * n * (n + 1.0))


@dataclass
class BetaGroups:
    """Independent Beta(alpha_g, beta_g) posteriors of a per-group rate (e.g. accuracy).

    Examples
    --------
    >>> post = BetaGroups([1, 1], [1, 1]).updated([8, 2], [2, 8])
    >>> post.mean().round(2).tolist()
    [0.75, 0.25]
    >>> [round(float(v), 2) for v in post.interval(0.9)[0]]
    [0.53, 0.08]
    """

    alpha: np.ndarray
    beta: np.ndarray

    def __post_init__(self):
        self.alpha = np.asarray(self.alpha, dtype=float).copy()
        self.beta = np.asarray(self.beta, dtype=float).copy()
        if self.alpha.shape != self.beta.shape or self.alpha.ndim != 1:
            raise ValueError("alpha and beta must be 1-D arrays of equal length")
        check_positive(self.alpha, "alpha")
        check_positive(self.beta, "beta")

    @property
    def n_groups(self):
        return self.alpha.size

    def update(self, group, success: bool):
        if success:
            self.alpha[group] += 1.0
        else:
            self.beta[group] += 1.0

    def updated(self, successes, failures) -> "BetaGroups":
        return BetaGroups(self.alpha + successes, self.beta + failures)

    def mean(self):
        return self.alpha / (self.alpha + self.beta)

    def mode(self):
        """MAP estimate (posterior mode where it exists, else the mean)."""
        a, b = self.alpha, self.beta
        with np.errstate(invalid="ignore", divide="ignore"):
            m = (a - 1.0) / (a + b - 2.0)
        return np.where((a > 1) & (b > 1), m, self.mean())

    def variance(self):
        return beta_variance(self.alpha, self.beta)

    def interval(self, level=0.9):
        tail = (1.0 - level) / 2.0
        return (stats.beta.ppf(tail, self.alpha, self.beta), stats.beta.ppf(1 - tail, self.alpha, self.beta))

    def sample(self, rng, size=None):
        """Draws of shape (size, G) (or (G,) when size is None)."""
        shape = (self.n_groups,) if size is None else (size, self.n_groups)
        return rng.beta(np.broadcast_to(self.alpha, shape), np.broadcast_to(self.beta, shape))

    def prob_lowest(self, rng, n=10_000):
        """P(group g has the lowest rate), by Monte Carlo."""
        draws = self.sample(rng, n)
        return np.bincount(draws.argmin(axis=1), minlength=self.n_groups) / n

    def rank_distribution(self, rng, n=10_000):
        """(G, G) matrix: P(group g has rank r), rank 0 = lowest rate."""
        ranks = self.sample(rng, n).argsort(axis=1).argsort(axis=1)
        out = np.zeros((self.n_groups, self.n_groups))
        for g in range(self.n_groups):
            out[g] = np.bincount(ranks[:, g], minlength=self.n_groups) / n
        return out


def rope_probabilities(groups: BetaGroups, g1, g2, epsilon=0.05, rng=None, n=10_000):
    """``(P(d < -eps), P(abs(d) <= eps), P(d > eps))`` for ``d = theta_g1 - theta_g2``.

    Examples
    --------
    >>> rope_probabilities(BetaGroups([90, 50], [10, 50]), 0, 1, rng=0).round(2).tolist()
    [0.0, 0.0, 1.0]
    """
    rng = np.random.default_rng(rng)
    d = rng.beta(groups.alpha[g1], groups.beta[g1], n) - rng.beta(groups.alpha[g2], groups.beta[g2], n)
    return np.array([np.mean(d < -epsilon), np.mean(np.abs(d) <= epsilon), np.mean(d > epsilon)])


_STEPS = 2000
_GRID = (np.arange(_STEPS) + 0.5) / _STEPS


def _grid_mass(a, b):
    log_f = (a - 1.0) * np.log(_GRID) + (b - 1.0) * np.log1p(-_GRID)
    f = np.exp(log_f - log_f.max())
    return f / f.sum()


def rope_quadrature(a1, b1, a2, b2, epsilon=0.05):
    """:func:`rope_probabilities` of Beta(a1, b1) minus Beta(a2, b2) by quadrature on a grid
    of 2,000 cells instead of Monte Carlo: deterministic, and fast enough to be evaluated
    at every labeling step (``ts-compare``)."""
    f1, f2 = _grid_mass(a1, b1), _grid_mass(a2, b2)
    shift = int(round(epsilon * _STEPS))
    at_centre = np.concatenate([[0.0], np.cumsum(f2)[:-1]]) + 0.5 * f2  # P(theta_2 <= centre of cell i)
    idx = np.arange(_STEPS)
    up, down = idx + shift, idx - shift
    below = f1 @ np.where(up < _STEPS, 1.0 - at_centre[np.minimum(up, _STEPS - 1)], 0.0)
    above = f1 @ np.where(down >= 0, at_centre[np.maximum(down, 0)], 0.0)
    return np.array([below, 1.0 - below - above, above])


@dataclass
class DirichletColumns:
    """Confusion-matrix columns: for predicted class k, theta[:, k] ~ Dirichlet(alpha[:, k]).

    ``alpha[j, k]`` is the pseudo-count of true class j among items predicted k.

    Examples
    --------
    >>> post = DirichletColumns([[3.0, 1.0], [1.0, 1.0]])
    >>> post.mean().round(2).tolist()
    [[0.75, 0.5], [0.25, 0.5]]
    >>> post.expected_cost([[0, 1], [4, 0]], np.random.default_rng(0), 20000).mean(0).round(1).tolist()
    [1.0, 0.5]
    """

    alpha: np.ndarray

    def __post_init__(self):
        self.alpha = np.asarray(self.alpha, dtype=float).copy()
        if self.alpha.ndim != 2 or self.alpha.shape[0] != self.alpha.shape[1]:
            raise ValueError("alpha must be a square (classes x classes) array")
        check_positive(self.alpha, "Dirichlet alpha")

    def update(self, true_class, predicted_class):
        self.alpha[true_class, predicted_class] += 1.0

    def mean(self):
        return self.alpha / self.alpha.sum(axis=0, keepdims=True)

    def interval(self, level=0.9):
        """Marginal equal-tailed intervals (each entry's marginal is a Beta)."""
        tail = (1.0 - level) / 2.0
        a0 = self.alpha.sum(axis=0, keepdims=True)
        rest = a0 - self.alpha
        return stats.beta.ppf(tail, self.alpha, rest), stats.beta.ppf(1 - tail, self.alpha, rest)

    def sample(self, rng, size):
        """(size, K, K) draws, columns summing to one."""
        g = rng.gamma(np.broadcast_to(self.alpha, (size, *self.alpha.shape)))
        return g / g.sum(axis=1, keepdims=True)

    def expected_cost(self, cost, rng, n=10_000):
        """Draws (n, K) of the expected misclassification cost per predicted class."""
        cost = np.asarray(cost, dtype=float)
        if cost.shape != self.alpha.shape:
            raise ValueError(f"cost matrix must have shape {self.alpha.shape}")
        return np.einsum("jk,njk->nk", cost, self.sample(rng, n))


def expected_calibration_error(bins: BetaGroups, bin_weights, bin_confidence, seed=None, n=10_000, *,
                               counts=None):
    """Posterior draws of the expected calibration error, ``ECE = sum_b p_b |theta_b - s_b|``.

    Ji et al.'s Bayesian ECE: each confidence bin's accuracy theta_b has a Beta posterior
    (``bins``); p_b is the bin's share of the items and s_b their mean confidence.

    Parameters
    ----------
    bins : BetaGroups
        Beta posterior of the accuracy in each bin.
    bin_weights : array_like
        Items per bin (or shares; normalised here).
    bin_confidence : array_like
        Mean confidence of each bin's items, in [0, 1].
    seed : int, numpy Generator or None
        Randomness of the Monte Carlo draws.
    n : int
        Number of draws.
    counts : tuple of three arrays, optional
        ``(items, labeled, correct)`` per bin: the ECE of *these* items (each bin's unlabeled
        items are drawn correct with probability theta_b, its labeled ones are known)
        instead of the population's (theta_b itself).

    Returns
    -------
    numpy.ndarray
        ``n`` draws of the ECE.

    Examples
    --------
    >>> post = BetaGroups([90.0, 40.0], [10.0, 60.0])
    >>> draws = expected_calibration_error(post, [1, 1], [0.9, 0.6], seed=0)
    >>> round(float(draws.mean()), 2)
    0.11
    """
    if not isinstance(bins, BetaGroups):
        raise TypeError(f"bins must be a BetaGroups, got {type(bins).__name__}")
    w = np.asarray(bin_weights, float)
    s = np.asarray(bin_confidence, float)
    if w.shape != (bins.n_groups,) or s.shape != w.shape:
        raise ValueError(f"bin_weights and bin_confidence need one value per bin ({bins.n_groups})")
    if np.any(w < 0) or not w.sum() > 0 or np.any(~np.isfinite(s)) or np.any((s < 0) | (s > 1)):
        raise ValueError("bin_weights must be >= 0 with a positive sum, bin_confidence in [0, 1]")
    if not isinstance(n, (int, np.integer)) or n < 1:
        raise ValueError(f"n must be a positive integer, got {n!r}")
    rng = np.random.default_rng(seed)
    draws = bins.sample(rng, n)
    if counts is not None:
        size, labeled, correct = (np.asarray(c, float) for c in counts)
        if not (size.shape == labeled.shape == correct.shape == w.shape) or np.any(size <= 0) \
                or np.any((labeled < 0) | (labeled > size)) or np.any((correct < 0) | (correct > labeled)):
            raise ValueError("counts must be (items > 0, 0 <= labeled <= items, 0 <= correct <= labeled) per bin")
        draws = (correct + rng.binomial((size - labeled).astype(np.int64), draws)) / size
    return np.abs(draws - s) @ (w / w.sum())
