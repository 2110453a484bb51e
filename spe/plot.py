"""Figures for an :class:`~spe.results.SPEResult` (matplotlib).

Each function takes the result, an optional ``ax``, and returns the ``ax`` it drew on:

* :func:`plot_fit`: score histogram, the two weighted components with credible bands,
  labeled items as coloured ticks (SPE paper Fig. 1A);
* :func:`plot_pr` / :func:`plot_roc`: curve with band, optionally the true curve and the
  naive labels-only curve (Fig. 1C, 2B);
* :func:`plot_conditions`: probability that constraints hold vs threshold, with the
  chosen threshold (Fig. 4B);
* :func:`plot_reliability`: reliability diagram of the recalibrated probabilities.
"""

from __future__ import annotations

import numpy as np

from . import curves as C

NEG_COLOR = "tab:red"
POS_COLOR = "tab:green"
SPE_COLOR = "tab:red"
BAND_COLOR = "magenta"


def _axes(ax):
    if ax is None:
        import matplotlib.pyplot as plt

        _, ax = plt.subplots(figsize=(5.5, 4.2))
    return ax


def plot_fit(res, ax=None, *, bins=60, level=0.9, n_grid=300):
    """Histogram of scores with the fitted components (1 - pi) f0 and pi f1 and bands."""
    ax = _axes(ax)
    d = res.data
    frame = d.frame
    s = d.scores
    ax.hist(s, bins=bins, density=True, color="0.8", edgecolor="0.6", label="all scores")
    grid_s = np.linspace(s.min(), s.max(), n_grid)
    z = frame.to_unit(grid_s)
    mixture = res._mixture()
    theta = mixture.posterior.theta
    lf0, lf1 = mixture.model.component_logpdfs(theta, z)
    pi = theta[:, :1]
    dens = {
        "negative": np.exp(lf0) * (1 - pi) / frame.width,
        "positive": np.exp(lf1) * pi / frame.width,
    }
    for (name, draws), color in zip(dens.items(), (NEG_COLOR, POS_COLOR)):
        mean, lower, upper = C.band(np.nan_to_num(draws), mixture.weights, level)
        ax.plot(grid_s, mean, color=color, lw=2, label=f"{name} ({res.families[name == 'positive']})")
        ax.fill_between(grid_s, lower, upper, color=color, alpha=0.25, lw=0)
    labeled = d.is_labeled
    if labeled.any():
        ymax = ax.get_ylim()[1]
        for cls, color in ((0, NEG_COLOR), (1, POS_COLOR)):
            xs = s[labeled & (d.labels == cls)]
            ax.vlines(xs, 0, 0.06 * ymax, color=color, lw=1.5,
                      label=f"labeled {'positive' if cls else 'negative'} ({xs.size})")
    ax.set_xlabel("classifier score")
    ax.set_ylabel("density")
    ax.set_title(f"Score mixture fit ({100 * level:g}% bands)")
    ax.legend(fontsize=8)
    return ax


def _draw_curve(ax, res, curve, *, exact_fn, true_labels, naive, level):
    """Band, posterior mean, and optionally the true and labeled-items-only curves."""
    ax.fill_between(curve.x, curve.lower, curve.upper, color=BAND_COLOR, alpha=0.3, lw=0,
                    label=f"SPE {100 * level:g}% band")
    ax.plot(curve.x, curve.y, color=SPE_COLOR, lw=2, label=f"SPE ({res.data.n_labeled} labels)")
    if true_labels is not None:
        ax.plot(curve.x, exact_fn(res.data.scores, true_labels, curve.x), color="black", lw=1.5,
                label="true (all labels)")
    lab = res.data.is_labeled
    if naive and lab.any():
        ax.plot(curve.x, exact_fn(res.data.scores[lab], res.data.labels[lab], curve.x), color="tab:green",
                lw=1.2, ls="--", label="labeled items only")
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1.02)


def plot_pr(res, ax=None, *, level=0.9, kind="sample", true_labels=None, naive=True, recall=None):
    """PR curve with credible band; optional true curve and naive labels-only curve."""
    ax = _axes(ax)
    curve = res.pr_curve(recall=recall, level=level, kind=kind)
    _draw_curve(ax, res, curve, exact_fn=C.exact_precision_at_recall, true_labels=true_labels,
                naive=naive, level=level)
    ax.set_xlabel("recall")
    ax.set_ylabel("precision")
    ax.set_title(f"Precision-recall ({kind})")
    ax.legend(fontsize=8, loc="lower left")
    return ax


def plot_roc(res, ax=None, *, level=0.9, kind="sample", true_labels=None, naive=True, fpr=None):
    """ROC curve with credible band; optional true and naive labels-only curves."""
    ax = _axes(ax)
    curve = res.roc_curve(fpr=fpr, level=level, kind=kind)
    _draw_curve(ax, res, curve, exact_fn=C.exact_tpr_at_fpr, true_labels=true_labels, naive=naive,
                level=level)
    ax.plot([0, 1], [0, 1], color="0.7", lw=0.8, ls=":")
    ax.set_xlabel("false positive rate")
    ax.set_ylabel("true positive rate")
    ax.set_title(f"ROC ({kind})")
    ax.legend(fontsize=8, loc="lower right")
    return ax


def plot_conditions(res, ax=None, *, min_precision=None, min_recall=None, max_fpr=None,
                    confidence=0.9, kind="sample"):
    """P(constraints hold) against threshold, with the chosen threshold marked."""
    ax = _axes(ax)
    t, prob = res.condition_probability(min_precision=min_precision, min_recall=min_recall,
                                        max_fpr=max_fpr, kind=kind)
    decision = res.choose_threshold(min_precision=min_precision, min_recall=min_recall,
                                    max_fpr=max_fpr, confidence=confidence, kind=kind)
    cons = ", ".join(f"{k.replace('_', ' ')} {v:g}" for k, v in decision.constraints.items())
    ax.plot(t, prob, color="tab:blue", lw=2, label=f"P({cons})")
    ax.axhline(confidence, color="0.5", ls=":", lw=1, label=f"confidence {confidence:g}")
    marker = "chosen" if decision.feasible else "best (infeasible)"
    ax.axvline(decision.threshold, color="black" if decision.feasible else "tab:orange", ls="--",
               lw=1.2, label=f"{marker}: {decision.threshold:.3g} (P = {decision.probability:.2f})")
    ax.set_xlabel("threshold (predict positive when score >= threshold)")
    ax.set_ylabel("probability constraints hold")
    ax.set_ylim(-0.02, 1.02)
    ax.set_title("Choosing a threshold for this data set")
    ax.legend(fontsize=8)
    return ax


def plot_reliability(res, ax=None, *, true_labels=None, n_bins=10):
    """Reliability diagram of recalibrated P(positive).

    Evaluated on ``true_labels`` (NaN allowed) when given, else on the labeled items
    (the model probability for them, not their known label).
    """
    ax = _axes(ax)
    d = res.data
    y = d.labels if true_labels is None else np.asarray(true_labels, float)
    known = ~np.isnan(y)
    p = res.calibrate(d.scores[known])
    y = y[known]
    edges = np.linspace(0, 1, n_bins + 1)
    idx = np.clip(np.digitize(p, edges) - 1, 0, n_bins - 1)
    mean_p, frac, count = [], [], []
    for b in range(n_bins):
        m = idx == b
        if m.any():
            mean_p.append(p[m].mean())
            frac.append(y[m].mean())
            count.append(m.sum())
    ax.plot([0, 1], [0, 1], color="0.6", ls=":", lw=1, label="perfect calibration")
    ax.plot(mean_p, frac, "o-", color="tab:purple", label=f"SPE recalibrated ({known.sum()} items)")
    for x, yy, c in zip(mean_p, frac, count):
        ax.annotate(str(c), (x, yy), textcoords="offset points", xytext=(3, -10), fontsize=7)
    ax.set_xlabel("predicted P(positive)")
    ax.set_ylabel("observed fraction positive")
    ax.set_xlim(0, 1)
    ax.set_ylim(-0.02, 1.02)
    ax.set_title("Reliability of recalibrated probabilities")
    ax.legend(fontsize=8, loc="upper left")
    return ax
