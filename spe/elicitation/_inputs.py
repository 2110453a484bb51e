"""What :func:`spe.elicit_metric` is given, checked once at the boundary, and the query
space it builds from it (the raw probabilities, or SPE's recalibrated ones with labels)."""

from __future__ import annotations

import numbers

import numpy as np

from ..multiclass import as_class_labels
from ._families import METRIC_FAMILIES

#: Rows of class probabilities may miss 1 by float32 rounding, not by more.
ROW_TOLERANCE = 1e-3


def as_probabilities(probs, what: str = "probs") -> np.ndarray:
    """An (N, K) float array of class probabilities, K >= 2, rows renormalised to sum to 1."""
    try:
        arr = np.asarray(probs, dtype=float)
    except (TypeError, ValueError):
        raise TypeError(f"{what} must be an (N, K) array of class probabilities (numbers)") from None
    if arr.ndim != 2:
        raise ValueError(f"{what} must be an (N, K) array (one row of class probabilities per item), "
                         f"got {arr.ndim} dimension(s), shape {arr.shape}")
    if arr.shape[1] < 2:
        raise ValueError(f"{what} needs K >= 2 classes (columns), got {arr.shape[1]}; for one score per item "
                         "pass the columns [1 - p, p]")
    if arr.shape[0] < 2:
        raise ValueError(f"{what} needs at least 2 items (rows), got {arr.shape[0]}")
    bad = ~np.isfinite(arr)
    if bad.any():
        row = int(np.flatnonzero(bad.any(axis=1))[0])
        raise ValueError(f"{what} must be finite: {int(bad.sum())} NaN/inf value(s), the first in row {row}")
    if arr.min() < -ROW_TOLERANCE or arr.max() > 1 + ROW_TOLERANCE:
        raise ValueError(f"{what} must be probabilities in [0, 1], got values in [{arr.min():.4g}, {arr.max():.4g}] "
                         "(logits? apply a softmax first)")
    rows = arr.sum(axis=1)
    off = np.abs(rows - 1.0)
    if off.max() > ROW_TOLERANCE:
        row = int(np.argmax(off))
        raise ValueError(f"{what}: each row must sum to 1 (class probabilities of one item); row {row} sums to "
                         f"{rows[row]:.6g}")
    arr = np.clip(arr, 0.0, None)
    return arr / arr.sum(axis=1, keepdims=True)


def check_tolerance(tolerance) -> float:
    if isinstance(tolerance, bool) or not isinstance(tolerance, numbers.Real) or not 0 < tolerance < 0.5:
        raise ValueError(f"tolerance (the width at which a search stops) must be a number in (0, 0.5), "
                         f"e.g. 0.01, got {tolerance!r}")
    return float(tolerance)


def check_family(family, k: int) -> str:
    if family not in METRIC_FAMILIES:
        raise ValueError(f"family must be one of {METRIC_FAMILIES}, got {family!r}")
    return family


def check_classes(classes, k: int) -> list[str]:
    if classes is None:
        return [str(j) for j in range(k)]
    names = [str(c) for c in classes]
    if len(names) != k or len(set(names)) != k:
        raise ValueError(f"classes must be {k} distinct names (one per column of probs), got {classes!r}")
    return names


def check_positive_int(value, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 1:
        raise ValueError(f"{name} must be a positive integer, got {value!r}")
    return int(value)


def recalibrated(probs, labels, seed):
    """(SPE-recalibrated probabilities, the fit) from the classifier's probabilities and a
    few labels (class indices, -1/NaN/None = unlabeled).

    K = 2: :func:`spe.fit` on P(class 1), and ``prob_positive()``. K > 2:
    :func:`spe.fit_multiclass`, and each item's share of the posterior class draws, with
    one pseudo-draw from the classifier's own probabilities (a class no draw picked keeps
    its place in the order, and no probability is an exact 0 the classifier did not say).
    """
    from .._fit import fit
    from ..multiclass import fit_multiclass

    n, k = probs.shape
    y = as_class_labels(labels, n, k)
    if k == 2:
        res = fit(probs[:, 1], np.where(y >= 0, y, np.nan), seed=seed, progress=False)
        p = res.prob_positive()
        return np.column_stack([1.0 - p, p]), res
    res = fit_multiclass(probs, y, seed=seed)
    counts = np.stack([np.bincount(res.class_draws[:, i], minlength=k) for i in range(n)])
    eta = (counts + probs) / (res.class_draws.shape[0] + 1.0)
    return eta, res
