"""Pareto-smoothed importance sampling through ArviZ, whichever generation is installed.

ArviZ < 1 (what pip resolves on Python 3.11) exposes ``arviz.psislw(log_ratios)``.
ArviZ >= 1 moved it to ``arviz_stats.base.array_stats.psislw``, which expects the
*negated* log ratios (it is written for leave-one-out log-likelihoods). Both return
normalised smoothed log weights and the Pareto k-hat.
"""

from __future__ import annotations

import warnings

import numpy as np


def _arviz_stats_psislw(log_ratios):
    from arviz_stats.base import array_stats

    return array_stats.psislw(-log_ratios)  # expects negated ratios


def _arviz_psislw(log_ratios):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)  # arviz 0.2x announces its refactor
        import arviz
    return arviz.psislw(log_ratios)


# PSIS fits the largest ~min(20%, 3 sqrt(S)) weights and needs at least 5 of them.
MIN_TAIL_DRAWS = 25

BACKENDS = {"arviz_stats": _arviz_stats_psislw, "arviz": _arviz_psislw}


def available_backend() -> str:
    """The PSIS implementation in use: arviz-stats (ArviZ >= 1) if present, else arviz."""
    try:
        from arviz_stats.base import array_stats

        if hasattr(array_stats, "psislw"):
            return "arviz_stats"
    except ImportError:
        pass
    return "arviz"


def psis(log_ratios, backend=None) -> tuple[np.ndarray, float]:
    """Smoothed, normalised log weights and k-hat for a 1-D array of log ratios.

    Entries that are ``-inf`` (draws with zero target density) keep zero weight and do
    not enter the tail fit. ``backend`` forces ``"arviz"`` or ``"arviz_stats"``.
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
    fn = BACKENDS[backend or available_backend()]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # small-sample and k-hat warnings: we report k-hat
        lw, khat = fn(shifted)
    lw = np.asarray(lw, dtype=float)
    out[finite] = lw - np.logaddexp.reduce(lw)
    return out, float(np.asarray(khat))
