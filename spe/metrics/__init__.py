"""Performance from label draws: sweeps over thresholds (sample or population kind),
curves and scalar metrics with bands, thresholds that meet constraints, and which items
to label next."""

from .curves import DEFAULT_FPR_GRID, DEFAULT_RECALL_GRID, CurveBand, Estimate, PRCurve, ROCCurve
from .sweeps import (Sweep, exact_precision_at_recall, exact_tpr_at_fpr, labeled_sweep, sample_auroc,
                     sample_average_precision, sample_max_f1)
from .thresholds import ThresholdDecision

__all__ = ["Estimate", "PRCurve", "ROCCurve", "CurveBand", "DEFAULT_RECALL_GRID", "DEFAULT_FPR_GRID", "Sweep",
           "labeled_sweep", "exact_precision_at_recall", "exact_tpr_at_fpr", "sample_average_precision",
           "sample_auroc", "sample_max_f1", "ThresholdDecision"]
