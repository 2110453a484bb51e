"""Performance curves and metrics from posterior draws (docs/method.md, section 5).

Two kinds, one sweep each (built in :mod:`spe.results` from the label posterior):

* ``"sample"``: performance on *this* data set. Each draw's labels (known labels fixed,
  unknown ones drawn) trace a curve over the items' own scores. With every item labeled
  the curve is exact and the band has zero width.
* ``"population"``: the same sweep over *expected* positives per score group (no
  label-draw noise): the score model's performance over this score distribution.

Conventions (used identically for the truth in tests and benchmarks):

* precision at recall r is the precision at the highest threshold whose recall >= r;
* TPR at FPR f is the TPR at the lowest threshold whose FPR <= f;
* bands are equal-tailed weighted quantiles of the per-draw values.
"""

from __future__ import annotations

import numbers

from dataclasses import dataclass

import numpy as np

DEFAULT_RECALL_GRID = np.linspace(0.0, 1.0, 101)
DEFAULT_FPR_GRID = np.linspace(0.0, 1.0, 101)
_GRID_TOL = 1e-12


def check_level(level) -> float:
    try:
        level = float(level)
    except (TypeError, ValueError):
        raise TypeError(f"level must be a number in (0, 1), got {level!r}") from None
    if not 0.0 < level < 1.0:
        raise ValueError(f"level must be strictly between 0 and 1 (e.g. 0.9), got {level!r}")
    return level


def check_n_draws(n_draws) -> int:
    if not isinstance(n_draws, numbers.Integral) or isinstance(n_draws, bool) or n_draws < 10:
        raise ValueError(f"n_draws must be an integer >= 10, got {n_draws!r}")
    return int(n_draws)


def check_grid(grid, default, name) -> np.ndarray:
    if grid is None:
        return default.copy()
    try:
        g = np.atleast_1d(np.asarray(grid, dtype=float))
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be an array of numbers in [0, 1]") from None
    if g.ndim != 1 or g.size == 0:
        raise ValueError(f"{name} must be a non-empty 1-D array")
    if not np.all(np.isfinite(g)) or g.min() < 0 or g.max() > 1:
        raise ValueError(f"{name} values must lie in [0, 1]")
    return g


def weighted_quantile(values, weights, q):
    """Weighted quantile(s) ``q`` of ``values`` along axis 0 (the draws)."""
    values = np.asarray(values, dtype=float)
    order = np.argsort(values, axis=0)
    sorted_vals = np.take_along_axis(values, order, axis=0)
    cw = np.cumsum(np.asarray(weights, float)[order], axis=0)
    cw /= cw[-1]
    q = np.atleast_1d(q)
    idx = np.stack([(cw < qi - 1e-12).sum(axis=0) for qi in q])
    idx = np.minimum(idx, values.shape[0] - 1)
    out = np.take_along_axis(sorted_vals, idx, axis=0) if values.ndim > 1 else sorted_vals[idx]
    return out


def band(draws, weights, level):
    """Weighted median and equal-tailed (lower, upper) band along axis 0.

    The point estimate is the posterior median (pointwise, for curves): the Bayes estimate
    under absolute error, which is how curves (area between them) and rates are judged.
    Pooled over score models the posterior can be bimodal, and the median then stays
    with the model holding most of the weight where the mean would sit between them.
    """
    alpha = (1.0 - check_level(level)) / 2.0  # every interval passes here: the one level check
    lower, median, upper = weighted_quantile(draws, weights, [alpha, 0.5, 1.0 - alpha])
    return median, lower, upper


@dataclass
class Estimate:
    """A scalar posterior: its median (the point estimate) and equal-tailed credible interval.

    ``value`` is the posterior median; ``mean`` the posterior mean; ``draws`` and
    ``weights`` the weighted draws both come from.
    """

    name: str
    value: float
    lower: float
    upper: float
    level: float
    draws: np.ndarray
    weights: np.ndarray

    @classmethod
    def from_draws(cls, name, draws, weights, level):
        value, lower, upper = band(np.asarray(draws, float), weights, level)
        return cls(name, float(value), float(lower), float(upper), level, draws, weights)

    @property
    def mean(self) -> float:
        return float(np.dot(self.weights, self.draws))

    def __float__(self):
        return self.value

    def as_dict(self):
        return {"value": self.value, "mean": self.mean, "lower": self.lower, "upper": self.upper,
                "level": self.level}

    def __repr__(self):
        pct = f"{100 * self.level:g}%"
        return f"{self.name}: {self.value:.4g} [{pct} {self.lower:.4g}, {self.upper:.4g}]"


@dataclass
class CurveBand:
    """A curve y(x) on a grid: pointwise posterior median, band, and the per-draw curves."""

    x: np.ndarray
    y: np.ndarray
    lower: np.ndarray
    upper: np.ndarray
    draws: np.ndarray
    weights: np.ndarray
    level: float
    kind: str

    @classmethod
    def from_draws(cls, x, draws, weights, level, kind):
        y, lower, upper = band(draws, weights, level)
        return cls(x, y, lower, upper, draws, weights, level, kind)

    def area_between(self, other_y) -> float:
        """Integral over the grid of |y - other_y| (trapezoid rule)."""
        return float(np.trapezoid(np.abs(self.y - np.asarray(other_y, float)), self.x))


class PRCurve(CurveBand):
    """Precision on a recall grid: ``recall``, ``precision``, ``lower``, ``upper``, ``draws``."""

    @property
    def recall(self):
        return self.x

    @property
    def precision(self):
        return self.y


class ROCCurve(CurveBand):
    """TPR on an FPR grid: ``fpr``, ``tpr``, ``lower``, ``upper``, ``draws``."""

    @property
    def fpr(self):
        return self.x

    @property
    def tpr(self):
        return self.y


class Sweep:
    """Cumulative counts per draw as the threshold sweeps from high to low.

    Column k selects the k+1 highest-scoring groups. ``pos`` is (M, G) positives per
    group in ascending score order; ``totals`` is (G,) items per group.
    """

    def __init__(self, pos, totals):
        pos = np.atleast_2d(pos)[:, ::-1]
        totals = np.asarray(totals)[::-1]
        self.tp = np.cumsum(pos, axis=1)
        self.predicted = np.cumsum(totals)
        self.fp = self.predicted[None, :] - self.tp
        self.n_pos = self.tp[:, -1]
        self.n_neg = self.predicted[-1] - self.n_pos
        self.n_items = int(self.predicted[-1])

    def recall(self):
        with np.errstate(invalid="ignore", divide="ignore"):
            r = self.tp / self.n_pos[:, None]
        return np.where(self.n_pos[:, None] > 0, r, 1.0)

    def precision(self):
        return self.tp / self.predicted[None, :]

    def fpr(self):
        with np.errstate(invalid="ignore", divide="ignore"):
            f = self.fp / self.n_neg[:, None]
        return np.where(self.n_neg[:, None] > 0, f, 0.0)


def _rowwise_searchsorted(rows, queries, side):
    """searchsorted of the same queries in each non-decreasing row of values in [0, 1]."""
    m, g = rows.shape
    offset = 2.0 * np.arange(m)[:, None]
    flat = (rows + offset).ravel()
    idx = np.searchsorted(flat, (queries[None, :] + offset).ravel(), side=side)
    return idx.reshape(m, -1) - (np.arange(m) * g)[:, None]


def sample_precision_at_recall(sweep: Sweep, grid):
    recall = sweep.recall()
    idx = _rowwise_searchsorted(recall, np.asarray(grid) - _GRID_TOL, "left")
    idx = np.clip(idx, 0, recall.shape[1] - 1)
    return np.take_along_axis(sweep.precision(), idx, axis=1)


def sample_tpr_at_fpr(sweep: Sweep, grid):
    m = sweep.tp.shape[0]
    fpr = np.hstack([np.zeros((m, 1)), sweep.fpr()])
    tpr = np.hstack([np.zeros((m, 1)), sweep.recall()])
    idx = _rowwise_searchsorted(fpr, np.asarray(grid) + _GRID_TOL, "right") - 1
    return np.take_along_axis(tpr, np.clip(idx, 0, fpr.shape[1] - 1), axis=1)


def sample_average_precision(sweep: Sweep):
    recall = sweep.recall()
    gain = np.diff(recall, axis=1, prepend=0.0)
    return np.sum(gain * sweep.precision(), axis=1)


def sample_auroc(sweep: Sweep):
    m = sweep.tp.shape[0]
    fpr = np.hstack([np.zeros((m, 1)), sweep.fpr()])
    tpr = np.hstack([np.zeros((m, 1)), sweep.recall()])
    auc = np.trapezoid(tpr, fpr, axis=1)
    degenerate = (sweep.n_pos == 0) | (sweep.n_neg == 0)
    return np.where(degenerate, 0.5, auc)


def sample_max_f1(sweep: Sweep):
    p, r = sweep.precision(), sweep.recall()
    with np.errstate(invalid="ignore", divide="ignore"):
        f1 = np.where(p + r > 0, 2 * p * r / (p + r), 0.0)
    return f1.max(axis=1)


# ---- exact curves from known labels (truth, the naive labels-only baseline) ----------
def labeled_sweep(scores, labels) -> Sweep:
    """The exact sweep for items whose labels are all known."""
    scores = np.asarray(scores, float)
    labels = np.asarray(labels, float)
    if scores.shape != labels.shape or np.isnan(labels).any():
        raise ValueError("exact curves need a label for every score")
    return draws_sweep(scores, labels[None, :])


def draws_sweep(scores, positives) -> Sweep:
    """The sweep of items with scores ``scores`` (N,) under each row of 0/1 ``positives`` (M, N)."""
    unique, group = np.unique(scores, return_inverse=True)
    pos = np.stack([np.bincount(group, weights=row, minlength=unique.size) for row in positives])
    return Sweep(pos, np.bincount(group, minlength=unique.size))


def exact_precision_at_recall(scores, labels, recall=None):
    """Precision at each recall for fully labeled items (same convention as SPE).

    With no positive among the labels, precision is 0 at every recall.
    """
    grid = check_grid(recall, DEFAULT_RECALL_GRID, "recall")
    return sample_precision_at_recall(labeled_sweep(scores, labels), grid)[0]


def exact_tpr_at_fpr(scores, labels, fpr=None):
    grid = check_grid(fpr, DEFAULT_FPR_GRID, "fpr")
    return sample_tpr_at_fpr(labeled_sweep(scores, labels), grid)[0]
