"""Parametric families for the class-conditional score densities.

A family is a small class that declares its parameter names, how each maps to an
unconstrained space (``"real"`` or ``"log"``), a weak default prior per parameter, a
data-driven initial point, and one density. Everything else (cdf, survival function,
quantiles) comes from the matching ``scipy.stats`` distribution via ``scipy_dist``.

Families act on the *unit score* ``z`` in [0, 1]: scores mapped linearly from the
score frame (see :mod:`spe.scores`), so the priors below are stated in units of the
score range. Positive-support families (Gamma, log-normal, Gompertz, Frechet) measure
the distance from the lower end of the frame; used *reflected* (see :class:`Component`)
they measure the distance from the upper end, so a skew can point either way.

``logpdf`` is written with NumPy/``scipy.special`` rather than through
``scipy.stats``: it sits in the inner loop of the fit (batched over parameter vectors)
where scipy's per-element overhead is 10-50x the arithmetic. Each one is checked against
its ``scipy.stats`` twin over parameter grids in ``tests/test_families.py``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import special, stats

from .priors import LogNormal, Normal

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
    parameter) that broadcast against the scores.
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

    def median(self, params):
        """Median of the family's own variable (closed forms where they exist: it is hot)."""
        return self.ppf(0.5, params)

    def initial(self, v, w) -> np.ndarray:
        raise NotImplementedError

    def __repr__(self):
        return f"{type(self).__name__}()"


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
        z = (v - mu) / sigma
        log_norm = log_diff_ndtr((0.0 - mu) / sigma, (1.0 - mu) / sigma)
        out = -0.5 * z * z - np.log(sigma) - 0.5 * _LOG_2PI - log_norm
        return np.where((v >= 0.0) & (v <= 1.0), out, -np.inf)

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
        z = (v - mu) / sigma
        return -0.5 * z * z - np.log(sigma) - 0.5 * _LOG_2PI

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
        z = (v - loc) / scale
        return np.log(2.0) - 0.5 * z * z - 0.5 * _LOG_2PI + special.log_ndtr(alpha * z) - np.log(scale)

    def median(self, params):
        """Newton's method on cdf(z) = 1/2 from the mean (scipy's generic ppf is ~1000x slower)."""
        loc, scale, alpha = params
        delta = alpha / np.sqrt(1.0 + alpha * alpha)
        z = delta * np.sqrt(2.0 / np.pi)
        for _ in range(8):
            cdf = special.ndtr(z) - 2.0 * special.owens_t(z, alpha)
            pdf = 2.0 * np.exp(-0.5 * z * z) / np.sqrt(2.0 * np.pi) * special.ndtr(alpha * z)
            z = z - (cdf - 0.5) / np.maximum(pdf, 1e-12)
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


FAMILIES: dict[str, Family] = {
    f.name: f
    for f in (
        TruncNormal(),
        NormalFamily(),
        TruncStudentT(),
        SkewNormal(),
        GammaFamily(),
        LogNormalFamily(),
        GumbelRight(),
        GumbelLeft(),
        Gompertz(),
        Frechet(),
        BetaFamily(),
    )
}

REFLECTED_SUFFIX = "-reflected"


@dataclass(frozen=True)
class Component:
    """A family applied to the unit score z, or to 1 - z when ``reflected``.

    All methods take the unit score ``z`` and return quantities about the component's
    distribution of z, so callers never see the reflection.
    """

    family: Family
    reflected: bool = False

    @property
    def spec(self) -> str:
        return self.family.name + (REFLECTED_SUFFIX if self.reflected else "")

    @property
    def param_names(self):
        return self.family.param_names

    @property
    def n_params(self):
        return self.family.n_params

    def _v(self, z):
        return 1.0 - z if self.reflected else z

    def logpdf(self, z, params):
        return self.family.logpdf(self._v(z), params)

    def logsf(self, z, params):
        """log P(Z > z)."""
        if self.reflected:
            return self.family.logcdf(1.0 - z, params)
        return self.family.logsf(z, params)

    def logcdf(self, z, params):
        """log P(Z <= z)."""
        if self.reflected:
            return self.family.logsf(1.0 - z, params)
        return self.family.logcdf(z, params)

    def isf(self, q, params):
        """The z with P(Z > z) = q."""
        if self.reflected:
            return 1.0 - self.family.ppf(q, params)
        return self.family.isf(q, params)

    def median(self, params):
        m = self.family.median(params)
        return 1.0 - m if self.reflected else m

    def initial(self, z, w):
        return self.family.initial(self._v(np.asarray(z, float)), w)

    def __str__(self):
        return self.spec


def get_component(spec) -> Component:
    """Resolve a family spec such as ``"gamma"`` or ``"gamma-reflected"``."""
    if isinstance(spec, Component):
        return spec
    if isinstance(spec, Family):
        return Component(spec)
    if not isinstance(spec, str):
        raise TypeError(f"a family must be given by name (str), got {type(spec).__name__}")
    name = spec.strip().lower()
    reflected = name.endswith(REFLECTED_SUFFIX)
    if reflected:
        name = name[: -len(REFLECTED_SUFFIX)]
    if name not in FAMILIES:
        known = ", ".join(sorted(FAMILIES))
        raise ValueError(
            f"unknown family {spec!r}; known families: {known} "
            f"(append {REFLECTED_SUFFIX!r} to apply one to the reflected score)"
        )
    return Component(FAMILIES[name], reflected)


def mirrored(spec) -> Component:
    """The orientation a family naturally takes for the *positive* class.

    Positive scores pile up near the top of the range, so positive-support families
    are reflected (measured down from the upper end); the others are unchanged.
    """
    comp = get_component(spec)
    if comp.family.skewed:
        return Component(comp.family, not comp.reflected)
    return comp
