"""Reproduce the shape of the SPE paper's Figure 2 on scikit-learn's digits (optdigits).

Area between the true and estimated PR curves vs the number of labels, for SPE and for
the naive curve from the labeled items alone (each: median and 90% quantile band over
random label draws), for a linear SVM on digit 3 ("svm3") and a logistic regression on digit 8
("logres8"). Also one SPE curve with its band at 20 labels against the truth.

    pip install -e ".[examples]"
    python -m benchmarks.figure2_digits [--runs 20]     # writes figures/figure2_*.png
"""

from __future__ import annotations

import argparse
import warnings
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

import spe  # noqa: E402

from spe.datasets import digits_scores  # noqa: E402

FIGURES = Path(__file__).resolve().parents[1] / "figures"
BUDGETS = (10, 20, 50, 100)


def area(a, b):
    return float(np.trapezoid(np.abs(a - b), spe.DEFAULT_RECALL_GRID))


def experiment(scores, truth, runs):
    true_pr = spe.exact_precision_at_recall(scores, truth, spe.DEFAULT_RECALL_GRID)
    spe_err, naive_err = {b: [] for b in BUDGETS}, {b: [] for b in BUDGETS}
    for b in BUDGETS:
        for r in range(runs):
            rng = np.random.default_rng(100 * b + r)
            idx = rng.choice(scores.size, b, replace=False)
            labels = np.full(scores.size, np.nan)
            labels[idx] = truth[idx]
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                res = spe.fit(scores, labels, seed=r)
            spe_err[b].append(area(res.pr_curve(spe.DEFAULT_RECALL_GRID).precision, true_pr))
            naive_err[b].append(area(spe.exact_precision_at_recall(scores[idx], truth[idx], spe.DEFAULT_RECALL_GRID), true_pr))
    return spe_err, naive_err


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=20)
    args = ap.parse_args(argv)
    FIGURES.mkdir(exist_ok=True)
    setups = [("svm", 3), ("logres", 8)]
    fig, axes = plt.subplots(2, 2, figsize=(11, 9))
    for row, (clf, digit) in enumerate(setups):
        scores, truth = digits_scores(clf, digit)
        truth = truth.astype(float)
        spe_err, naive_err = experiment(scores, truth, args.runs)
        ax = axes[row, 0]
        med_s = [np.median(spe_err[b]) for b in BUDGETS]
        med_n = [np.median(naive_err[b]) for b in BUDGETS]
        for errs, color, name in ((naive_err, "tab:green", "naive"), (spe_err, "tab:red", "SPE")):
            lo = [np.quantile(errs[b], 0.05) for b in BUDGETS]
            hi = [np.quantile(errs[b], 0.95) for b in BUDGETS]
            ax.fill_between(BUDGETS, lo, hi, color=color, alpha=0.2, label=f"{name} 90% quantiles")
        ax.plot(BUDGETS, med_n, "o-", color="tab:green", label="naive (labeled items only), median")
        ax.plot(BUDGETS, med_s, "o-", color="tab:red", label="SPE, median")
        ax.set_xscale("log")
        ax.set_xticks(BUDGETS, [str(b) for b in BUDGETS])
        ax.set_xlabel("number of labels")
        ax.set_ylabel("area between true and estimated PR curve")
        ax.set_title(f"{clf}{digit}: estimation error ({args.runs} label draws)")
        ax.legend(fontsize=8)
        for b, s, n in zip(BUDGETS, med_s, med_n):
            print(f"{clf}{digit} labels={b:3d}: SPE median {s:.3f}, naive median {n:.3f}")
        rng = np.random.default_rng(7)
        idx = rng.choice(scores.size, 20, replace=False)
        labels = np.full(scores.size, np.nan)
        labels[idx] = truth[idx]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = spe.fit(scores, labels, seed=0)
        res.plot_pr(axes[row, 1], true_labels=truth)
        axes[row, 1].set_title(f"{clf}{digit}: SPE with 20 labels vs truth")
    fig.tight_layout()
    out = FIGURES / "figure2_digits.png"
    fig.savefig(out, dpi=100)
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
