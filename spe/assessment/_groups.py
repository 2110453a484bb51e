"""Partition items into groups: predicted class, score bins, or any user-given ids."""

from __future__ import annotations

import numpy as np


def encode_groups(ids) -> tuple[np.ndarray, list]:
    """Integer codes 0..G-1 for arbitrary group ids, and the ids in code order."""
    arr = np.asarray(ids)
    if arr.ndim != 1 or arr.size == 0:
        raise ValueError("group ids must be a non-empty 1-D array")
    names, codes = np.unique(arr, return_inverse=True)
    return codes.astype(np.int64), names.tolist()


def class_groups(predicted) -> tuple[np.ndarray, list]:
    """One group per predicted class."""
    return encode_groups(predicted)


#: Bin edges by rule: equal width, or equal mass (ties can merge quantiles).
BIN_EDGES = {
    "width": lambda s, n: np.linspace(s.min(), s.max(), n + 1),
    "mass": lambda s, n: np.unique(np.quantile(s, np.linspace(0, 1, n + 1))),
}


def bin_groups(scores, n_bins=10, kind="mass") -> tuple[np.ndarray, np.ndarray]:
    """Score bins: ``kind="width"`` (equal width) or ``"mass"`` (equal counts).

    Returns (codes, edges); empty bins are dropped and codes renumbered.
    """
    s = np.asarray(scores, dtype=float)
    if s.ndim != 1 or s.size == 0 or not np.all(np.isfinite(s)):
        raise ValueError("scores for binning must be a non-empty 1-D array of finite numbers")
    if not isinstance(n_bins, (int, np.integer)) or n_bins < 1:
        raise ValueError(f"n_bins must be a positive integer, got {n_bins!r}")
    if kind not in BIN_EDGES:
        raise ValueError(f"kind must be 'width' or 'mass', got {kind!r}")
    edges = BIN_EDGES[kind](s, n_bins)
    raw = np.clip(np.searchsorted(edges, s, side="right") - 1, 0, len(edges) - 2)
    used, codes = np.unique(raw, return_inverse=True)
    return codes.astype(np.int64), edges[np.r_[used, used[-1] + 1]]
