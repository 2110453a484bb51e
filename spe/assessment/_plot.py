"""The Bayesian reliability diagram (Ji et al.): a Beta posterior of accuracy per confidence bin."""

from __future__ import annotations

import numpy as np

from ._calibration import confidence_bins


def plot_reliability_diagram(ece, ax=None, *, true_correct=None, confidence=None, seed=0, n=4000):
    """Each bin's accuracy (posterior median, ``ece.level`` interval) at its mean confidence,
    the diagonal of perfect calibration, each bin's share of items as bars, the answers so
    far as points; ``true_correct`` with ``confidence`` adds the true accuracy per bin."""
    if ax is None:
        import matplotlib.pyplot as plt

        _, ax = plt.subplots(figsize=(5.5, 4.2))
    bins = ece.bins
    draws = bins.accuracy_draws(np.random.default_rng(seed), n, ece.kind)
    tail = (1 - ece.level) / 2
    lo, med, hi = np.quantile(draws, [tail, 0.5, 1 - tail], axis=0)
    width = 1.0 / bins.n_bins
    left = bins.bin * width
    ax.bar(left, bins.size / bins.size.sum(), width=width, align="edge", color="0.88", edgecolor="0.7",
           label="share of items")
    ax.plot([0, 1], [0, 1], color="0.5", ls=":", lw=1, label="perfectly calibrated")
    ax.errorbar(bins.confidence, med, yerr=[med - lo, hi - med], fmt="o", color="tab:red", ms=4, capsize=3,
                label=f"accuracy, posterior median and {100 * ece.level:g}%")
    has = bins.labeled > 0
    if has.any():
        ax.scatter(bins.confidence[has], bins.correct[has] / bins.labeled[has], s=10 + 4 * bins.labeled[has],
                   facecolors="none", edgecolors="tab:green", label=f"answers ({int(bins.labeled.sum())}; size = count)")
    if true_correct is not None:
        c = np.asarray(confidence, float)
        y = np.asarray(true_correct, float)
        if c.shape != y.shape:
            raise ValueError("true_correct needs confidence=, one value per item each")
        b = confidence_bins(c, bins.n_bins)
        count = np.bincount(b, minlength=bins.n_bins)
        used = count > 0
        ax.plot(np.bincount(b, weights=c, minlength=bins.n_bins)[used] / count[used],
                np.bincount(b, weights=y, minlength=bins.n_bins)[used] / count[used], "k.-", lw=1,
                label="true accuracy")
    o = ece.overall
    ax.set_title(f"ECE {o['median']:.3f} [{100 * ece.level:g}% {o['lower']:.3f}, {o['upper']:.3f}]")
    ax.set_xlabel(f"model confidence ({bins.n_bins} equal-width bins)")
    ax.set_ylabel("accuracy")
    ax.set_xlim(0, 1)
    ax.set_ylim(-0.02, 1.02)
    ax.legend(fontsize=8, loc="upper left")
    return ax
