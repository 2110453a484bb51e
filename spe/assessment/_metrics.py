"""Bayesian group metrics: Beta-Bernoulli accuracy, Dirichlet-multinomial confusion columns.

Every posterior here is conjugate, so updates are counts and summaries are closed form;
rankings and comparisons use Monte Carlo draws from the independent group posteriors.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import stats


def beta_variance(a, b):
    a, b = np.asarray(a, float), np.asarray(b, float)
    n = a + b
    return a * b / (n * n * (n + 1.0))


@dataclass
class BetaGroups:
    """Independent Beta(alpha_g, beta_g) posteriors of a per-group rate (e.g. accuracy)."""

    alpha: np.ndarray
    beta: np.ndarray

    def __post_init__(self):
        self.alpha = np.asarray(self.alpha, dtype=float).copy()
        self.beta = np.asarray(self.beta, dtype=float).copy()
        if self.alpha.shape != self.beta.shape or self.alpha.ndim != 1:
            raise ValueError("alpha and beta must be 1-D arrays of equal length")
        if np.any(self.alpha <= 0) or np.any(self.beta <= 0):
            raise ValueError("Beta parameters must be positive")

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
    """``(P(d < -eps), P(abs(d) <= eps), P(d > eps))`` for ``d = theta_g1 - theta_g2``."""
    rng = np.random.default_rng(rng)
    d = rng.beta(groups.alpha[g1], groups.beta[g1], n) - rng.beta(groups.alpha[g2], groups.beta[g2], n)
    return np.array([np.mean(d < -epsilon), np.mean(np.abs(d) <= epsilon), np.mean(d > epsilon)])


@dataclass
class DirichletColumns:
    """Confusion-matrix columns: for predicted class k, theta[:, k] ~ Dirichlet(alpha[:, k]).

    ``alpha[j, k]`` is the pseudo-count of true class j among items predicted k.
    """

    alpha: np.ndarray

    def __post_init__(self):
        self.alpha = np.asarray(self.alpha, dtype=float).copy()
        if self.alpha.ndim != 2 or self.alpha.shape[0] != self.alpha.shape[1]:
            raise ValueError("alpha must be a square (classes x classes) array")
        if np.any(self.alpha <= 0):
            raise ValueError("Dirichlet parameters must be positive")

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


def expected_calibration_error(bins: BetaGroups, bin_weights, bin_confidence, rng, n=10_000):
    """Posterior draws of ECE = sum_b p_b |theta_b - s_b| from binwise accuracy posteriors."""
    w = np.asarray(bin_weights, float)
    w = w / w.sum()
    draws = bins.sample(rng, n)
    return np.abs(draws - np.asarray(bin_confidence, float)) @ w
