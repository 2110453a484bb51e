"""
Three classifiers, 20 shared labels: which is best?
===================================================

Three classifiers score the same 1,797 digits (digit 3 against the rest): a linear SVM, a
logistic regression and Gaussian naive Bayes. 20 random items are labeled.
``spe.fit_many`` builds one label posterior from all three models' scores and the shared
labels, so every model's metrics come from the same label draws and comparisons are
paired: P(best) and P(A beats B) are shares of draws. Needs scikit-learn.
"""

# %%
import numpy as np

import spe
from spe.metrics import labeled_sweep, sample_auroc

scores = {}
for name, classifier in (("linear SVM", "svm"), ("logistic regression", "logres"), ("naive Bayes", "naive_bayes")):
    scores[name], truth = spe.datasets.digits_scores(classifier, 3)
labels = np.full(truth.size, np.nan)
picked = np.random.default_rng(0).choice(truth.size, 20, replace=False)
labels[picked] = truth[picked]

res = spe.fit_many(scores, labels, seed=0)
print(res.summary("AUROC"))

# %%
# The truth, known here for every item
# ------------------------------------
true_auroc = {n: float(sample_auroc(labeled_sweep(s, truth.astype(float)))[0]) for n, s in scores.items()}
print("true AUROC: " + ", ".join(f"{n} {v:.3f}" for n, v in true_auroc.items()))
print("P(row beats column) on AUROC:")
print(res.prob_beats("AUROC", as_frame=True).round(2))

# %%
# Every model and metric as one tidy table
# ----------------------------------------
# ``to_frame`` gives one row per model and metric: the estimate (posterior median), the
# interval, P(best) and why a model is kept out of the label model, if it is.
frame = res.to_frame()
print(frame[frame["metric"] == "AUROC"][["model", "estimate", "lower", "upper", "P(best)"]].round(3))
print("label model weights:", {k: round(v, 2) for k, v in res.model_weights.items()})

# %%
# AUROC of each model with its interval, truth as x
# -------------------------------------------------
ax = res.plot_comparison(metric="AUROC", truth=true_auroc)
