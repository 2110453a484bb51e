"""spe: semisupervised performance evaluation of classifiers from few labels.

    >>> import spe
    >>> res = spe.fit(scores, labels)          # labels: 0/1, NaN for unlabeled
    >>> res.summary()
    >>> curve = res.pr_curve(level=0.9)        # precision on a recall grid with a band

Data flow: scores (:mod:`spe.scores`) -> mixture model (:mod:`spe.families`,
:mod:`spe.model`, :mod:`spe.fitting`) -> posterior draws (:mod:`spe.posterior`,
:mod:`spe.labels`) -> curves and thresholds (:mod:`spe.curves`,
:mod:`spe.recalibration`) -> :class:`spe.results.SPEResult`.
"""

from . import priors
from .api import fit
from .families import FAMILIES
from .fitting import FitError
from .posterior import SamplingWarning
from .results import SPEResult

__all__ = ["fit", "SPEResult", "FitError", "SamplingWarning", "FAMILIES", "priors"]
__version__ = "0.1.0"
