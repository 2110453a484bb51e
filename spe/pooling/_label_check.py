"""Do the labels agree with a score model? A posterior predictive check of the labeled items.

Under each posterior draw a score model predicts the labels of the labeled items: the
number of positives among them is a sum of Bernoulli(P(y = 1 | s_i)) draws. Replicating
that count over the (resampled) draws gives the model's predictive distribution of it,
and where the observed count falls (a two-sided posterior predictive p-value; Gelman,
Meng & Stern 1996) says whether the model's class balance among the labeled items is the
labels' one. The check reuses the labels that fitted the model, so it is conservative: a
model it flags is contradicted even after it has seen them.

Why it matters: a mixture fitted mostly to the unlabeled scores can explain their shape
with components that do not correspond to the classes (say "positive" = a small tail
component while every labeled item is positive). The model weights already give such a
model little weight; this check says so in plain words, per model.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np

from ..exceptions import LabelCheckWarning
from ._label_posterior import systematic_resample

#: Posterior draws used per check (resampled by weight).
CHECK_DRAWS = 1000
#: Below these p-values the labels are in tension with / contradict a model.
TENSION, CONTRADICTED = 0.05, 0.01
#: A contradicted model with at least this weight in the pool is warned about.
WARN_WEIGHT = 0.1
#: With fewer labeled items of either class than this the check cannot tell a model from
#: its rivals: it says so instead of "not contradicted".
MIN_PER_CLASS = 3


@dataclass(frozen=True)
class LabelCheck:
    """Observed positives among the labeled items against one model's prediction."""

    n_labeled: int
    observed: int
    expected: float
    lower: float
    upper: float
    p_value: float
    level: float = 0.9

    @property
    def testable(self) -> bool:
        """Whether the labels hold enough of each class for the check to say anything."""
        return min(self.observed, self.n_labeled - self.observed) >= MIN_PER_CLASS

    @property
    def verdict(self) -> str:
        if self.p_value < CONTRADICTED:
            return "contradicted by the labels"
        if self.p_value < TENSION:
            return "in tension with the labels"
        if not self.testable:
            return f"too few labels of one class to test it (fewer than {MIN_PER_CLASS})"
        # a predictive check can refute a model, never confirm it
        return "not contradicted by the labels"

    def describe(self) -> str:
        return (f"labels: {self.observed} of {self.n_labeled} positive; the model predicts "
                f"{self.expected:.1f} [{self.lower:.0f}, {self.upper:.0f}] "
                f"({100 * self.level:g}%): {self.verdict} (p = {self.p_value:.3f})")

    def as_dict(self) -> dict:
        return {"n_labeled": self.n_labeled, "observed": self.observed, "expected": self.expected,
                "lower": self.lower, "upper": self.upper, "p_value": self.p_value,
                "level": self.level, "verdict": self.verdict}


def check_labels(fit, scores, labels, rng, level=0.9) -> LabelCheck:
    """Posterior predictive check of the number of positives among the labeled items.

    ``fit``: a score model's fit (weighted draws with ``prob_positive(scores, draws)``);
    ``scores``, ``labels``: the labeled items (labels 0/1).
    """
    labels = np.asarray(labels, float)
    if labels.size == 0:
        raise ValueError("the label check needs labeled items")
    draws = systematic_resample(fit.weights, min(CHECK_DRAWS, fit.n_draws), rng)
    prob = np.clip(fit.prob_positive(np.asarray(scores, float), draws=draws), 0.0, 1.0)
    replicated = (rng.random(prob.shape) < prob).sum(axis=1)
    observed = int(labels.sum())
    tail = min(np.mean(replicated >= observed), np.mean(replicated <= observed))
    lower, upper = np.quantile(replicated, [(1 - level) / 2, (1 + level) / 2])
    return LabelCheck(n_labeled=int(labels.size), observed=observed, expected=float(prob.sum(axis=1).mean()),
                      lower=float(lower), upper=float(upper), p_value=float(min(1.0, 2.0 * tail)), level=level)


def warn_if_contradicted(checks: dict, model_weights: dict):
    """Warn about every contradicted model that still carries weight in the pool."""
    for name, check in checks.items():
        if check.p_value < CONTRADICTED and model_weights.get(name, 0.0) >= WARN_WEIGHT:
            warnings.warn(f"score model {name!r} (weight {model_weights[name]:.2f}) is contradicted by the labels: "
                          f"{check.observed} of {check.n_labeled} labeled items are positive, it predicts "
                          f"{check.expected:.1f} [{check.lower:.0f}, {check.upper:.0f}]; its estimates are "
                          "suspect (see summary())", LabelCheckWarning, stacklevel=3)
