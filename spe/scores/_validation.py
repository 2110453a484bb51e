"""Scores and labels as users give them, checked once at the boundary.

Every entry point (the API, the CLI, the counting readers) validates through these
functions, so a bad value gets the same clear message wherever it enters.
"""

from __future__ import annotations

import numpy as np

from ._columns import eager_values, refuse_lazy


def as_score_array(scores, name="scores") -> np.ndarray:
    """A non-empty 1-D float array of finite real numbers, or a clear error (pandas, polars
    and pyarrow columns are read as arrays; a lazy Dask collection is refused).

    Examples
    --------
    >>> from spe.scores import as_score_array
    >>> as_score_array([1, 2.5])
    array([1. , 2.5])
    >>> as_score_array([0.1, float("nan")])
    Traceback (most recent call last):
        ...
    ValueError: scores must be finite: 1 NaN/inf value(s), first at index 1
    """
    if scores is None:
        raise ValueError(f"{name} are required: got None")
    refuse_lazy(scores, name)
    try:
        arr = np.asarray(eager_values(scores))
    except Exception as exc:  # ragged nested lists and the like
        raise TypeError(f"{name} must be a 1-D array of numbers ({exc})") from None
    if arr.dtype == bool:
        raise TypeError(f"{name} must be real numbers, got a boolean array")
    if not (np.issubdtype(arr.dtype, np.number) or arr.dtype == object):
        raise TypeError(f"{name} must be real numbers, got dtype {arr.dtype}")
    if np.iscomplexobj(arr):
        raise TypeError(f"{name} must be real numbers, got complex values")
    if arr.dtype == object:  # nulls of a pandas, polars or Arrow column arrive as None
        missing = np.array([v is None for v in arr.ravel().tolist()], dtype=bool)
        if missing.any():
            raise ValueError(f"{name} must be finite: {int(missing.sum())} missing value(s), first at index "
                             f"{int(np.flatnonzero(missing)[0])}")
    try:
        arr = arr.astype(float)
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be real numbers; some values are not numeric") from None
    if arr.ndim == 0:
        arr = arr.reshape(1)
    if arr.ndim == 2 and 1 in arr.shape:
        arr = arr.ravel()
    if arr.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional, got shape {arr.shape}")
    if arr.size == 0:
        raise ValueError(f"{name} are empty")
    bad = ~np.isfinite(arr)
    if bad.any():
        first = int(np.flatnonzero(bad)[0])
        raise ValueError(
            f"{name} must be finite: {int(bad.sum())} NaN/inf value(s), first at index {first}"
        )
    return arr


#: Two distinct values (hard predictions) are enough: ``_cells`` estimates the share
#: of positives at each; the mixture and the calibration maps need more (see ``spe.fit``).
MIN_DISTINCT_SCORES = 2


#: Below this many items a fit warns: the score distribution says little about the classes.
FEW_ITEMS = 50


def as_scores(scores) -> np.ndarray:
    """Validate scores for fitting: finite reals, 1-D, at least 2 distinct values.

    Examples
    --------
    >>> from spe.scores import as_scores
    >>> as_scores([0.1, 0.5, 0.9])
    array([0.1, 0.5, 0.9])
    >>> as_scores([0.3, 0.3])
    Traceback (most recent call last):
        ...
    ValueError: all 2 scores are equal (0.3): a constant score carries no information about performance
    """
    arr = as_score_array(scores)
    if arr.size < 2:
        raise ValueError(f"at least two scores are needed to fit the score models, got {arr.size}")
    if np.ptp(arr) == 0:
        raise ValueError(
            f"all {arr.size} scores are equal ({arr[0]!r}): a constant score carries "
            "no information about performance"
        )
    return arr


#: Tokens read as "unlabeled", "positive" and "negative" (case-insensitive), by the API
#: and the CLI alike. Any other token is refused unless ``positive_label`` names it.
MISSING_TOKENS = frozenset({"", "na", "nan", "n/a", "none", "null", "?"})


POSITIVE_TOKENS = frozenset({"1", "1.0", "true", "yes"})


NEGATIVE_TOKENS = frozenset({"0", "0.0", "false", "no"})


def parse_label(value, positive_label=None):
    """1.0, 0.0 or NaN for one label value; None for a value that is not a label.

    Examples
    --------
    >>> from spe.scores import parse_label
    >>> parse_label("Yes"), parse_label(0), parse_label("NA"), parse_label("cat", positive_label="cat")
    (1.0, 0.0, nan, 1.0)
    >>> parse_label("maybe") is None
    True
    """
    if value is None:
        return np.nan
    if isinstance(value, (bool, np.bool_)):
        return float(value)
    if isinstance(value, (int, float, np.integer, np.floating)):
        v = float(value)
        if np.isnan(v):
            return np.nan
        if positive_label is not None and not isinstance(positive_label, str):
            return float(v == float(positive_label))
        return v if v in (0.0, 1.0) else None
    token = str(value).strip()
    low = token.lower()
    if low in MISSING_TOKENS:
        return np.nan
    if positive_label is not None:
        return 1.0 if token == str(positive_label) else 0.0
    if low in POSITIVE_TOKENS:
        return 1.0
    if low in NEGATIVE_TOKENS:
        return 0.0
    return None


def as_labels(labels, n: int, positive_label=None, rows=None) -> np.ndarray:
    """Validate labels: one parser for the API and the CLI.

    Accepted: 1/0 (numbers or text), True/False, "true"/"false", "yes"/"no"; NaN, None,
    blank, "NA", "null", "?" mean unlabeled (and the nulls of a pandas, polars or pyarrow
    column); ``labels=None`` means no labels at all. With
    ``positive_label``, that value means positive and every other non-missing value
    negative. Anything else is refused naming the item (``rows``: the file row number of
    each item, to name rows instead).

    Examples
    --------
    >>> from spe.scores import as_labels
    >>> as_labels(["yes", "no", "", 1, None], 5)
    array([ 1.,  0., nan,  1., nan])
    >>> as_labels(["cat", "dog", "NA"], 3, positive_label="cat")
    array([ 1.,  0., nan])
    """
    if labels is None:
        return np.full(n, np.nan)
    refuse_lazy(labels, "labels")
    labels = eager_values(labels)
    arr = np.asarray(labels, dtype=object if not hasattr(labels, "dtype") else None)
    if arr.ndim == 2 and 1 in arr.shape:
        arr = arr.ravel()
    if arr.ndim != 1:
        raise ValueError(f"labels must be one-dimensional, got shape {arr.shape}")
    if arr.shape[0] != n:
        raise ValueError(f"labels has length {arr.shape[0]} but scores has length {n}")
    if arr.dtype.kind in "fiub" and positive_label is None:
        out = arr.astype(float)
        known = out[~np.isnan(out)]
        bad = known[(known != 0) & (known != 1)]
        if bad.size:
            first = int(np.flatnonzero(~np.isnan(out) & (out != 0) & (out != 1))[0])
            where = f"row {rows[first]}" if rows is not None else f"item {first}"
            raise ValueError(f"labels must be 0, 1 or NaN/None (unlabeled); found {np.unique(bad)[:5].tolist()} "
                             f"(first at {where}); pass positive_label= to name the positive class")
        return out
    out = np.empty(n)
    for i, value in enumerate(arr.tolist()):
        parsed = parse_label(value, positive_label)
        if parsed is None:
            where = f"row {rows[i]}" if rows is not None else f"item {i}"
            raise ValueError(
                f"labels, {where}: {value!r} is not a label; use 1/0, true/false or yes/no "
                "(blank, NA or NaN = unlabeled), or name the positive class with positive_label="
            )
        out[i] = parsed
    return out

