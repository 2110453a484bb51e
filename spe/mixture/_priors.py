"""Weak prior distributions for model parameters.

Each prior is a tiny object with a vectorised ``logpdf``. They exist (instead of
frozen ``scipy.stats`` objects) only because the log posterior is evaluated
hundreds of times during a fit and scipy's per-call overhead would dominate; every
one is tested against its scipy twin. Any object with a vectorised ``logpdf`` method,
including a frozen scipy distribution, can be passed as a prior.

Examples
--------
>>> import numpy as np
>>> from spe.mixture import priors
>>> priors.Normal(0.0, 1.0).logpdf(np.array([0.0])).round(4)
array([-0.9189])
>>> priors.DEFAULT_PI_PRIOR  # the class balance: uniform
Beta(a=1.0, b=1.0)

A prior for one parameter of a :class:`spe.mixture.MixtureModel`:

>>> from spe.mixture import MixtureModel, get_component
>>> model = MixtureModel(get_component("truncnorm"), get_component("truncnorm"),
...                      prior={"pi": priors.Beta(1.0, 9.0)})  # positives are rare
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import special

_LOG_2PI = np.log(2.0 * np.pi)


@dataclass(frozen=True)
class Normal:
    """Normal(mu, sigma) prior on a real parameter."""

    mu: float
    sigma: float

    def logpdf(self, x):
        z = (np.asarray(x, dtype=float) - self.mu) / self.sigma
        return -0.5 * z * z - np.log(self.sigma) - 0.5 * _LOG_2PI


@dataclass(frozen=True)
class LogNormal:
    """Log-normal prior on a positive parameter: log(x) ~ Normal(mu, sigma)."""

    mu: float
    sigma: float

    def logpdf(self, x):
        x = np.asarray(x, dtype=float)
        with np.errstate(divide="ignore", invalid="ignore"):
            logx = np.log(x)
            z = (logx - self.mu) / self.sigma
            out = -0.5 * z * z - np.log(self.sigma) - 0.5 * _LOG_2PI - logx
        return np.where(x > 0, out, -np.inf)


@dataclass(frozen=True)
class Gamma:
    """Gamma(shape, scale) prior on a positive parameter."""

    shape: float
    scale: float

    def logpdf(self, x):
        x = np.asarray(x, dtype=float)
        with np.errstate(divide="ignore", invalid="ignore"):
            out = (
                special.xlogy(self.shape - 1.0, x)
                - x / self.scale
                - special.gammaln(self.shape)
                - self.shape * np.log(self.scale)
            )
        return np.where(x > 0, out, -np.inf)


@dataclass(frozen=True)
class Beta:
    """Beta(a, b) prior on a parameter in (0, 1), e.g. the prevalence pi."""

    a: float
    b: float

    def logpdf(self, x):
        x = np.asarray(x, dtype=float)
        with np.errstate(divide="ignore", invalid="ignore"):
            out = (
                special.xlogy(self.a - 1.0, x)
                + special.xlog1py(self.b - 1.0, -x)
                - special.betaln(self.a, self.b)
            )
        return np.where((x > 0) & (x < 1), out, -np.inf)


DEFAULT_PI_PRIOR = Beta(1.0, 1.0)


class JointPrior:
    """The sum of independent per-column priors of a (rows, parameters) array.

    Columns with a shipped Normal or LogNormal prior are evaluated together, in one
    vectorised expression per kind (the log posterior is evaluated thousands of times per
    fit, on a few rows, where per-call overhead is most of the cost); any other prior
    object is called column by column.
    """

    def __init__(self, priors):
        priors = list(priors)
        self._blocks = []
        for kind in (Normal, LogNormal):
            cols = [j for j, p in enumerate(priors) if type(p) is kind]
            if cols:
                mu = np.array([priors[j].mu for j in cols])
                sigma = np.array([priors[j].sigma for j in cols])
                const = -np.sum(np.log(sigma)) - 0.5 * _LOG_2PI * len(cols)
                self._blocks.append((kind is LogNormal, np.array(cols), mu, 1.0 / sigma, const))
        grouped = {int(j) for block in self._blocks for j in block[1]}
        self._others = [(j, p) for j, p in enumerate(priors) if j not in grouped]

    def logpdf(self, theta):
        """(rows,) log prior density of each row of ``theta``."""
        theta = np.atleast_2d(theta)
        total = np.zeros(theta.shape[0])
        for log_scale, cols, mu, inv_sigma, const in self._blocks:
            x = theta[:, cols]
            if log_scale:
                with np.errstate(divide="ignore", invalid="ignore"):  # x <= 0: set to -inf next
                    logx = np.log(x)
                    z = (logx - mu) * inv_sigma
                    block = -0.5 * np.sum(z * z, axis=1) - np.sum(logx, axis=1) + const
                block[~np.all(x > 0, axis=1)] = -np.inf
            else:
                z = (x - mu) * inv_sigma
                block = -0.5 * np.sum(z * z, axis=1) + const
            total += block
        for j, prior in self._others:
            total += prior.logpdf(theta[:, j])
        return total
