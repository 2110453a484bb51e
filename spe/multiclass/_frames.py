"""A :class:`~spe.multiclass.MulticlassResult` as tidy rows: its metrics (overall and per
class) and its confusion matrix, one row per cell (pandas optional, see ``spe.report``)."""

from __future__ import annotations

import numpy as np

from ..report import estimate_record

#: Per-class metrics of ``per_class()``, in the order of its rows' keys.
PER_CLASS_METRICS = ("precision", "recall", "f1", "prevalence")


def per_class_records(result, level) -> list[dict]:
    """One row per class and metric: metric, class, estimate, lower, upper, level, n_predicted."""
    names = result.classes
    return [estimate_record(row[metric], level=level, metric=metric, **{"class": names[row["class"]]})
            | {"n_predicted": row["n_predicted"]}
            for row in result.per_class(level) for metric in PER_CLASS_METRICS]


def confusion_records(result, level) -> list[dict]:
    """One row per (true class, predicted class) cell: true, predicted, estimate (median),
    lower, upper, level."""
    cm = result.confusion_matrix(level)
    names = result.classes
    k = len(names)
    return [{"true": names[i], "predicted": names[j], "estimate": float(cm["median"][i, j]),
             "lower": float(cm["lower"][i, j]), "upper": float(cm["upper"][i, j]), "level": cm["level"]}
            for i in range(k) for j in range(k)]


def result_records(result, level) -> list[dict]:
    """Overall metrics (class None), then each class's precision, recall, F1, prevalence and
    one-vs-rest average precision."""
    overall = [estimate_record(result.accuracy(level), metric="accuracy", **{"class": None}),
               estimate_record(result.macro_f1(level), metric="macro F1", **{"class": None}),
               estimate_record(result.macro_average_precision(level), metric="macro AP", **{"class": None})]
    per_class = [{k: v for k, v in row.items() if k != "n_predicted"} for row in per_class_records(result, level)]
    ap = [estimate_record(result.average_precision(c, level), metric="average precision",
                          **{"class": result.classes[c]}) for c in range(result.n_classes)]
    return overall + per_class + ap


def class_shares(class_draws, n_classes: int) -> np.ndarray:
    """(N, K) share of the draws that give each item each class (one pass per draw, so
    memory stays N x K)."""
    m, n = class_draws.shape
    out = np.zeros((n, n_classes))
    items = np.arange(n)
    for row in class_draws:
        out[items, row] += 1.0
    return out / m
