"""The BetaGP likelihoods and their derivatives in the two latent functions (f, g).

Per arm with ``n`` labels of which ``c`` right, mean ``phi = sigmoid(f)`` and scale
``psi = softplus(g)``: the Beta-binomial likelihood of the AAA paper's eq. 9 (without the
binomial coefficient, which does not depend on f, g),

    log B(phi psi + c, (1 - phi) psi + n - c) - log B(phi psi, (1 - phi) psi),

and the Dirichlet supervision of the scales (eq. 11) over the labeled arms, whose observed
proportions ``n_a / n`` are scored under ``Dirichlet(psi_1, ..., psi_L)``. Values, gradients
and Hessians are analytic (chain rule through alpha = phi psi, beta = (1 - phi) psi; the
tests check them against finite differences).
"""

from __future__ import annotations

import numpy as np
from scipy import special

#: Floors keeping digamma/trigamma finite when a latent value runs far out.
_MIN_SCALE = 1e-8
_MIN_MEAN = 1e-10


def mean_and_scale(f: np.ndarray, g: np.ndarray):
    """phi = sigmoid(f), psi = softplus(g), and their first two derivatives."""
    phi = np.clip(special.expit(f), _MIN_MEAN, 1 - _MIN_MEAN)
    psi = np.maximum(np.logaddexp(0.0, g), _MIN_SCALE)
    d_phi = phi * (1 - phi)
    d_psi = special.expit(g)
    return phi, psi, d_phi, d_phi * (1 - 2 * phi), d_psi, d_psi * (1 - d_psi)


def beta_binomial(f, g, n, c):
    """Eq. 9 summed over arms; gradient (L, 2) and Hessian (L, 2, 2) in (f_a, g_a) per arm."""
    phi, psi, d_phi, dd_phi, d_psi, dd_psi = mean_and_scale(f, g)
    a, b = phi * psi, (1 - phi) * psi
    value = float(np.sum(special.gammaln(a + c) + special.gammaln(b + n - c) - special.gammaln(psi + n)
                         - special.gammaln(a) - special.gammaln(b) + special.gammaln(psi)))
    shared1 = special.digamma(psi) - special.digamma(psi + n)
    da = special.digamma(a + c) - special.digamma(a) + shared1
    db = special.digamma(b + n - c) - special.digamma(b) + shared1
    t_ab = special.polygamma(1, psi) - special.polygamma(1, psi + n)
    t_aa = special.polygamma(1, a + c) - special.polygamma(1, a) + t_ab
    t_bb = special.polygamma(1, b + n - c) - special.polygamma(1, b) + t_ab
    grad = np.stack([psi * d_phi * (da - db), d_psi * (phi * da + (1 - phi) * db)], axis=1)
    h_ff = (psi * d_phi) ** 2 * (t_aa - 2 * t_ab + t_bb) + psi * dd_phi * (da - db)
    h_gg = d_psi ** 2 * (phi ** 2 * t_aa + 2 * phi * (1 - phi) * t_ab + (1 - phi) ** 2 * t_bb) + dd_psi * (
        phi * da + (1 - phi) * db)
    h_fg = psi * d_phi * d_psi * (phi * t_aa + (1 - 2 * phi) * t_ab - (1 - phi) * t_bb) + d_phi * d_psi * (da - db)
    hess = np.stack([np.stack([h_ff, h_fg], axis=1), np.stack([h_fg, h_gg], axis=1)], axis=1)
    return value, grad, hess


def dirichlet(g, n):
    """Eq. 11 over the labeled arms: value, gradient in g (L,), and the Hessian's diagonal.

    The Hessian also has a rank-one part ``trigamma(sum psi) psi' psi'^T`` coupling every
    arm (:func:`dirichlet_coupling`).
    """
    _, psi, _, _, d_psi, dd_psi = mean_and_scale(np.zeros_like(g), g)
    log_p = np.log(n / n.sum())
    total = psi.sum()
    value = float(np.sum((psi - 1) * log_p - special.gammaln(psi)) + special.gammaln(total))
    inner = log_p - special.digamma(psi) + special.digamma(total)
    grad = d_psi * inner
    hess_diag = dd_psi * inner - d_psi ** 2 * special.polygamma(1, psi)
    return value, grad, hess_diag


def dirichlet_coupling(g):
    """Eq. 11's rank-one Hessian part ``t u u^T``: (t, u) = (trigamma(sum psi), psi'(g))."""
    _, psi, _, _, d_psi, _ = mean_and_scale(np.zeros_like(g), g)
    return float(special.polygamma(1, psi.sum())), d_psi
