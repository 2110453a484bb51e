"""The shipped families of the unit frame, each a small :class:`~spe.mixture.Family`.

``logpdf`` uses NumPy/``scipy.special``, not ``scipy.stats``: it is the fit's hot loop,
where scipy's per-element overhead is 10-50x the arithmetic. Each is checked against its
``scipy.stats`` twin over parameter grids in ``tests/test_families.py``.
"""

from __future__ import annotations

import numpy as np
from scipy import special, stats

from .._priors import LogNormal, Normal
from .base import (_EULER, _LOG_2PI, LOCATION_PRIOR, SCALE_PRIOR, SHAPE_PRIOR, Family, _truncated_ppf,
                   _weighted_median, _weighted_moments, half_square_standardised, log1mexp, log_diff_ndtr)


class TruncNormal(Family):
    """Normal(mu, sigma) truncated to the unit interval."""

    name = "truncnorm"
    param_names = ("mu", "sigma")
    transforms = ("real", "log")
    default_priors = (LOCATION_PRIOR, SCALE_PRIOR)
    unit_support = True

    def scipy_dist(self, params):
        mu, sigma = params
        return stats.truncnorm((0.0 - mu) / sigma, (1.0 - mu) / sigma, loc=mu, scale=sigma)

    def logpdf(self, v, params):
        mu, sigma = params
        out = half_square_standardised(v, mu, sigma)
        out += -np.log(sigma) - 0.5 * _LOG_2PI - log_diff_ndtr((0.0 - mu) / sigma, (1.0 - mu) / sigma)
        outside = (v < 0.0) | (v > 1.0)
        return np.where(outside, -np.inf, out) if np.any(outside) else out

    def median(self, params):
        mu, sigma = params
        return mu + sigma * _truncated_ppf(0.5, (0.0 - mu) / sigma, (1.0 - mu) / sigma,
                                           special.ndtr, special.ndtri)

    def initial(self, v, w):
        mean, var = _weighted_moments(v, w)
        return np.array([mean, np.sqrt(var)])


class TruncStudentT(Family):
    """Student t(df, mu, sigma) truncated to the unit interval."""

    name = "trunct"
    param_names = ("mu", "sigma", "df")
    transforms = ("real", "log", "log")
    default_priors = (LOCATION_PRIOR, SCALE_PRIOR, LogNormal(np.log(5.0), 1.0))
    unit_support = True

    def _log_norm(self, params):
        mu, sigma, df = params
        a, b = (0.0 - mu) / sigma, (1.0 - mu) / sigma
        upper = a > 0  # both ends in the upper tail: subtract survival functions
        mass = np.where(
            upper,
            stats.t.sf(a, df) - stats.t.sf(b, df),
            stats.t.cdf(b, df) - stats.t.cdf(a, df),
        )
        with np.errstate(divide="ignore"):
            return np.log(mass)

    def logpdf(self, v, params):
        mu, sigma, df = params
        z = (v - mu) / sigma
        out = (
            special.gammaln(0.5 * (df + 1.0))
            - special.gammaln(0.5 * df)
            - 0.5 * np.log(df * np.pi)
            - np.log(sigma)
            - 0.5 * (df + 1.0) * np.log1p(z * z / df)
            - self._log_norm(params)
        )
        return np.where((v >= 0.0) & (v <= 1.0), out, -np.inf)

    def _mass_below_and_total(self, v, params):
        """P(a < T <= t(v)) and P(a < T <= b), from whichever tail keeps precision."""
        mu, sigma, df = params
        a, b = (0.0 - mu) / sigma, (1.0 - mu) / sigma
        zv = (np.clip(v, 0, 1) - mu) / sigma
        upper = a > 0  # whole interval in the upper tail: survival functions keep precision
        sa, sb, sz = stats.t.sf(a, df), stats.t.sf(b, df), stats.t.sf(zv, df)
        ca, cb, cz = stats.t.cdf(a, df), stats.t.cdf(b, df), stats.t.cdf(zv, df)
        below = np.where(upper, sa - sz, cz - ca)
        total = np.where(upper, sa - sb, cb - ca)
        return below, total

    def logcdf(self, v, params):
        below, total = self._mass_below_and_total(v, params)
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.log(np.clip(below / total, 0.0, 1.0))

    def logsf(self, v, params):
        below, total = self._mass_below_and_total(v, params)
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.log(np.clip((total - below) / total, 0.0, 1.0))

    def ppf(self, q, params):
        mu, sigma, df = params
        return mu + sigma * _truncated_ppf(
            q, (0.0 - mu) / sigma, (1.0 - mu) / sigma,
            lambda x: special.stdtr(df, x), lambda p: special.stdtrit(df, p),
        )

    def isf(self, q, params):
        return self.ppf(1.0 - np.asarray(q, float), params)

    def initial(self, v, w):
        mean, var = _weighted_moments(v, w)
        return np.array([mean, 0.8 * np.sqrt(var), 5.0])


class GammaFamily(Family):
    """Gamma(k, theta) on the distance from the lower end of the frame."""

    name = "gamma"
    param_names = ("k", "theta")
    transforms = ("log", "log")
    default_priors = (SHAPE_PRIOR, SCALE_PRIOR)
    skewed = True

    def scipy_dist(self, params):
        k, theta = params
        return stats.gamma(k, scale=theta)

    def logpdf(self, v, params):
        k, theta = params
        with np.errstate(divide="ignore", invalid="ignore"):
            out = (
                special.xlogy(k - 1.0, v) - v / theta - special.gammaln(k) - k * np.log(theta)
            )
        return np.where(v > 0, out, -np.inf)

    def logcdf(self, v, params):
        k, theta = params
        with np.errstate(divide="ignore"):
            return np.log(special.gammainc(k, np.maximum(v, 0.0) / theta))

    def logsf(self, v, params):
        k, theta = params
        with np.errstate(divide="ignore"):
            return np.log(special.gammaincc(k, np.maximum(v, 0.0) / theta))

    def median(self, params):
        k, theta = params
        return theta * special.gammaincinv(k, 0.5)

    def initial(self, v, w):
        mean, var = _weighted_moments(v, w)
        mean = max(mean, 1e-3)
        return np.array([mean * mean / var, var / mean])


class LogNormalFamily(Family):
    """Log-normal: log(distance from the lower end) ~ Normal(mu, sigma)."""

    name = "lognormal"
    param_names = ("mu", "sigma")
    transforms = ("real", "log")
    default_priors = (Normal(np.log(0.3), 2.0), LogNormal(np.log(0.5), 1.5))
    skewed = True

    def scipy_dist(self, params):
        mu, sigma = params
        return stats.lognorm(sigma, scale=np.exp(mu))

    def logpdf(self, v, params):
        mu, sigma = params
        with np.errstate(divide="ignore", invalid="ignore"):
            logv = np.log(v)
            z = (logv - mu) / sigma
            out = -0.5 * z * z - np.log(sigma) - 0.5 * _LOG_2PI - logv
        return np.where(v > 0, out, -np.inf)

    def logcdf(self, v, params):
        mu, sigma = params
        with np.errstate(divide="ignore", invalid="ignore"):
            out = special.log_ndtr((np.log(v) - mu) / sigma)
        return np.where(v > 0, out, -np.inf)

    def logsf(self, v, params):
        mu, sigma = params
        with np.errstate(divide="ignore", invalid="ignore"):
            out = special.log_ndtr(-(np.log(v) - mu) / sigma)
        return np.where(v > 0, out, 0.0)

    def median(self, params):
        mu, _ = params
        return np.exp(mu)

    def initial(self, v, w):
        logv = np.log(np.maximum(v, 1e-6))
        mean, var = _weighted_moments(logv, w)
        return np.array([mean, np.sqrt(var)])


class GumbelRight(Family):
    """Right-skewed Gumbel (long upper tail), unbounded."""

    name = "gumbel_r"
    param_names = ("loc", "scale")
    transforms = ("real", "log")
    default_priors = (LOCATION_PRIOR, SCALE_PRIOR)

    def scipy_dist(self, params):
        loc, scale = params
        return stats.gumbel_r(loc=loc, scale=scale)

    def logpdf(self, v, params):
        loc, scale = params
        z = (v - loc) / scale
        return -z - np.exp(-z) - np.log(scale)

    def logcdf(self, v, params):
        loc, scale = params
        with np.errstate(over="ignore"):
            return -np.exp(-(v - loc) / scale)

    def logsf(self, v, params):
        loc, scale = params
        with np.errstate(over="ignore", divide="ignore"):
            return log1mexp(-np.exp(-(v - loc) / scale))

    def median(self, params):
        loc, scale = params
        return loc - scale * np.log(np.log(2.0))

    def initial(self, v, w):
        mean, var = _weighted_moments(v, w)
        scale = np.sqrt(6.0 * var) / np.pi
        return np.array([mean - _EULER * scale, scale])


class GumbelLeft(Family):
    """Left-skewed Gumbel (long lower tail), unbounded."""

    name = "gumbel_l"
    param_names = ("loc", "scale")
    transforms = ("real", "log")
    default_priors = (LOCATION_PRIOR, SCALE_PRIOR)

    def scipy_dist(self, params):
        loc, scale = params
        return stats.gumbel_l(loc=loc, scale=scale)

    def logpdf(self, v, params):
        loc, scale = params
        z = (v - loc) / scale
        return z - np.exp(z) - np.log(scale)

    def logcdf(self, v, params):
        loc, scale = params
        with np.errstate(over="ignore", divide="ignore"):
            return log1mexp(-np.exp((v - loc) / scale))

    def logsf(self, v, params):
        loc, scale = params
        with np.errstate(over="ignore"):
            return -np.exp((v - loc) / scale)

    def median(self, params):
        loc, scale = params
        return loc + scale * np.log(np.log(2.0))

    def initial(self, v, w):
        mean, var = _weighted_moments(v, w)
        scale = np.sqrt(6.0 * var) / np.pi
        return np.array([mean + _EULER * scale, scale])


class Gompertz(Family):
    """Gompertz(c, scale) on the distance from the lower end of the frame."""

    name = "gompertz"
    param_names = ("c", "scale")
    transforms = ("log", "log")
    default_priors = (SHAPE_PRIOR, LogNormal(np.log(0.3), 1.5))
    skewed = True

    def scipy_dist(self, params):
        c, scale = params
        return stats.gompertz(c, scale=scale)

    def logpdf(self, v, params):
        c, scale = params
        with np.errstate(over="ignore", invalid="ignore"):
            y = v / scale
            out = np.log(c) + y - c * np.expm1(y) - np.log(scale)
        return np.where(v >= 0, out, -np.inf)

    def logcdf(self, v, params):
        c, scale = params
        with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
            out = log1mexp(-c * np.expm1(np.maximum(v, 0.0) / scale))
        return np.where(v > 0, out, -np.inf)

    def logsf(self, v, params):
        c, scale = params
        with np.errstate(over="ignore"):
            return -c * np.expm1(np.maximum(v, 0.0) / scale)

    def median(self, params):
        c, scale = params
        return scale * np.log1p(np.log(2.0) / c)

    def initial(self, v, w):
        # With c = 1 the mean is scale * e * E1(1) ~= 0.596 * scale.
        mean, _ = _weighted_moments(v, w)
        return np.array([1.0, max(mean, 1e-3) / 0.596])


class Frechet(Family):
    """Frechet (inverse Weibull) (c, scale) on the distance from the lower end."""

    name = "frechet"
    param_names = ("c", "scale")
    transforms = ("log", "log")
    default_priors = (LogNormal(np.log(3.0), 1.5), LogNormal(np.log(0.3), 1.5))
    skewed = True

    def scipy_dist(self, params):
        c, scale = params
        return stats.invweibull(c, scale=scale)

    def logpdf(self, v, params):
        c, scale = params
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            logy = np.log(v) - np.log(scale)
            out = np.log(c) - (1.0 + c) * logy - np.exp(-c * logy) - np.log(scale)
        return np.where(v > 0, out, -np.inf)

    def logcdf(self, v, params):
        c, scale = params
        with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
            out = -np.power(np.maximum(v, 0.0) / scale, -c)
        return np.where(v > 0, out, -np.inf)

    def logsf(self, v, params):
        c, scale = params
        with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
            out = log1mexp(-np.power(np.maximum(v, 0.0) / scale, -c))
        return np.where(v > 0, out, 0.0)

    def median(self, params):
        c, scale = params
        return scale * np.log(2.0) ** (-1.0 / c)

    def initial(self, v, w):
        # With c = 3 the median is scale * ln(2)**(-1/3) ~= 1.13 * scale.
        return np.array([3.0, max(_weighted_median(v, w), 1e-3) / 1.13])


class BetaFamily(Family):
    """Beta(a, b) on the unit interval."""

    name = "beta"
    param_names = ("a", "b")
    transforms = ("log", "log")
    default_priors = (SHAPE_PRIOR, SHAPE_PRIOR)
    unit_support = True

    def scipy_dist(self, params):
        a, b = params
        return stats.beta(a, b)

    def logpdf(self, v, params):
        a, b = params
        with np.errstate(divide="ignore", invalid="ignore"):
            out = special.xlogy(a - 1.0, v) + special.xlog1py(b - 1.0, -v) - special.betaln(a, b)
        return np.where((v > 0) & (v < 1), out, -np.inf)

    def median(self, params):
        a, b = params
        return special.betaincinv(a, b, 0.5)

    def initial(self, v, w):
        mean, var = _weighted_moments(v, w)
        mean = np.clip(mean, 0.01, 0.99)
        common = max(mean * (1 - mean) / var - 1.0, 0.5)
        return np.array([mean * common, (1 - mean) * common])
