"""Several classifiers on the same items, 20 shared labels: which is best, and how good is each?

Three classifiers score scikit-learn's bundled digits (digit 3 vs rest, out-of-fold
scores, see ``examples/digits_scores.py``): a linear SVM, a logistic regression and
Gaussian naive Bayes. 20 random items are labeled; ``spe.fit_many`` gives every model's
metrics from the same label draws, P(best), and the weights the labels gave each label
model. The truth (every item's label) is printed beside it. Needs ``pip install .[examples]``.

    python examples/several_models.py            # prints, writes figures/several_models.png
    python examples/several_models.py --readme   # also rewrites the README block
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

import spe
from spe.metrics.sweeps import labeled_sweep, sample_auroc

ROOT = Path(__file__).resolve().parents[1]
MARKERS = ("<!-- several-models:start -->", "<!-- several-models:end -->")


def naive_bayes_scores(digit: int, seed: int = 0):
    from sklearn.datasets import load_digits
    from sklearn.model_selection import StratifiedKFold, cross_val_predict
    from sklearn.naive_bayes import GaussianNB

    X, y = load_digits(return_X_y=True)
    labels = (y == digit).astype(int)
    cv = StratifiedKFold(5, shuffle=True, random_state=seed)
    return cross_val_predict(GaussianNB(), X, labels, cv=cv, method="predict_proba")[:, 1]


def run():
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from digits_scores import digit_scores

    svm, truth = digit_scores("svm", 3)
    logres, _ = digit_scores("logres", 3)
    scores = {"linear SVM": svm, "logistic regression": logres, "naive Bayes": naive_bayes_scores(3)}
    rng = np.random.default_rng(0)
    labels = np.full(truth.size, np.nan)
    labeled = rng.choice(truth.size, 20, replace=False)
    labels[labeled] = truth[labeled]
    res = spe.fit_many(scores, labels, seed=0)
    true_auroc = {n: float(sample_auroc(labeled_sweep(s, truth.astype(float)))[0]) for n, s in scores.items()}
    lines = [res.summary("AUROC"), "", "true AUROC on these items: "
             + ", ".join(f"{n} {v:.3f}" for n, v in true_auroc.items())
             + f"; true prevalence {truth.mean():.3f}",
             "label-model weights: " + ", ".join(f"{n} {w:.2f}" for n, w in res.model_weights.items())]
    return res, "\n".join(lines), true_auroc


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    res, text, true_auroc = run()
    print(text)
    from spe.report.html import save_figure

    save_figure(ROOT / "figures" / "several_models.png", lambda ax: res.plot_comparison(ax, metric="AUROC", truth=true_auroc))
    if "--readme" in argv:
        from readme_numbers import README, replace_block  # examples/ is on sys.path (run)

        README.write_text(replace_block(README.read_text(), MARKERS, "```\n" + text + "\n```"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
