"""
A multiclass classifier from 20 labels: accuracy per predicted class
====================================================================

A logistic regression classifies scikit-learn's handwritten digits (10 classes, 1,797
images; 5-fold out-of-fold probabilities, so every image is scored by a model that never
saw it). 20 random images are labeled. ``spe.fit_multiclass`` draws every unlabeled
image's class from a posterior over calibration maps, so every metric (top-1 accuracy,
per-class precision and recall, the confusion matrix) comes with an interval, and all of
them agree draw by draw. Needs scikit-learn (``pip install "spe[examples]"``).
"""

# %%
import numpy as np

import spe

probs, truth = spe.datasets.digits_probabilities()
p = probs["logistic regression"]
labels = np.full(truth.size, -1)  # -1 = not labeled
picked = np.random.default_rng(0).choice(truth.size, 20, replace=False)
labels[picked] = truth[picked]

res = spe.fit_multiclass(p, labels, seed=0)
print(res.summary())

# %%
# The truth, known here for every image
# -------------------------------------
predicted = p.argmax(1)
per_class_truth = {c: float(np.mean(truth[predicted == c] == c)) for c in range(10) if (predicted == c).any()}
print(f"true top-1 accuracy: {np.mean(predicted == truth):.3f}")
print("true accuracy per predicted class: " + ", ".join(f"{c}: {v:.2f}" for c, v in per_class_truth.items()))

# %%
# Accuracy per predicted class (precision), truth as x
# ----------------------------------------------------
ax = res.plot_per_class(truth=per_class_truth)

# %%
# The same numbers as tables
# --------------------------
# ``to_frame()`` gives every metric as a tidy pandas DataFrame (one row per metric, and
# per class for the per-class ones); ``per_class(as_frame=True)`` and
# ``confusion_matrix(as_frame=True)`` give their own. Pivot the confusion matrix's rows
# to see it as a table of posterior median counts. (pandas is optional for spe; these
# tables need it, and ``to_records()`` gives the same rows as dicts without it.)
frame = res.to_frame()
print(frame[frame["metric"] == "precision"].round(3).to_string(index=False))
cm = res.confusion_matrix(as_frame=True)
print(cm.pivot(index="true", columns="predicted", values="estimate").astype(int))
