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
    """Observed positives among the labeled items against one model's prediction.

    Attributes
    ----------
    n_labeled, observed : int
        Labeled items, and the positives among them.
    expected, lower, upper : float
        The model's predictive mean and ``level`` interval of ``observed``.
    p_value : float
        Two-sided posterior predictive p-value.

    See Also
    --------
    check_labels : makes it.

    Examples
    --------
    >>> from spe.pooling import LabelCheck
    >>> check = LabelCheck(n_labeled=40, observed=22, expected=22.3, lower=16, upper=28, p_value=1.0)
    >>> check.verdict
    'not contradicted by the labels'
    >>> LabelCheck(n_labeled=10, observed=9, expected=1.2, lower=0, upper=3, p_value=0.001).verdict
    'contradicted by the labels'
    """

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

    Returns
    -------
    LabelCheck

    Raises
    ------
    ValueError
        If there are no labeled items.

    See Also
    --------
    warn_if_contradicted

    Examples
    --------
    >>> import numpy as np
    >>> from spe.calibration import fit_calibration_map
    >>> from spe.pooling import check_labels
    >>> rng = np.random.default_rng(0)
    >>> scores = rng.uniform(0.01, 0.99, 200)
    >>> labels = np.where(np.arange(200) < 40, rng.uniform(size=200) < scores, np.nan)
    >>> fit = fit_calibration_map("platt", scores, labels, probabilities=True, n_draws=400, rng=rng)
    >>> known = ~np.isnan(labels)
    >>> check_labels(fit, scores[known], labels[known], rng).verdict
    'not contradicted by the labels'
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
    """Warn about every contradicted model that still carries weight in the pool.

    A model is warned about when its p-value is below 0.01 and its weight at least 0.1.

    Warns
    -----
    LabelCheckWarning

    Examples
    --------
    >>> import warnings
    >>> from spe.pooling import LabelCheck, warn_if_contradicted
    >>> bad = LabelCheck(n_labeled=10, observed=9, expected=1.2, lower=0, upper=3, p_value=0.001)
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     warn_if_contradicted({"mixture": bad}, {"mixture": 0.8, "spline": 0.2})
    >>> print(caught[0].message)  # doctest: +ELLIPSIS
    score model 'mixture' (weight 0.80) is contradicted by the labels: 9 of 10 labeled items are positive, ...
    """
    for name, check in checks.items():
        if check.p_value < CONTRADICTED and model_weights.get(name, 0.0) >= WARN_WEIGHT:
            warnings.warn(f"score model {name!r} (weight {model_weights[name]:.2f}) is contradicted by the labels: "
                          f"{check.observed} of {check.n_labeled} labeled items are positive, it predicts "
                          f"{check.expected:.1f} [{check.lower:.0f}, {check.upper:.0f}]; its estimates are "
                          "suspect (see summary())", LabelCheckWarning, stacklevel=3)
