"""A calibration map's posterior under a Normal prior, or a mixture of them: the exact
Newton mode, the Laplace approximation of the labels' marginal likelihood (which weighs a
mixture prior's components), and Student-t importance draws around the mode."""

from __future__ import annotations

import numpy as np
from scipy import special

from ..sampling import student_t_importance_draws
from ._map_prior import MapPrior

_MAX_NEWTON = 100
#: Fewest importance draws for a mixture prior's component that holds any real mass.
_MIN_COMPONENT_DRAWS = 100


def _prior_moments(prior: MapPrior, n_slopes: int):
    """Mean and precision of (c, u_1..u_J)."""
    mean, cov = prior.moments(n_slopes)
    return mean, np.linalg.inv(cov)


def _log_posterior(u, x, y, prior: MapPrior):
    """Log posterior of parameter rows u = (c, u_1..u_J)."""
    mean, precision = _prior_moments(prior, x.shape[1])
    eta = u[:, :1] + np.exp(u[:, 1:]) @ x.T
    loglik = np.sum(y * eta - np.logaddexp(0.0, eta), axis=1)
    d = u - mean
    return loglik - 0.5 * np.einsum("ij,jk,ik->i", d, precision, d)


def _gradient_hessian(u, x, y, prior: MapPrior):
    mean, precision = _prior_moments(prior, x.shape[1])
    slopes = np.exp(u[1:])
    p = special.expit(u[0] + x @ slopes)
    r, v = y - p, p * (1.0 - p)
    jac = np.column_stack([np.ones(y.size), x * slopes])  # d eta / d u
    grad = jac.T @ r - precision @ (u - mean)
    hess = -(jac * v[:, None]).T @ jac - precision
    hess[1:, 1:] += np.diag((r[:, None] * x * slopes).sum(axis=0))  # d2 eta / d u_j^2 = d eta / d u_j
    return grad, hess


def _mode(x, y, prior: MapPrior):
    """Newton's method with step halving from the prior mean (the posterior is smooth)."""
    u = _prior_moments(prior, x.shape[1])[0]
    f = _log_posterior(u[None, :], x, y, prior)[0]
    for _ in range(_MAX_NEWTON):
        grad, hess = _gradient_hessian(u, x, y, prior)
        precision = -hess
        low = np.linalg.eigvalsh(precision).min()
        if low <= 0:
            precision = precision + (1.0 - low) * np.eye(u.size)
        step = np.linalg.solve(precision, grad)
        for _ in range(30):
            cand = u + step
            f_new = _log_posterior(cand[None, :], x, y, prior)[0]
            if f_new >= f - 1e-12:
                break
            step = step / 2
        done = np.max(np.abs(cand - u)) < 1e-9
        u, f = cand, f_new
        if done:
            break
    return u


def _component(x, y, prior: MapPrior, n_slopes: int):
    """(mode, covariance, log marginal likelihood) of one Normal prior given the labels (x, y):
    the Laplace approximation; with no labels, the prior's own moments and log 1."""
    mean, cov = prior.moments(n_slopes)
    if not y.size:
        return mean, cov, 0.0
    mode = _mode(x, y, prior)
    _, hess = _gradient_hessian(mode, x, y, prior)
    precision = -hess
    if np.linalg.eigvalsh(precision).min() <= 0:
        return mode, cov, float(_log_posterior(mode[None, :], x, y, prior)[0] - 0.5 * np.linalg.slogdet(cov)[1])
    log_z = (_log_posterior(mode[None, :], x, y, prior)[0] - 0.5 * np.linalg.slogdet(cov)[1]
             - 0.5 * np.linalg.slogdet(precision)[1])
    return mode, np.linalg.inv(precision), float(log_z)


def _allocate(n_draws: int, share) -> list[int]:
    """Draws per mixture component, in proportion to its posterior probability (largest
    remainders, so every draw weighs about the same), and at least :data:`_MIN_COMPONENT_DRAWS`
    for a component holding 1/1000 of the mass or more (enough for its weights' k-hat)."""
    share = np.where(np.asarray(share) >= 1e-3, share, 0.0)  # below 1/1000 of the mass: no draws
    floor = np.where(share > 0, min(_MIN_COMPONENT_DRAWS, n_draws // len(share)), 0)
    raw = share / share.sum() * n_draws
    counts = np.maximum(np.floor(raw).astype(int), floor)
    while counts.sum() > n_draws:
        counts[np.argmax(counts)] -= 1
    counts[np.argsort(counts - raw)[: n_draws - counts.sum()]] += 1
    return counts.tolist()


def _component_draws(x, y, prior: MapPrior, fitted, n_draws: int, rng, map_name: str):
    """(draws, weights summing to 1, k-hat) of one component: prior draws without labels,
    Student-t importance draws around its mode otherwise."""
    mode, cov, _ = fitted
    if not y.size:
        u = mode + rng.standard_normal((n_draws, mode.size)) @ np.linalg.cholesky(cov).T
        return u, np.full(n_draws, 1.0 / n_draws), float("nan")
    return student_t_importance_draws(mode, cov, lambda v: _log_posterior(v, x, y, prior), n_draws, rng,
                                      what=f"{map_name} calibration map", stacklevel=3)
