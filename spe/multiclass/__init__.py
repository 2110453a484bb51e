"""Multiclass classifiers: an (N, K) matrix of class probabilities (or logits) and a few
labels -> coherent class draws -> accuracy, per-class rates, confusion matrix, curves."""

from ._fitting import MULTICLASS_MODELS, StackedLabelModel, fit_multiclass
from ._inputs import as_class_labels, as_class_scores
from ._result import MulticlassResult

# Names the rooms above import (not in __all__: internal, may change without notice)
from ._class_maps import (OUTLIER_PRIOR, PRIOR_SD, classes_from_draws, outlier_softmax, outlier_softmax_gradient,
                          posterior_draws)
from ._fitting import draw_classes, fit_label_models, model_weights
from ._inputs import LAZY_HINT

__all__ = ["fit_multiclass", "MulticlassResult", "as_class_scores", "as_class_labels", "StackedLabelModel",
           "MULTICLASS_MODELS"]
