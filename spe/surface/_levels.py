"""The order of an attribute's levels, and continuous attributes cut into bins.

Levels are sorted (by value) unless the attribute says otherwise: a pandas ordered
``Categorical`` keeps its categories' order, and a continuous attribute, cut into bins,
keeps the order of its bins. A numeric attribute with more than :data:`MAX_LEVELS`
distinct values is continuous: it is cut at quantiles into ``bins`` bins (default
:data:`DEFAULT_BINS`), or at the edges the caller gives, and each item's level is its
bin's label, e.g. ``"[25, 45)"`` (the last bin closed: ``"[45, 96]"``).
"""

from __future__ import annotations

import numpy as np

#: A numeric attribute with more distinct values than this is continuous (binned).
MAX_LEVELS = 12
#: Quantile bins of a continuous attribute unless the caller says otherwise.
DEFAULT_BINS = 4


def categorical_order(values):
    """The categories of a pandas ordered Categorical (Series or array), else None."""
    cat = getattr(values, "cat", None)
    dtype = getattr(values, "dtype", None)
    if cat is not None and getattr(cat, "ordered", False):
        return np.asarray(cat.categories)
    if type(values).__name__ == "Categorical" and getattr(dtype, "ordered", False):
        return np.asarray(values.categories)
    return None


def is_continuous(arr: np.ndarray) -> bool:
    """A numeric (not boolean) array with more than MAX_LEVELS distinct values."""
    return arr.dtype.kind in "iuf" and np.unique(arr).size > MAX_LEVELS


def _label(x: float) -> str:
    return f"{x:.4g}"


def bin_values(arr: np.ndarray, name: str, bins=None) -> tuple[np.ndarray, np.ndarray]:
    """Cut a numeric attribute into bins: (each item's bin label, the labels in order).

    ``bins`` is a number of quantile bins or a sequence of increasing edges covering every
    value. Quantile edges that coincide (many ties) are merged, so there may be fewer bins.
    """
    values = np.asarray(arr, dtype=float)
    if bins is None or np.isscalar(bins):
        k = DEFAULT_BINS if bins is None else int(bins)
        if k < 2:
            raise ValueError(f"bins for attribute {name!r} must be at least 2, got {bins!r}")
        edges = np.unique(np.quantile(values, np.linspace(0, 1, k + 1)))
    else:
        edges = np.asarray(bins, dtype=float)
        if edges.ndim != 1 or edges.size < 3 or np.any(np.diff(edges) <= 0):
            raise ValueError(f"bin edges for attribute {name!r} must be at least 3 increasing numbers, "
                             f"got {list(np.atleast_1d(bins))}")
        outside = (values < edges[0]) | (values > edges[-1])
        if outside.any():
            raise ValueError(f"attribute {name!r} has {int(outside.sum())} value(s) outside its bin edges "
                             f"[{_label(edges[0])}, {_label(edges[-1])}] (e.g. {values[outside][0]:g})")
    if edges.size < 3:
        raise ValueError(f"attribute {name!r} cannot be cut into two or more bins (its quantiles coincide); "
                         "give bin edges or treat it as categorical")
    labels = np.array([f"[{_label(lo)}, {_label(hi)})" for lo, hi in zip(edges[:-2], edges[1:-1])]
                      + [f"[{_label(edges[-2])}, {_label(edges[-1])}]"])
    index = np.clip(np.searchsorted(edges, values, side="right") - 1, 0, labels.size - 1)
    return labels[index], labels


def ordered_codes(values: np.ndarray, order) -> tuple[np.ndarray, np.ndarray]:
    """(levels, each value's code): the levels present, sorted; or every level of ``order``
    in its order (levels absent from these values included, so that chunks counted apart
    merge in order)."""
    lv, inv = np.unique(values, return_inverse=True)
    if order is None:
        return lv, inv.ravel()
    order = np.asarray(order)
    if lv.dtype.kind in "US" and order.dtype.kind not in "US":
        order = order.astype(str)
    rank = {v: i for i, v in enumerate(order.tolist())}
    if len(rank) != order.size or any(v not in rank for v in lv.tolist()):
        return lv, inv.ravel()  # values outside the stated order (or repeated levels): sorted
    remap = np.array([rank[v] for v in lv.tolist()], dtype=np.int64)
    return order, remap[inv.ravel()]
