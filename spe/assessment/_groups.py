"""Partition items into groups: predicted class, score bins, or any user-given ids.

Classes have one order everywhere (:func:`class_order`): the rows *and* columns of a
confusion matrix, a cost matrix, and the codes of :func:`class_groups`.
"""

from __future__ import annotations

import math

import numpy as np


def encode_groups(ids) -> tuple[np.ndarray, list]:
    """Integer codes 0..G-1 for arbitrary group ids, and the ids in code order.

    Examples
    --------
    >>> codes, names = encode_groups(["b", "a", "b"])
    >>> codes.tolist(), names
    ([1, 0, 1], ['a', 'b'])
    """
    arr = np.asarray(ids)
    if arr.ndim != 1 or arr.size == 0:
        raise ValueError("group ids must be a non-empty 1-D array")
    names, codes = np.unique(arr, return_inverse=True)
    return codes.astype(np.int64), names.tolist()


def _as_number(key: str):
    try:
        value = float(key)
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def class_order(values, classes=None) -> list:
    """The one class index: ``classes`` as declared, else every class in ``values``, sorted.

    Classes are matched by their text (``3`` and ``"3"`` are one class, as an answer typed
    at a prompt is text). Undeclared classes are sorted numerically when every one is a
    number (``2 < 10``, also for ``"2"`` and ``"10"``), else as text.

    Parameters
    ----------
    values : iterable
        The predictions and the answers seen so far.
    classes : sequence, optional
        The declared classes, in the order rows and columns take; every value must be one.

    Returns
    -------
    list
        The classes (each as first seen, or as declared), in index order.

    Examples
    --------
    >>> class_order([10, 2, "2", 1])
    [1, 2, 10]
    >>> class_order(["cat", "ant"], classes=["cat", "dog", "ant"])
    ['cat', 'dog', 'ant']
    """
    seen: dict = {}
    for v in values:
        seen.setdefault(str(v), v)
    if classes is not None:
        declared = list(classes)
        keys = [str(c) for c in declared]
        if not declared or len(set(keys)) != len(keys):
            raise ValueError(f"classes must be distinct and non-empty, got {declared!r}")
        unknown = [k for k in seen if k not in set(keys)]
        if unknown:
            raise ValueError(f"{unknown[:5]} appear in the predictions or answers but not in classes={declared!r}")
        return declared
    numbers = {k: _as_number(k) for k in seen}
    if all(n is not None for n in numbers.values()):
        order = sorted(seen, key=lambda k: (numbers[k], k))
    else:
        order = sorted(seen)
    return [seen[k] for k in order]


def class_groups(predicted, classes=None) -> tuple[np.ndarray, list]:
    """One group per predicted class, coded in :func:`class_order`.

    Examples
    --------
    >>> codes, names = class_groups([10, 2, 2])
    >>> codes.tolist(), names
    ([1, 0, 0], [2, 10])
    """
    pred = np.asarray(predicted)
    if pred.ndim != 1 or pred.size == 0:
        raise ValueError("predicted must be a non-empty 1-D array")
    names = class_order(pred.tolist(), classes)
    index = {str(c): i for i, c in enumerate(names)}
    return np.array([index[str(v)] for v in pred.tolist()], dtype=np.int64), names


#: Bin edges by rule: equal width, or equal mass (ties can merge quantiles).
BIN_EDGES = {
    "width": lambda s, n: np.linspace(s.min(), s.max(), n + 1),
    "mass": lambda s, n: np.unique(np.quantile(s, np.linspace(0, 1, n + 1))),
}


def bin_groups(scores, n_bins=10, kind="mass") -> tuple[np.ndarray, np.ndarray]:
    """Score bins: ``kind="width"`` (equal width) or ``"mass"`` (equal counts).

    Returns (codes, edges); empty bins are dropped and codes renumbered.

    Examples
    --------
    >>> codes, edges = bin_groups([0.1, 0.2, 0.8, 0.9], n_bins=2)
    >>> codes.tolist(), edges.round(2).tolist()
    ([0, 0, 1, 1], [0.1, 0.5, 0.9])
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
