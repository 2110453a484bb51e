"""Several classifiers scored on the same items: one label model from all of them, shared
label draws, each model's metrics and paired comparisons (P(best), P(a beats b))."""

from .comparison import SharedDrawsComparison
from .many import ManyResult, fit_many
from .many_multiclass import ManyMulticlassResult
from .model_result import ModelResult

__all__ = ["fit_many", "ManyResult", "ManyMulticlassResult", "ModelResult", "SharedDrawsComparison"]
