"""Pooling score models by the labels: leave-one-out weights through ArviZ, the pooled
draws of P(y = 1 | score), checks of each model against the labels, and label draws."""

from ._label_check import LabelCheck, check_labels, warn_if_contradicted
from ..exceptions import LabelCheckWarning
from ._label_draws import draw_positive_counts
from ._label_posterior import LabelPosterior, allocate, combine, systematic_resample
from ._stacking import pointwise_log_likelihood, stacking_weights

# Names the rooms above import (not in __all__: internal, may change without notice)
from ._label_posterior import LOO_DRAWS
from ._stacking import import_arviz

__all__ = ["LabelPosterior", "combine", "allocate", "systematic_resample", "stacking_weights",
           "pointwise_log_likelihood", "LabelCheck", "LabelCheckWarning", "check_labels", "warn_if_contradicted",
           "draw_positive_counts"]
