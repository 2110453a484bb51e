"""Class probabilities (or logits) and class labels, checked once at the boundary."""

from __future__ import annotations

import numbers

import numpy as np
from scipy import special

from ..scores import PROBABILITY_EPS, PROBABILITY_TOLERANCE, eager_values, looks_like_probabilities, refuse_lazy

#: Class probabilities are needed item by item (each item's class is drawn), so a lazy
#: collection cannot be reduced to counts as one score per item can.
LAZY_HINT = ("class probabilities are needed item by item (every item's class is drawn), so they cannot be "
             "streamed: call .compute() if the (N, K) matrix fits in memory, or fit a sample of the items")


def as_class_scores(scores) -> tuple[np.ndarray, str]:
    """(log-probabilities or logits as an (N, K) float array, "probabilities" or "logits");
    pandas, polars and pyarrow frames are read as arrays, lazy Dask collections refused.

    Examples
    --------
    >>> import numpy as np
    >>> from spe.multiclass import as_class_scores
    >>> f, kind = as_class_scores([[0.7, 0.3], [0.2, 0.8]])
    >>> kind, np.exp(f).round(2).tolist()
    ('probabilities', [[0.7, 0.3], [0.2, 0.8]])
    >>> as_class_scores([[2.0, -1.0], [0.5, 0.5]])[1]
    'logits'
    """
    refuse_lazy(scores, "the class probabilities", LAZY_HINT)
    try:
        arr = np.asarray(eager_values(scores), dtype=float)
    except (TypeError, ValueError):
        raise TypeError("class scores must be an (N, K) array of numbers") from None
    if arr.ndim != 2 or arr.shape[1] < 2 or arr.shape[0] < 2:
        raise ValueError(f"class scores must be an (N, K) array with N >= 2 items and K >= 2 classes, "
                         f"got shape {arr.shape}")
    bad = ~np.isfinite(arr)
    if bad.any():
        row = int(np.flatnonzero(bad.any(axis=1))[0])
        raise ValueError(f"class scores must be finite: {int(bad.sum())} NaN/inf value(s), first in row {row}")
    rows = arr.sum(axis=1)
    # float32 files hold probabilities like 1.00001: rounding, not logits
    in_unit_range = looks_like_probabilities(arr)
    if in_unit_range and np.allclose(rows, 1.0, atol=PROBABILITY_TOLERANCE):
        return np.log(np.clip(arr, PROBABILITY_EPS, 1.0)), "probabilities"
    if in_unit_range:
        raise ValueError("class scores lie in [0, 1] but rows do not sum to 1 (largest deviation "
                         f"{np.abs(rows - 1).max():.3g}): pass probabilities that sum to 1 per row, or logits")
    return arr - special.logsumexp(arr, axis=1, keepdims=True), "logits"


def class_names(scores, k: int) -> list:
    """The classes' names: a pandas or polars frame's column names, else 0..K-1.

    Examples
    --------
    >>> import pandas as pd
    >>> from spe.multiclass._inputs import class_names
    >>> class_names(pd.DataFrame({"cat": [0.5], "dog": [0.5]}), 2), class_names([[0.5, 0.5]], 2)
    (['cat', 'dog'], [0, 1])
    """
    library = type(scores).__module__.split(".")[0]
    columns = getattr(scores, "columns", None) if library in ("pandas", "polars") else None
    if columns is None or len(columns) != k:
        return list(range(k))
    return list(columns)


def as_class_labels(labels, n: int, k: int, classes=None) -> np.ndarray:
    """Class indices as int64, -1 for unlabeled (given as -1, NaN or None); a label that is
    one of ``classes`` (a frame's column names) means that column's class.

    Examples
    --------
    >>> from spe.multiclass import as_class_labels
    >>> as_class_labels([2, None, -1, 0], 4, 3)
    array([ 2, -1, -1,  0])
    >>> as_class_labels(["dog", None], 2, 2, classes=["cat", "dog"])
    array([ 1, -1])
    """
    if labels is None:
        return np.full(n, -1, dtype=np.int64)
    refuse_lazy(labels, "labels", LAZY_HINT)
    labels = eager_values(labels)
    arr = np.asarray(labels, dtype=object).ravel() if not hasattr(labels, "dtype") else np.asarray(labels).ravel()
    if arr.shape[0] != n:
        raise ValueError(f"labels has length {arr.shape[0]} but the class scores have {n} rows")
    out = np.empty(n, dtype=np.int64)
    named = {c: j for j, c in enumerate(classes or []) if not isinstance(c, numbers.Real)}
    for i, v in enumerate(arr.tolist()):
        if v is None or (isinstance(v, float) and np.isnan(v)):
            out[i] = -1
            continue
        if named and not isinstance(v, numbers.Real) and v in named:
            out[i] = named[v]
            continue
        if isinstance(v, (bool, np.bool_)) or not isinstance(v, numbers.Real) or float(v) != int(v):
            names = f" or a class name ({', '.join(map(repr, list(named)[:5]))})" if named else ""
            raise ValueError(f"labels, item {i}: {v!r} is not a class index (0..{k - 1}; -1/NaN/None = "
                             f"unlabeled){names}")
        out[i] = int(v)
    wrong = (out < -1) | (out >= k)
    if wrong.any():
        i = int(np.flatnonzero(wrong)[0])
        raise ValueError(f"labels, item {i}: class {out[i]} outside 0..{k - 1} (-1 = unlabeled)")
    return out

