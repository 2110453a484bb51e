"""The AAA paper's baselines, and the confidence-only surface (no labels at all).

- **CPredictor** (paper 4.3): every arm gets the accuracy of all labeled items; draws
  from its Beta(1 + right, 1 + wrong) posterior, the same draw for every arm.
- **Beta-I** (paper 3, after Ji et al.): an independent Beta per arm with the paper's
  warm-start smoothing (4.4): "for all arms we use a default smoothing to [lambda rho_hat,
  lambda] where lambda = 0.1", i.e. lambda rho_hat right answers out of lambda pseudo-labels,
  the prior ``Beta(lambda rho_hat, lambda (1 - rho_hat))`` with rho_hat the labeled items'
  accuracy; the posterior adds the arm's own counts.
- **Confidence-only**: each arm's mean confidence, taken at face value as P(correct), with
  the spread of its realised accuracy, ``sum p_i (1 - p_i) / n^2`` (normal, clipped to [0, 1]).
  It uses no label; a calibrated classifier would make it the floor's estimator.
"""

from __future__ import annotations

import numpy as np

from ..surface import ArmEstimate
from ._berngp import N_DRAWS
from ._kernel import arm_data

#: The paper's warm-start smoothing strength (4.4: "a randomly picked low value").
BETA_I_STRENGTH = 0.1


def fit_cpredictor(codes, n_levels, n_labeled, n_correct, seed=0, n_draws: int = N_DRAWS) -> ArmEstimate:
    """CPredictor: the global labeled accuracy for every arm (Beta(1 + right, 1 + wrong) draws).

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
    >>> from spe.aaa import fit_cpredictor
    >>> fit_cpredictor(codes, [2, 2], [10, 10, 10, 0], [9, 5, 7, 0], seed=0).mean.round(3).tolist()
    [0.688, 0.688, 0.688, 0.688]
    """
    data = arm_data(codes, n_levels, n_labeled, n_correct)
    right, total = data.global_accuracy()
    rng = np.random.default_rng(seed)
    draw = rng.beta(1 + right, 1 + total - right, size=(n_draws, 1))
    mean = np.full(data.n_arms, (1 + right) / (2 + total))
    return ArmEstimate(mean, np.repeat(draw, data.n_arms, axis=1), "CPredictor")


def fit_beta_i(codes, n_levels, n_labeled, n_correct, seed=0, n_draws: int = N_DRAWS,
               strength: float = BETA_I_STRENGTH) -> ArmEstimate:
    """Beta-I: per arm ``Beta(strength rho_hat + c_a, strength (1 - rho_hat) + n_a - c_a)``.

    Parameters
    ----------
    codes, n_levels, n_labeled, n_correct, seed, n_draws
        As in :func:`fit_cpredictor`.
    strength : float
        lambda of the paper's warm-start smoothing (0.1).

    Returns
    -------
    ArmEstimate

    Raises
    ------
    ValueError
        A non-positive ``strength`` or bad counts.

    Examples
    --------
    >>> import numpy as np
    >>> codes = np.array([[0, 0], [0, 1], [1, 0], [1, 1]])
    >>> from spe.aaa import fit_beta_i
    >>> fit_beta_i(codes, [2, 2], [10, 10, 10, 0], [9, 5, 7, 0], seed=0).mean.round(3).tolist()
    [0.898, 0.502, 0.7, 0.7]
    """
    data = arm_data(codes, n_levels, n_labeled, n_correct)
    if not strength > 0:
        raise ValueError(f"strength must be positive, got {strength!r}")
    right, total = data.global_accuracy()
    rho = right / total
    # rho_hat of exactly 0 or 1 would give a Beta parameter of 0 in arms without labels
    rho = min(max(rho, 0.5 / total), 1 - 0.5 / total)
    a = strength * rho + data.n_correct
    b = strength * (1 - rho) + data.n_labeled - data.n_correct
    rng = np.random.default_rng(seed)
    return ArmEstimate(a / (a + b), rng.beta(a, b, size=(n_draws, data.n_arms)), "Beta-I")


def confidence_only(item_arm, confidence, n_arms: int | None = None, seed=0, n_draws: int = N_DRAWS) -> ArmEstimate:
    """Each arm's mean confidence, with the spread of a mean of Bernoulli(confidence) outcomes.

    Parameters
    ----------
    item_arm : (N,) arm index of each item
    confidence : (N,) the classifier's confidence in its prediction, in [0, 1]
    n_arms : number of arms (default ``item_arm.max() + 1``)
    seed, n_draws : draws of each arm's realised accuracy (normal, clipped to [0, 1])

    Returns
    -------
    ArmEstimate

    Examples
    --------
    >>> from spe.aaa import confidence_only
    >>> confidence_only([0, 0, 1], [0.9, 0.7, 0.6], seed=0).mean.round(2).tolist()
    [0.8, 0.6]
    """
    item_arm = np.asarray(item_arm, dtype=np.int64)
    p = np.asarray(confidence, dtype=float)
    if item_arm.shape != p.shape or p.ndim != 1:
        raise ValueError(f"item_arm and confidence must be (N,) arrays of equal length, got {item_arm.shape}, "
                         f"{p.shape}")
    if not np.isfinite(p).all() or p.min() < 0 or p.max() > 1:
        raise ValueError("confidence must lie in [0, 1]")
    m = int(item_arm.max()) + 1 if n_arms is None else int(n_arms)
    size = np.bincount(item_arm, minlength=m).astype(float)
    if (size == 0).any():
        raise ValueError("every arm needs at least one item")
    mean = np.bincount(item_arm, p, m) / size
    sd = np.sqrt(np.bincount(item_arm, p * (1 - p), m)) / size
    rng = np.random.default_rng(seed)
    draws = np.clip(mean + sd * rng.standard_normal((n_draws, m)), 0.0, 1.0)
    return ArmEstimate(mean, draws, "confidence-only")
