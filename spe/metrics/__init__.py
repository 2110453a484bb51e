"""Performance from label draws: sweeps over thresholds (sample or population kind),
curves and scalar metrics with bands, thresholds that meet constraints, and which items
to label next."""

from ._curves import DEFAULT_FPR_GRID, DEFAULT_RECALL_GRID, CurveBand, Estimate, PRCurve, ROCCurve
from ._sweeps import (Sweep, exact_precision_at_recall, exact_tpr_at_fpr, labeled_sweep, sample_auroc,
                      sample_average_precision, sample_max_f1)
from ._thresholds import ThresholdDecision

# Names the rooms above import (not in __all__: internal, may change without notice)
from ._curves import band, check_grid, check_level, check_n_draws, weighted_quantile
from ._kinds import build_sweep, check_kind, warn_if_collapsed
from ._suggest import RANDOM_SHARE, check_thresholds, label_values, rates_at, suggest
from ._sweeps import draws_sweep, sample_precision_at_recall, sample_tpr_at_fpr
from ._thresholds import (Rates, best_by_score, check_beta, check_constraints, check_costs, choose, fbeta, holds,
                          sample_rates, thinned)

__all__ = ["Estimate", "PRCurve", "ROCCurve", "CurveBand", "DEFAULT_RECALL_GRID", "DEFAULT_FPR_GRID", "Sweep",
           "labeled_sweep", "exact_precision_at_recall", "exact_tpr_at_fpr", "sample_average_precision",
           "sample_auroc", "sample_max_f1", "ThresholdDecision"]
