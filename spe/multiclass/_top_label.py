"""Top-label calibration: a flexible map for the classifier's confidence, temperature for the rest.

A multiclass label factorises exactly into "is it the predicted class?" and "which other
class, if not?":

    P(y_i = k | f_i) = q(s_i)                                  if k = top_i
                     = (1 - q(s_i)) P(y_i = k | y_i != top_i, f_i)   otherwise

with s_i the top-1 probability. q is the Bayesian piecewise Platt map of
``_maps`` on logit(s) (a slope per quartile segment, prior centred on
"calibrated"), fitted to the labeled items' "was the top-1 class right?"; the other
classes follow temperature scaling (``_class_maps``) among the non-top classes,
fitted to the labeled items the classifier got wrong. The two factors have separate
parameters and separate labels, so their posteriors are independent and each is drawn
as in its own module.

Why: top-1 accuracy and per-class precision are governed by q, and a single temperature
bends the whole confidence curve at once. Real classifiers are over-confident in one
range of confidence and under-confident in another, and with a hundred labels a
temperature's interval then narrows around the wrong value (docs/method.md 8). The
piecewise map follows the labels there, and the classes it does not explain keep the
classifier's own ranking.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._util.seeds import child_generators
from ..calibration import CalibrationFit, fit_calibration_map
from ..pooling import systematic_resample
from ._class_maps import MulticlassFit, classes_from_draws, fit_class_map, log_likelihood_rows

NAME = "top-label"
#: Masked logit of the predicted class in the "other classes" factor: far below any
#: temperature-scaled log-probability, so its softmax share underflows to 0.
_MASK = -1e4


@dataclass
class TopLabelFit:
    """Posterior draws of the two factors: ``correct`` (q) and ``rest`` (temperature)."""

    correct: CalibrationFit
    rest: MulticlassFit

    @property
    def n_labeled(self) -> int:
        return self.correct.n_labeled

    @property
    def ess(self) -> float:
        return min(self.correct.ess, self.rest.ess)

    def paired_draws(self, n: int, rng) -> tuple[np.ndarray, np.ndarray]:
        """n equally weighted draws of each factor, paired at random (independent posteriors)."""
        return (systematic_resample(self.correct.weights, n, rng),
                rng.permutation(systematic_resample(self.rest.weights, n, rng)))

    def log_likelihood(self, f, y, n: int, rng) -> np.ndarray:
        """(n, L) log P(y_i | f_i) of labeled items under n equally weighted draws."""
        top = np.argmax(f, axis=1)
        rows_c, rows_r = self.paired_draws(n, rng)
        q = self.correct.prob_positive(top_probability(f), draws=rows_c)
        hit = y == top
        out = np.where(hit, np.log(np.clip(q, 1e-300, None)), np.log(np.clip(1.0 - q, 1e-300, None)))
        if (~hit).any():
            out[:, ~hit] += log_likelihood_rows(self.rest, rows_r, masked(f[~hit], top[~hit]), y[~hit])
        return out

    def draw_classes(self, f, n: int, rng) -> np.ndarray:
        """(n, N) one class per item per draw (labeled items not yet fixed)."""
        top = np.argmax(f, axis=1)
        rows_c, rows_r = self.paired_draws(n, rng)
        q = self.correct.prob_positive(top_probability(f), draws=rows_c)
        other = classes_from_draws(self.rest, masked(f, top), rows_r, rng, excluded=top)
        return np.where(rng.random(q.shape) < q, top.astype(other.dtype), other)

    def describe(self) -> dict:
        d = self.correct.describe()
        return {
            "model": "top-label: Bayesian piecewise Platt map of the top-1 probability, "
                     "temperature scaling among the other classes",
            "top_1_map": d["posterior_mean"],
            "other_classes_posterior_mean_inverse_temperature":
                float(self.rest.weights @ self.rest.inverse_temperature),
            "inference": d["inference"],
            "pareto_khat": d["pareto_khat"],
            "ess": self.ess,
        }


def top_probability(f) -> np.ndarray:
    """The classifier's top-1 probability per item, from log-probabilities ``f``."""
    return np.exp(np.max(f, axis=1))


def masked(f, top) -> np.ndarray:
    """``f`` with each item's top class masked out (the "other classes" factor)."""
    out = np.array(f, dtype=float, copy=True)
    out[np.arange(out.shape[0]), top] = _MASK
    return out


def fit_top_label(f, labels, n_draws: int, rng) -> TopLabelFit:
    """Both factors' posterior draws from log-probabilities ``f`` and labels (-1 = unlabeled)."""
    top = np.argmax(f, axis=1)
    known = labels >= 0
    correct = np.where(known, (labels == top).astype(float), np.nan)
    map_rng, rest_rng = child_generators(rng, 2)
    q = fit_calibration_map("spline", top_probability(f), correct, probabilities=True, n_draws=n_draws,
                            rng=map_rng)
    wrong = np.where(known & (labels != top), labels, -1)
    rest = fit_class_map(masked(f, top), wrong, "temperature", n_draws, rest_rng)
    return TopLabelFit(q, rest)
