"""spe: semisupervised performance evaluation of classifiers from few labels.

    >>> import spe
    >>> res = spe.fit(scores, labels)          # labels: 0/1, NaN for unlabeled
    >>> res.summary()
    >>> curve = res.pr_curve(level=0.9)        # precision on a recall grid with a band

Entry points: :func:`fit` (one classifier's scores), :func:`fit_multiclass` (class
probabilities), :func:`fit_many` (several classifiers on the same items),
:func:`accuracy_surface` (accuracy over attribute combinations), :mod:`spe.assessment`
(active labelling) and :func:`elicit_metric` (the user's metric from pairwise comparisons,
:mod:`spe.elicitation`). Data flow down the rooms: :mod:`spe.scores` ->
score models (:mod:`spe.mixture`, :mod:`spe.calibration`) -> :mod:`spe.pooling` (weights
and label draws) -> :mod:`spe.metrics` -> :mod:`spe.report` (results, summaries, plots)
-> :mod:`spe.cli`. The method: the documentation's "Method" page.
"""

from . import _compat, datasets
from .api import fit
from .calibration import CalibrationFit
from .elicitation import ElicitedMetric, elicit_metric
from .exceptions import SamplingWarning
from .metrics import (DEFAULT_FPR_GRID, DEFAULT_RECALL_GRID, Estimate, PRCurve, ROCCurve, ThresholdDecision,
                      exact_precision_at_recall, exact_tpr_at_fpr)
from .mixture import FAMILIES, Family, FitError, Misfit, MixtureFit, priors, register_family
from .multiclass import MulticlassResult, fit_multiclass
from .pooling import LabelPosterior
from .report import SPEResult, Summary
from .scores import ScoreCounts, count_dask, count_scores, read_parquet
from .several import ManyResult, fit_many
from .surface import AccuracySurface, accuracy_surface

__all__ = [
    "fit", "read_parquet", "count_dask", "count_scores", "ScoreCounts", "fit_multiclass", "MulticlassResult",
    "fit_many", "ManyResult", "accuracy_surface", "AccuracySurface",
    "SPEResult", "Summary", "Estimate", "PRCurve", "ROCCurve", "ThresholdDecision",
    "LabelPosterior", "MixtureFit", "CalibrationFit", "Misfit", "FitError", "SamplingWarning",
    "FAMILIES", "Family", "register_family", "priors", "datasets",
    "exact_precision_at_recall", "exact_tpr_at_fpr", "DEFAULT_RECALL_GRID", "DEFAULT_FPR_GRID",
    "elicit_metric", "ElicitedMetric",
]
__version__ = "0.2.0"

_compat.install()


def __getattr__(name):
    """``spe.results``, ``spe.curves``, ...: the modules of spe 0.2's flat layout."""
    if name in _compat.MOVED:
        import importlib

        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
