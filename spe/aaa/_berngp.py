"""BernGP: GP classification over arms (AAA paper eq. 3), binomial counts per arm.

``c_a ~ Binomial(n_a, sigmoid(f_a))``, ``f ~ GP(m, K)`` with the product Hamming kernel
(``_kernel``) and a constant mean ``m`` = the logit of the labeled items' accuracy
(a plug-in: one number the labels pin down well). The posterior of f at the labeled arms
is the Laplace approximation (Rasmussen & Williams, Algorithms 3.1/3.2, with the binomial
likelihood in place of the Bernoulli); the kernel's scale and per-attribute weights
maximise the Laplace marginal likelihood plus a weak log-normal prior, with the exact
gradient of Algorithm 5.1 (implicit dependence of the mode included). Only arms with labels
enter the likelihood (at most as many as there are labels); every other arm is predicted by
the GP conditional. Draws of an arm's accuracy are ``sigmoid(f_a)`` with ``f_a`` from its
marginal posterior (arms drawn independently).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import linalg, optimize, special

from .._util.threads import one_blas_thread
from ..surface import ArmEstimate
from ._kernel import ArmData, HammingKernel, arm_data, default_theta, log_prior, mismatch

N_DRAWS = 500
#: Gauss-Hermite nodes for E[sigmoid(f)] under a normal f (eq. 10's expectation).
_GH_X, _GH_W = np.polynomial.hermite_e.hermegauss(40)
_GH_W = _GH_W / _GH_W.sum()


def logistic_mean(mu: np.ndarray, var: np.ndarray) -> np.ndarray:
    """E[sigmoid(f)] for f ~ N(mu, var), elementwise, by Gauss-Hermite quadrature."""
    f = mu[..., None] + np.sqrt(np.maximum(var, 0.0))[..., None] * _GH_X
    return special.expit(f) @ _GH_W


def prior_mean(data: ArmData) -> float:
    """Logit of the labeled items' accuracy, pulled off 0 and 1 by half a label each way."""
    right, total = data.global_accuracy()
    return float(special.logit((right + 0.5) / (total + 1.0)))


def _binomial(f, n, c):
    """Log-likelihood (sum), gradient, negative Hessian (W) and third derivative, per arm."""
    p = special.expit(f)
    loglik = float(np.sum(c * special.log_expit(f) + (n - c) * special.log_expit(-f)))
    w = n * p * (1 - p)
    return loglik, c - n * p, w, -w * (1 - 2 * p)


@dataclass
class LaplaceMode:
    """The Laplace approximation at the mode (R&W Algorithm 3.1's outputs)."""

    alpha: np.ndarray  # K^{-1} (f_hat - m) = gradient of the log-likelihood at the mode
    f: np.ndarray
    chol: np.ndarray  # lower Cholesky factor of B = I + sW K sW
    sqrt_w: np.ndarray
    loglik: float
    third: np.ndarray


def laplace_mode(K, m, n, c, alpha=None, max_iter=100, tol=1e-10) -> LaplaceMode:
    """Newton's method on the a = K^{-1}(f - m) parametrisation, with step halving."""
    a = np.zeros(K.shape[0]) if alpha is None else alpha.copy()
    f = K @ a + m
    loglik, grad, w, third = _binomial(f, n, c)
    psi = loglik - 0.5 * a @ (f - m)
    for _ in range(max_iter):
        sw = np.sqrt(w)
        chol = linalg.cholesky(np.eye(K.shape[0]) + sw[:, None] * K * sw[None, :], lower=True)
        b = w * (f - m) + grad
        a_full = b - sw * linalg.cho_solve((chol, True), sw * (K @ b))
        step = 1.0
        while True:
            a_try = a + step * (a_full - a)
            f_try = K @ a_try + m
            ll_try = _binomial(f_try, n, c)[0]
            psi_try = ll_try - 0.5 * a_try @ (f_try - m)
            if (np.isfinite(psi_try) and psi_try >= psi - 1e-12) or step < 1e-6:
                break
            step /= 2
        a, f = a_try, f_try
        loglik, grad, w, third = _binomial(f, n, c)
        done = abs(psi_try - psi) < tol * max(1.0, abs(psi))
        psi = psi_try
        if done:
            break
    sw = np.sqrt(w)
    chol = linalg.cholesky(np.eye(K.shape[0]) + sw[:, None] * K * sw[None, :], lower=True)
    return LaplaceMode(grad, f, chol, sw, loglik, third)


def evidence_and_gradient(theta, mism, m, n, c, warm=None):
    """Laplace log marginal likelihood + log prior, and its gradient (R&W Algorithm 5.1)."""
    kernel = HammingKernel.from_log(theta)
    K = kernel.scale * np.exp(-np.tensordot(kernel.weights, mism, axes=1))
    mode = laplace_mode(K, m, n, c, None if warm is None else warm.get("alpha"))
    if warm is not None:
        warm["alpha"] = mode.alpha
    sw, chol = mode.sqrt_w, mode.chol
    value = mode.loglik - 0.5 * mode.alpha @ (mode.f - m) - np.log(np.diag(chol)).sum()
    R = sw[:, None] * linalg.cho_solve((chol, True), np.diag(sw))
    C = linalg.solve_triangular(chol, sw[:, None] * K, lower=True)
    # d(-log|B|/2)/df_i = -tr(Sigma dW/df_i)/2 = +Sigma_ii d3/2, as W = -d2 log p (checked by
    # finite differences in the tests)
    s2 = 0.5 * (np.diag(K) - np.sum(C * C, axis=0)) * mode.third
    grads = np.empty(theta.size)
    for j in range(theta.size):
        dK = K if j == 0 else -kernel.weights[j - 1] * mism[j - 1] * K
        s1 = 0.5 * mode.alpha @ dK @ mode.alpha - 0.5 * np.sum(R * dK)
        b = dK @ mode.alpha
        grads[j] = s1 + s2 @ (b - K @ (R @ b))
    prior, prior_grad = log_prior(theta)
    return value + prior, grads + prior_grad


def fit_kernel(data: ArmData, max_iter: int = 60) -> tuple[HammingKernel, float]:
    """Kernel hyperparameters by the BernGP Laplace evidence: (kernel, prior mean)."""
    lab = data.labeled
    n, c = data.n_labeled[lab], data.n_correct[lab]
    mism = mismatch(data.codes[lab], data.codes[lab]).astype(float)
    m = prior_mean(data)
    warm = {}

    def objective(theta):
        value, grad = evidence_and_gradient(theta, mism, m, n, c, warm)
        return -value, -grad

    theta0 = default_theta(data.codes.shape[1])
    res = optimize.minimize(objective, theta0, jac=True, method="L-BFGS-B",
                            bounds=[(-6.0, 4.0)] * theta0.size, options={"maxiter": max_iter})
    theta = res.x if np.isfinite(res.fun) else theta0
    return HammingKernel.from_log(theta), m


def predict(kernel: HammingKernel, codes_lab, mode: LaplaceMode, codes, m):
    """Posterior mean and variance of f at every arm given the labeled arms' Laplace mode."""
    k_x = kernel(codes, codes_lab)
    sw = mode.sqrt_w
    R = sw[:, None] * linalg.cho_solve((mode.chol, True), np.diag(sw))
    mu = m + k_x @ mode.alpha
    var = kernel.scale - np.einsum("ij,ij->i", k_x @ R, k_x)
    return mu, np.maximum(var, 1e-12)


@one_blas_thread
def fit_berngp(codes, n_levels, n_labeled, n_correct, seed=0, n_draws: int = N_DRAWS) -> ArmEstimate:
    """BernGP: each arm's accuracy from a GP classifier over arms (Laplace approximation).

    Parameters
    ----------
    codes : (M, A) int level codes of the arms
    n_levels : (A,) levels per attribute
    n_labeled, n_correct : (M,) labeled items and right answers per arm
    seed : int or numpy Generator
    n_draws : int

    Returns
    -------
    ArmEstimate
        ``mean`` = E[sigmoid(f_a)], draws of ``sigmoid(f_a)``.

    Examples
    --------
    >>> import numpy as np
    >>> from spe.aaa import fit_berngp
    >>> codes = np.array([[0, 0], [0, 1], [1, 0], [1, 1]])
    >>> est = fit_berngp(codes, [2, 2], [10, 10, 10, 0], [9, 5, 7, 0], seed=0)
    >>> lower, upper = est.interval(0.9)
    >>> bool((lower <= est.mean).all() and (est.mean <= upper).all())
    True
    """
    data = arm_data(codes, n_levels, n_labeled, n_correct)
    kernel, m = fit_kernel(data)
    lab = data.labeled
    K = kernel(data.codes[lab], data.codes[lab])
    mode = laplace_mode(K, m, data.n_labeled[lab], data.n_correct[lab])
    mu, var = predict(kernel, data.codes[lab], mode, data.codes, m)
    rng = np.random.default_rng(seed)
    draws = special.expit(mu + np.sqrt(var) * rng.standard_normal((n_draws, mu.size)))
    return ArmEstimate(logistic_mean(mu, var), draws, "BernGP")
