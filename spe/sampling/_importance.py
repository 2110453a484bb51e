"""Importance sampling around a posterior mode, adapted while the weights cannot be trusted.

Shared by every score model with a smooth low-dimensional posterior: the score mixture
(``_posterior``), the calibration maps (``_maps``), the
multiclass maps and the several-model pools. Weights are Pareto-smoothed
(``_psis``); the Pareto k-hat says whether they can be trusted.
"""

from __future__ import annotations

import warnings

import numpy as np
from scipy import optimize, stats

from ..exceptions import SamplingWarning
from ._psis import psis

#: Pareto k-hat above which importance weights are not trusted (Vehtari et al.): the
#: proposal adapts, then a fallback (MCMC) or a :class:`SamplingWarning` follows.
KHAT_THRESHOLD = 0.7


#: Adapted proposals tried before falling back to MCMC (each costs ``n_draws`` evaluations).
MAX_ADAPTATIONS = 4


STUDENT_T_DF = 5.0


_HESSIAN_STEP = 1e-3


def fd_hessian(fn, u, h=_HESSIAN_STEP):
    """Hessian of a batched scalar function by central differences (one batched call)."""
    d = u.size
    eye = np.eye(d) * h
    rows = [np.zeros(d)]
    for i in range(d):
        rows += [eye[i], -eye[i]]
    pairs = [(i, j) for i in range(d) for j in range(i + 1, d)]
    for i, j in pairs:
        rows += [eye[i] + eye[j], eye[i] - eye[j], -eye[i] + eye[j], -eye[i] - eye[j]]
    vals = fn(u + np.array(rows))
    f0 = vals[0]
    hess = np.empty((d, d))
    for i in range(d):
        hess[i, i] = (vals[1 + 2 * i] - 2 * f0 + vals[2 + 2 * i]) / h**2
    base = 1 + 2 * d
    for k, (i, j) in enumerate(pairs):
        pp, pm, mp, mm = vals[base + 4 * k : base + 4 * k + 4]
        hess[i, j] = hess[j, i] = (pp - pm - mp + mm) / (4 * h**2)
    return hess


def positive_definite(precision):
    """Clip eigenvalues so a negated Hessian becomes a usable precision matrix."""
    precision = 0.5 * (precision + precision.T)
    vals, vecs = np.linalg.eigh(np.nan_to_num(precision, nan=0.0, posinf=0.0, neginf=0.0))
    floor = max(1e-6 * np.max(np.abs(vals)), 1e-6) if vals.size else 1e-6
    vals = np.where(vals > floor, vals, floor)
    return (vecs * vals) @ vecs.T


#: Proposal shapes: the Laplace and diagonal proposals are Normal, ``student_t`` heavier-tailed.
_DENSITIES = {
    "student_t": lambda mean, cov: stats.multivariate_t(loc=mean, shape=cov, df=STUDENT_T_DF),
    "laplace": lambda mean, cov: stats.multivariate_normal(mean=mean, cov=cov),
    "diagonal": lambda mean, cov: stats.multivariate_normal(mean=mean, cov=cov),
}


class Proposal:
    """A proposal density on the unconstrained space.

    Parameters
    ----------
    form : {"student_t", "laplace", "diagonal"}
        ``"student_t"``: a multivariate Student t with 5 degrees of freedom (heavier tails
        than the posterior near its mode); ``"laplace"`` and ``"diagonal"``: a Normal.
    mean : ndarray of shape (d,)
    cov : ndarray of shape (d, d)
        Covariance (the scale matrix of the Student t).

    Raises
    ------
    KeyError
        If ``form`` is not one of the three.

    See Also
    --------
    adaptive_importance_draws : draws from a proposal and adapts it.

    Examples
    --------
    >>> import numpy as np
    >>> from spe.sampling import Proposal
    >>> q = Proposal("student_t", np.zeros(2), np.eye(2))
    >>> q.sample(3, np.random.default_rng(0)).shape
    (3, 2)
    >>> q.logpdf(np.zeros((1, 2))).round(3)
    array([-1.838])
    """

    def __init__(self, form, mean, cov):
        self.form = form
        self.mean = mean
        self.cov = cov
        self._dist = _DENSITIES[form](mean, cov)

    def sample(self, n, rng):
        return np.atleast_2d(self._dist.rvs(size=n, random_state=rng)).reshape(n, -1)

    def logpdf(self, u):
        return np.atleast_1d(self._dist.logpdf(u))


def adaptive_importance_draws(log_target, first: Proposal, n_draws, rng, adaptations=MAX_ADAPTATIONS):
    """Importance draws from ``first``, adapted while the Pareto k-hat exceeds the threshold.

    While k-hat > :data:`KHAT_THRESHOLD`, up to ``adaptations`` times, a Student t fitted
    to the weighted draws so far joins the proposals and ``n_draws`` more are drawn from
    it. All draws are kept and weighted against the equal mixture of the proposals
    (deterministic-mixture multiple importance sampling, the balance heuristic; Veach &
    Guibas 1995, Cornuet et al. 2012), which keeps the estimator consistent whatever the
    adapted proposals are.

    Parameters
    ----------
    log_target : callable
        ``log_target(u)``: unnormalised log density of the (M, d) rows, -inf off the support.
    first : Proposal
        The first proposal (usually a Student t around the mode).
    n_draws : int
        Draws per proposal.
    rng : numpy.random.Generator
    adaptations : int, default=4
        Most adapted proposals added.

    Returns
    -------
    draws : ndarray of shape (M, d)
    weights : ndarray of shape (M,)
        Pareto-smoothed, normalised.
    khat : float
    adaptations_used : int

    See Also
    --------
    psis, student_t_importance_draws

    Examples
    --------
    A Normal target centred at (1, -1), proposed from a Student t at the origin:

    >>> import numpy as np
    >>> from scipy import stats
    >>> from spe.sampling import Proposal, adaptive_importance_draws
    >>> target = stats.multivariate_normal(mean=[1, -1], cov=np.eye(2)).logpdf
    >>> first = Proposal("student_t", np.zeros(2), np.eye(2))
    >>> u, w, khat, used = adaptive_importance_draws(target, first, 1000, np.random.default_rng(0))
    >>> u.shape, (w @ u).round(1), bool(khat <= 0.7)
    ((1000, 2), array([ 1.1, -1. ]), True)
    """
    proposals = [first]
    u = np.empty((0, first.mean.size))
    log_p = np.empty(0)
    while True:
        new = proposals[-1].sample(n_draws, rng)
        u, log_p = np.vstack([u, new]), np.concatenate([log_p, log_target(new)])
        log_q = np.logaddexp.reduce([q.logpdf(u) for q in proposals], axis=0) - np.log(len(proposals))
        log_w, khat = psis(np.where(np.isfinite(log_p), log_p - log_q, -np.inf))
        w = np.exp(log_w)
        if khat <= KHAT_THRESHOLD or len(proposals) > adaptations:
            return u, w, khat, len(proposals) - 1
        adapted = _adapted_proposal(u, w)
        if adapted is None:
            return u, w, khat, len(proposals) - 1
        proposals.append(adapted)


def student_t_importance_draws(mode, cov, log_target, n_draws, rng, *, what: str, stacklevel=3):
    """Importance draws from a Student t at ``mode`` with covariance ``cov`` (symmetrised),
    adapted by :func:`adaptive_importance_draws`. A :class:`SamplingWarning` names ``what``
    when the Pareto k-hat says the weights are unreliable; ``stacklevel`` is the caller's,
    as if it warned itself.

    Parameters
    ----------
    mode : ndarray of shape (d,)
    cov : ndarray of shape (d, d)
    log_target : callable
        Unnormalised log density of (M, d) rows.
    n_draws : int
    rng : numpy.random.Generator
    what : str
        The model's name in the warning.
    stacklevel : int, default=3

    Returns
    -------
    draws : ndarray of shape (M, d)
    weights : ndarray of shape (M,)
    khat : float

    Warns
    -----
    SamplingWarning
        If k-hat stays above :data:`KHAT_THRESHOLD` after adaptation.

    See Also
    --------
    mode_importance_draws : finds the mode and covariance first.

    Examples
    --------
    >>> import numpy as np
    >>> from scipy import stats
    >>> from spe.sampling import student_t_importance_draws
    >>> target = stats.multivariate_normal(mean=[1, -1], cov=np.eye(2)).logpdf
    >>> u, w, khat = student_t_importance_draws(np.array([1.0, -1.0]), np.eye(2), target, 1000,
    ...                                         np.random.default_rng(0), what="example")
    >>> (w @ u).round(1)
    array([ 1., -1.])
    """
    proposal = Proposal("student_t", mode, 0.5 * (cov + cov.T))
    theta, weights, khat, _ = adaptive_importance_draws(log_target, proposal, n_draws, rng)
    if khat > KHAT_THRESHOLD:
        warnings.warn(f"{what}: importance weights are unreliable (Pareto k-hat = {khat:.2f} > {KHAT_THRESHOLD}); "
                      "its draws are approximate", SamplingWarning, stacklevel=stacklevel + 1)
    return theta, weights, float(khat)


def mode_importance_draws(log_post_and_grad, log_post_rows, start, fallback_sd, n_draws, rng, *, what: str,
                          step=1e-5, stacklevel=3):
    """Importance draws around the posterior mode of a small, smooth model.

    The mode by L-BFGS-B from ``start`` with the exact gradient (``log_post_and_grad(theta)
    -> (value, gradient)``); a Student-t proposal with the inverse of the Hessian from
    central differences of that gradient (``fallback_sd`` on the diagonal if it is not
    positive definite); weights from ``log_post_rows`` ((M, d) rows -> (M,) log posterior),
    see :func:`student_t_importance_draws` (``stacklevel`` as there).

    Returns
    -------
    draws : ndarray of shape (M, d)
    weights : ndarray of shape (M,)
    khat : float

    Warns
    -----
    SamplingWarning
        If the weights stay unreliable (k-hat above :data:`KHAT_THRESHOLD`).

    See Also
    --------
    student_t_importance_draws

    Examples
    --------
    The posterior N(2, 1) of one parameter, from its log density and gradient:

    >>> import numpy as np
    >>> from spe.sampling import mode_importance_draws
    >>> def log_post_and_grad(theta):
    ...     return -0.5 * np.sum((theta - 2) ** 2), -(theta - 2)
    >>> def log_post_rows(rows):
    ...     return -0.5 * np.sum((rows - 2) ** 2, axis=1)
    >>> u, w, khat = mode_importance_draws(log_post_and_grad, log_post_rows, np.zeros(1), np.ones(1),
    ...                                    2000, np.random.default_rng(0), what="example")
    >>> round(float(w @ u[:, 0]), 1)
    2.0
    """
    res = optimize.minimize(lambda th: tuple(-v for v in log_post_and_grad(th)), start, jac=True, method="L-BFGS-B")
    d = res.x.size
    hess = np.empty((d, d))
    for j in range(d):
        e = np.zeros(d)
        e[j] = step
        hess[j] = (log_post_and_grad(res.x + e)[1] - log_post_and_grad(res.x - e)[1]) / (2 * step)
    precision = -0.5 * (hess + hess.T)
    cov = np.linalg.inv(precision) if np.linalg.eigvalsh(precision).min() > 0 else np.diag(np.square(fallback_sd))
    return student_t_importance_draws(res.x, cov, log_post_rows, n_draws, rng, what=what, stacklevel=stacklevel)


def _adapted_proposal(u, w):
    """A Student t with the weighted mean and covariance of the draws (None if degenerate)."""
    mean = w @ u
    centred = u - mean
    cov = centred.T @ (centred * w[:, None])
    cov = 0.5 * (cov + cov.T)
    if not np.all(np.isfinite(cov)) or np.linalg.matrix_rank(cov) < u.shape[1]:
        return None
    return Proposal("student_t", mean, positive_definite(cov))

