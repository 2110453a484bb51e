"""spe: semisupervised performance evaluation of classifiers from few labels.

Examples
--------
>>> import numpy as np, spe
>>> scores, truth = spe.datasets.load_demo()
>>> labels = np.full(len(scores), np.nan)
>>> labels[:10] = truth[:10]               # 10 labels; NaN: unlabeled
>>> res = spe.fit(scores, labels, seed=0)
>>> curve = res.pr_curve(level=0.9)        # precision on a recall grid with a 90% band
>>> print(res.summary())                   # doctest: +SKIP

Entry points: :func:`fit` (one classifier's scores), :func:`fit_multiclass` (class
probabilities), :func:`fit_many` (several classifiers on the same items),
:func:`accuracy_surface` (accuracy over attribute combinations), :mod:`spe.assessment`
(active labelling) and :func:`elicit_metric` (the user's metric from pairwise comparisons,
:mod:`spe.elicitation`); :mod:`spe.sklearn` wraps them as scikit-learn estimators and displays. Data flow down the rooms: :mod:`spe.scores` ->
score models (:mod:`spe.mixture`, :mod:`spe.calibration`) -> :mod:`spe.pooling` (weights
and label draws) -> :mod:`spe.metrics` -> :mod:`spe.report` (results, summaries, plots)
-> :mod:`spe.cli`. The method: the documentation's "Method" page.
"""

from . import _compat, assessment, datasets, exceptions, learned
from ._fit import fit
from .calibration import CalibrationFit
from .elicitation import ElicitedMetric, elicit_metric
from .learned import ClassifierPrior, learn_prior
from .exceptions import (CLIError, ElicitationStopped, FitError, InconsistentAnswersWarning, InputError, InputWarning,
                         LabelCheckWarning, SamplingWarning, StateError)
from .metrics import (DEFAULT_FPR_GRID, DEFAULT_RECALL_GRID, Estimate, PRCurve, ROCCurve, ThresholdDecision,
                      exact_precision_at_recall, exact_tpr_at_fpr)
from .mixture import Misfit, MixtureFit
from .multiclass import MulticlassResult, fit_multiclass
from .pooling import LabelPosterior
from .report import SPEResult, Summary
from .scores import ScoreCounts, count_dask, count_scores, read_parquet
from .several import ManyMulticlassResult, ManyResult, ModelResult, fit_many
from .surface import AccuracySurface, UncertainAttribute, accuracy_surface

__all__ = [
    # entry points
    "fit", "fit_multiclass", "fit_many", "accuracy_surface", "elicit_metric", "assessment", "learn_prior", "learned",
    "read_parquet", "count_dask", "count_scores", "datasets",
    # results and what they hold
    "SPEResult", "Summary", "MulticlassResult", "ManyResult", "ManyMulticlassResult", "ModelResult",
    "AccuracySurface", "ElicitedMetric", "Estimate", "PRCurve", "ROCCurve", "ThresholdDecision",
    "LabelPosterior", "MixtureFit", "CalibrationFit", "Misfit", "ScoreCounts", "UncertainAttribute", "ClassifierPrior",
    "exact_precision_at_recall", "exact_tpr_at_fpr", "DEFAULT_RECALL_GRID", "DEFAULT_FPR_GRID",
    # errors and warnings (all defined in spe.exceptions)
    "exceptions", "FitError", "InputError", "StateError", "CLIError", "ElicitationStopped",
    "SamplingWarning", "LabelCheckWarning", "InputWarning", "InconsistentAnswersWarning",
]
__version__ = "0.3.0.dev0"

_compat.install()


def __getattr__(name):
    """Old names: ``spe.results``, ``spe.curves``, ... (the modules of spe 0.2's flat layout)
    and names that moved to a room (``spe.FAMILIES``), each with a FutureWarning."""
    if name == "sklearn":  # scikit-learn is optional: imported when the room is first used
        import importlib

        return importlib.import_module(f"{__name__}.sklearn")
    if name in _compat.MOVED:
        import importlib

        return importlib.import_module(f"{__name__}.{name}")
    return _compat.moved_name(__name__, name)
