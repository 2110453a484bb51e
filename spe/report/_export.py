"""A score model's posterior draws as ArviZ ``InferenceData`` (``az.loo``, ``az.compare``).

Groups: ``posterior`` (the model's parameters), ``log_likelihood`` (log P(y_i | s_i) of
each labeled item) and ``observed_data``; raw importance draws add their ``log_weight``
to ``sample_stats``. MCMC draws keep one chain per emcee walker.
"""

from __future__ import annotations

import numpy as np

from ..pooling import import_arviz, pointwise_log_likelihood


def inference_data(fit, labeled_scores, labels, draw_index, log_weight=None):
    """InferenceData of ``fit``'s draws and its labeled items.

    ``draw_index``: (draws,) indices for one chain, or (chains, draws) for several (one
    per emcee walker, so ``az.summary`` reports R-hat and per-chain ESS).
    """
    index = np.asarray(draw_index)
    index = index[None, :] if index.ndim == 1 else index
    groups = {"posterior": {k: v[index] for k, v in fit.draws().items()}}
    if labels.size:
        loglik = pointwise_log_likelihood(fit.prob_positive(labeled_scores), labels)
        groups["log_likelihood"] = {"y": loglik[index]}
        groups["observed_data"] = {"y": labels}
    if log_weight is not None:
        groups["sample_stats"] = {"log_weight": np.asarray(log_weight)[None, :]}
    az = import_arviz()
    if int(az.__version__.split(".")[0]) >= 1:  # pragma: no cover - ArviZ 1.x only
        return az.from_dict(groups)
    return az.from_dict(**groups)


def export_draws(fit, data, resampled=None, labeled_inputs=None):
    """InferenceData of one score model of a fit on ``data`` (a :class:`~spe.scores.ScoreData`).

    ``labeled_inputs``: what ``fit`` takes for the labeled items (default: their scores;
    the label models of :func:`spe.fit_many` take item indices).
    emcee draws keep their chains; weighted draws (importance sampling, or a chain on
    pooled scores reweighted to the exact ones) are exported as ``resampled`` (indices
    resampled by weight) or, when None, raw with their ``log_weight``.

    Examples
    --------
    >>> import numpy as np
    >>> import spe
    >>> from spe.datasets import load_demo
    >>> scores, truth = load_demo()
    >>> labels = np.where(np.arange(scores.size) % 60 == 0, truth, np.nan)  # 30 labels
    >>> res = spe.fit(scores, labels, model="platt", n_draws=200, seed=0, progress=False)
    >>> from spe.report import export_draws
    >>> idata = export_draws(res.fits["platt"], res.data)
    >>> "posterior" in idata.groups()
    True
    """
    chains = fit.chain_index()
    if chains is not None and np.ptp(fit.weights) == 0:
        index, log_weight = chains, None  # equal weights: nothing to resample
    elif resampled is None:
        index, log_weight = np.arange(fit.n_draws), np.log(fit.weights)
    else:
        index, log_weight = resampled, None
    inputs = data.labeled_scores if labeled_inputs is None else labeled_inputs
    return inference_data(fit, inputs, data.labeled_labels, index, log_weight)
