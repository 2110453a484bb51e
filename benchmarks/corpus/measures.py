"""What one ``spe.fit`` on a corpus task is judged by, against the truth of all its items.

The truths are those of the project's real-score and threshold benchmarks: the sample
AP and AUROC of ``spe.metrics.sweeps`` over every held-out item, the prevalence; a 90%
interval covers when ``lower - 1e-12 <= truth <= upper + 1e-12``. A threshold chosen under
``min_precision`` *meets* it when the precision of all items at ``score >= t`` is at least
the target (labeled items included, as ``benchmarks/thresholds.py`` does). ECE: 10
equal-width bins over the unlabeled items. Platt scaling: a sigmoid fitted to the labeled
items by maximum likelihood on Platt's (1999) smoothed targets, in logit(score) for
probabilities and in the score for margins.
"""

from __future__ import annotations

import warnings
import zlib

import numpy as np

from ..harness.metrics import covers, ece
from ..harness.metrics import exact_ap as _exact_ap
from ..harness.metrics import exact_auc as exact_auroc

LEVEL = 0.9
MIN_PRECISION = 0.9
CONFIDENCES = (0.8, 0.9, 0.95)
METRICS = ("ap", "auroc", "prevalence")


def draw_labels(n: int, budget: int, task_id: str, family: str, trial: int) -> np.ndarray:
    """Sorted indices of ``budget`` items drawn without replacement, seeded by
    (task, family, budget, trial)."""
    rng = np.random.default_rng([zlib.crc32(task_id.encode()), zlib.crc32(family.encode()), budget, trial])
    return np.sort(rng.choice(n, min(budget, n), replace=False))


def hide_all_but(labels: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """The labels a user would hold: those at ``idx``, NaN elsewhere."""
    observed = np.full(labels.size, np.nan)
    observed[idx] = labels[idx]
    return observed


def exact_ap(scores: np.ndarray, labels: np.ndarray) -> float:
    """The sample average precision of labeled scores (0 when no positive: a label draw
    with none is still a baseline row)."""
    return _exact_ap(scores, labels) if np.any(labels == 1) else 0.0


def truths(scores: np.ndarray, labels: np.ndarray) -> dict:
    """{'ap', 'auroc', 'prevalence'} of all items."""
    return {"ap": exact_ap(scores, labels), "auroc": exact_auroc(scores, labels), "prevalence": float(labels.mean())}


def interval_measures(estimates: dict, truth: dict) -> dict:
    """Coverage, absolute error of the point value and width of each metric's interval.

    Parameters
    ----------
    estimates : dict
        metric -> an object with ``value``, ``lower`` and ``upper`` (``spe`` Estimate).
    truth : dict
        metric -> true value.

    Returns
    -------
    dict
        ``{metric}_cov`` (bool), ``{metric}_err`` and ``{metric}_width`` (float).
    """
    out = {}
    for m, e in estimates.items():
        out[f"{m}_cov"] = covers(e.lower, e.upper, truth[m])
        out[f"{m}_err"] = float(abs(e.value - truth[m]))
        out[f"{m}_width"] = float(e.upper - e.lower)
    return out


# ---- thresholds ------------------------------------------------------------------------
def true_rates(scores: np.ndarray, labels: np.ndarray, t: float) -> tuple[float, float]:
    """(precision, recall) of all items when predicting positive at ``score >= t``."""
    sel = scores >= t
    tp = float(labels[sel].sum())
    return (tp / sel.sum() if sel.any() else 0.0), tp / max(float(labels.sum()), 1.0)


def feasible_truth(scores: np.ndarray, labels: np.ndarray, min_precision: float = MIN_PRECISION) -> bool:
    """Whether some threshold (a distinct score) reaches ``min_precision`` on all items."""
    order = np.argsort(-scores, kind="stable")
    s, y = scores[order], labels[order]
    last = np.r_[s[1:] != s[:-1], True]  # the end of each tied block
    tp, k = np.cumsum(y)[last], np.flatnonzero(last) + 1
    return bool(np.any(tp / k >= min_precision - 1e-12))


def threshold_measures(decisions: dict, scores: np.ndarray, labels: np.ndarray,
                       min_precision: float = MIN_PRECISION) -> dict:
    """Per confidence c: ``feasible_c``, ``met_c`` (None when infeasible), ``recall_c``.

    Parameters
    ----------
    decisions : dict
        confidence -> the threshold returned (None when ``choose_threshold`` found none).
    scores, labels : ndarray
        All items and their true labels.
    min_precision : float

    Returns
    -------
    dict
    """
    out = {}
    for c, t in decisions.items():
        out[f"feasible_{c}"] = t is not None
        if t is None:
            out[f"met_{c}"], out[f"recall_{c}"] = None, None
            continue
        p, r = true_rates(scores, labels, t)
        out[f"met_{c}"] = bool(p >= min_precision - 1e-12)
        out[f"recall_{c}"] = float(r)
    return out


# ---- calibration -------------------------------------------------------------------------
def _platt_input(scores: np.ndarray, kind: str) -> np.ndarray:
    if kind == "probability":
        s = np.clip(scores, 1e-6, 1 - 1e-6)
        return np.log(s / (1 - s))
    return np.asarray(scores, float)


def platt(scores: np.ndarray, idx: np.ndarray, labels: np.ndarray, kind: str) -> np.ndarray:
    """Platt (1999) fitted on the labeled items ``idx``; P(y = 1) for every item.

    Parameters
    ----------
    scores : ndarray
    idx : ndarray
        The labeled items.
    labels : ndarray
        True labels (only ``labels[idx]`` is read).
    kind : str
        'probability' (fit in logit) or 'margin' (fit in the score).

    Returns
    -------
    ndarray
    """
    from scipy import optimize

    x_all = _platt_input(scores, kind)
    scale = max(float(np.std(x_all)), 1e-12)  # conditioning only: the fitted sigmoid is the same
    x, t = x_all[idx] / scale, labels[idx]
    n_pos = t.sum()
    target = np.where(t == 1, (n_pos + 1) / (n_pos + 2), 1 / (t.size - n_pos + 2))

    def loss(ab):
        eta = ab[0] * x + ab[1]
        return np.sum(np.logaddexp(0, eta) - target * eta)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ab = optimize.minimize(loss, np.array([1.0, 0.0]), method="BFGS").x
    return 1 / (1 + np.exp(-(ab[0] * x_all / scale + ab[1])))


def calibration_measures(prob_positive: np.ndarray, scores: np.ndarray, labels: np.ndarray, idx: np.ndarray,
                         kind: str) -> dict:
    """ECE on the unlabeled items of spe's ``prob_positive()``, of the raw scores
    (probabilities only, else None) and of Platt scaling on the labeled items."""
    unlabeled = np.ones(scores.size, bool)
    unlabeled[idx] = False
    y = labels[unlabeled]
    return {"ece_spe": ece(prob_positive[unlabeled], y),
            "ece_raw": ece(scores[unlabeled], y) if kind == "probability" else None,
            "ece_platt": ece(platt(scores, idx, labels, kind)[unlabeled], y)}
