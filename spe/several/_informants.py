"""Which of several binary models inform the shared label model, and why the others do not.

A model with one score for every item says nothing about the labels, and one whose scores
the labels alone say run the wrong way (P(AUROC < 0.5) > 0.95, :mod:`spe.scores`) would
mislead a calibration map: both are kept out. A model with fewer than 3 distinct scores
(hard predictions) has nothing to rank. When every model that informs the labels gives
hard predictions they are the label model (a share of positives per value each, and
Dawid-Skene's joint model, ``_label_model``); beside a model with many scores they are
kept out, as before: on the corpus' development half, cutting four of the eight families
at 0.5, their per-value maps in the stack raised the hard models' accuracy error and
widened the intervals (docs/method.md 9; `benchmarks/RESULTS.md`, "Hard predictions in
fit_many"). Every model's metrics still come from the shared label draws.
"""

from __future__ import annotations

import numpy as np

from ..scores import ORIENTATION_PROBABILITY, reversed_probability

#: A model gets a calibration map with this many distinct scores; with fewer (hard
#: predictions) a share of positives per value, and with another such model Dawid-Skene.
MIN_DISTINCT_EVIDENCE = 3
ONE_VALUE = "one score for every item"
REVERSED = "the labels say its scores run the wrong way (P(AUROC < 0.5) > 0.95)"
TOO_FEW_VALUES = (f"fewer than {MIN_DISTINCT_EVIDENCE} distinct scores (hard predictions inform the labels only "
                  "when no model with more does)")


def has_few_values(s) -> bool:
    """Whether scores ``s`` are hard predictions (fewer than MIN_DISTINCT_EVIDENCE values)."""
    return np.unique(s).size < MIN_DISTINCT_EVIDENCE


def exclusion(s, labels) -> str:
    """Why a model's scores ``s`` say nothing reliable about the labels ('' when they do)."""
    if np.unique(s).size < 2:
        return ONE_VALUE
    return REVERSED if reversed_probability(s, labels) > ORIENTATION_PROBABILITY else ""


def split_models(scores: dict, labels) -> tuple[dict, dict, set]:
    """({model: scores} that inform the labels, {model: why not} for the others, the
    informing models that give hard predictions: all of them or none).

    Raises
    ------
    ValueError
        If no model informs the labels.
    """
    excluded = {name: reason for name, s in scores.items() if (reason := exclusion(s, labels))}
    included = {name: s for name, s in scores.items() if name not in excluded}
    if not included:
        raise ValueError("no model can inform the labels: " + "; ".join(f"{k}: {v}" for k, v in excluded.items()))
    hard = {name for name, s in included.items() if has_few_values(s)}
    if len(hard) == len(included):
        return included, excluded, hard
    excluded |= dict.fromkeys(hard, TOO_FEW_VALUES)
    return {k: s for k, s in included.items() if k not in hard}, excluded, set()
