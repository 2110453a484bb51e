"""BetaGP, BetaGP-SL and BetaGP-SLP: the AAA paper's estimator (eqs. 4-12), by Laplace.

Each arm's accuracy has a Beta density with mean ``phi(f_a) = sigmoid(f_a)`` and scale
``psi(g_a) = softplus(g_a)``; ``f ~ GP(m_f, K1)``, ``g ~ GP(m_g, K2)``; the labels of an arm
enter through the Beta-binomial likelihood (eq. 9). BetaGP-SL adds the Dirichlet
supervision of the scales (eq. 11) over the labeled arms; BetaGP-SLP also mean-pools the
observations of arms with fewer than 5 labels from their 3 nearest labeled neighbours
(``_observation_pooling``).

**Inference (ours, not the paper's).** The paper fits sparse variational GPs with
GPyTorch. Here the latent values live only at the *labeled* arms (no more of them than
labels), so a Laplace approximation is affordable and deterministic: Newton's method for
the joint MAP of (f, g) at the labeled arms, with a backtracking line search; the
curvature is taken per function (each arm's f-g cross term left out, negative diagonal
entries clipped, as the Beta-binomial is not log-concave in (f, g)), so the Gaussian
approximation factorises as q(f) q(g) like the paper's two variational GPs, and a Newton
step costs two Cholesky factorisations of size L instead of one of size 2L. Every other
arm gets the GP conditional of f and g. Draws of an arm's accuracy are
``rho ~ Beta(phi psi, (1 - phi) psi)`` with f_a, g_a drawn from their posteriors: the
mixture whose variance is eq. 12. The point estimate is eq. 10, ``E[phi(f_a)]``.

**Kernel and hyperparameters.** K1 and K2 are product Hamming kernels (``_kernel``)
over one set of per-attribute weights, like the paper's shared embedding (eq. 7); the
weights come from the BernGP Laplace evidence on the same labels
(:func:`spe.aaa.fit_kernel`). As in eq. 7 each kernel has its own scale, and K2 its own
length (a multiplier of the weights). Those three and the scale GP's constant mean
``m_g`` maximise this model's Laplace evidence plus weak priors (L-BFGS, finite-difference
gradients, Newton warm-started); ``m_f`` is the logit of the labeled accuracy, as in
BernGP.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import linalg, optimize

from .._util.threads import one_blas_thread
from ..surface import ArmEstimate
from ._berngp import N_DRAWS, fit_kernel, logistic_mean
from ._beta_binomial import beta_binomial, dirichlet, dirichlet_coupling, mean_and_scale
from ._kernel import LOG_SCALE_PRIOR, ArmData, HammingKernel, arm_data, distance
from ._observation_pooling import POOL_BELOW, POOL_NEIGHBOURS, pool_sparse

#: Weak normal prior on the scale GP's constant mean (softplus(5) ~ 5 pseudo-labels; sd 5).
SCALE_MEAN_PRIOR = (5.0, 5.0)
#: Sd of the normal prior on log(K2's length ratio to K1), centred on 0 (same lengths).
LOG_RATIO_SD = 1.5


@dataclass
class _Mode:
    alpha: np.ndarray  # K^{-1}(z - m), z = [f; g] at the labeled arms
    z: np.ndarray
    value: float  # log-likelihood at z (eq. 9, plus eq. 11 if supervised)
    log_det: float  # log|B_f| + log|B_g|
    chols: tuple  # Cholesky factors of B_f = I + sW_f K1 sW_f and B_g
    roots: tuple  # sqrt(W_f), sqrt(W_g) (diagonal parts)
    coupling: tuple | None  # eq. 11's rank-one curvature in g: (t, y = P^{-1} u, 1 - t u'K P^{-1} u)


class _Latent:
    """The labeled arms' likelihood and the two GP priors, for fixed hyperparameters.

    The curvature is taken per latent function (W_ff and W_gg, each arm's f-g cross term
    left out, the diagonals clipped positive): the Gaussian approximation factorises as
    q(f) q(g), the structure of the paper's two independent variational GPs, and each
    Newton step costs two Cholesky factorisations of size L instead of one of size 2L. The
    mode itself is exact (the gradient is), only the curvature is approximate. The
    Dirichlet term's rank-one curvature in g (it couples every arm through sum psi) enters
    by Sherman-Morrison: without it Newton crawls along that one direction.
    """

    def __init__(self, K1, K2, m_f, m_g, n, c, supervise):
        self.K = (K1, K2)
        self.m = (m_f, m_g)
        self.n, self.c, self.supervise, self.size = n, c, supervise, n.size

    def likelihood(self, f, g):
        # far-out trial points may overflow; their non-finite value makes the line search back off
        with np.errstate(over="ignore", invalid="ignore"):
            return self._likelihood(f, g)

    def _likelihood(self, f, g):
        value, grad, hess = beta_binomial(f, g, self.n, self.c)
        grad_f, grad_g, w_f, w_g = grad[:, 0], grad[:, 1], -hess[:, 0, 0], -hess[:, 1, 1]
        coupling = None
        if self.supervise and self.size > 1:
            d_value, d_grad, d_hess = dirichlet(g, self.n)
            value, grad_g, w_g = value + d_value, grad_g + d_grad, w_g - d_hess
            coupling = dirichlet_coupling(g)
        return value, (grad_f, grad_g), (np.maximum(w_f, 1e-10), np.maximum(w_g, 1e-10)), coupling

    def _factor(self, j, w):
        sw = np.sqrt(w)
        B = sw[:, None] * self.K[j] * sw[None, :]
        B[np.diag_indices_from(B)] += 1.0
        return linalg.cholesky(B, lower=True, check_finite=False), sw

    def _newton_target(self, j, w, z, grad, coupling):
        """(I + W K)^{-1} (W (z - m) + grad): the Newton iterate of a; with the rank-one part of
        W = D - t u u^T by Sherman-Morrison. Returns it, the factor, sqrt(D) and the coupling."""
        chol, sw = self._factor(j, w)
        K = self.K[j]

        def solve(v):  # (I + D K)^{-1} v
            return v - sw * linalg.cho_solve((chol, True), sw * (K @ v), check_finite=False)

        e = z - self.m[j]
        if j == 0 or coupling is None:
            return solve(w * e + grad), chol, sw, None
        t, u = coupling
        x = solve(w * e - t * u * (u @ e) + grad)
        y = solve(u)
        k_u = K @ u
        denom = 1.0 - t * (k_u @ y)
        if denom < 1e-6:  # the rank-one part would make the curvature indefinite: leave it out
            return solve(w * e + grad), chol, sw, None
        return x + t * y * (k_u @ x) / denom, chol, sw, (t, y, denom)

    def latent(self, alpha):
        return tuple(self.K[j] @ alpha[j] + self.m[j] for j in (0, 1))

    def _objective(self, alpha, z, value):
        return value - 0.5 * sum(alpha[j] @ (z[j] - self.m[j]) for j in (0, 1))

    def mode(self, alpha=None, max_iter=200, tol=1e-10) -> _Mode:
        """Newton's method in a = K^{-1}(z - m) per function (R&W Algorithm 3.1), step halving."""
        alpha = (np.zeros(self.size), np.zeros(self.size)) if alpha is None else alpha
        z = self.latent(alpha)
        value, grad, w, coupling = self.likelihood(*z)
        psi = self._objective(alpha, z, value)
        for _ in range(max_iter):
            full = [self._newton_target(j, w[j], z[j], grad[j], coupling)[0] for j in (0, 1)]
            step = 1.0
            while True:
                a_try = tuple(alpha[j] + step * (full[j] - alpha[j]) for j in (0, 1))
                z_try = self.latent(a_try)
                value_try, grad_try, w_try, coupling_try = self.likelihood(*z_try)
                psi_try = self._objective(a_try, z_try, value_try)
                if (np.isfinite(psi_try) and psi_try >= psi - 1e-12) or step < 1e-8:
                    break
                step /= 2
            gain = psi_try - psi if np.isfinite(psi_try) else -np.inf
            if gain >= -1e-12:
                alpha, z, value, grad, w, coupling, psi = a_try, z_try, value_try, grad_try, w_try, coupling_try, psi_try
            if abs(gain) < tol * max(1.0, abs(psi)) or step < 1e-8:
                break
        parts = [self._newton_target(j, w[j], z[j], grad[j], coupling) for j in (0, 1)]
        chols, roots, rank_one = tuple(p[1] for p in parts), tuple(p[2] for p in parts), parts[1][3]
        log_det = 2 * sum(np.log(np.diag(ch)).sum() for ch in chols)
        if rank_one is not None:
            log_det += np.log(rank_one[2])
        return _Mode(alpha, z, value, log_det, chols, roots, rank_one)

    def log_evidence(self, mode: _Mode) -> float:
        return self._objective(mode.alpha, mode.z, mode.value) - 0.5 * mode.log_det


@dataclass(frozen=True)
class BetaGPFit:
    """A fitted BetaGP: the posterior of f_a and g_a at every arm.

    Attributes
    ----------
    f_mean, f_var, g_mean, g_var : ndarray (M,)
        Posterior means and variances of the two latent functions (independent, q(f) q(g)).
    kernel : HammingKernel
        K1; K2 = ``scale_g * exp(-length_ratio_g * distance)`` over the same weights.
    scale_g, length_ratio_g, mean_f, mean_g : float
    method : str
    """

    f_mean: np.ndarray
    f_var: np.ndarray
    g_mean: np.ndarray
    g_var: np.ndarray
    kernel: HammingKernel
    scale_g: float
    length_ratio_g: float
    mean_f: float
    mean_g: float
    method: str

    @property
    def phi(self) -> np.ndarray:
        """Posterior mean accuracy of each arm, eq. 10."""
        return logistic_mean(self.f_mean, self.f_var)

    @property
    def psi(self) -> np.ndarray:
        """The Beta scale at each arm's posterior mean of g."""
        return mean_and_scale(self.f_mean, self.g_mean)[1]

    def estimate(self, n_draws: int = N_DRAWS, seed=0) -> ArmEstimate:
        """Draws of each arm's accuracy from the Beta mixture (eq. 12's variance)."""
        rng = np.random.default_rng(seed)
        f = self.f_mean + np.sqrt(self.f_var) * rng.standard_normal((n_draws, self.f_mean.size))
        g = self.g_mean + np.sqrt(self.g_var) * rng.standard_normal((n_draws, self.g_mean.size))
        phi, psi = mean_and_scale(f, g)[:2]
        draws = rng.beta(phi * psi, (1 - phi) * psi)
        return ArmEstimate(self.phi, draws, self.method)


class BetaGP:
    """The AAA estimator family.

    Parameters
    ----------
    supervise_scale : bool
        Add the Dirichlet likelihood of the scales (eq. 11): BetaGP-SL.
    pool : bool
        Mean-pool sparse arms' observations from kernel neighbours: BetaGP-SLP (with
        ``supervise_scale``).
    pool_below, pool_neighbours : int
        Arms with fewer labels than ``pool_below`` pool from this many nearest labeled arms.
    max_iter : int
        L-BFGS iterations for the four hyperparameters.

    Examples
    --------
    >>> import numpy as np
    >>> from spe.aaa import BetaGP
    >>> codes = np.array([[0, 0], [0, 1], [1, 0], [1, 1]])
    >>> fit = BetaGP(supervise_scale=True).fit(codes, [2, 2], [40, 10, 5, 0], [36, 6, 2, 0])
    >>> fit.method, fit.phi.shape
    ('BetaGP-SL', (4,))
    >>> lower, upper = fit.estimate(n_draws=200, seed=0).interval(0.9)
    """

    def __init__(self, supervise_scale=False, pool=False, pool_below=POOL_BELOW, pool_neighbours=POOL_NEIGHBOURS,
                 max_iter=20):
        self.supervise_scale, self.pool = supervise_scale, pool
        self.pool_below, self.pool_neighbours, self.max_iter = pool_below, pool_neighbours, max_iter

    @property
    def name(self) -> str:
        suffix = ("SL" if self.supervise_scale else "") + ("P" if self.pool else "")
        return "BetaGP" + (f"-{suffix}" if suffix else "")

    @one_blas_thread
    def fit(self, codes, n_levels, n_labeled, n_correct) -> BetaGPFit:
        """Fit to arm-level counts (see :func:`spe.aaa.arm_data`); returns a :class:`BetaGPFit`."""
        data = arm_data(codes, n_levels, n_labeled, n_correct)
        kernel, m_f = fit_kernel(data)
        lab = data.labeled
        codes_lab, n, c = data.codes[lab], data.n_labeled[lab], data.n_correct[lab]
        if self.pool:
            c = pool_sparse(codes_lab, n, c, kernel.weights, self.pool_below, self.pool_neighbours)
        dist = distance(codes_lab, codes_lab, kernel.weights)
        theta, latent, mode = self._hyperparameters(dist, kernel.scale, m_f, n, c)
        return self._predict(data, codes_lab, kernel.weights, theta, m_f, latent, mode)

    def _latent(self, theta, dist, m_f, n, c) -> _Latent:
        s1, s2, ratio, m_g = np.exp(theta[0]), np.exp(theta[1]), np.exp(theta[2]), theta[3]
        return _Latent(s1 * np.exp(-dist), s2 * np.exp(-ratio * dist), m_f, m_g, n, c, self.supervise_scale)

    def _hyperparameters(self, dist, s_start, m_f, n, c):
        """(log s1, log s2, log length ratio of K2, m_g) by Laplace evidence + weak priors."""
        warm = {}
        centre = np.array([LOG_SCALE_PRIOR[0], LOG_SCALE_PRIOR[0], 0.0, SCALE_MEAN_PRIOR[0]])
        spread = np.array([LOG_SCALE_PRIOR[1], LOG_SCALE_PRIOR[1], LOG_RATIO_SD, SCALE_MEAN_PRIOR[1]])

        def objective(theta):
            latent = self._latent(theta, dist, m_f, n, c)
            mode = latent.mode(warm.get("alpha"))
            z = (theta - centre) / spread
            value = latent.log_evidence(mode) - 0.5 * z @ z
            if not np.isfinite(value):
                return 1e10  # outside the region where the approximation holds: steer away
            warm["alpha"] = mode.alpha
            return -value

        theta0 = np.array([np.log(s_start), np.log(s_start), 0.0, SCALE_MEAN_PRIOR[0]])
        res = optimize.minimize(objective, theta0, method="L-BFGS-B",
                                bounds=[(-5, 3), (-5, 3), (-3, 4), (-5, 15)],
                                options={"maxiter": self.max_iter, "eps": 1e-4})
        theta = res.x if res.fun < 1e10 else theta0
        latent = self._latent(theta, dist, m_f, n, c)
        return theta, latent, latent.mode(warm.get("alpha"))

    def _predict(self, data: ArmData, codes_lab, weights, theta, m_f, latent, mode) -> BetaGPFit:
        """GP conditional of f and g at every arm: means and variances."""
        dist = distance(data.codes, codes_lab, weights)
        s1, s2, ratio, m_g = np.exp(theta[0]), np.exp(theta[1]), np.exp(theta[2]), theta[3]
        moments = []
        for j, (scale, k_x) in enumerate(((s1, s1 * np.exp(-dist)), (s2, s2 * np.exp(-ratio * dist)))):
            sw = mode.roots[j]
            R = sw[:, None] * linalg.cho_solve((mode.chols[j], True), np.diag(sw), check_finite=False)
            mean = latent.m[j] + k_x @ mode.alpha[j]
            var = scale - np.einsum("ij,ij->i", k_x @ R, k_x)
            if j == 1 and mode.coupling is not None:  # eq. 11's rank-one curvature, by Woodbury
                t, y, denom = mode.coupling
                var = var + t * (k_x @ y) ** 2 / denom
            moments += [mean, np.maximum(var, 1e-10)]
        kernel = HammingKernel(float(s1), weights)
        return BetaGPFit(*moments, kernel, float(s2), float(ratio), float(m_f), float(m_g), self.name)


def _fitter(model=None, **options):
    """The ladder's function form of ``model`` (default :class:`BetaGP`) with ``options``."""
    model = BetaGP if model is None else model

    def fit(codes, n_levels, n_labeled, n_correct, seed=0, n_draws: int = N_DRAWS) -> ArmEstimate:
        return model(**options).fit(codes, n_levels, n_labeled, n_correct).estimate(n_draws, seed)

    fit.__module__ = model.__module__  # doctest (and the API page) find it beside its model
    return fit


_DOC = """{title}

Parameters
----------
codes : (M, A) int level codes of the arms
n_levels : (A,) levels per attribute
n_labeled, n_correct : (M,) labels and right answers per arm
seed : int or numpy Generator
n_draws : int

Returns
-------
ArmEstimate

See Also
--------
spe.aaa.PAPER_LADDER : the paper's all-arm form.

Examples
--------
>>> import numpy as np
>>> from spe.aaa import {name}
>>> codes = np.array([[0, 0], [0, 1], [1, 0], [1, 1]])
>>> est = {name}(codes, [2, 2], [10, 10, 10, 0], [9, 5, 7, 0], seed=0, n_draws=100)
>>> est.method, est.draws.shape
('{method}', (100, 4))
"""
fit_betagp = _fitter()
fit_betagp.__doc__ = _DOC.format(title="BetaGP (eqs. 4-10): Beta per arm, mean and scale from two GPs.",
                                 name="fit_betagp", method="BetaGP")
fit_betagp_sl = _fitter(supervise_scale=True)
fit_betagp_sl.__doc__ = _DOC.format(title="BetaGP-SL: BetaGP with the Dirichlet supervision of the scales (eq. 11), "
                                          "over the labeled arms.", name="fit_betagp_sl", method="BetaGP-SL")
fit_betagp_slp = _fitter(supervise_scale=True, pool=True)
fit_betagp_slp.__doc__ = _DOC.format(title="BetaGP-SLP: BetaGP-SL with sparse arms' observations pooled from "
                                           "neighbours (AAA 3.3).", name="fit_betagp_slp", method="BetaGP-SLP")
