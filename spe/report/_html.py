"""What a fit leaves on disk: summary.json, PNG figures, and report.html to share.

``report.html`` is one offline file: figures inlined as base64 PNG, the summary text,
the metrics table, each score model's weight and diagnostics, and the plain-language
verdict on how well the mixture fits the scores. No scripts, no network.
"""

from __future__ import annotations

import base64
import datetime
import html
import json
from pathlib import Path

from ..metrics import exact_precision_at_recall


def save_figure(path: Path, draw):
    """Draw on a fresh axes with the file-only Agg backend and save a PNG.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from spe.report import save_figure
    >>> path = Path(tempfile.mkdtemp()) / "line.png"
    >>> save_figure(path, lambda ax: ax.plot([0, 1], [0, 1]))
    >>> path.stat().st_size > 0
    True
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 4.5))
    draw(ax)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def write_outputs(res, summ, out: Path, level: float, true_labels=None) -> dict:
    """summary.json and PNG figures in ``out`` from a result and its ``summary(level)``.

    Examples
    --------
    >>> import numpy as np
    >>> import spe
    >>> from spe.datasets import load_demo
    >>> scores, truth = load_demo()
    >>> labels = np.where(np.arange(scores.size) % 60 == 0, truth, np.nan)  # 30 labels
    >>> res = spe.fit(scores, labels, model="platt", n_draws=200, seed=0, progress=False)
    >>> import tempfile
    >>> from pathlib import Path
    >>> from spe.report import write_outputs
    >>> out = Path(tempfile.mkdtemp())
    >>> summary = write_outputs(res, res.summary(), out, level=0.9)  # doctest: +SKIP
    >>> sorted(p.name for p in out.iterdir())  # doctest: +SKIP
    ['pr.png', 'reliability.png', 'report.html', 'roc.png', 'summary.json']
    """
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
        truth = exact_precision_at_recall(res.data.scores, true_labels, pr.recall)
        summary["demo_truth"] = {
            "pr_area_error_spe": pr.area_between(truth),
            "true_precision": truth.tolist(),
        }
    figures = {
        "fit.png": lambda ax: res.plot_fit(ax, level=level),
        "pr.png": lambda ax: res.plot_pr(ax, level=level, true_labels=true_labels),
        "roc.png": lambda ax: res.plot_roc(ax, level=level, true_labels=true_labels),
        "reliability.png": lambda ax: res.plot_reliability(ax, true_labels=true_labels),
    }
    if res.mixture is None:  # the fitted densities exist only for the score mixture
        del figures["fit.png"]
    summary["figures"] = sorted(figures)
    # The summary first: a figure that fails must not cost the user the numbers.
    (out / "summary.json").write_text(json.dumps(summary, indent=2, default=float))
    for name, draw in figures.items():
        save_figure(out / name, draw)
    write_html(summary, summ.text, out)
    return summary


_CAPTIONS = {
    "fit.png": "Scores with the fitted class densities (the total shows any misfit)",
    "pr.png": "Precision-recall curve with its credible band",
    "roc.png": "ROC curve with its credible band",
    "reliability.png": "Reliability of the classifier's scores, with posterior bands",
}


def write_html(summary: dict, text: str, out: Path) -> Path:
    """report.html in ``out``: one self-contained page from summary.json and the figures."""
    esc = html.escape
    rows = "".join(
        f"<tr><td>{esc(name)}</td><td>{m['value']:.3f}</td><td>{m['lower']:.3f}</td><td>{m['upper']:.3f}</td></tr>"
        for name, m in summary["metrics"].items())
    level = next(iter(summary["metrics"].values()))["level"]
    models = "".join(f"<tr><td>{esc(name)}</td><td>{w:.3f}</td><td>{esc(summary['score_models'][name]['model'])}</td></tr>"
                     for name, w in summary["model_weights"].items())
    verdict = summary["score_models"].get("mixture", {}).get("misfit", {}).get("verdict")
    figures = ""
    for name in summary.get("figures", []):
        path = out / name
        if path.exists():
            data = base64.b64encode(path.read_bytes()).decode("ascii")
            figures += (f'<figure><img alt="{esc(name)}" src="data:image/png;base64,{data}">'
                        f"<figcaption>{esc(_CAPTIONS.get(name, name))}</figcaption></figure>")
    page = f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>spe report</title>
<style>body{{font-family:sans-serif;max-width:60em;margin:2em auto;padding:0 1em}}
table{{border-collapse:collapse}}td,th{{border:1px solid #ccc;padding:.2em .6em;text-align:right}}
td:first-child,th:first-child{{text-align:left}}figure{{display:inline-block;margin:.5em}}
img{{max-width:28em}}pre{{background:#f6f6f6;padding:1em;overflow-x:auto}}</style></head>
<body><h1>How good is this classifier on these items?</h1>
<p>{summary['n_items']} items, {summary['n_labeled']} labeled ({summary['n_labeled_positive']} positive).
Generated {datetime.date.today().isoformat()} by spe.</p>
<h2>Metrics (posterior median and {100 * level:g}% interval)</h2>
<table><tr><th>metric</th><th>median</th><th>lower</th><th>upper</th></tr>{rows}</table>
<h2>Score models and their weights</h2>
<table><tr><th>model</th><th>weight</th><th>what it is</th></tr>{models}</table>
{f"<p><b>Fit to the score distribution:</b> {esc(verdict)}.</p>" if verdict else ""}
<h2>Figures</h2>{figures}
<h2>Full summary</h2><pre>{esc(text)}</pre>
</body></html>
"""
    path = out / "report.html"
    path.write_text(page, encoding="utf-8")
    return path
