"""The base of every score family: parameters, bounds, priors, one density.

See ``_families`` for what a family is and how to add one.
"""

from __future__ import annotations

import numpy as np
from scipy import special

from .._priors import LogNormal, Normal

_LOG_2PI = np.log(2.0 * np.pi)
_EULER = 0.5772156649015329

# Unconstrained-space bounds: keep the optimiser and proposals in a numerically sane box.
_REAL_BOUNDS = (-10.0, 10.0)
_LOG_BOUNDS = (np.log(1e-4), np.log(1e4))

SCALE_PRIOR = LogNormal(np.log(0.15), 1.5)
SHAPE_PRIOR = LogNormal(np.log(2.0), 1.5)
LOCATION_PRIOR = Normal(0.5, 1.0)


def _weighted_moments(v, w):
    w = np.asarray(w, dtype=float)
    mean = np.sum(w * v) / np.sum(w)
    var = np.sum(w * (v - mean) ** 2) / np.sum(w)
    return mean, max(var, 1e-8)


def _weighted_median(v, w):
    order = np.argsort(v)
    cw = np.cumsum(np.asarray(w, dtype=float)[order])
    return v[order][np.searchsorted(cw, 0.5 * cw[-1])]


def standardised(v, loc, scale):
    """z = (v - loc) / scale as a fresh float array (never a view of ``v``), to be worked on
    in place.

    The densities' hot path on (draws, points) arrays: one allocation, and a multiplication
    by 1/scale (division is several times slower than the other elementwise operations).
    """
    z = np.asarray(np.subtract(v, loc, dtype=float))
    z *= 1.0 / scale
    return z


def half_square_standardised(v, loc, scale):
    """-z^2 / 2 for z = (v - loc) / scale, as a fresh array (:func:`standardised`)."""
    z = standardised(v, loc, scale)
    np.square(z, out=z)
    z *= -0.5
    return z


def log1mexp(x):
    """log(1 - exp(x)) for x <= 0, accurate at both ends (Maechler 2012)."""
    x = np.asarray(x, float)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(x > -np.log(2.0), np.log(-np.expm1(x)), np.log1p(-np.exp(x)))


def log_diff_ndtr(a, b):
    """log(Phi(b) - Phi(a)) for a < b, accurate in both tails."""
    a, b = np.broadcast_arrays(np.asarray(a, float), np.asarray(b, float))
    flip = a > 0  # upper tail: use Phi(-a) - Phi(-b) instead
    lo = np.where(flip, -b, a)
    hi = np.where(flip, -a, b)
    log_hi = special.log_ndtr(hi)
    log_lo = special.log_ndtr(lo)
    with np.errstate(divide="ignore"):
        return log_hi + np.log(-np.expm1(log_lo - log_hi))


def _truncated_ppf(q, a, b, cdf, inv_cdf):
    """Quantile q of a symmetric standard distribution truncated to [a, b].

    When the whole interval sits in the upper tail the cdf rounds to 1 there, so the
    mirrored interval [-b, -a] is used instead and the result mirrored back.
    """
    upper = a > 0
    lo = cdf(np.where(upper, -b, a))
    hi = cdf(np.where(upper, -a, b))
    x = inv_cdf(np.where(upper, hi - q * (hi - lo), lo + q * (hi - lo)))
    return np.where(upper, -x, x)


class Family:
    """Base class: subclasses declare parameters and one density.

    Parameters are passed to the vectorised methods as a tuple of arrays (one per
    parameter) that broadcast against the scores. A subclass declares ``name``,
    ``param_names``, ``transforms`` (``"real"`` or ``"log"`` per parameter),
    ``default_priors`` (objects with a vectorised ``logpdf``, e.g. :mod:`spe.mixture.priors`),
    ``scipy_dist(params)`` and ``initial(v, w)`` (a start from weighted values); a fast
    ``logpdf`` is optional. The variable ``v`` is the unit score (or its reflection).

    See Also
    --------
    register_family : makes a family nameable in ``families=``.

    Examples
    --------
    A triangular density on the unit score, peaked at ``mode``:

    >>> import numpy as np
    >>> from scipy import stats
    >>> from spe.mixture import Family, SCORE_FAMILIES, priors, register_family
    >>> class Triangle(Family):
    ...     name = "triangle"
    ...     param_names = ("mode",)
    ...     transforms = ("real",)
    ...     default_priors = (priors.Normal(0.5, 1.0),)
    ...     def scipy_dist(self, params):
    ...         return stats.triang(np.clip(params[0], 0, 1))
    ...     def initial(self, v, w):
    ...         return np.array([np.average(v, weights=w)])
    >>> register_family(Triangle)
    Triangle()
    >>> round(float(SCORE_FAMILIES["triangle"].median((0.5,))), 3)
    0.5
    >>> del SCORE_FAMILIES["triangle"]  # leave the registry as it was
    """

    name: str = ""
    param_names: tuple[str, ...] = ()
    transforms: tuple[str, ...] = ()
    default_priors: tuple = ()
    #: True when the family lives on (0, inf) of its own variable, so reflection matters.
    skewed: bool = False
    #: True when the family only has support on the unit interval.
    unit_support: bool = False

    @property
    def n_params(self) -> int:
        return len(self.param_names)

    @property
    def bounds(self) -> list[tuple[float, float]]:
        return [_LOG_BOUNDS if t == "log" else _REAL_BOUNDS for t in self.transforms]

    def scipy_dist(self, params):
        raise NotImplementedError

    def logpdf(self, v, params):
        return self.scipy_dist(params).logpdf(v)

    def logcdf(self, v, params):
        return self.scipy_dist(params).logcdf(v)

    def logsf(self, v, params):
        return self.scipy_dist(params).logsf(v)

    def ppf(self, q, params):
        return self.scipy_dist(params).ppf(q)

    def isf(self, q, params):
        return self.scipy_dist(params).isf(q)

    def _frame_log_tails(self, params):
        """(log F(1), log F(0), log S(0), log S(1)): the tails the unit frame cuts off.

        A family known only through ``scipy_dist`` is frozen once for the four, not once each
        (freezing a scipy distribution rebuilds it and costs more than the evaluations).
        """
        cls = type(self)
        if cls.logcdf is Family.logcdf and cls.logsf is Family.logsf:
            dist = self.scipy_dist(params)
            return dist.logcdf(1.0), dist.logcdf(0.0), dist.logsf(0.0), dist.logsf(1.0)
        return self.logcdf(1.0, params), self.logcdf(0.0, params), self.logsf(0.0, params), self.logsf(1.0, params)

    def median(self, params):
        """Median of the family's own variable (closed forms where they exist: it is hot)."""
        return self.ppf(0.5, params)

    def initial(self, v, w) -> np.ndarray:
        raise NotImplementedError

    def __repr__(self):
        return f"{type(self).__name__}()"
