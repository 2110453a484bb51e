"""``spe demo``: the whole pipeline on the bundled digits scores, every estimate beside the truth."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ..datasets import load_demo
from ..metrics import DEFAULT_RECALL_GRID, exact_precision_at_recall, labeled_sweep, sample_average_precision
from ..report import write_outputs
from ._common import DefaultsShown, add_fit_options, fit_result


#: The demo's default --seed: it picks the labels and seeds the fit, as the README's
#: Python example does (``np.random.default_rng(1)`` picks, ``spe.fit(..., seed=1)``).
DEMO_SEED = 1


def run(args):
    scores, truth = load_demo()
    rng = np.random.default_rng(args.seed)
    labels = np.full(scores.size, np.nan)
    idx = rng.choice(scores.size, args.labels, replace=False)
    labels[idx] = truth[idx]
    print(
        f"demo: linear-SVM scores for digit 3 vs rest on scikit-learn's digits "
        f"({scores.size} items); {args.labels} random labels kept "
        f"({int(truth[idx].sum())} positive), the rest hidden"
    )
    res = fit_result(scores, labels, args)
    out = Path(args.out)
    summ = res.summary(args.level)
    print(summ, flush=True)
    summary = write_outputs(res, summ, out, args.level, true_labels=truth)
    naive = exact_precision_at_recall(scores[idx], truth[idx])
    true_pr = np.array(summary["demo_truth"]["true_precision"])
    grid = DEFAULT_RECALL_GRID
    print(
        f"  area between estimated and true PR curve: SPE {summary['demo_truth']['pr_area_error_spe']:.3f}, "
        f"labeled items only {np.trapezoid(np.abs(naive - true_pr), grid):.3f}"
    )
    true_ap = float(sample_average_precision(labeled_sweep(scores, truth))[0])
    print(f"  truth (all {scores.size} labels): prevalence {truth.mean():.3f}, average precision {true_ap:.3f}")
    decision = res.choose_threshold(min_precision=0.9, min_recall=0.8, confidence=0.9)
    print("  threshold for precision >= 0.9 and recall >= 0.8 with probability >= 0.9:")
    print("   ", str(decision).replace("\n", "\n    "))
    chosen = scores >= decision.threshold
    print(f"  on the full labels that threshold gives precision {truth[chosen].mean():.3f}, "
          f"recall {truth[chosen].sum() / truth.sum():.3f}")
    print(f"wrote {out / 'summary.json'}, figures ({', '.join(summary['figures'])}) and report.html to {out}/")


def add_parser(sub):
    p = sub.add_parser("demo", help="run the whole pipeline on the bundled digits data",
                       description="Fit the bundled digits SVM scores with a few random labels kept and "
                                   "compare every estimate with the truth.",
                       formatter_class=DefaultsShown)
    p.add_argument("--out", default="spe-demo", help="output folder")
    p.add_argument("--labels", type=int, default=10,
                   help="how many labels to keep (random items, drawn with --seed, which also seeds the fit: the "
                        "README's Python example is this demo with the defaults)")
    add_fit_options(p)
    p.set_defaults(func=run, seed=DEMO_SEED)
