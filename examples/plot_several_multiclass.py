"""
Three multiclass classifiers on 20 shared labels
================================================

A logistic regression, Gaussian naive Bayes and a random forest classify the bundled
digits (10 classes, out-of-fold probabilities). With 20 labeled images,
``spe.fit_many`` on their class probabilities ranks them by top-1 accuracy from shared
class draws. The labeled items alone are printed too: with 20 labels their accuracy
moves in steps of 0.05. Needs scikit-learn.
"""

# %%
import numpy as np

import spe

probs, truth = spe.datasets.digits_probabilities()
labels = np.full(truth.size, -1)
picked = np.random.default_rng(0).choice(truth.size, 20, replace=False)
labels[picked] = truth[picked]

res = spe.fit_many(probs, labels, seed=0)
print(res.summary("accuracy"))

true_acc = {n: float(np.mean(q.argmax(1) == truth)) for n, q in probs.items()}
print("true top-1 accuracy: " + ", ".join(f"{n} {v:.3f}" for n, v in true_acc.items()))
print("labeled items alone: " + ", ".join(f"{n} {np.mean(q[picked].argmax(1) == truth[picked]):.2f}"
                                          for n, q in probs.items()))

# %%
# Each model's full multiclass result comes from the same class draws
# -------------------------------------------------------------------
print(res.results["random forest"].accuracy())
print(res.accuracy_difference("random forest", "logistic regression"))
ax = res.plot_comparison(metric="accuracy", truth=true_acc)
