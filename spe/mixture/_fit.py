"""The SPE score mixture as one score model: family choice, misfit pricing, posterior.

    families (BIC, plain posterior) -> misfit of the marginal (``_misfit``)
    -> coarsened MAP (unlabeled likelihood ** zeta) -> importance sampling / emcee

What leaves this module is a :class:`MixtureFit`: weighted parameter draws and
P(y = 1 | score) under each of them, the interface every score model offers.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._util.progress import NO_BAR
from ..scores import ScoreData, pooled
from . import _misfit as M
from ._map import MapFit, fit_map, starting_points
from ._posterior import Posterior, sample_posterior
from ._selection import SelectionRow, candidate_pairs, select_families

_BLOCK_ELEMENTS = 2_000_000
#: The multistart MAP search runs on scores pooled into this many fine bins; its winner is
#: polished on the exact scores (a few L-BFGS-B iterations), so the MAP is unchanged while
#: the search costs a fraction (bins of ~1/256 of the mass move the optimum negligibly).
SEARCH_GROUPS = 256


@dataclass
class MixtureFit:
    """A fitted (possibly coarsened) mixture and its posterior draws.

    Made by :func:`fit_mixture` (see its Examples); the score-model interface (``weights``,
    ``prob_positive``, ``draws``, ``describe``) is what :func:`spe.pooling.combine` pools.

    Attributes
    ----------
    map_fit : MapFit
        The chosen families' MAP (under zeta when coarsened).
    selection : list
        One row per family pair tried: log-likelihood, BIC, error.
    posterior : Posterior
    misfit : Misfit

    Examples
    --------
    >>> import numpy as np
    >>> from spe.mixture import fit_mixture
    >>> from spe.scores import prepare
    >>> rng = np.random.default_rng(1)
    >>> y = rng.uniform(size=300) < 0.5
    >>> scores = np.where(y, rng.normal(3, 1, 300), rng.normal(0, 1, 300))
    >>> data = prepare(scores, np.r_[y[:10], np.full(290, np.nan)])  # the first 10 labeled
    >>> fit = fit_mixture(data, families="truncnorm", n_draws=300, rng=rng)
    >>> fit.name, fit.n_draws, sorted(fit.draws())
    ('mixture', 300, ['neg.mu', 'neg.sigma', 'pi', 'pos.mu', 'pos.sigma'])
    """

    data: ScoreData
    map_fit: MapFit
    selection: list[SelectionRow]
    posterior: Posterior
    misfit: M.Misfit
    name: str = "mixture"

    @property
    def model(self):
        return self.map_fit.model

    @property
    def weights(self) -> np.ndarray:
        return self.posterior.weights

    @property
    def n_draws(self) -> int:
        return self.posterior.n_draws

    def chain_index(self) -> np.ndarray | None:
        """(walkers, steps) indices of the draws when emcee made them, else None.

        emcee's retained draws are its last steps, walker by walker; only complete steps
        are indexed, so every chain has the same length (ArviZ's R-hat needs that).
        """
        post = self.posterior
        if post.method != "emcee" or post.chains is None:
            return None
        walkers = post.chains.shape[1]
        steps = post.n_draws // walkers
        if steps < 1:
            return None
        return np.arange(post.n_draws - steps * walkers, post.n_draws).reshape(steps, walkers).T

    def prob_positive(self, scores, draws=None) -> np.ndarray:
        """(M, n) P(y = 1 | s) under each draw (or the draws indexed by ``draws``);
        scores outside the frame are clamped to it."""
        frame = self.data.frame
        z = np.clip(frame.to_unit(scores), 0.0, 1.0)
        censored = frame.censoring(scores)
        theta = self.posterior.theta if draws is None else self.posterior.theta[draws]
        out = np.empty((theta.shape[0], z.size))
        step = max(1, _BLOCK_ELEMENTS // max(theta.shape[0], 1))
        for start in range(0, z.size, step):
            sl = slice(start, start + step)
            out[:, sl] = self.model.prob_positive(theta, z[sl], censored[sl])
        return out

    def draws(self) -> dict[str, np.ndarray]:
        return {name: self.posterior.theta[:, j] for j, name in enumerate(self.model.names)}

    def describe(self) -> dict:
        post = self.posterior
        return {
            "model": "two-component score mixture (SPE)",
            "families": {"negative": self.model.spec[0], "positive": self.model.spec[1]},
            "map_params": self.map_fit.params,
            "misfit": self.misfit.as_dict(),
            "inference": post.method,
            "proposal": post.proposal,
            "adaptations": post.adaptations,
            "pareto_khat": None if np.isnan(post.khat) else post.khat,
            "importance_khat": None if np.isnan(post.importance_khat) else post.importance_khat,
            "ess": post.ess,
            "map_start_spread": self.map_fit.start_spread,
        }


def fit_mixture(data: ScoreData, *, families="auto", prior=None, coarsen=True, n_draws=1000,
                rng, inference="auto", proposal="student_t", bar=None) -> MixtureFit:
    """Choose families by BIC, price the misfit, and draw the (coarsened) posterior.

    ``bar``: a progress bar (:func:`spe._util.progress.stage_bar`) advanced once per family
    pair, once for the coarsened refit and once for sampling.

    Parameters
    ----------
    data : spe.scores.ScoreData
        From :func:`spe.scores.prepare`.
    families : str, pair or list, default="auto"
        See :func:`candidate_pairs`.
    prior : dict, optional
        Prior overrides (see :class:`MixtureModel`).
    coarsen : bool, default=True
        Raise the unlabeled likelihood to zeta when the marginal misfits (:class:`Misfit`).
    n_draws : int, default=1000
    rng : numpy.random.Generator
    inference : {"auto", "is", "emcee"}, default="auto"
        See :func:`sample_posterior`.

    Returns
    -------
    MixtureFit

    Raises
    ------
    FitError
        If no family pair could be fitted.
    ValueError
        For an unknown family or ``inference``.

    See Also
    --------
    spe.fit : pools this with a calibration map.
    spe.calibration.fit_calibration_map : the other kind of score model.

    Examples
    --------
    >>> import numpy as np
    >>> from spe.scores import prepare
    >>> rng = np.random.default_rng(0)
    >>> y = rng.uniform(size=400) < 0.3  # 30% positives, scores N(2, 1) vs N(0, 1), 20 labeled
    >>> scores = np.where(y, rng.normal(2, 1, 400), rng.normal(0, 1, 400))
    >>> data = prepare(scores, np.where(np.arange(400) < 20, y, np.nan))
    >>> from spe.mixture import fit_mixture
    >>> fit = fit_mixture(data, families="truncnorm", n_draws=500, rng=rng)
    >>> fit.map_fit.model.spec, fit.posterior.method
    (('truncnorm', 'truncnorm'), 'importance sampling')
    >>> fit.misfit.verdict()
    'the mixture fits the score distribution within sampling noise'
    >>> (fit.weights @ fit.prob_positive([0.0, 2.0])).round(1)  # P(y = 1 | score)
    array([0.1, 0.8])
    """
    bar = bar if bar is not None else NO_BAR
    pairs = candidate_pairs(families, open_scale=data.frame.transform == "logit")
    search = pooled(data, SEARCH_GROUPS)
    bar.set_postfix_str("mixture: fitting family pairs")
    best, rows = select_families(data, pairs, prior=prior, search_data=search, on_pair=bar.update)
    misfit = M.measure(lambda z: best.model.marginal_cdf(best.theta, z), data.z, data.n_total,
                       best.model.n_params, data.censored)
    if coarsen and misfit.zeta < 1.0:
        coarse = best.model.coarsened(misfit.zeta)
        # The plain MAP, and the starts that do not lean on the unlabeled shape.
        starts = [("plain MAP", best.u)] + [(label, u) for label, u in starting_points(coarse, search)
                                            if label.startswith(("labeled", "top-0.50"))]
        best = fit_map(coarse, data, starts=starts, search_data=search)
    bar.update()
    bar.set_postfix_str("mixture: sampling the posterior")
    posterior = sample_posterior(best, data, n_draws=n_draws, rng=rng, inference=inference,
                                 proposal=proposal, pooled_data=search)
    bar.update()
    return MixtureFit(data=data, map_fit=best, selection=rows, posterior=posterior, misfit=misfit)
