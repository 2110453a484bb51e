"""The truth's metrics and interval scores that the benchmarks compare estimates against."""

from __future__ import annotations

import numpy as np
from scipy import stats

from spe.metrics import DEFAULT_RECALL_GRID
from spe.metrics import labeled_sweep, sample_auroc, sample_average_precision

GRID = DEFAULT_RECALL_GRID
LEVEL = 0.9
ALPHA = 1 - LEVEL
INNER = (GRID >= 0.05 - 1e-9) & (GRID <= 0.95 + 1e-9)


# ---- metric functions (tested in tests/benchmarks/test_real_benchmark.py) -------------------
def pr_area(estimate, truth) -> float:
    """Area between two precision curves on the recall grid."""
    return float(np.trapezoid(np.abs(np.asarray(estimate) - np.asarray(truth)), GRID))


def band_coverage(lower, upper, truth) -> float:
    """Share of recall points in [0.05, 0.95] where the truth lies inside the band."""
    t = np.asarray(truth)[INNER]
    return float(np.mean((t >= np.asarray(lower)[INNER] - 1e-12) & (t <= np.asarray(upper)[INNER] + 1e-12)))


def interval_score(lower, upper, truth, alpha=ALPHA) -> float:
    """Mean interval score over recall points in [0.05, 0.95] (lower is better)."""
    lo, hi, t = (np.asarray(a, float)[INNER] for a in (lower, upper, truth))
    return float(np.mean((hi - lo) + 2 / alpha * np.clip(lo - t, 0, None) + 2 / alpha * np.clip(t - hi, 0, None)))


def covers(lower, upper, value) -> bool:
    return bool(lower - 1e-12 <= value <= upper + 1e-12)


def exact_ap(scores, labels) -> float:
    return float(sample_average_precision(labeled_sweep(scores, labels))[0])


def exact_auc(scores, labels) -> float:
    return float(sample_auroc(labeled_sweep(scores, labels))[0])


def accuracy_at(scores, labels, threshold) -> float:
    return float(np.mean((np.asarray(scores) >= threshold) == (np.asarray(labels) == 1)))


def ece(scores, labels, n_bins=10) -> float:
    """Expected calibration error of probability scores, equal-width bins."""
    s, y = np.asarray(scores, float), np.asarray(labels, float)
    b = np.minimum((s * n_bins).astype(int), n_bins - 1)
    n = np.bincount(b, minlength=n_bins)
    gap = np.abs(np.bincount(b, weights=s, minlength=n_bins) - np.bincount(b, weights=y, minlength=n_bins))
    return float(gap.sum() / max(n.sum(), 1))


def exact_metrics(s, y, threshold=0.5):
    """Accuracy at ``threshold``, AUROC, AUPRC and ECE of scores ``s`` on labels ``y``."""
    return {"accuracy": accuracy_at(s, y, threshold), "auc": exact_auc(s, y), "auprc": exact_ap(s, y),
            "ece": ece(s, y)}


def beta_interval(k, n):
    """The central ``LEVEL`` interval of Beta(k + 1, n - k + 1): a rate from k of n."""
    return stats.beta.ppf([ALPHA / 2, 1 - ALPHA / 2], k + 1, n - k + 1)


def mean_defined(values):
    """Mean of the values that are not None or NaN (NaN when there are none)."""
    vals = [v for v in values if v is not None and not (isinstance(v, float) and np.isnan(v))]
    return float(np.mean(vals)) if vals else float("nan")
