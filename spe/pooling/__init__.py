"""Pooling score models by the labels: leave-one-out weights through ArviZ, the pooled
draws of P(y = 1 | score), checks of each model against the labels, and label draws."""

from .label_check import LabelCheck, LabelCheckWarning, check_labels, warn_if_contradicted
from .label_draws import draw_positive_counts
from .label_posterior import LabelPosterior, allocate, combine, systematic_resample
from .stacking import pointwise_log_likelihood, stacking_weights

__all__ = ["LabelPosterior", "combine", "allocate", "systematic_resample", "stacking_weights",
           "pointwise_log_likelihood", "LabelCheck", "LabelCheckWarning", "check_labels", "warn_if_contradicted",
           "draw_positive_counts"]
