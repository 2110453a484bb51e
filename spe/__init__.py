"""spe: semisupervised performance evaluation of classifiers from few labels.

    >>> import spe
    >>> res = spe.fit(scores, labels)          # labels: 0/1, NaN for unlabeled
    >>> res.summary()
    >>> curve = res.pr_curve(level=0.9)        # precision on a recall grid with a band

Data flow: scores (:mod:`spe.scores`) -> score models (:mod:`spe.mixture`, with
:mod:`spe.families`, :mod:`spe.model`, :mod:`spe.fitting`, :mod:`spe.posterior`,
:mod:`spe.misfit`; and :mod:`spe.calibration_maps`) -> model weights
(:mod:`spe.stacking`) -> pooled draws of P(y = 1 | score) (:mod:`spe.label_posterior`)
-> label draws (:mod:`spe.labels`) -> curves and thresholds (:mod:`spe.curves`,
:mod:`spe.thresholds`) -> :class:`spe.results.SPEResult` -> :mod:`spe.report`,
:mod:`spe.plot`, :mod:`spe.cli`. Multiclass classifiers: :func:`spe.fit_multiclass`
(:mod:`spe.multiclass`); several models on the same items: :func:`spe.fit_many`
(:mod:`spe.many`). Scores larger than memory: :func:`spe.read_parquet`,
:func:`spe.count_dask` or :func:`spe.count_scores` reduce them to
:class:`~spe.counts.ScoreCounts` (:mod:`spe.counts`, :mod:`spe.sources`), which
:func:`spe.fit` takes in place of an array. The method: ``docs/method.md``.
"""

from . import datasets, priors
from .api import fit
from .calibration_maps import CalibrationFit
from .counts import ScoreCounts, count_scores
from .curves import DEFAULT_FPR_GRID, DEFAULT_RECALL_GRID, Estimate, PRCurve, ROCCurve
from .sweeps import exact_precision_at_recall, exact_tpr_at_fpr
from .families import FAMILIES, Family, register_family
from .fitting import FitError
from .label_posterior import LabelPosterior
from .misfit import Misfit
from .mixture import MixtureFit
from .many import ManyResult, fit_many
from .multiclass import MulticlassResult, fit_multiclass
from .posterior import SamplingWarning
from .thresholds import ThresholdDecision
from .results import SPEResult, Summary
from .sources import count_dask, read_parquet

__all__ = [
    "fit", "read_parquet", "count_dask", "count_scores", "ScoreCounts", "fit_multiclass", "MulticlassResult", "fit_many", "ManyResult", "SPEResult", "Summary", "Estimate", "PRCurve", "ROCCurve", "ThresholdDecision",
    "LabelPosterior", "MixtureFit", "CalibrationFit", "Misfit", "FitError", "SamplingWarning",
    "FAMILIES", "Family", "register_family", "priors", "datasets",
    "exact_precision_at_recall", "exact_tpr_at_fpr", "DEFAULT_RECALL_GRID", "DEFAULT_FPR_GRID",
]
__version__ = "0.2.0"
