"""Posterior draws of the mixture parameters (docs/method.md, section 2a).

Importance sampling from a proposal centred at the MAP, in the unconstrained space:

* ``"diagonal"``: the paper's proposal, an independent Normal per dimension whose width
  comes from the curvature of the log posterior along that dimension (others at the MAP);
* ``"laplace"``: a full-covariance Normal from the Hessian at the MAP;
* ``"student_t"``: the Laplace covariance in a multivariate Student t (heavier tails).

Weights are Pareto-smoothed (:mod:`spe.sampling`); the Pareto k-hat says whether they can
be trusted. When it exceeds 0.7 the proposal is adapted to the weighted draws (multiple
importance sampling over all proposals, ``_importance``);
``inference="auto"`` falls back to MCMC with ``emcee`` only when k-hat stays above 0.7 after that.
"""

from __future__ import annotations

import contextlib
import logging
import warnings
from dataclasses import dataclass

import numpy as np

from ..exceptions import SamplingWarning
from ..sampling import (KHAT_THRESHOLD, MAX_ADAPTATIONS, Proposal, adaptive_importance_draws, fd_hessian,
                        positive_definite, psis)
from ..scores import ScoreData
from ._map import MapFit

#: emcee burn-in (steps) when its walkers start from importance draws.
WARM_BURN = 150
PROPOSALS = ("diagonal", "laplace", "student_t")
DEFAULT_PROPOSAL = "student_t"


@dataclass
class Posterior:
    """Weighted draws of the model parameters.

    Attributes
    ----------
    theta : (M, d) natural parameter draws (columns named by ``names``).
    u : (M, d) the same draws in the unconstrained space.
    weights : (M,) normalised weights (all equal for MCMC draws).
    method : ``"importance sampling"`` or ``"emcee"``.
    khat : Pareto k-hat of the importance weights (NaN for plain emcee draws; for a chain
        on pooled scores, that of its reweighting to the exact ones).
    ess : effective sample size.
    proposal : proposal name for importance sampling.
    adaptations : proposals adapted to the weighted draws after the first (see
        :func:`importance_sample`); the draws of all of them are kept.
    chains : (steps, walkers, d) retained emcee chain in the unconstrained space, if any.

    Examples
    --------
    See :func:`sample_posterior`.
    """

    names: list
    theta: np.ndarray
    u: np.ndarray
    weights: np.ndarray
    method: str
    khat: float
    ess: float
    proposal: str = ""
    chains: np.ndarray | None = None
    importance_khat: float = float("nan")
    adaptations: int = 0

    @property
    def n_draws(self) -> int:
        return self.theta.shape[0]

    def mean(self) -> np.ndarray:
        return self.weights @ self.theta


def build_proposal(fit: MapFit, data: ScoreData, form=DEFAULT_PROPOSAL) -> Proposal:
    """The proposal ``form`` centred at the MAP, scaled by the curvature there."""
    if form not in PROPOSALS:
        raise ValueError(f"proposal must be one of {PROPOSALS}, got {form!r}")
    model = fit.model

    def logp(u):
        return model.log_density_unconstrained(u, data, oriented=False)

    hess = fd_hessian(logp, fit.u)
    return Proposal(form, fit.u.copy(), _COVARIANCES[form](hess))


def _diagonal_covariance(hess):
    """Per-dimension widths from the curvature along each axis (others at the MAP)."""
    curv = -np.diag(hess)
    return np.diag(np.where(np.isfinite(curv) & (curv > 0), 1.0 / np.where(curv > 0, curv, 1.0), 1.0))


def _laplace_covariance(hess):
    cov = np.linalg.inv(positive_definite(-hess))
    return 0.5 * (cov + cov.T)


_COVARIANCES = {"diagonal": _diagonal_covariance, "laplace": _laplace_covariance,
                "student_t": _laplace_covariance}


def _log_density_inside(model, data):
    """The oriented log posterior of unconstrained rows, -inf outside the parameter bounds;
    the target of both the importance sampler and emcee."""
    lo, hi = np.array(model.bounds).T

    def log_density(u):
        u = np.atleast_2d(u)
        out = np.full(u.shape[0], -np.inf)
        inside = np.all((u > lo) & (u < hi), axis=1)
        if inside.any():
            out[inside] = model.log_density_unconstrained(u[inside], data, oriented=True)
        return out

    return log_density


def importance_sample(fit: MapFit, data: ScoreData, n_draws, rng, proposal=DEFAULT_PROPOSAL,
                      adaptations=MAX_ADAPTATIONS):
    """Self-normalised importance sampling with Pareto-smoothed weights, adapted while
    k-hat is high (:func:`adaptive_importance_draws`)."""
    model = fit.model
    u, w, khat, adapted = adaptive_importance_draws(_log_density_inside(model, data),
                                                    build_proposal(fit, data, proposal),
                                                    n_draws, rng, adaptations)
    return Posterior(
        names=list(model.names),
        theta=model.to_natural(u),
        u=u,
        weights=w,
        method="importance sampling",
        khat=khat,
        ess=float(1.0 / np.sum(w**2)),
        proposal=proposal,
        importance_khat=khat,
        adaptations=adapted,
    )


def run_emcee(fit: MapFit, data: ScoreData, n_draws, rng, *, progress=False, proposal_cov=None,
              burn=400, thin=None, start_from: Posterior | None = None):
    """Affine-invariant ensemble MCMC (emcee) on the unconstrained log posterior.

    ``start_from``: weighted draws (an importance sampler's) to start the walkers from;
    they are already spread like the posterior, so the burn-in is shortened to
    :data:`WARM_BURN` steps.
    """
    import emcee

    model = fit.model
    d = model.n_params
    log_prob = _log_density_inside(model, data)

    n_walkers = max(32, 4 * d + (4 * d) % 2)
    start = _warm_start(start_from, n_walkers, rng)
    if start is None:
        if proposal_cov is None:
            proposal_cov = build_proposal(fit, data, "laplace").cov
        chol = np.linalg.cholesky(proposal_cov + 1e-12 * np.eye(d))
        start = fit.u + 0.1 * rng.standard_normal((n_walkers, d)) @ chol.T
    else:
        burn = min(burn, WARM_BURN)
    bad = ~np.isfinite(log_prob(start))
    start[bad] = fit.u + 1e-4 * rng.standard_normal((int(bad.sum()), d))
    sampler = emcee.EnsembleSampler(n_walkers, d, log_prob, vectorize=True)
    # emcee draws from a legacy RandomState; seed it from our Generator for determinism.
    sampler.random_state = np.random.RandomState(int(rng.integers(2**31 - 1))).get_state()
    with _quiet_emcee():
        return _run_sampler(sampler, model, start, n_draws, burn, thin, n_walkers, d, progress)


def _warm_start(post: Posterior | None, n_walkers, rng):
    """n_walkers distinct draws picked by weight from ``post`` (None if too few carry weight)."""
    if post is None or np.count_nonzero(post.weights > 0) < n_walkers:
        return None
    idx = rng.choice(post.weights.size, size=n_walkers, replace=False, p=post.weights / post.weights.sum())
    return post.u[idx].copy()


@contextlib.contextmanager
def _quiet_emcee():
    """emcee logs a warning for chains shorter than 50 tau; we report tau and ESS instead."""
    logger = logging.getLogger("emcee")
    level = logger.level
    logger.setLevel(logging.ERROR)
    try:
        yield
    finally:
        logger.setLevel(level)


def _autocorr_time(sampler) -> float:
    """Largest finite integrated autocorrelation time; the chain length if none is finite."""
    with np.errstate(all="ignore"):
        taus = np.asarray(sampler.get_autocorr_time(quiet=True), dtype=float)
    finite = taus[np.isfinite(taus)]
    return float(finite.max()) if finite.size else float(sampler.iteration)


def _run_sampler(sampler, model, start, n_draws, burn, thin, n_walkers, d, progress):
    state = sampler.run_mcmc(start, burn, progress=progress)
    sampler.reset()
    # A first pass sized for thin = 10, then more steps if the chain is stickier than that.
    steps = int(np.ceil(n_draws * 10 / n_walkers))
    sampler.run_mcmc(state, steps, progress=progress)
    tau = _autocorr_time(sampler)
    if thin is None:
        thin = max(1, int(np.ceil(tau / 2)))
    need = int(np.ceil(n_draws * thin / n_walkers))
    if need > steps:
        sampler.run_mcmc(None, need - steps, progress=progress)
        tau = _autocorr_time(sampler)
    chain = sampler.get_chain(thin=thin)
    flat = chain.reshape(-1, d)
    u = flat[-n_draws:]
    total = sampler.get_chain().shape[0] * n_walkers
    ess = float(total / max(tau, 1.0))
    return Posterior(
        names=list(model.names),
        theta=model.to_natural(u),
        u=u,
        weights=np.full(u.shape[0], 1.0 / u.shape[0]),
        method="emcee",
        khat=float("nan"),
        ess=min(ess, float(u.shape[0])),
        chains=chain,
    )


def reweighted_chain(fit: MapFit, data: ScoreData, pooled_data: ScoreData, n_draws, rng, *, progress=False,
                     start_from: Posterior | None = None) -> Posterior:
    """emcee on the pooled scores, importance-weighted to the posterior of the exact ones.

    The pooled posterior is a few times cheaper to evaluate and close to the exact one, so
    it is a good proposal: the weights exact / pooled are Pareto-smoothed and their k-hat
    (``khat``) says whether the correction can be trusted.
    """
    post = run_emcee(fit, pooled_data, n_draws, rng, progress=progress, start_from=start_from)
    exact = _log_density_inside(fit.model, data)(post.u)
    approx = _log_density_inside(fit.model, pooled_data)(post.u)
    ok = np.isfinite(exact) & np.isfinite(approx)
    log_ratio = np.full(post.n_draws, -np.inf)
    log_ratio[ok] = exact[ok] - approx[ok]
    log_w, khat = psis(log_ratio)
    post.weights = np.exp(log_w)
    post.khat = float(khat)
    post.ess = float(post.ess / post.n_draws / np.sum(post.weights**2))
    post.proposal = "chain on pooled scores, reweighted"
    return post


def sample_posterior(fit: MapFit, data: ScoreData, *, n_draws, rng, inference="auto",
                     proposal=DEFAULT_PROPOSAL, progress=False, pooled_data: ScoreData | None = None) -> Posterior:
    """Draw from the posterior by importance sampling, emcee, or IS with emcee fallback.

    ``pooled_data``: a pooled copy of ``data`` (:func:`spe.scores.pooled`); when given, the
    fallback chain runs on it and is reweighted to ``data`` (:func:`reweighted_chain`),
    and runs on ``data`` itself only if that correction is unreliable.

    Returns
    -------
    Posterior

    Raises
    ------
    ValueError
        If ``inference`` is not ``"auto"``, ``"is"`` or ``"emcee"``.

    Warns
    -----
    SamplingWarning
        When the importance weights are unreliable (Pareto k-hat > 0.7).

    See Also
    --------
    spe.sampling.adaptive_importance_draws, spe.sampling.psis

    Examples
    --------
    >>> import numpy as np
    >>> from spe.scores import prepare
    >>> rng = np.random.default_rng(0)
    >>> y = rng.uniform(size=400) < 0.3  # 30% positives, scores N(2, 1) vs N(0, 1), 20 labeled
    >>> scores = np.where(y, rng.normal(2, 1, 400), rng.normal(0, 1, 400))
    >>> data = prepare(scores, np.where(np.arange(400) < 20, y, np.nan))
    >>> from spe.mixture import MixtureModel, fit_map, get_component, sample_posterior
    >>> model = MixtureModel(get_component("truncnorm"), get_component("truncnorm"), bounded=True)
    >>> post = sample_posterior(fit_map(model, data), data, n_draws=500, rng=rng)
    >>> post.method, post.names, bool(post.khat <= 0.7)
    ('importance sampling', ['pi', 'neg.mu', 'neg.sigma', 'pos.mu', 'pos.sigma'], True)
    """
    if inference not in ("auto", "is", "emcee"):
        raise ValueError(f"inference must be 'auto', 'is' or 'emcee', got {inference!r}")
    if inference == "emcee":
        return run_emcee(fit, data, n_draws, rng, progress=progress)
    post = importance_sample(fit, data, n_draws, rng, proposal)
    if post.khat <= KHAT_THRESHOLD:
        return post
    fall_back = inference == "auto"
    warnings.warn(
        f"importance weights are unreliable (Pareto k-hat = {post.khat:.2f} > {KHAT_THRESHOLD}); "
        + ("falling back to MCMC with emcee" if fall_back else "use inference='auto' or 'emcee'"),
        SamplingWarning,
        stacklevel=3,
    )
    if not fall_back:
        return post
    if pooled_data is not None and pooled_data is not data:
        fast = reweighted_chain(fit, data, pooled_data, n_draws, rng, progress=progress, start_from=post)
        if fast.khat <= KHAT_THRESHOLD:
            fast.importance_khat = post.khat
            return fast
    fallback = run_emcee(fit, data, n_draws, rng, progress=progress, start_from=post)
    fallback.importance_khat = post.khat
    return fallback
