"""BetaGP, BetaGP-SL and BetaGP-SLP as the AAA paper wrote them: every arm smoothed and supervised.

The paper (section 4.4) smooths *every* arm's counts with its warm start: "for all arms we
use a default smoothing to [lambda rho_hat, lambda] where lambda = 0.1", rho_hat the
labeled items' accuracy. So every arm, labeled or not, enters the Beta-binomial
likelihood (eq. 9) with ``n_a + lambda`` labels of which ``c_a + lambda rho_hat`` right,
and the Dirichlet supervision of the scales (eq. 11) runs over *all* arms: ``n_a / n`` is
then positive everywhere, so ``log(n_a / n)`` is finite and arms without labels are told
that their scale (their pseudo-label count) is small. SLP pools arms with fewer than 5
(smoothed) observations from their 3 nearest arms among all arms.

spe's own reading (:class:`BetaGP`) keeps the latent values at the labeled arms only and
supervises their scales among themselves; every other arm gets the GP conditional.

What stays ours in both (the paper's inference is sparse variational GPs with a learned
arm embedding, in GPyTorch): the Laplace approximation with per-function curvature, the
product Hamming kernel with BernGP-evidence weights, and constant GP means (``m_f`` the
logit of the labeled accuracy, ``m_g`` fitted). The latent values live at every arm
present among the items, so the cost grows as M^3 in the number of arms M: a few
seconds at a few hundred arms, minutes at ~10^3, out of reach at ~10^4 (where the paper
used inducing points).
"""

from __future__ import annotations

import numpy as np

from .._util.threads import one_blas_thread
from ._baselines import BETA_I_STRENGTH
from ._berngp import fit_kernel
from ._betagp import BetaGP, BetaGPFit, _fitter
from ._kernel import arm_data, distance
from ._observation_pooling import pool_sparse


def smoothed_counts(n_labeled, n_correct, strength: float = BETA_I_STRENGTH):
    """Every arm's counts with the paper's warm-start smoothing ``[lambda rho_hat, lambda]``.

    Parameters
    ----------
    n_labeled, n_correct : array-like (M,)
        Labels and right answers per arm.
    strength : float
        lambda, the pseudo-labels added to every arm (0.1 in the paper).

    Returns
    -------
    n, c : ndarray (M,)
        ``n_labeled + lambda`` and ``n_correct + lambda rho_hat``, rho_hat the labeled
        items' accuracy (kept half a label off 0 and 1).

    Examples
    --------
    >>> n, c = smoothed_counts([4, 0], [3, 0])
    >>> n.round(3).tolist(), c.round(3).tolist()
    ([4.1, 0.1], [3.075, 0.075])
    """
    n_labeled = np.asarray(n_labeled, dtype=float)
    n_correct = np.asarray(n_correct, dtype=float)
    if not strength > 0:
        raise ValueError(f"strength must be positive, got {strength!r}")
    total = n_labeled.sum()
    if total <= 0:
        raise ValueError("no labeled items: the smoothing needs the labeled accuracy rho_hat")
    rho = min(max(n_correct.sum() / total, 0.5 / total), 1 - 0.5 / total)
    return n_labeled + strength, n_correct + strength * rho


class PaperBetaGP(BetaGP):
    """BetaGP with the paper's all-arm smoothing and supervision (its sections 3.2-3.3, 4.4).

    Parameters
    ----------
    supervise_scale : bool
        Add eq. 11 over all arms: BetaGP-SL.
    pool : bool
        Mean-pool arms with fewer than ``pool_below`` smoothed observations from their
        ``pool_neighbours`` nearest arms: BetaGP-SLP (with ``supervise_scale``).
    strength : float
        lambda of the smoothing ``[lambda rho_hat, lambda]`` (0.1 in the paper).
    pool_below, pool_neighbours, max_iter : int
        As in :class:`BetaGP`.

    See Also
    --------
    BetaGP : spe's reading, with latent values at the labeled arms only.

    Examples
    --------
    >>> import numpy as np
    >>> codes = np.array([[0, 0], [0, 1], [1, 0], [1, 1]])
    >>> fit = PaperBetaGP(supervise_scale=True).fit(codes, [2, 2], [40, 10, 5, 0], [36, 6, 2, 0])
    >>> fit.method
    'BetaGP-SL (paper)'
    >>> bool(fit.psi[0] > fit.psi[3])  # the arm with 40 labels gets the larger scale
    True
    """

    def __init__(self, supervise_scale=False, pool=False, strength=BETA_I_STRENGTH, **options):
        super().__init__(supervise_scale=supervise_scale, pool=pool, **options)
        self.strength = strength

    @property
    def name(self) -> str:
        return super().name + " (paper)"

    @one_blas_thread
    def fit(self, codes, n_levels, n_labeled, n_correct) -> BetaGPFit:
        """Fit to arm-level counts; returns a :class:`BetaGPFit` over every arm."""
        data = arm_data(codes, n_levels, n_labeled, n_correct)
        kernel, m_f = fit_kernel(data)
        n, c = smoothed_counts(data.n_labeled, data.n_correct, self.strength)
        if self.pool:
            c = pool_sparse(data.codes, n, c, kernel.weights, self.pool_below, self.pool_neighbours)
        dist = distance(data.codes, data.codes, kernel.weights)
        theta, latent, mode = self._hyperparameters(dist, kernel.scale, m_f, n, c)
        return self._predict(data, data.codes, kernel.weights, theta, m_f, latent, mode)


fit_paper_betagp = _fitter(PaperBetaGP)
fit_paper_betagp.__doc__ = """The paper's BetaGP: every arm's counts smoothed, latent values at every arm.

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

Examples
--------
>>> import numpy as np
>>> codes = np.array([[0, 0], [0, 1], [1, 0], [1, 1]])
>>> est = fit_paper_betagp(codes, [2, 2], [10, 10, 10, 0], [9, 5, 7, 0], seed=0, n_draws=50)
>>> est.draws.shape
(50, 4)
"""
fit_paper_betagp_sl = _fitter(PaperBetaGP, supervise_scale=True)
fit_paper_betagp_sl.__doc__ = fit_paper_betagp.__doc__.replace(
    "The paper's BetaGP:", "The paper's BetaGP-SL (eq. 11 over all arms):").replace(
    "fit_paper_betagp(", "fit_paper_betagp_sl(")
fit_paper_betagp_slp = _fitter(PaperBetaGP, supervise_scale=True, pool=True)
fit_paper_betagp_slp.__doc__ = fit_paper_betagp.__doc__.replace(
    "The paper's BetaGP:", "The paper's BetaGP-SLP (SL, sparse arms pooled from 3 neighbours):").replace(
    "fit_paper_betagp(", "fit_paper_betagp_slp(")

#: The paper's own forms, beside :data:`LADDER`'s: same call signature.
PAPER_LADDER = {
    "BetaGP (paper)": fit_paper_betagp,
    "BetaGP-SL (paper)": fit_paper_betagp_sl,
    "BetaGP-SLP (paper)": fit_paper_betagp_slp,
}
