"""Figures for an :class:`~spe.report.SPEResult` (matplotlib).

Each function takes the result, an optional ``ax``, and returns the ``ax`` it drew on:

* :func:`plot_fit`: score histogram, the two weighted components with credible bands,
  labeled items as coloured ticks (SPE paper Fig. 1A);
* :func:`plot_pr` / :func:`plot_roc`: curve with band, optionally the true curve and the
  naive labels-only curve (Fig. 1C, 2B);
* :func:`plot_conditions`: probability that constraints hold vs threshold, with the
  chosen threshold (Fig. 4B);
* :func:`plot_reliability`: fraction of positives per score bin, with posterior bands;
* :func:`plot_comparison`: several models' metric intervals and P(best) (:func:`spe.fit_many`);
* :func:`plot_per_class`: a multiclass classifier's accuracy per predicted class
  (:func:`spe.fit_multiclass`).
"""

from __future__ import annotations

import numpy as np

from ..metrics import band, exact_precision_at_recall, exact_tpr_at_fpr, weighted_quantile
from ..scores import looks_like_probabilities

NEG_COLOR = "tab:red"
POS_COLOR = "tab:green"
SPE_COLOR = "tab:red"
BAND_COLOR = "magenta"
PER_CLASS_METRICS = ("precision", "recall", "f1", "prevalence")


def _axes(ax):
    if ax is None:
        import matplotlib.pyplot as plt

        _, ax = plt.subplots(figsize=(5.5, 4.2))
    return ax


def plot_fit(res, ax=None, *, bins=60, level=0.9, n_grid=300):
    """Histogram of scores with the fitted components (1 - pi) f0, pi f1, their sum, and bands.

    Drawn on the scale the mixture models: the score itself, or its logit for
    probability scores (censored ends show as the outermost bars).
    """
    ax = _axes(ax)
    mixture = res.mixture
    if mixture is None:
        raise ValueError("plot_fit draws the score mixture, and none was fitted (see spe.fit's model=)")
    d = mixture.data  # the mixture's own frame (its scale may differ from the result's)
    frame = d.frame
    scores, counts = d.score_distribution()
    v = frame.forward(scores)
    ax.hist(v, bins=bins, weights=counts, density=True, color="0.8", edgecolor="0.6", label="all scores")
    grid_v = np.linspace(v.min(), v.max(), n_grid)
    z = (grid_v - frame.lower) / frame.width
    theta = mixture.posterior.theta
    lf0, lf1 = mixture.model.component_logpdfs(theta, z)
    pi = theta[:, :1]
    dens = {
        "negative": np.exp(lf0) * (1 - pi) / frame.width,
        "positive": np.exp(lf1) * pi / frame.width,
    }
    dens["total"] = dens["negative"] + dens["positive"]
    for (name, draws), color in zip(dens.items(), (NEG_COLOR, POS_COLOR, "black")):
        median, lower, upper = band(np.nan_to_num(draws), mixture.weights, level)
        label = "total (misfit shows here)" if name == "total" else f"{name} ({res.families[name == 'positive']})"
        ax.plot(grid_v, median, color=color, lw=1.2 if name == "total" else 2, ls="--" if name == "total" else "-",
                label=label)
        ax.fill_between(grid_v, lower, upper, color=color, alpha=0.35 if name != "total" else 0.15, lw=0)
    lab_v, lab_y = frame.forward(d.labeled_scores), d.labeled_labels
    if lab_y.size:
        ymax = ax.get_ylim()[1]
        for cls, color in ((0, NEG_COLOR), (1, POS_COLOR)):
            xs = lab_v[lab_y == cls]
            ax.vlines(xs, 0, 0.06 * ymax, color=color, lw=1.5,
                      label=f"labeled {'positive' if cls else 'negative'} ({xs.size})")
    ax.set_xlabel("logit(score)" if frame.transform == "logit" else "classifier score")
    ax.set_ylabel("density")
    zeta = mixture.misfit.zeta
    ax.set_title(f"Score mixture fit ({100 * level:g}% bands; weight {res.model_weights['mixture']:.2f}, "
                 f"zeta {zeta:.2g})", fontsize=10)
    ax.legend(fontsize=8)
    return ax


def _draw_curve(ax, res, curve, *, exact_fn, true_labels, naive, level):
    """Band, pointwise posterior median, and optionally the true and labeled-items-only curves."""
    ax.fill_between(curve.x, curve.lower, curve.upper, color=BAND_COLOR, alpha=0.3, lw=0,
                    label=f"SPE {100 * level:g}% band")
    ax.plot(curve.x, curve.y, color=SPE_COLOR, lw=2, label=f"SPE ({res.data.n_labeled} labels)")
    if true_labels is not None:
        res.data.require_items("true_labels (one per item)")
        ax.plot(curve.x, exact_fn(res.data.scores, true_labels, curve.x), color="black", lw=1.5,
                label="true (all labels)")
    if naive and res.data.n_labeled:
        ax.plot(curve.x, exact_fn(res.data.labeled_scores, res.data.labeled_labels, curve.x), color="tab:green",
                lw=1.2, ls="--", label="labeled items only")
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1.02)


def plot_pr(res, ax=None, *, level=0.9, kind="sample", true_labels=None, naive=True, recall=None):
    """PR curve with credible band; optional true curve and naive labels-only curve."""
    ax = _axes(ax)
    curve = res.pr_curve(recall=recall, level=level, kind=kind)
    _draw_curve(ax, res, curve, exact_fn=exact_precision_at_recall, true_labels=true_labels,
                naive=naive, level=level)
    ax.set_xlabel("recall")
    ax.set_ylabel("precision")
    ax.set_title(f"Precision-recall ({kind})")
    ax.legend(fontsize=8, loc="lower left")
    return ax


def plot_roc(res, ax=None, *, level=0.9, kind="sample", true_labels=None, naive=True, fpr=None):
    """ROC curve with credible band; optional true and naive labels-only curves.

    The FPR axis is linear below 1/N and logarithmic above (symlog), so the low-FPR region
    where good classifiers differ, and where the band lives, is not crammed into a corner.
    """
    ax = _axes(ax)
    low = 1.0 / max(res.data.n_items, 10)
    if fpr is None:
        fpr = np.unique(np.r_[0.0, np.geomspace(low, 1.0, 80), np.linspace(0.0, 1.0, 41)])
    curve = res.roc_curve(fpr=fpr, level=level, kind=kind)
    _draw_curve(ax, res, curve, exact_fn=exact_tpr_at_fpr, true_labels=true_labels, naive=naive,
                level=level)
    diag = np.geomspace(low, 1.0, 50)
    ax.plot(diag, diag, color="0.7", lw=0.8, ls=":")
    ax.set_xscale("symlog", linthresh=low)
    ax.set_xlim(0, 1)
    ax.set_xlabel("false positive rate (log scale above 1/N)")
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


def plot_reliability(res, ax=None, *, true_labels=None, n_bins=10, level=0.9):
    """Reliability of the classifier's scores: the fraction of positives per score bin.

    Bins hold equal numbers of items. For each posterior draw the fraction is computed
    from that draw's labels (known labels fixed, unknown ones drawn), so the band is the
    posterior for *these* items and needs no labeled item in a bin. Labeled items are
    shown as points (with their counts), ``true_labels`` (NaN allowed) as a line, and
    for probability scores the diagonal of perfect calibration.
    """
    ax = _axes(ax)
    d = res.data
    rep = d.frame.from_unit(d.z)  # a representative score per group
    q = np.linspace(0, 1, n_bins + 1)
    edges = np.unique(np.quantile(d.scores, q) if d.item_level else weighted_quantile(rep, d.n_total, q))
    bins = np.clip(np.searchsorted(edges, rep, side="right") - 1, 0, len(edges) - 2)
    onehot = np.zeros((d.n_groups, len(edges) - 1))
    onehot[np.arange(d.n_groups), bins] = 1.0
    size = d.n_total @ onehot
    used = size > 0
    x = ((d.n_total * rep) @ onehot)[used] / size[used]
    frac = (res.positive_counts @ onehot)[:, used] / size[used]
    median, lower, upper = band(frac, res.weights, level)
    if looks_like_probabilities(rep):
        ax.plot([0, 1], [0, 1], color="0.6", ls=":", lw=1, label="perfectly calibrated")
    ax.fill_between(x, lower, upper, color=BAND_COLOR, alpha=0.3, lw=0, label=f"posterior {100 * level:g}% band")
    ax.plot(x, median, "o-", color=SPE_COLOR, ms=4, label="posterior median fraction positive")
    lab_s, lab_y = d.labeled_scores, d.labeled_labels
    if lab_y.size:
        lab_bins = np.clip(np.searchsorted(edges, lab_s, side="right") - 1, 0, len(edges) - 2)
        n = np.bincount(lab_bins, minlength=len(edges) - 1)
        pos = np.bincount(lab_bins, weights=lab_y, minlength=len(edges) - 1)
        has = n > 0
        centers = np.bincount(lab_bins, weights=lab_s, minlength=len(edges) - 1)[has] / n[has]
        ax.scatter(centers, pos[has] / n[has], s=12 + 6 * n[has], facecolors="none", edgecolors="tab:green",
                   label=f"labeled items ({lab_y.size}; size = count)")
    if true_labels is not None:
        d.require_items("true_labels (one per item)")
        y = np.asarray(true_labels, float)
        known = ~np.isnan(y)
        tb = np.clip(np.searchsorted(edges, d.scores[known], side="right") - 1, 0, len(edges) - 2)
        n = np.bincount(tb, minlength=len(edges) - 1)
        ok = n > 0
        ax.plot(np.bincount(tb, weights=d.scores[known], minlength=len(edges) - 1)[ok] / n[ok],
                np.bincount(tb, weights=y[known], minlength=len(edges) - 1)[ok] / n[ok],
                color="black", lw=1.2, label="true (all labels)")
    ax.set_xlabel("classifier score (bin mean; bins of equal size)")
    ax.set_ylabel("fraction positive")
    ax.set_ylim(-0.02, 1.02)
    ax.set_title("Reliability of the classifier's scores on these items")
    ax.legend(fontsize=8, loc="upper left")
    return ax


def plot_comparison(many, ax=None, *, metric="AUROC", level=0.9, truth=None):
    """Several models on the same labels (:func:`spe.fit_many`): each model's ``metric``
    (posterior median and ``level`` interval), best first, labelled with P(best).

    Models excluded from the shared label model are drawn in grey. ``truth``: optional
    ``{model: true value}`` (known in a benchmark or a worked example), drawn as black x.
    """
    ax = _axes(ax)
    rows = many.ranking(metric, level)[::-1]  # best at the top
    y = np.arange(len(rows))
    for i, r in enumerate(rows):
        e = r[metric]
        color = "grey" if r["excluded"] else SPE_COLOR
        ax.errorbar(e.value, i, xerr=[[e.value - e.lower], [e.upper - e.value]],
                    fmt="o", color=color, capsize=3)
    if truth:
        known = [(truth[r["model"]], i) for i, r in enumerate(rows) if r["model"] in truth]
        ax.plot(*zip(*known), "kx", ms=8, label="truth")
        ax.legend(loc="best")
    ax.set_yticks(y, [f"{r['model']}  (P(best) {r['P(best)']:.2f})" for r in rows])
    ax.set_xlabel(f"{metric} on these items ({100 * level:g}% interval)")
    ax.set_title(f"{len(rows)} models, {many.n_labeled} labels (shared draws)")
    return ax


def plot_per_class(result, ax=None, *, metric="precision", level=0.9, truth=None):
    """A multiclass result's per-class ``metric`` ("precision" = accuracy of the items
    predicted as the class, "recall", "f1" or "prevalence") with its interval, one row
    per class, and the overall top-1 accuracy as a vertical band. ``truth``: optional
    ``{class: true value}``, drawn as black x. Classes never predicted have no precision
    and are left out."""
    if metric not in PER_CLASS_METRICS:
        raise ValueError(f"metric must be one of {PER_CLASS_METRICS}, got {metric!r}")
    ax = _axes(ax)
    rows = [r for r in result.per_class(level) if r[metric] is not None]
    for i, r in enumerate(rows):
        e = r[metric]
        ax.errorbar(e.value, i, xerr=[[e.value - e.lower], [e.upper - e.value]], fmt="o", color=SPE_COLOR, capsize=3)
    if truth:
        known = [(truth[r["class"]], i) for i, r in enumerate(rows) if r["class"] in truth]
        ax.plot(*zip(*known), "kx", ms=8, label="truth")
    acc = result.accuracy(level)
    ax.axvspan(acc.lower, acc.upper, color=BAND_COLOR, alpha=0.15, label=f"top-1 accuracy ({100 * level:g}%)")
    ax.set_yticks(np.arange(len(rows)), [f"class {r['class']} (n={r['n_predicted']})" for r in rows])
    ax.set_xlabel(f"{metric} per class on these items ({100 * level:g}% interval)")
    ax.set_title(f"{result.n_items} items, {result.n_labeled} labels")
    ax.legend(loc="best", fontsize="small")
    return ax
