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
    not enter the tail fit. With fewer than 25 finite ratios no tail can be fitted: the
    weights are only normalised and k-hat is ``inf`` (not to be trusted).

    Parameters
    ----------
    log_ratios : array-like of shape (M,)
        Log importance ratios, log target - log proposal, up to a constant.

    Returns
    -------
    log_weights : ndarray of shape (M,)
        Pareto-smoothed log weights, normalised to sum to one.
    khat : float
        The Pareto shape of the ratios' upper tail; above 0.7 (:data:`KHAT_THRESHOLD`)
        the weighted estimates cannot be trusted (Vehtari et al. 2024).

    Raises
    ------
    ValueError
        If ``log_ratios`` is not one-dimensional or has fewer than two finite entries.

    See Also
    --------
    adaptive_importance_draws : importance sampling that adapts while k-hat is too high.

    Examples
    --------
    A Normal(0, 0.8) target from Normal(0, 1) draws: light-tailed ratios, low k-hat.

    >>> import numpy as np
    >>> from scipy import stats
    >>> from spe.sampling import psis
    >>> x = np.random.default_rng(0).standard_normal(1000)
    >>> log_w, khat = psis(stats.norm.logpdf(x, 0, 0.8) - stats.norm.logpdf(x))
    >>> round(float(np.exp(log_w).sum()), 6), bool(khat < 0.7)
    (1.0, True)

    A target three times wider than the proposal: the weights are not to be trusted.

    >>> log_w, khat = psis(stats.norm.logpdf(x, 0, 3) - stats.norm.logpdf(x))
    >>> bool(khat > 0.7)
    True
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
