"""Bayesian calibration error (Ji et al.): a posterior of accuracy per confidence bin.

Items fall in ``n_bins`` equal-width bins of the model's confidence (10, as in Ji et al.
and Guo et al.), within each group (a *cell*) or over all items (one group). ECE =
sum_c p_c |theta_c - s_c|, p_c the cell's share of its group's items, s_c their mean
confidence, theta_c their accuracy.

Ji et al. give each bin a fixed score-informed Beta(2 s_c, 2 (1 - s_c)). That prior says
a bin's accuracy could be almost anything, so |theta_c - s_c| is large under it whatever
the labels say: with 200 labels the 90% interval of a calibrated classifier's ECE covered
the truth in 0 of 200 seeds. Here the cells of a group share their prior: theta_c ~
Beta(kappa m_c, kappa (1 - m_c)) with m_c = s_c + d, where the group's offset d (how far
its accuracy sits from its confidence) and strength kappa (how closely the cells follow
s_c + d) are unknown, with a grid prior, integrated exactly over the grid (Beta-binomial
likelihood of the answers). Ji et al.'s prior is the member kappa = 2, d = 0. The offset's
prior is flat, or, given a Beta prior per group (mean m_g, e.g. SPE-informed), Normal
around m_g - s_g with that Beta's standard deviation; answers that prior already holds
are then not counted again. For *these* items (``kind="sample"``) a cell's accuracy is its
known answers plus Binomial(unlabeled, theta_c) correct among the rest.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import special

from ._metrics import BetaGroups

DEFAULT_BINS = 10
KINDS = ("sample", "population")
#: The hyperparameter grid: the group's offset d and the cells' prior strength kappa.
OFFSETS = np.linspace(-0.6, 0.6, 61)
STRENGTHS = np.geomspace(2.0, 5000.0, 16)
_EPS = 1e-3


def check_confidence(confidence, n) -> np.ndarray:
    c = np.asarray(confidence, dtype=float)
    if c.shape != (n,) or not np.all(np.isfinite(c)) or np.any((c < 0) | (c > 1)):
        raise ValueError(f"confidence must be {n} probabilities in [0, 1] (the model's probability that its "
                         "prediction is correct, one per item)")
    return c


def check_bins(n_bins) -> int:
    if not isinstance(n_bins, (int, np.integer)) or isinstance(n_bins, bool) or n_bins < 1:
        raise ValueError(f"n_bins must be a positive integer, got {n_bins!r}")
    return int(n_bins)


def confidence_bins(confidence, n_bins=DEFAULT_BINS) -> np.ndarray:
    """Equal-width bin of each confidence on [0, 1] (1.0 in the last bin)."""
    return np.minimum((np.asarray(confidence) * n_bins).astype(np.int64), n_bins - 1)


def _prior_means(confidence):
    """(offsets, cells) prior mean of each cell's accuracy under each offset."""
    return np.clip(np.asarray(confidence)[None, :] + OFFSETS[:, None], _EPS, 1 - _EPS)


@dataclass
class BinnedAccuracy:
    """Accuracy per cell (a confidence bin within a group) under the shared-offset prior."""

    confidence: np.ndarray  # mean confidence per cell
    size: np.ndarray        # items per cell
    labeled: np.ndarray     # answered items per cell (all of them, for the sample ECE)
    correct: np.ndarray
    ok: np.ndarray          # answers the likelihood counts (not already in a given prior)
    bad: np.ndarray
    group: np.ndarray       # group of each cell
    bin: np.ndarray         # confidence bin of each cell
    n_bins: int
    hyper: np.ndarray       # (groups, offsets * strengths) posterior of (d, kappa) per group

    @property
    def weight(self) -> np.ndarray:
        """Each cell's share of its group's items."""
        return self.size / np.bincount(self.group, weights=self.size)[self.group]

    def theta_draws(self, rng, n) -> np.ndarray:
        """(n, cells) draws of each cell's accuracy parameter."""
        cdf = np.cumsum(self.hyper, axis=1)
        u = rng.random((n, cdf.shape[0]))
        pick = np.stack([np.minimum(np.searchsorted(cdf[g], u[:, g]), cdf.shape[1] - 1)
                         for g in range(cdf.shape[0])], axis=1)[:, self.group]
        d, kappa = OFFSETS[pick // STRENGTHS.size], STRENGTHS[pick % STRENGTHS.size]
        m = np.clip(self.confidence + d, _EPS, 1 - _EPS)
        return rng.beta(kappa * m + self.ok, kappa * (1 - m) + self.bad)

    def accuracy_draws(self, rng, n, kind="sample") -> np.ndarray:
        """(n, cells) draws of each cell's accuracy: of these items, or the population's."""
        theta = self.theta_draws(rng, n)
        if kind == "population":
            return theta
        unlabeled = (self.size - self.labeled).astype(np.int64)
        return (self.correct + rng.binomial(unlabeled, theta)) / self.size

    def ece_draws(self, rng, n, kind="sample", n_groups=None) -> np.ndarray:
        """(n, groups) draws of each group's ECE (0 for a group with no items)."""
        gap = np.abs(self.accuracy_draws(rng, n, kind) - self.confidence) * self.weight
        onehot = np.zeros((self.group.size, n_groups or int(self.group.max()) + 1))
        onehot[np.arange(self.group.size), self.group] = 1.0
        return gap @ onehot


def _offset_log_prior(prior, group_conf):
    """(groups, offsets): flat, or Normal around the prior's mean minus the mean confidence."""
    if prior is None:
        return np.zeros((group_conf.size, OFFSETS.size))
    sd = np.maximum(np.sqrt(prior.variance()), OFFSETS[1] - OFFSETS[0])
    return -0.5 * ((OFFSETS[None, :] - (prior.mean() - group_conf)[:, None]) / sd[:, None]) ** 2


def pooled_prior(prior: BetaGroups, sizes) -> BetaGroups:
    """One Beta for the size-weighted accuracy of all groups (independent groups)."""
    w = np.asarray(sizes, float) / np.sum(sizes)
    mean, var = w @ prior.mean(), (w**2) @ prior.variance()
    strength = max(mean * (1 - mean) / max(var, 1e-12) - 1.0, 1e-3)
    return BetaGroups([mean * strength], [(1 - mean) * strength])


def binned_accuracy(confidence, groups, outcomes, n_bins=DEFAULT_BINS, prior=None,
                    prior_items=frozenset()) -> BinnedAccuracy:
    """Cells (group x confidence bin) and the posterior of each group's (offset, strength).

    ``outcomes``: {item: answer is correct}; ``prior``: a Beta per group informing the
    offset (``None``: flat); ``prior_items``: answers ``prior`` already holds.
    """
    n_bins = check_bins(n_bins)
    groups = np.asarray(groups)
    cell = groups * n_bins + confidence_bins(confidence, n_bins)
    used, cell_of_item = np.unique(cell, return_inverse=True)
    size = np.bincount(cell_of_item).astype(float)
    conf = np.bincount(cell_of_item, weights=confidence) / size
    ok, bad = np.zeros(used.size), np.zeros(used.size)
    labeled, correct = np.zeros(used.size), np.zeros(used.size)
    for i, good in outcomes.items():
        c = cell_of_item[i]
        labeled[c] += 1
        correct[c] += good
        if prior is None or i not in prior_items:
            (ok if good else bad)[c] += 1
    group = used // n_bins
    n_groups = int(groups.max()) + 1
    m = _prior_means(conf)[:, None, :]  # (offsets, 1, cells)
    k = STRENGTHS[None, :, None]
    loglik = special.betaln(k * m + ok, k * (1 - m) + bad) - special.betaln(k * m, k * (1 - m))
    by_group = np.zeros((n_groups, OFFSETS.size * STRENGTHS.size))
    np.add.at(by_group, group, loglik.reshape(-1, used.size).T)
    group_size = np.bincount(group, weights=size, minlength=n_groups)
    group_conf = np.bincount(group, weights=size * conf, minlength=n_groups) / np.maximum(group_size, 1)
    log_post = by_group + np.repeat(_offset_log_prior(prior, group_conf), STRENGTHS.size, axis=1)
    hyper = np.exp(log_post - log_post.max(axis=1, keepdims=True))
    hyper /= hyper.sum(axis=1, keepdims=True)
    return BinnedAccuracy(conf, size, labeled, correct, ok, bad, group, used % n_bins, n_bins, hyper)


def _summary(draws, level):
    tail = (1.0 - level) / 2.0
    return {"mean": draws.mean(axis=0), "median": np.median(draws, axis=0),
            "lower": np.quantile(draws, tail, axis=0), "upper": np.quantile(draws, 1 - tail, axis=0)}


@dataclass
class CalibrationError:
    """Posterior of the expected calibration error: over all items and per group.

    ``draws`` (n,) and ``group_draws`` (n, groups) are Monte Carlo draws; :attr:`overall`
    and :attr:`per_group` summarise them (mean, median and the ``level`` interval);
    ``bins`` holds the Beta posterior per confidence bin over all items, drawn by
    :meth:`plot` (the Bayesian reliability diagram).

    Examples
    --------
    >>> from spe.assessment import Assessor
    >>> conf = np.linspace(0.5, 1.0, 300)
    >>> a = Assessor(np.zeros(300, dtype=int), None, confidence=conf, seed=0)
    >>> for i in range(0, 300, 3):
    ...     a.update(i, 1)
    >>> ece = a.calibration_error(n=2000)
    >>> sorted(ece.overall), ece.group_draws.shape
    (['lower', 'mean', 'median', 'upper'], (2000, 1))
    """

    draws: np.ndarray
    group_draws: np.ndarray
    bins: BinnedAccuracy
    level: float
    kind: str

    @property
    def overall(self) -> dict:
        return {k: float(v) for k, v in _summary(self.draws, self.level).items()}

    @property
    def per_group(self) -> dict:
        return _summary(self.group_draws, self.level)

    def __str__(self):
        o = self.overall
        return (f"ECE ({self.kind}, {self.bins.n_bins} bins): {o['median']:.4g} "
                f"[{100 * self.level:g}% {o['lower']:.4g}, {o['upper']:.4g}]")

    def plot(self, ax=None, *, true_correct=None, confidence=None, seed=0, n=4000):
        """The Bayesian reliability diagram: each bin's accuracy posterior against its confidence.

        ``true_correct`` (0/1 per item) with ``confidence`` adds the true accuracy per bin.
        """
        from ._plot import plot_reliability_diagram

        return plot_reliability_diagram(self, ax, true_correct=true_correct, confidence=confidence,
                                        seed=seed, n=n)
