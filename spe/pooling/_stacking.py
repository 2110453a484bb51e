"""Model weights from the labeled items' leave-one-out predictive densities.

Yao, Vehtari, Simpson & Gelman (2018). Each model's leave-one-out predictive density
p_k(y_i | s_i, D_-i) is estimated by PSIS-LOO from its posterior draws. *Stacking*
chooses the weights w (on the simplex) maximising sum_i log sum_k w_k p_k(y_i | ...);
*pseudo-BMA with the Bayesian bootstrap* (the default here) weights models by exp(elpd)
averaged over Bayesian-bootstrap resamples of the labeled items, so the uncertainty of
the LOO estimate itself (large with tens of labels) softens the weights. ArviZ does both; this
module only hands it pointwise log-likelihoods, whichever ArviZ generation is installed
(0.x: ``arviz.compare``; 1.x: ``arviz_stats.compare``).

The pointwise log-likelihood of a labeled item under a draw is log P(y_i | s_i, draw):
the label given the score, which every score model defines. For the mixture that is also
the exact leave-one-out ratio, because leaving a labeled item out keeps its score as an
unlabeled one: p(s_i, y_i | theta) / p(s_i | theta) = P(y_i | s_i, theta).
"""

from __future__ import annotations

import warnings

import numpy as np

METHODS = ("BB-pseudo-BMA", "stacking")


def pointwise_log_likelihood(prob, labels) -> np.ndarray:
    """(S, L) log P(y_i | s_i) from (S, L) probabilities of y = 1 and labels 0/1.

    Probabilities are clipped to [1e-12, 1 - 1e-12], so a confident mistake costs about
    27.6 nats, not infinity.

    Examples
    --------
    >>> from spe.pooling import pointwise_log_likelihood
    >>> pointwise_log_likelihood([[0.9, 0.2]], [1, 0]).round(3)
    array([[-0.105, -0.223]])
    """
    p = np.clip(np.asarray(prob, float), 1e-12, 1.0 - 1e-12)
    y = np.asarray(labels, float)[None, :]
    return y * np.log(p) + (1.0 - y) * np.log1p(-p)


def import_arviz():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)  # arviz 0.2x announces its refactor
        import arviz
    return arviz


def _compare(log_lik: dict, method: str, seed: int):
    az = import_arviz()
    if int(az.__version__.split(".")[0]) >= 1:  # pragma: no cover - ArviZ 1.x only
        from arviz_stats import compare

        trees = {k: az.from_dict({"posterior": {"_": np.zeros((1, v.shape[0]))},
                                  "log_likelihood": {"y": v[None]}}) for k, v in log_lik.items()}
        return compare(trees, method=method)
    idatas = {k: az.from_dict(posterior={"_": np.zeros((1, v.shape[0]))},
                              log_likelihood={"y": v[None]}) for k, v in log_lik.items()}
    np.random.seed(seed)  # arviz 0.x's Bayesian bootstrap draws from the global state
    return az.compare(idatas, ic="loo", method=method, seed=seed)


def stacking_weights(log_lik: dict[str, np.ndarray], method: str = "BB-pseudo-BMA", seed: int = 0) -> dict:
    """Weights per model from ``{name: (S, L) pointwise log-likelihood}``.

    The draws of each model must be equally weighted (resample importance draws first).

    Parameters
    ----------
    log_lik : dict of str to ndarray of shape (S, L)
        Pointwise log-likelihoods of the L labeled items under S draws of each model.
    method : {"BB-pseudo-BMA", "stacking"}, default="BB-pseudo-BMA"
        Pseudo-BMA with the Bayesian bootstrap, or Bayesian stacking (Yao et al. 2018).
    seed : int, default=0
        Seed of the Bayesian bootstrap.

    Returns
    -------
    dict of str to float
        Weights summing to one.

    Raises
    ------
    ValueError
        If ``method`` is not one of the two.

    See Also
    --------
    pointwise_log_likelihood, combine

    Examples
    --------
    20 labels: one model predicts them well, the other says 1/2 everywhere.

    >>> import numpy as np
    >>> from spe.pooling import pointwise_log_likelihood, stacking_weights
    >>> labels = np.r_[np.ones(10), np.zeros(10)]
    >>> good = np.tile(np.r_[np.full(10, 0.9), np.full(10, 0.1)], (100, 1))
    >>> log_lik = {"good": pointwise_log_likelihood(good, labels),
    ...            "vague": pointwise_log_likelihood(np.full((100, 20), 0.5), labels)}
    >>> {k: round(v, 2) for k, v in stacking_weights(log_lik).items()}
    {'good': 1.0, 'vague': 0.0}
    """
    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}, got {method!r}")
    names = list(log_lik)
    if len(names) == 1:
        return {names[0]: 1.0}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # few labels: ArviZ warns about k-hat and n; we report
        table = _compare(log_lik, method, seed)
    weights = np.array([float(table.loc[k, "weight"]) for k in names])
    weights = np.clip(np.nan_to_num(weights, nan=0.0), 0.0, None)
    if weights.sum() <= 0:
        weights = np.ones(len(names))
    return dict(zip(names, (weights / weights.sum()).tolist()))
