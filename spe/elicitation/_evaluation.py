"""How good is the elicited rule on the user's items? From an spe fit's label draws.

An spe fit holds posterior draws of every item's class (:func:`spe.fit_multiclass`:
``class_draws``; :func:`spe.fit`: positives per score group, items of a group being
exchangeable). Under each draw a rule has a confusion matrix, and the metric has a value.
Each label draw is paired with a draw of the metric's weights (the elicitation posterior,
resampled), so the interval holds both what the labels leave open and what the answers
do. The same draws give P(the elicited rule beats the classifier's top-1 rule).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..metrics import Estimate


@dataclass
class Evaluation:
    """The elicited rule's metric on these items, beside the classifier's top-1 rule's
    (:meth:`ElicitedMetric.evaluate <spe.elicitation.ElicitedMetric.evaluate>` makes it).

    Examples
    --------
    >>> from spe.metrics import Estimate
    >>> from spe.elicitation import Evaluation
    >>> w = np.full(4, 0.25)
    >>> rule, top = Estimate.from_draws("rule", [0.8, 0.82, 0.79, 0.81], w, 0.9), Estimate.from_draws(
    ...     "top-1", [0.78, 0.8, 0.8, 0.77], w, 0.9)
    >>> ev = Evaluation(rule, top, Estimate.from_draws("difference", [0.02, 0.02, -0.01, 0.04], w, 0.9), 0.75)
    >>> ev.as_dict()["prob_beats_argmax"]
    0.75
    """

    rule: Estimate
    argmax: Estimate
    difference: Estimate
    prob_beats_argmax: float

    def as_dict(self) -> dict:
        return {"rule": self.rule.as_dict(), "argmax": self.argmax.as_dict(), "difference": self.difference.as_dict(),
                "prob_beats_argmax": self.prob_beats_argmax}

    def __repr__(self):
        return (f"{self.rule!r}\n{self.argmax!r}\n{self.difference!r}\n"
                f"P(the elicited rule beats the top-1 rule) = {self.prob_beats_argmax:.3f}")


def _multiclass_confusions(class_draws, predictions, k: int) -> np.ndarray:
    """(draws, K, K) confusion matrices of ``predictions`` under each labelling."""
    m, n = class_draws.shape
    cells = class_draws.astype(np.int64) * k + np.asarray(predictions)[None, :]
    cells += (np.arange(m, dtype=np.int64) * (k * k))[:, None]  # one bincount for every draw at once
    return np.bincount(cells.ravel(), minlength=m * k * k).reshape(m, k, k) / n


def _binary_confusions(result, predictions, rng) -> np.ndarray:
    """(draws, 2, 2) confusion matrices under each draw of an :func:`spe.fit` result
    (class 1 = positive). Unlabeled items of a score group share their draw's positives;
    when the rule splits a group they are dealt out at random (hypergeometric)."""
    data = result.data
    data.require_items("evaluating a decision rule on the items")
    pred = np.asarray(predictions).astype(bool)
    labeled = data.is_labeled
    y = data.labels[labeled] == 1
    fixed = np.array([[np.sum(~y & ~pred[labeled]), np.sum(~y & pred[labeled])],
                      [np.sum(y & ~pred[labeled]), np.sum(y & pred[labeled])]], float)
    groups = data.group[~labeled]
    n_groups = data.n_groups
    size = np.bincount(groups, minlength=n_groups)
    chosen = np.bincount(groups, weights=pred[~labeled].astype(float), minlength=n_groups).astype(np.int64)
    positives = result.positive_counts - data.n_pos  # unlabeled positives per draw and group
    tp = np.zeros(positives.shape, dtype=np.int64)
    whole = chosen == size
    tp[:, whole] = positives[:, whole]
    split = (chosen > 0) & ~whole
    if split.any():
        tp[:, split] = rng.hypergeometric(positives[:, split], size[split] - positives[:, split],
                                          np.broadcast_to(chosen[split], positives[:, split].shape))
    tp = tp.sum(axis=1)
    fp = chosen.sum() - tp
    fn = positives.sum(axis=1) - tp
    tn = size.sum() - tp - fp - fn
    out = np.stack([np.stack([tn, fp], axis=1), np.stack([fn, tp], axis=1)], axis=1).astype(float) + fixed
    return out / data.n_items


def confusion_draws(result, predictions, rng):
    """(draws, K, K) confusion matrices of a rule and the draws' weights, from an spe fit."""
    if hasattr(result, "class_draws"):
        draws = result.class_draws
        return _multiclass_confusions(draws, predictions, result.n_classes), np.full(draws.shape[0], 1.0 / len(draws))
    if hasattr(result, "positive_counts"):
        return _binary_confusions(result, predictions, rng), result.weights
    raise TypeError(f"evaluate needs an spe fit of these items (spe.fit_multiclass or spe.fit), got "
                    f"{type(result).__name__}")


def result_size(result) -> tuple[int, int]:
    """(items, classes) of an spe fit."""
    if hasattr(result, "class_draws"):
        return result.n_items, result.n_classes
    if hasattr(result, "positive_counts"):
        return result.data.n_items, 2
    raise TypeError(f"evaluate needs an spe fit of these items (spe.fit_multiclass or spe.fit), got "
                    f"{type(result).__name__}")


def evaluate_rules(result, rule, argmax, values_of, level: float, rng) -> Evaluation:
    """The metric's posterior for ``rule`` and ``argmax`` (predictions per item).

    ``values_of(confusions)`` -> (draws,) values, one metric draw per confusion draw.
    """
    c_rule, weights = confusion_draws(result, rule, rng)
    c_top, _ = confusion_draws(result, argmax, rng)
    v_rule, v_top = values_of(c_rule), values_of(c_top)
    diff = v_rule - v_top
    return Evaluation(Estimate.from_draws("metric of the elicited rule", v_rule, weights, level),
                      Estimate.from_draws("metric of the top-1 rule", v_top, weights, level),
                      Estimate.from_draws("difference", diff, weights, level),
                      float(np.clip(weights @ (diff > 0), 0.0, 1.0)))
