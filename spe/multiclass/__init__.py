"""Multiclass classifiers: an (N, K) matrix of class probabilities (or logits) and a few
labels -> coherent class draws -> accuracy, per-class rates, confusion matrix, curves."""

from .fitting import MULTICLASS_MODELS, StackedLabelModel, fit_multiclass
from .inputs import as_class_labels, as_class_scores
from .result import MulticlassResult

__all__ = ["fit_multiclass", "MulticlassResult", "as_class_scores", "as_class_labels", "StackedLabelModel",
           "MULTICLASS_MODELS"]
