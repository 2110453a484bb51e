"""Several classifiers scored on the same items: one label model from all of them, shared
label draws, each model's metrics and paired comparisons (P(best), P(a beats b))."""

from ._comparison import SharedDrawsComparison
from ._binary import ManyResult, fit_many
from ._multiclass import ManyMulticlassResult
from ._model_result import ModelResult

__all__ = ["fit_many", "ManyResult", "ManyMulticlassResult", "ModelResult", "SharedDrawsComparison"]
