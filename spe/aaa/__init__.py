"""The AAA paper's own estimators of an accuracy surface (Piratla et al., NeurIPS 2021).

The ladder CPredictor, Beta-I, BernGP, BetaGP, BetaGP-SL and BetaGP-SLP, each from
arm-level counts to an :class:`~spe.surface.ArmEstimate`, and the paper's variance-based
exploration. They are the baselines :func:`spe.accuracy_surface` is measured against
(``benchmarks/surface.py``); spe's own surface model is in :mod:`spe.surface`.
:data:`LADDER`'s GPs fit latent values at the labeled arms only; :data:`PAPER_LADDER`
holds BetaGP, BetaGP-SL and BetaGP-SLP as the paper's section 4.4 sets them up (every
arm's counts smoothed with ``[lambda rho_hat, lambda]``, the scales supervised over all
arms; ``_paper``).

Data flow: arm codes and counts -> a Hamming kernel over attribute combinations
(``_kernel``) -> the GP fits (``_berngp``, ``_betagp``; Beta-binomial likelihoods in
``_beta_binomial``, sparse arms pooled from neighbours in ``_observation_pooling``) ->
:data:`LADDER` -> :func:`realised` (the accuracy over an arm's own items) ->
:func:`suggest_items` (which items to label next).

Examples
--------
>>> import numpy as np
>>> from spe.aaa import LADDER
>>> codes = np.array([[0, 0], [0, 1], [1, 0], [1, 1]])
>>> est = LADDER["Beta-I"](codes, np.array([2, 2]), np.array([10, 10, 10, 0]), np.array([9, 5, 7, 0]), seed=0)
>>> est.mean.shape
(4,)
"""

from ._baselines import confidence_only, fit_beta_i, fit_cpredictor
from ._berngp import fit_berngp
from ._betagp import BetaGP, fit_betagp, fit_betagp_sl, fit_betagp_slp
from ._explore import pick_items, suggest_items, variance_policy
from ._ladder import LADDER, realised
from ._paper import (PAPER_LADDER, PaperBetaGP, fit_paper_betagp, fit_paper_betagp_sl, fit_paper_betagp_slp,
                     smoothed_counts)

__all__ = ["LADDER", "realised", "fit_cpredictor", "fit_beta_i", "fit_berngp", "fit_betagp", "fit_betagp_sl",
           "fit_betagp_slp", "BetaGP", "confidence_only", "suggest_items", "variance_policy", "pick_items",
           "PAPER_LADDER", "PaperBetaGP", "fit_paper_betagp", "fit_paper_betagp_sl", "fit_paper_betagp_slp",
           "smoothed_counts"]
