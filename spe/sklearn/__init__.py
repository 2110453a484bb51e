"""scikit-learn estimators and displays built on :func:`spe.fit`.

Counterparts of scikit-learn's tools for the case where most rows are unlabeled: the
target ``y`` holds the class of each labeled row and NaN, None or -1 (scikit-learn's
semisupervised convention, when -1 is not a class) for the others.

* :class:`SemisupervisedThresholdClassifier`: a decision threshold with the posterior
  probability that it meets the constraints (``TunedThresholdClassifierCV``);
* :class:`SemisupervisedCalibratedClassifier`: recalibrated probabilities
  (``CalibratedClassifierCV`` on a fitted classifier);
* :class:`PrecisionRecallBandDisplay`, :class:`ROCBandDisplay`: curves with credible
  bands (``PrecisionRecallDisplay``, ``RocCurveDisplay``).

Requires scikit-learn (``pip install scikit-learn``); ``import spe`` does not import it.
"""

from ._calibrated import SemisupervisedCalibratedClassifier
from ._displays import PrecisionRecallBandDisplay, ROCBandDisplay
from ._threshold import SemisupervisedThresholdClassifier

__all__ = [
           "PrecisionRecallBandDisplay",
           "ROCBandDisplay",
           "SemisupervisedCalibratedClassifier",
           "SemisupervisedThresholdClassifier",
]
