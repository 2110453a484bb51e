"""Pareto-smoothed importance sampling, one implementation for every install.

The smoothing is ArviZ's, from ``arviz-stats`` (a core dependency): both ArviZ
generations ship it (ArviZ >= 1 depends on it; with ArviZ 0.2x it installs beside), so
``pip install spe`` and ``pip install "spe[dev]"`` give the same weights, bit for bit.
``arviz_stats.base.array_stats.psislw`` is written for leave-one-out log-likelihoods and
expects the *negated* log ratios; this module is the one place that knows it.
"""

from __future__ import annotations

import warnings

import numpy as np

# PSIS fits the largest ~min(20%, 3 sqrt(S)) weights and needs at least 5 of them.
MIN_TAIL_DRAWS = 25


def _smoothed_log_weights(log_ratios):
    from arviz_stats.base import array_stats

    return array_stats.psislw(-log_ratios)  # expects negated ratios


def psis(log_ratios) -> tuple[np.ndarray, float]:
    """Smoothed, normalised log weights and k-hat for a 1-D array of log ratios.

    Entries that are ``-inf`` (draws with zero target density) keep zero weight and do
    not enter the tail fit.
    """
    lr = np.asarray(log_ratios, dtype=float)
    if lr.ndim != 1:
        raise ValueError("log_ratios must be one-dimensional")
    finite = np.isfinite(lr)
    if finite.sum() < 2:
        raise ValueError("importance sampling produced fewer than two draws with finite weight")
    shifted = lr[finite] - lr[finite].max()
    out = np.full(lr.shape, -np.inf)
    if finite.sum() < MIN_TAIL_DRAWS:
        # Too few usable draws to fit a Pareto tail: the weights cannot be trusted.
        out[finite] = shifted - np.logaddexp.reduce(shifted)
        return out, float("inf")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # small-sample and k-hat warnings: we report k-hat
        lw, khat = _smoothed_log_weights(shifted)
    lw = np.asarray(lw, dtype=float)
    out[finite] = lw - np.logaddexp.reduce(lw)
    return out, float(np.asarray(khat))
