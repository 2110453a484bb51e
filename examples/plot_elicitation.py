"""
Which decision rule does *your* metric prefer? Eliciting it from comparisons
============================================================================

A classifier sorts 1,000 patients into healthy / mild / severe (the synthetic classes of
Hiranandani et al.: X ~ U[-1, 1], P(class i | x) proportional to 1 / (1 + exp(p_i x)),
p = 1, 3, 5). Its user cannot say how much a correct "severe" is worth against a correct
"healthy", but can say which of two outcomes they would rather have. ``spe.elicit_metric``
asks such questions (two confusion matrices the classifier can reach on these items) and
recovers the metric, picks the rule that maximises it, and, from 30 labels, tells how good
that rule is on these items, with an interval. Here the user is simulated by a known
weighted accuracy, so the answer can be checked; at a terminal, ``spe elicit`` asks a
person.
"""

# %%
import numpy as np

import spe
from spe.elicitation import DiagonalLinear, paper_probabilities, truthful_oracle

probs = paper_probabilities((1, 3, 5), n=1000)  # the classifier's class probabilities
rng = np.random.default_rng(0)
truth = (rng.random(1000)[:, None] > np.cumsum(probs, axis=1)).sum(axis=1)  # each patient's class
labels = np.full(1000, -1)  # -1 = not labeled
picked = rng.choice(1000, 30, replace=False)
labels[picked] = truth[picked]

user = DiagonalLinear([0.15, 0.25, 0.60])  # the user's metric: spe never sees it, only answers
m = spe.elicit_metric(truthful_oracle(user), probs, labels=labels, classes=["healthy", "mild", "severe"], seed=0)
print(m.summary())

# %%
# The truth, known here
# ---------------------
# The elicited weights beside the user's, and the true value (from all 1,000 classes) of
# the elicited rule and of the classifier's top-1 rule under the user's metric.
onehot = np.eye(3)[truth]


def true_value(rule):
    return user(onehot.T @ np.eye(3)[rule] / len(rule))


print("user's weights:     ", user.weights)
print("elicited weights:   ", np.round(m.weights, 3))
print(f"elicited rule, true value {true_value(m.decide()):.4f}; top-1 rule {true_value(probs.argmax(1)):.4f}")

# %%
# The same as a tidy table: each weight with its 90% interval, then the rule used (here the
# elicited one), the top-1 rule and their difference on these items, from the 30 labels.
print(m.to_frame().round(4).to_string(index=False))

# %%
# Where the questions went
# ------------------------
# Each search compares rules that predict only two classes, on the boundary of what such
# rules can reach (here healthy against severe), closing in on the user's best one.
ax = m.plot_queries(pair=1)

# %%
# What the elicited rule is worth on these items
# ----------------------------------------------
# The metric's posterior for the elicited rule and for the top-1 rule: spe's label draws
# (from the 30 labels) paired with draws of the weights.
ax = m.plot_evaluation()
