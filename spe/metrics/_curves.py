"""Value types of the outputs: estimates and curve bands from weighted draws, and the
checks of the arguments that shape them (docs/method.md, section 5). The per-draw
values come from ``_sweeps``.

Two kinds, one sweep each (built in ``_results`` from the label posterior):

* ``"sample"``: performance on *this* data set. Each draw's labels (known labels fixed,
  unknown ones drawn) trace a curve over the items' own scores. With every item labeled
  the curve is exact and the band has zero width.
* ``"population"``: the same sweep over *expected* positives per score group (no
  label-draw noise): the score model's performance over this score distribution.

Conventions (used identically for the truth in tests and benchmarks):

* precision at recall r is the precision at the highest threshold whose recall >= r;
* TPR at FPR f is the TPR at the lowest threshold whose FPR <= f;
* bands are equal-tailed weighted quantiles of the per-draw values.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass

import numpy as np

from .._util.digits import interval_decimals

#: Recall grid of :meth:`spe.SPEResult.pr_curve` when none is given: 0, 0.01, ..., 1.
DEFAULT_RECALL_GRID = np.linspace(0.0, 1.0, 101)
#: FPR grid of :meth:`spe.SPEResult.roc_curve` when none is given: 0, 0.01, ..., 1.
DEFAULT_FPR_GRID = np.linspace(0.0, 1.0, 101)


def check_level(level) -> float:
    try:
        level = float(level)
    except (TypeError, ValueError):
        raise TypeError(f"level must be a number in (0, 1), got {level!r}") from None
    if not 0.0 < level < 1.0:
        raise ValueError(f"level must be strictly between 0 and 1 (e.g. 0.9), got {level!r}")
    return level


def check_n_draws(n_draws) -> int:
    if not isinstance(n_draws, numbers.Integral) or isinstance(n_draws, bool) or n_draws < 10:
        raise ValueError(f"n_draws must be an integer >= 10, got {n_draws!r}")
    return int(n_draws)


def check_grid(grid, default, name) -> np.ndarray:
    if grid is None:
        return default.copy()
    try:
        g = np.atleast_1d(np.asarray(grid, dtype=float))
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be an array of numbers in [0, 1]") from None
    if g.ndim != 1 or g.size == 0:
        raise ValueError(f"{name} must be a non-empty 1-D array")
    if not np.all(np.isfinite(g)) or g.min() < 0 or g.max() > 1:
        raise ValueError(f"{name} values must lie in [0, 1]")
    return g


def weighted_quantile(values, weights, q):
    """Weighted quantile(s) ``q`` of ``values`` along axis 0 (the draws)."""
    values = np.asarray(values, dtype=float)
    order = np.argsort(values, axis=0)
    sorted_vals = np.take_along_axis(values, order, axis=0)
    cw = np.cumsum(np.asarray(weights, float)[order], axis=0)
    cw /= cw[-1]
    q = np.atleast_1d(q)
    idx = np.stack([(cw < qi - 1e-12).sum(axis=0) for qi in q])
    idx = np.minimum(idx, values.shape[0] - 1)
    out = np.take_along_axis(sorted_vals, idx, axis=0) if values.ndim > 1 else sorted_vals[idx]
    return out


def band(draws, weights, level):
    """Weighted median and equal-tailed (lower, upper) band along axis 0.

    The point estimate is the posterior median (pointwise, for curves): the Bayes estimate
    under absolute error, which is how curves (area between them) and rates are judged.
    Pooled over score models the posterior can be bimodal, and the median then stays
    with the model holding most of the weight where the mean would sit between them.
    """
    alpha = (1.0 - check_level(level)) / 2.0  # every interval passes here: the one level check
    lower, median, upper = weighted_quantile(draws, weights, [alpha, 0.5, 1.0 - alpha])
    return median, lower, upper


@dataclass
class Estimate:
    """A scalar posterior: its median (the point estimate) and equal-tailed credible interval.

    ``value`` is the posterior median; ``mean`` the posterior mean; ``draws`` and
    ``weights`` the weighted draws both come from. ``float(estimate)`` is ``value``.

    See Also
    --------
    spe.SPEResult.average_precision, spe.SPEResult.auroc : return one.

    Examples
    --------
    >>> import numpy as np
    >>> from spe.metrics import Estimate
    >>> ap = Estimate.from_draws("AP", np.array([0.7, 0.8, 0.9, 0.85, 0.75]), np.full(5, 0.2), level=0.9)
    >>> ap
    AP: 0.80 [90% 0.70, 0.90]
    >>> float(ap), round(ap.mean, 3)
    (0.8, 0.8)
    """

    name: str
    value: float
    lower: float
    upper: float
    level: float
    draws: np.ndarray
    weights: np.ndarray

    @classmethod
    def from_draws(cls, name, draws, weights, level):
        value, lower, upper = band(np.asarray(draws, float), weights, level)
        return cls(name, float(value), float(lower), float(upper), level, draws, weights)

    @property
    def mean(self) -> float:
        return float(np.dot(self.weights, self.draws))

    def __float__(self):
        return self.value

    def as_dict(self):
        return {"value": self.value, "mean": self.mean, "lower": self.lower, "upper": self.upper,
                "level": self.level}

    def __repr__(self):
        # digits beyond two of the interval's width are posterior spread and Monte Carlo noise
        d = interval_decimals(self.lower, self.upper)
        return f"{self.name}: {self.value:.{d}f} [{100 * self.level:g}% {self.lower:.{d}f}, {self.upper:.{d}f}]"


@dataclass
class CurveBand:
    """A curve y(x) on a grid: pointwise posterior median, band, and the per-draw curves.

    The base of :class:`PRCurve` and :class:`ROCCurve`; ``draws`` is (M, grid size),
    ``kind`` ``"sample"`` or ``"population"``.

    Examples
    --------
    >>> import numpy as np
    >>> from spe.metrics import CurveBand
    >>> curve = CurveBand.from_draws(np.array([0.0, 1.0]), np.array([[0.2, 0.4], [0.4, 0.8]]),
    ...                              np.array([0.5, 0.5]), 0.9, "sample")
    >>> curve.y, curve.upper
    (array([0.2, 0.4]), array([0.4, 0.8]))
    """

    x: np.ndarray
    y: np.ndarray
    lower: np.ndarray
    upper: np.ndarray
    draws: np.ndarray
    weights: np.ndarray
    level: float
    kind: str

    @classmethod
    def from_draws(cls, x, draws, weights, level, kind):
        y, lower, upper = band(draws, weights, level)
        return cls(x, y, lower, upper, draws, weights, level, kind)

    def area_between(self, other_y) -> float:
        """Integral over the grid of ``abs(y - other_y)`` (trapezoid rule)."""
        return float(np.trapezoid(np.abs(self.y - np.asarray(other_y, float)), self.x))


class PRCurve(CurveBand):
    """Precision on a recall grid: ``recall``, ``precision``, ``lower``, ``upper``, ``draws``.

    See Also
    --------
    spe.SPEResult.pr_curve : makes one from a fit.
    exact_precision_at_recall : the same convention for fully labeled items.

    Examples
    --------
    Three equally weighted draws of precision on a three-point recall grid:

    >>> import numpy as np
    >>> from spe.metrics import PRCurve
    >>> draws = np.array([[1.0, 0.8, 0.5], [1.0, 0.9, 0.6], [1.0, 0.7, 0.4]])
    >>> pr = PRCurve.from_draws(np.array([0.0, 0.5, 1.0]), draws, np.full(3, 1 / 3), 0.9, "sample")
    >>> pr.precision, pr.lower, pr.upper
    (array([1. , 0.8, 0.5]), array([1. , 0.7, 0.4]), array([1. , 0.9, 0.6]))
    >>> round(pr.area_between([1.0, 1.0, 1.0]), 3)  # against a perfect curve (trapezoid rule)
    0.225
    """

    @property
    def recall(self):
        return self.x

    @property
    def precision(self):
        return self.y


class ROCCurve(CurveBand):
    """TPR on an FPR grid: ``fpr``, ``tpr``, ``lower``, ``upper``, ``draws``.

    See Also
    --------
    spe.SPEResult.roc_curve : makes one from a fit.

    Examples
    --------
    >>> import numpy as np
    >>> from spe.metrics import ROCCurve
    >>> draws = np.array([[0.0, 0.7, 1.0], [0.0, 0.9, 1.0]])
    >>> roc = ROCCurve.from_draws(np.array([0.0, 0.5, 1.0]), draws, np.full(2, 0.5), 0.9, "sample")
    >>> roc.fpr, roc.tpr
    (array([0. , 0.5, 1. ]), array([0. , 0.7, 1. ]))
    """

    @property
    def fpr(self):
        return self.x

    @property
    def tpr(self):
        return self.y
