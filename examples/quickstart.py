"""Quickstart: 10 labels -> PR curve with a credible band -> a threshold for this data set.

    pip install -e .
    python examples/quickstart.py
"""

import numpy as np

import spe
from spe.datasets import load_demo

scores, truth = load_demo()  # linear-SVM scores, digit 3 vs rest (bundled)
rng = np.random.default_rng(1)
labels = np.full(scores.size, np.nan)
labeled = rng.choice(scores.size, 10, replace=False)  # all we can afford to label
labels[labeled] = truth[labeled]

res = spe.fit(scores, labels, seed=0)
print(res.summary())

pr = res.pr_curve(recall=np.linspace(0, 1, 11), level=0.9)
true_pr = spe.exact_precision_at_recall(scores, truth, pr.recall)
print("\nrecall  precision [90% band]   true")
for r, p, lo, hi, t in zip(pr.recall, pr.precision, pr.lower, pr.upper, true_pr):
    print(f"{r:5.1f}   {p:.3f} [{lo:.3f}, {hi:.3f}]   {t:.3f}")

decision = res.choose_threshold(min_precision=0.9, min_recall=0.8, confidence=0.9)
print("\n" + str(decision))
