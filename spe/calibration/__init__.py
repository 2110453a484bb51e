"""Calibration: score models of the form P(y = 1 | score) (Bayesian Platt, beta and
piecewise Platt maps, the "calibrated" member, a share per score value) and the
recalibrated probabilities of items and new scores."""

from ._cells import MAX_CELLS, CellsFit, fit_cells
from ._maps import MAPS, NEARLY_CALIBRATED, CalibrationFit, fit_calibration_map
from ._recalibration import calibrate, item_probabilities

# Names the rooms above import (not in __all__: internal, may change without notice)
from ._maps import rounding_clips

__all__ = ["fit_calibration_map", "CalibrationFit", "MAPS", "NEARLY_CALIBRATED", "fit_cells", "CellsFit",
           "MAX_CELLS", "calibrate", "item_probabilities"]
