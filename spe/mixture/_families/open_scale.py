"""Families on an open scale: the logit frame of probability scores (:mod:`spe.scores`).

There a score at the frame's edge is a censored interval, not a truncation point, so
these families are not truncated; cdf, sf and median are in closed form (they are hot).
"""

from __future__ import annotations

import functools

import numpy as np
from scipy import special, stats

from .._priors import Normal
from .base import (_LOG_2PI, LOCATION_PRIOR, SCALE_PRIOR, Family, _weighted_moments, half_square_standardised,
                   standardised)


def _log_ndtr_inplace(x):
    """log Phi(x), overwriting the float array ``x``: log of ndtr where that is exact
    enough (about twice as fast as ``special.log_ndtr``, which the skew-normal density
    calls on every item), the asymptotic routine in the far left tail."""
    far = x < -5.0
    far_values = special.log_ndtr(x[far]) if far.any() else None
    special.ndtr(x, out=x)
    with np.errstate(divide="ignore"):  # ndtr underflows to 0 below about -38: replaced next
        np.log(x, out=x)
    if far_values is not None:
        x[far] = far_values
    return x


def _newton_median(alpha, z, steps):
    """Newton steps towards the median of the standard skew-normal from ``z``."""
    for _ in range(steps):
        cdf = special.ndtr(z) - 2.0 * special.owens_t(z, alpha)
        pdf = 2.0 * np.exp(-0.5 * z * z) / np.sqrt(2.0 * np.pi) * special.ndtr(alpha * z)
        z = z - (cdf - 0.5) / np.maximum(pdf, 1e-12)
    return z


@functools.cache
def _median_table():
    """The standard skew-normal's median on a grid of delta = alpha / sqrt(1 + alpha^2)."""
    delta = np.linspace(-1.0, 1.0, 2001)
    alpha = delta / np.sqrt(np.maximum(1.0 - delta * delta, 1e-300))
    alpha[[0, -1]] = -1e8, 1e8
    return delta, _newton_median(alpha, delta * np.sqrt(2.0 / np.pi), 30)


class NormalFamily(Family):
    """Normal(mu, sigma), unbounded: for scores on an open scale such as the logit."""

    name = "normal"
    param_names = ("mu", "sigma")
    transforms = ("real", "log")
    default_priors = (LOCATION_PRIOR, SCALE_PRIOR)

    def scipy_dist(self, params):
        mu, sigma = params
        return stats.norm(loc=mu, scale=sigma)

    def logpdf(self, v, params):
        mu, sigma = params
        out = half_square_standardised(v, mu, sigma)
        out += -np.log(sigma) - 0.5 * _LOG_2PI
        return out

    def logcdf(self, v, params):
        mu, sigma = params
        return special.log_ndtr((v - mu) / sigma)

    def logsf(self, v, params):
        mu, sigma = params
        return special.log_ndtr((mu - v) / sigma)

    def median(self, params):
        mu, _ = params
        return mu + 0.0 * params[1]

    def initial(self, v, w):
        mean, var = _weighted_moments(v, w)
        return np.array([mean, np.sqrt(var)])


class SkewNormal(Family):
    """Skew-normal(loc, scale, alpha), unbounded; alpha > 0 skews right, < 0 left."""

    name = "skewnorm"
    param_names = ("loc", "scale", "alpha")
    transforms = ("real", "log", "real")
    default_priors = (LOCATION_PRIOR, SCALE_PRIOR, Normal(0.0, 3.0))

    def scipy_dist(self, params):
        loc, scale, alpha = params
        return stats.skewnorm(alpha, loc=loc, scale=scale)

    def logpdf(self, v, params):
        loc, scale, alpha = params
        z = standardised(v, loc, scale)
        out = _log_ndtr_inplace(np.asarray(alpha * z, dtype=float))
        np.square(z, out=z)
        z *= -0.5
        out += z
        out += np.log(2.0) - 0.5 * _LOG_2PI - np.log(scale)
        return out

    def median(self, params):
        """One Newton step on cdf(z) = 1/2 from a tabulated start (error < 1e-12; scipy's
        generic ppf is ~1000x slower, and this is evaluated on every orientation check)."""
        loc, scale, alpha = params
        alpha = np.asarray(alpha, float)
        z = _newton_median(alpha, np.interp(alpha / np.sqrt(1.0 + alpha * alpha), *_median_table()), 1)
        return loc + scale * z

    # cdf = Phi(z) - 2 T(z, alpha), Owen's T: scipy.stats' generic route is ~100x slower.
    def logcdf(self, v, params):
        loc, scale, alpha = params
        z = (v - loc) / scale
        with np.errstate(divide="ignore"):
            return np.log(np.clip(special.ndtr(z) - 2.0 * special.owens_t(z, alpha), 0.0, 1.0))

    def logsf(self, v, params):
        loc, scale, alpha = params
        z = (v - loc) / scale
        with np.errstate(divide="ignore"):
            return np.log(np.clip(special.ndtr(-z) + 2.0 * special.owens_t(z, alpha), 0.0, 1.0))

    def initial(self, v, w):
        mean, var = _weighted_moments(v, w)
        sd = np.sqrt(var)
        skew = np.sum(np.asarray(w) * (v - mean) ** 3) / np.sum(w) / sd**3
        alpha = float(np.clip(3.0 * skew, -5.0, 5.0))
        delta = alpha / np.sqrt(1.0 + alpha**2)
        scale = sd / np.sqrt(1.0 - 2.0 * delta**2 / np.pi)
        return np.array([mean - scale * delta * np.sqrt(2.0 / np.pi), scale, alpha])
