"""Calibration: score models of the form P(y = 1 | score) (Bayesian Platt, beta and
piecewise Platt maps, the "calibrated" member, a share per score value) and the
recalibrated probabilities of items and new scores."""

from ._cells import MAX_CELLS, CellsFit, fit_cells
from ._maps import (CALIBRATED_PRIOR, MAPS, NEARLY_CALIBRATED, SPLINE_SLOPE_CORRELATION, WEAK_PRIOR, CalibrationFit,
                    MapPrior, fit_calibration_map, likelihood_summary)
from ._recalibration import calibrate, item_probabilities

# Names the rooms above import (not in __all__: internal, may change without notice)
from ._maps import rounding_clips

__all__ = ["fit_calibration_map", "CalibrationFit", "MapPrior", "MAPS", "NEARLY_CALIBRATED", "fit_cells", "CellsFit",
           "MAX_CELLS", "calibrate", "item_probabilities", "likelihood_summary", "CALIBRATED_PRIOR", "WEAK_PRIOR",
           "SPLINE_SLOPE_CORRELATION"]
