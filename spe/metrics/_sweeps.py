"""Sweeps: cumulative counts per draw as the threshold moves from high to low, and the
per-draw performance values read off them (precision at recall, TPR at FPR, AP, AUROC,
max F1), for label draws and for fully labeled data (the "truth" of tests and benchmarks).

Conventions: precision at recall r is the precision at the highest threshold whose recall
>= r; TPR at FPR f is the TPR at the lowest threshold whose FPR <= f.
"""

from __future__ import annotations

import functools

import numpy as np

from ._curves import DEFAULT_FPR_GRID, DEFAULT_RECALL_GRID, check_grid

_GRID_TOL = 1e-12


class Sweep:
    """Cumulative counts per draw as the threshold sweeps from high to low.

    Column k selects the k+1 highest-scoring groups. ``pos`` is (M, G) positives per
    group in ascending score order; ``totals`` is (G,) items per group, or (M, G) item
    weights per draw (a Bayesian bootstrap of the items: ``_population``),
    in which case ``predicted`` and ``n_items`` are per draw too.

    See Also
    --------
    labeled_sweep : the sweep of fully labeled items.

    Examples
    --------
    Two draws over three score groups of two items each (ascending score):

    >>> import numpy as np
    >>> from spe.metrics import Sweep, sample_average_precision
    >>> sweep = Sweep(np.array([[0, 1, 2], [1, 1, 1]]), np.array([2, 2, 2]))
    >>> sweep.n_pos, sweep.tp  # true positives as the threshold moves down
    (array([3, 3]), array([[2, 3, 3],
           [1, 2, 3]]))
    >>> sample_average_precision(sweep).round(3)
    array([0.917, 0.5  ])
    """

    def __init__(self, pos, totals):
        pos = np.atleast_2d(pos)[:, ::-1]
        totals = np.asarray(totals)[..., ::-1]
        self.tp = np.cumsum(pos, axis=1)
        self.predicted = np.cumsum(totals, axis=-1)
        self.n_pos = self.tp[:, -1]
        self.n_neg = self.predicted[..., -1] - self.n_pos
        self.n_items = int(self.predicted[-1]) if totals.ndim == 1 else self.predicted[:, -1]

    @property
    def predicted_rows(self):
        """``predicted`` as (1, G) or (M, G): broadcastable against ``tp``."""
        return self.predicted if self.predicted.ndim == 2 else self.predicted[None, :]

    @functools.cached_property
    def fp(self):
        """(M, G) false positives; built on first use (curves of precision never need it)."""
        return self.predicted_rows - self.tp

    def recall(self):
        with np.errstate(invalid="ignore", divide="ignore"):
            r = self.tp / self.n_pos[:, None]
        return np.where(self.n_pos[:, None] > 0, r, 1.0)

    def precision(self):
        return self.tp / self.predicted_rows

    def fpr(self):
        with np.errstate(invalid="ignore", divide="ignore"):
            f = self.fp / self.n_neg[:, None]
        return np.where(self.n_neg[:, None] > 0, f, 0.0)


def _rowwise_searchsorted(rows, queries, side, span=1.0):
    """searchsorted of ``queries`` (one row of them, or one per row) in each non-decreasing
    row of values in [0, span]: the rows are shifted apart so that one search serves all."""
    m, g = rows.shape
    offset = (span + 1.0) * np.arange(m)[:, None]
    flat = (rows + offset).ravel()
    idx = np.searchsorted(flat, (np.asarray(queries, float) + offset).ravel(), side=side)
    return idx.reshape(m, -1) - (np.arange(m) * g)[:, None]


def sample_precision_at_recall(sweep: Sweep, grid):
    """Precision at the first column whose recall >= r (less a tolerance), per draw.

    Searched on the integer true-positive counts (recall >= r is tp >= r n_pos), so no
    (M, G) recall or precision array is built: only the selected columns are divided.
    """
    need = (np.asarray(grid, float)[None, :] - _GRID_TOL) * sweep.n_pos[:, None]
    idx = _rowwise_searchsorted(sweep.tp, need, "left", span=float(np.max(sweep.n_items)))
    idx = np.clip(idx, 0, sweep.tp.shape[1] - 1)
    predicted = np.broadcast_to(sweep.predicted_rows, sweep.tp.shape)
    return np.take_along_axis(sweep.tp, idx, axis=1) / np.take_along_axis(predicted, idx, axis=1)


def sample_tpr_at_fpr(sweep: Sweep, grid):
    m = sweep.tp.shape[0]
    fpr = np.hstack([np.zeros((m, 1)), sweep.fpr()])
    tpr = np.hstack([np.zeros((m, 1)), sweep.recall()])
    idx = _rowwise_searchsorted(fpr, np.asarray(grid) + _GRID_TOL, "right") - 1
    return np.take_along_axis(tpr, np.clip(idx, 0, fpr.shape[1] - 1), axis=1)


def sample_average_precision(sweep: Sweep):
    """Average precision per draw: sum over thresholds of (recall gain) x precision.

    Examples
    --------
    >>> from spe.metrics import labeled_sweep, sample_average_precision
    >>> sweep = labeled_sweep([0.9, 0.8, 0.7, 0.6, 0.4, 0.3], [1, 1, 0, 1, 0, 0])
    >>> sample_average_precision(sweep).round(4)  # (1 + 1 + 3/4) / 3
    array([0.9167])
    """
    recall = sweep.recall()
    gain = np.diff(recall, axis=1, prepend=0.0)
    return np.sum(gain * sweep.precision(), axis=1)


def sample_auroc(sweep: Sweep):
    """Area under the ROC curve per draw (trapezoid rule: ties count 1/2); 0.5 for a draw
    with no positive or no negative.

    Examples
    --------
    >>> from spe.metrics import labeled_sweep, sample_auroc
    >>> sample_auroc(labeled_sweep([0.9, 0.8, 0.7, 0.6, 0.4, 0.3], [1, 1, 0, 1, 0, 0])).round(4)  # 8 of 9 pairs
    array([0.8889])
    """
    m = sweep.tp.shape[0]
    fpr = np.hstack([np.zeros((m, 1)), sweep.fpr()])
    tpr = np.hstack([np.zeros((m, 1)), sweep.recall()])
    auc = np.trapezoid(tpr, fpr, axis=1)
    degenerate = (sweep.n_pos == 0) | (sweep.n_neg == 0)
    return np.where(degenerate, 0.5, auc)


def sample_max_f1(sweep: Sweep):
    """Largest F1 over thresholds, per draw.

    Examples
    --------
    >>> from spe.metrics import labeled_sweep, sample_max_f1
    >>> sample_max_f1(labeled_sweep([0.9, 0.8, 0.7, 0.6, 0.4, 0.3], [1, 1, 0, 1, 0, 0])).round(4)
    array([0.8571])
    """
    p, r = sweep.precision(), sweep.recall()
    with np.errstate(invalid="ignore", divide="ignore"):
        f1 = np.where(p + r > 0, 2 * p * r / (p + r), 0.0)
    return f1.max(axis=1)


# ---- exact curves from known labels (truth, the naive labels-only baseline) ----------
def labeled_sweep(scores, labels) -> Sweep:
    """The exact sweep for items whose labels are all known.

    Raises
    ------
    ValueError
        If a label is missing or the shapes differ.

    See Also
    --------
    sample_average_precision, sample_auroc, sample_max_f1 : metrics read off a sweep.

    Examples
    --------
    >>> from spe.metrics import labeled_sweep
    >>> sweep = labeled_sweep([0.9, 0.8, 0.7, 0.6, 0.4, 0.3], [1, 1, 0, 1, 0, 0])
    >>> sweep.n_items, sweep.n_pos
    (6, array([3.]))
    >>> labeled_sweep([0.2, 0.7], [1, float("nan")])
    Traceback (most recent call last):
    ...
    ValueError: exact curves need a label for every score
    """
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

    Raises
    ------
    ValueError
        If a label is missing, or a recall lies outside [0, 1].

    See Also
    --------
    PRCurve : the posterior version, with a band.

    Examples
    --------
    >>> from spe.metrics import exact_precision_at_recall
    >>> exact_precision_at_recall([0.9, 0.8, 0.7, 0.6, 0.4, 0.3], [1, 1, 0, 1, 0, 0], recall=[0.5, 1.0])
    array([1.  , 0.75])
    """
    grid = check_grid(recall, DEFAULT_RECALL_GRID, "recall")
    return sample_precision_at_recall(labeled_sweep(scores, labels), grid)[0]


def exact_tpr_at_fpr(scores, labels, fpr=None):
    """TPR at each FPR for fully labeled items: at the lowest threshold whose FPR <= f.

    Raises
    ------
    ValueError
        If a label is missing, or an FPR lies outside [0, 1].

    See Also
    --------
    ROCCurve : the posterior version, with a band.

    Examples
    --------
    >>> from spe.metrics import exact_tpr_at_fpr
    >>> exact_tpr_at_fpr([0.9, 0.8, 0.7, 0.6, 0.4, 0.3], [1, 1, 0, 1, 0, 0], fpr=[0.0, 0.5]).round(3)
    array([0.667, 1.   ])
    """
    grid = check_grid(fpr, DEFAULT_FPR_GRID, "fpr")
    return sample_tpr_at_fpr(labeled_sweep(scores, labels), grid)[0]
