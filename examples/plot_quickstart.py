"""
Ten labels: a PR curve with its band, and a threshold
=====================================================

A linear SVM scored 1,797 handwritten digits (digit 3 against the rest). We can afford to
label ten of them. ``spe.fit`` models all 1,797 scores and the ten labels, and returns the
precision-recall curve with a 90% credible band, scalar metrics with intervals, and a
threshold that meets a precision target with a stated probability. The true labels of
every item are known here, so the truth is drawn beside the estimate.
"""

# %%
# Fit the scores and the ten labels
# ---------------------------------
import numpy as np

import spe

scores, truth = spe.datasets.load_demo()
labels = np.full(scores.size, np.nan)  # NaN = not labeled
picked = np.random.default_rng(1).choice(scores.size, 10, replace=False)
labels[picked] = truth[picked]

res = spe.fit(scores, labels, seed=0)
print(res.summary())

# %%
# The PR curve against the truth
# ------------------------------
# The band is the 90% credible band of precision at each recall on *these* items. The
# curve of the ten labeled items alone is drawn too: with one or two positives among them
# it says almost nothing.
ax = res.plot_pr(true_labels=truth)

# %%
# Precision at a few recalls, with the truth
# ------------------------------------------
pr = res.pr_curve(recall=np.linspace(0, 1, 11), level=0.9)
true_pr = spe.exact_precision_at_recall(scores, truth, pr.recall)
print("recall  precision [90% band]   true")
for r, p, lo, hi, t in zip(pr.recall, pr.precision, pr.lower, pr.upper, true_pr):
    print(f"{r:5.1f}   {p:.3f} [{lo:.3f}, {hi:.3f}]   {t:.3f}")

# %%
# A threshold for this data set
# -----------------------------
# The threshold whose precision on these items is at least 0.9 with probability 0.9, and
# the highest expected recall among those.
decision = res.choose_threshold(min_precision=0.9, confidence=0.9)
print(decision)
chosen = scores >= decision.threshold
print(f"on all the true labels: precision {truth[chosen].mean():.3f}, recall {truth[chosen].sum() / truth.sum():.3f}")

# %%
# Which items to label next
# -------------------------
# The ten unlabeled items whose labels are expected to narrow the PR band most.
print(res.suggest_labels(10))
