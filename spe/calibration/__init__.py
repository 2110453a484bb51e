"""Calibration: score models of the form P(y = 1 | score) (Bayesian Platt, beta and
piecewise Platt maps, the "calibrated" member, the weak ranker, a share per score value) and the
recalibrated probabilities of items and new scores."""

from ._cells import MAX_CELLS, CellsFit, fit_cells
from ._map_prior import CALIBRATED_COMPONENT, SHAPE_TERMS, score_shape

# Names the rooms above import (not in __all__: internal, may change without notice)
from ._maps import (
                    CALIBRATED_PRIOR,
                    MAPS,
                    NEARLY_CALIBRATED,
                    SPLINE_SLOPE_CORRELATION,
                    WEAK_PRIOR,
                    CalibrationFit,
                    Features,
                    MapPrior,
                    fit_calibration_map,
                    likelihood_summary,
                    rounding_clips,
                    straddles_zero,
)
from ._map_prior import shape_shifts
from ._recalibration import calibrate, item_probabilities
from ._weak import (
                    WEAK_RANKER,
                    RankFeature,
                    WeakRankerFit,
                    WeakRankerPrior,
                    fit_weak_ranker,
)

__all__ = [
                    "CALIBRATED_COMPONENT",
                    "CALIBRATED_PRIOR",
                    "MAPS",
                    "MAX_CELLS",
                    "NEARLY_CALIBRATED",
                    "SHAPE_TERMS",
                    "SPLINE_SLOPE_CORRELATION",
                    "WEAK_PRIOR",
                    "WEAK_RANKER",
                    "CalibrationFit",
                    "CellsFit",
                    "MapPrior",
                    "WeakRankerFit",
                    "WeakRankerPrior",
                    "calibrate",
                    "fit_calibration_map",
                    "fit_cells",
                    "fit_weak_ranker",
                    "item_probabilities",
                    "likelihood_summary",
                    "score_shape",
                    "straddles_zero",
]
