"""Pooling score models by the labels: leave-one-out weights through ArviZ, the pooled
draws of P(y = 1 | score), checks of each model against the labels, and label draws."""

from ..exceptions import LabelCheckWarning
from ._label_check import LabelCheck, check_labels, warn_if_contradicted
from ._label_draws import draw_positive_counts

# Names the rooms above import (not in __all__: internal, may change without notice)
from ._label_posterior import (
           LOO_DRAWS,
           LabelPosterior,
           allocate,
           combine,
           systematic_resample,
)
from ._prior_weights import prior_weights
from ._stacking import import_arviz, pointwise_log_likelihood, stacking_weights

__all__ = [
           "LabelCheck",
           "LabelCheckWarning",
           "LabelPosterior",
           "allocate",
           "check_labels",
           "combine",
           "draw_positive_counts",
           "pointwise_log_likelihood",
           "prior_weights",
           "stacking_weights",
           "systematic_resample",
           "warn_if_contradicted",
]
