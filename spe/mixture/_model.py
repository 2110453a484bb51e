"""The two-component score mixture and its log posterior (docs/method.md, section 2a).

    p(s | theta) = (1 - pi) f0(s | phi0) + pi f1(s | phi1)

Parameters live in two spaces. *Natural* values (pi, then each component's parameters)
are what users see. The *unconstrained* vector (logit pi, log of positive parameters,
reals unchanged) is where the optimiser and the proposals work; the log posterior there
includes the Jacobian of the transform.

Every method is vectorised over a batch of parameter vectors (rows), so one call gives
a finite-difference gradient, a Hessian, or the weights of a thousand proposals.

Identifiability: the prior includes the orientation constraint "the positive
component's median is above the negative component's", which removes the label-switched
twin of every mode (see :meth:`MixtureModel.oriented`; the medians are the families'
own, before any truncation to the frame: any fixed rule removes the twin).

On a bounded frame (scores on their own scale, every one inside [lower, upper]) each
component is its family truncated to the unit frame: a Gamma's tail beyond the frame's
end is mass no score can show, and a density that leaks it is misspecified for every
data set (with overlapping classes the likelihood then trades the class balance against
the leak). On the logit frame of probabilities the edges are censoring points, not
bounds, and the families stay whole (``open_scale``).
"""

from __future__ import annotations

import numpy as np
from scipy import special

from ..scores import ScoreData
from ._families import Component
from ._priors import DEFAULT_PI_PRIOR, JointPrior

COMPONENT_PREFIXES = ("neg", "pos")
# Cap on (batch rows x groups) per block, to keep temporaries at a few tens of MB.
_BLOCK_ELEMENTS = 2_000_000


def _logaddexp_into_first(a, b):
    """log(exp(a) + exp(b)), written into ``a``: max + log1p(exp(-|a - b|)), about 3x
    faster than ``np.logaddexp`` (whose loop is not vectorised). Where both are -inf the
    result is NaN, which the likelihood maps to -inf."""
    top = np.maximum(a, b)
    np.subtract(a, b, out=a)
    np.abs(a, out=a)
    np.negative(a, out=a)
    np.exp(a, out=a)
    np.log1p(a, out=a)
    a += top
    return a


class MixtureModel:
    """A negative and a positive :class:`~spe.mixture.Component` plus priors.

    Parameters
    ----------
    neg, pos : Component
        The class-conditional score densities of negatives (y=0) and positives (y=1).
    prior : dict, optional
        Overrides of the default priors, keyed by parameter name (``"pi"``,
        ``"neg.mu"``, ``"pos.theta"``, ...); each value needs a vectorised ``logpdf``.
    unlabeled_power : float
        zeta of the coarsened posterior (1: the plain posterior).
    bounded : bool
        Truncate each component to the unit frame (scores on a bounded frame).

    See Also
    --------
    get_component, fit_map

    Examples
    --------
    >>> import numpy as np
    >>> from spe.mixture import MixtureModel, get_component
    >>> model = MixtureModel(get_component("gamma"), get_component("truncnorm"), bounded=True)
    >>> model, model.n_params
    (MixtureModel(neg='gamma', pos='truncnorm'), 5)
    >>> theta = np.array([[0.3, 2.0, 0.1, 0.7, 0.1]])  # pi, neg.k, neg.theta, pos.mu, pos.sigma
    >>> model.prob_positive(theta, np.array([0.2, 0.8])).round(2)  # at unit scores 0.2 and 0.8
    array([[0.  , 0.97]])
    """

    def __init__(self, neg: Component, pos: Component, prior=None, unlabeled_power=1.0, bounded=False):
        self.neg = neg
        self.pos = pos
        #: Each component truncated to the unit frame (scores bounded by it; see the module docstring).
        self.bounded = bool(bounded)
        #: zeta of the coarsened posterior (see ``_misfit``): the unlabeled
        #: likelihood is raised to this power; 1 is the plain posterior.
        self.unlabeled_power = float(unlabeled_power)
        self.names = ["pi"] + [
            f"{prefix}.{p}"
            for prefix, comp in zip(COMPONENT_PREFIXES, (neg, pos))
            for p in comp.param_names
        ]
        self.transforms = ["logit"] + list(neg.family.transforms) + list(pos.family.transforms)
        self.priors = self._resolve_priors(prior)
        self._joint_prior = JointPrior(self.priors[name] for name in self.names)
        self._n0 = neg.n_params

    def _resolve_priors(self, prior):
        priors = dict(
            zip(
                self.names,
                [DEFAULT_PI_PRIOR, *self.neg.family.default_priors, *self.pos.family.default_priors],
            )
        )
        if prior is None:
            return priors
        if not isinstance(prior, dict):
            raise TypeError("prior must be a dict mapping parameter names to distributions")
        for name, dist in prior.items():
            if name not in priors:
                raise ValueError(
                    f"prior given for unknown parameter {name!r}; parameters are {self.names}"
                )
            if not callable(getattr(dist, "logpdf", None)):
                raise TypeError(f"prior for {name!r} must have a logpdf method")
            priors[name] = dist
        return priors

    # ---- description -------------------------------------------------------------
    @property
    def n_params(self) -> int:
        return len(self.names)

    @property
    def spec(self) -> tuple[str, str]:
        return (self.neg.spec, self.pos.spec)

    @property
    def bounds(self) -> list[tuple[float, float]]:
        return [(-12.0, 12.0)] + self.neg.family.bounds + self.pos.family.bounds

    def __repr__(self):
        return f"MixtureModel(neg={self.neg.spec!r}, pos={self.pos.spec!r})"

    # ---- parameter spaces --------------------------------------------------------
    def to_natural(self, u):
        u = np.atleast_2d(np.asarray(u, dtype=float))
        out = np.empty_like(u)
        for j, t in enumerate(self.transforms):
            if t == "logit":
                out[:, j] = special.expit(u[:, j])
            elif t == "log":
                out[:, j] = np.exp(u[:, j])
            else:
                out[:, j] = u[:, j]
        return out

    def to_unconstrained(self, theta):
        theta = np.atleast_2d(np.asarray(theta, dtype=float))
        out = np.empty_like(theta)
        with np.errstate(divide="ignore"):
            for j, t in enumerate(self.transforms):
                if t == "logit":
                    out[:, j] = special.logit(theta[:, j])
                elif t == "log":
                    out[:, j] = np.log(theta[:, j])
                else:
                    out[:, j] = theta[:, j]
        return out

    def log_jacobian(self, u):
        """``log |d theta / d u|`` summed over parameters, per row."""
        u = np.atleast_2d(u)
        total = np.zeros(u.shape[0])
        for j, t in enumerate(self.transforms):
            if t == "logit":
                total -= np.logaddexp(0.0, u[:, j]) + np.logaddexp(0.0, -u[:, j])
            elif t == "log":
                total += u[:, j]
        return total

    def split(self, theta):
        """(pi, neg params, pos params), each as (B, 1) columns for broadcasting."""
        theta = np.atleast_2d(theta)
        cols = [theta[:, j : j + 1] for j in range(theta.shape[1])]
        return cols[0], tuple(cols[1 : 1 + self._n0]), tuple(cols[1 + self._n0 :])

    def as_dict(self, theta_row):
        return {n: float(v) for n, v in zip(self.names, np.ravel(theta_row))}

    # ---- densities ----------------------------------------------------------------
    def log_prior(self, theta, *, oriented=True):
        theta = np.atleast_2d(theta)
        total = self._joint_prior.logpdf(theta)
        if oriented:
            total = np.where(self.oriented(theta), total, -np.inf)
        return total

    def median_gap(self, theta):
        """Positive component's median minus the negative one's, per row (unit score)."""
        _, p0, p1 = self.split(theta)
        with np.errstate(all="ignore"):
            return np.ravel(self.pos.median(p1) - self.neg.median(p0))

    def oriented(self, theta):
        """True where the positive component's median exceeds the negative one's."""
        return self.median_gap(theta) > 0

    def component_logpdfs(self, theta, z, censored=None):
        """log f0(z), log f1(z) as (B, len(z)) arrays.

        Where ``censored`` is -1 (+1) the score says only "at or below (above) z", and the
        log cdf (log survival function) replaces the log density.
        """
        _, p0, p1 = self.split(theta)
        z = np.asarray(z, float)
        with np.errstate(all="ignore"):
            lf0, lf1 = self.neg.logpdf(z, p0), self.pos.logpdf(z, p1)
            for lf, comp, params in ((lf0, self.neg, p0), (lf1, self.pos, p1)):
                if self._truncated(comp):
                    mass = comp.log_frame_mass(params)
                    lf -= np.where(np.isfinite(mass), mass, np.inf)  # off the frame: density 0
            if censored is not None and np.any(censored):
                for side, method in ((-1, "logcdf"), (1, "logsf")):
                    cols = np.flatnonzero(censored == side)
                    if cols.size:
                        lf0[:, cols] = getattr(self.neg, method)(z[cols][None, :], p0)
                        lf1[:, cols] = getattr(self.pos, method)(z[cols][None, :], p1)
        return lf0, lf1

    def log_likelihood(self, theta, data: ScoreData):
        """log p(D | theta) with unknown labels marginalised; one value per row."""
        theta = np.atleast_2d(theta)
        out = np.empty(theta.shape[0])
        step = max(1, _BLOCK_ELEMENTS // max(data.count_layout.z.size, 1))
        for start in range(0, theta.shape[0], step):
            out[start : start + step] = self._log_likelihood_block(theta[start : start + step], data)
        return out

    def _log_likelihood_block(self, theta, data):
        pi = theta[:, 0]
        with np.errstate(divide="ignore"):
            log_pi, log_1mpi = np.log(pi), np.log1p(-pi)
        lay = data.count_layout
        total = lay.n_pos.sum() * log_pi + lay.n_neg.sum() * log_1mpi
        lf0, lf1 = self.component_logpdfs(theta, lay.z, lay.censored)
        with np.errstate(invalid="ignore"):
            if lay.neg.size:
                total = total + lf0[:, lay.neg] @ lay.n_neg
            if lay.pos.size:
                total = total + lf1[:, lay.pos] @ lay.n_pos
            if lay.n_unlabeled.size:
                if lay.unlabeled is not None:
                    lf0, lf1 = lf0[:, lay.unlabeled], lf1[:, lay.unlabeled]
                # in place: the component densities are not needed after this
                lf0 += log_1mpi[:, None]
                lf1 += log_pi[:, None]
                mix = _logaddexp_into_first(lf0, lf1)
                total = total + self.unlabeled_power * (mix @ lay.n_unlabeled)
        return np.where(np.isnan(total), -np.inf, total)

    def log_posterior(self, theta, data: ScoreData, *, oriented=True):
        """Unnormalised log p(theta | D) at natural parameters (rows)."""
        theta = np.atleast_2d(theta)
        lp = self.log_prior(theta, oriented=oriented)
        out = np.full(theta.shape[0], -np.inf)
        ok = np.isfinite(lp)
        if ok.any():
            out[ok] = lp[ok] + self.log_likelihood(theta[ok], data)
        return out

    def log_density_unconstrained(self, u, data: ScoreData, *, oriented=True):
        """Log posterior density of the unconstrained vector (Jacobian included)."""
        u = np.atleast_2d(np.asarray(u, dtype=float))
        return self.log_posterior(self.to_natural(u), data, oriented=oriented) + self.log_jacobian(u)

    def _truncated(self, comp) -> bool:
        """Whether ``comp`` is truncated to the frame: on a bounded frame, unless its family
        lives on the unit interval already (its mass there is 1)."""
        return self.bounded and not comp.family.unit_support

    def coarsened(self, zeta) -> "MixtureModel":
        """The same model with the unlabeled likelihood raised to ``zeta``."""
        return MixtureModel(self.neg, self.pos, self.priors, unlabeled_power=zeta, bounded=self.bounded)

    def marginal_cdf(self, theta, z):
        """P(Z <= z) under the mixture at one parameter vector (unit scores)."""
        pi, p0, p1 = self.split(np.atleast_2d(theta)[:1])
        z = np.asarray(z, float)[None, :]
        with np.errstate(all="ignore"):
            c0, c1 = (self._frame_cdf(comp, z, p) for comp, p in ((self.neg, p0), (self.pos, p1)))
        return np.ravel(np.nan_to_num((1 - pi) * c0 + pi * c1))

    def _frame_cdf(self, comp, z, params):
        """P(Z <= z) of one component, conditional on the frame when it is bounded."""
        cdf = np.exp(comp.logcdf(z, params))
        if not self._truncated(comp):
            return cdf
        at_zero = np.exp(comp.logcdf(np.zeros_like(z), params))
        return np.clip((cdf - at_zero) / np.exp(comp.log_frame_mass(params)), 0.0, 1.0)

    def simulate(self, theta, n, rng):
        """Draw n (unit score, label) pairs from the model at one parameter vector."""
        pi, p0, p1 = self.split(np.atleast_2d(theta)[:1])
        y = (rng.random(n) < pi[0, 0]).astype(float)
        z = np.empty(n)
        for label, comp, params in ((0, self.neg, p0), (1, self.pos, p1)):
            mask = y == label
            q = rng.random(int(mask.sum()))
            if self._truncated(comp):  # P(Z > z | frame) = q
                above_one, above_zero = (float(np.exp(np.ravel(comp.logsf(np.array([[v]]), params))[0]))
                                         for v in (1.0, 0.0))
                q = above_one + q * (above_zero - above_one)
            # inverse-cdf sampling: P(Z > z) = q
            z[mask] = np.ravel(comp.isf(q[None, :], params))
        return z, y

    def prob_positive(self, theta, z, censored=None):
        """P(y = 1 | z, theta) as a (B, len(z)) array (docs/method.md, section 2a)."""
        pi, _, _ = self.split(theta)
        lf0, lf1 = self.component_logpdfs(theta, np.asarray(z, float), censored)
        with np.errstate(divide="ignore", invalid="ignore"):  # pi at 0 or 1: log(0) = -inf is meant
            # in place on the (draws, groups) arrays: log odds, then P(y = 1)
            lf1 += np.log(pi) - np.log1p(-pi)
            lf1 -= lf0
            p = special.expit(lf1, out=lf1)
        undefined = np.isnan(p)
        if undefined.any():  # both densities zero (outside every support): the prior odds
            p = np.where(undefined, np.broadcast_to(pi, p.shape), p)
        return p
