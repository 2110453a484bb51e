"""What a fit leaves on disk: summary.json (summary, PR and ROC tables) and PNG figures."""

from __future__ import annotations

import json
from pathlib import Path

from . import curves as C


def save_figure(path: Path, draw):
    """Draw on a fresh axes with the file-only Agg backend and save a PNG."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 4.5))
    draw(ax)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def write_outputs(res, summ, out: Path, level: float, true_labels=None) -> dict:
    """summary.json and PNG figures in ``out`` from a result and its ``summary(level)``."""
    out.mkdir(parents=True, exist_ok=True)
    summary = summ.to_dict()
    pr = res.pr_curve(level=level)
    roc = res.roc_curve(level=level)
    summary["pr_curve"] = {
        "recall": pr.recall.tolist(), "precision": pr.precision.tolist(),
        "lower": pr.lower.tolist(), "upper": pr.upper.tolist(), "level": level,
    }
    summary["roc_curve"] = {
        "fpr": roc.fpr.tolist(), "tpr": roc.tpr.tolist(),
        "lower": roc.lower.tolist(), "upper": roc.upper.tolist(), "level": level,
    }
    if true_labels is not None:
        truth = C.exact_precision_at_recall(res.data.scores, true_labels, pr.recall)
        summary["demo_truth"] = {
            "pr_area_error_spe": pr.area_between(truth),
            "true_precision": truth.tolist(),
        }
    summary["figures"] = ["fit.png", "pr.png", "reliability.png", "roc.png"]
    # The summary first: a figure that fails must not cost the user the numbers.
    (out / "summary.json").write_text(json.dumps(summary, indent=2, default=float))
    figures = {
        "fit.png": lambda ax: res.plot_fit(ax, level=level),
        "pr.png": lambda ax: res.plot_pr(ax, level=level, true_labels=true_labels),
        "roc.png": lambda ax: res.plot_roc(ax, level=level, true_labels=true_labels),
        "reliability.png": lambda ax: res.plot_reliability(ax, true_labels=true_labels),
    }
    for name, draw in figures.items():
        save_figure(out / name, draw)
    return summary
