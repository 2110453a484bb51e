"""Active Bayesian assessment (Ji et al.), fed by SPE posteriors as informative priors.

Data flow: items -> groups (``_groups``) -> priors per group (``_priors``, from
nothing, from scores, or from an SPE result) -> Bayesian group metrics
(``_metrics``; calibration per confidence bin, ``_calibration``) -> which item to label next (``_strategies``) -> a labeling
session that survives restarts (``_assessor``); ``_simulate`` replays it against
an oracle.
"""

from ._assessor import Assessor
from ..exceptions import StateError
from ._calibration import CalibrationError
from ._groups import bin_groups, class_groups, class_order, encode_groups
from ._metrics import BetaGroups, DirichletColumns, expected_calibration_error, rope_probabilities
from ._priors import multiclass_informed_prior, score_informed_prior, spe_informed_prior, uninformative_prior

# Names the rooms above import (not in __all__: internal, may change without notice)
from ._assessor import read_state

__all__ = [
    "Assessor", "StateError", "BetaGroups", "DirichletColumns", "rope_probabilities",
    "CalibrationError", "expected_calibration_error",
    "bin_groups", "class_groups", "class_order", "encode_groups",
    "uninformative_prior", "score_informed_prior", "spe_informed_prior", "multiclass_informed_prior",
]
