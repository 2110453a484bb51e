"""Active Bayesian assessment (Ji et al.), fed by SPE posteriors as informative priors.

Data flow: items -> groups (``_groups``) -> priors per group (``_priors``: from nothing,
from scores, or from an SPE result; for the confusion matrix, ``_confusion``) -> Bayesian
group metrics (``_metrics``; calibration per confidence bin, ``_calibration``) -> which
item to label next (``_strategies``) -> a labeling session (``_assessor``, with its
confusion matrix and costs, ``_confusion``, identification and comparison, ``_identify``,
and a state file that survives restarts, ``_state``); ``_simulate`` replays it against an
oracle.
"""

from ._assessor import Assessor
from ..exceptions import StateError
from ._calibration import CalibrationError
from ._confusion import multiclass_confusion_prior, score_confusion_prior, uniform_confusion_prior
from ._groups import bin_groups, class_groups, class_order, encode_groups
from ._identify import Comparison, Identification, mrr
from ._metrics import BetaGroups, DirichletColumns, expected_calibration_error, rope_probabilities
from ._priors import multiclass_informed_prior, score_informed_prior, spe_informed_prior, uninformative_prior
from ._strategies import STRATEGIES

# Names the rooms above import (not in __all__: internal, may change without notice)
from ._assessor import read_state

__all__ = [
    "Assessor", "StateError", "BetaGroups", "DirichletColumns", "rope_probabilities",
    "CalibrationError", "expected_calibration_error", "Identification", "Comparison", "mrr",
    "bin_groups", "class_groups", "class_order", "encode_groups", "STRATEGIES",
    "uninformative_prior", "score_informed_prior", "spe_informed_prior", "multiclass_informed_prior",
    "uniform_confusion_prior", "score_confusion_prior", "multiclass_confusion_prior",
]
