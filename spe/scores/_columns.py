"""Columns as users hold them: pandas, polars and pyarrow objects, and lazy Dask collections.

None of these libraries is a dependency. They are recognised by the module their type
comes from (and Dask collections by the ``__dask_graph__`` protocol), never imported here:

* an eager column (pandas Series, polars Series, pyarrow Array or ChunkedArray) or frame
  (pandas or polars DataFrame, pyarrow Table) becomes a NumPy array, missing values
  (``pd.NA``, polars and Arrow nulls) as NaN in numbers and None elsewhere, which the
  validators (``_validation``) read as "unlabeled" in labels and name as
  missing in scores;
* a lazy Dask collection is never turned into an array here: ``np.asarray`` would
  compute it whole. :func:`spe.fit` streams it through :func:`spe.count_dask`; every other
  entry point refuses it with :func:`refuse_lazy`, naming the streaming path.
"""

from __future__ import annotations

import numpy as np


def _library(x) -> str:
    return type(x).__module__.split(".")[0]


def is_lazy(x) -> bool:
    """True for a Dask collection (array, Series, DataFrame, delayed): computing it is work.

    Examples
    --------
    >>> import numpy as np
    >>> from spe.scores import is_lazy
    >>> is_lazy(np.zeros(3))
    False
    """
    return hasattr(type(x), "__dask_graph__") or _library(x) == "dask"


def refuse_lazy(x, name: str, hint: str | None = None) -> None:
    """A TypeError for a lazy collection where every value is needed in memory at once.

    Examples
    --------
    >>> import numpy as np
    >>> from spe.scores import refuse_lazy
    >>> refuse_lazy(np.zeros(3), "scores")  # in memory: nothing to refuse
    """
    if is_lazy(x):
        raise TypeError(f"{name} is a lazy Dask collection ({type(x).__name__}); it is not loaded whole "
                        "silently. " + (hint or "spe.fit(scores, labels) counts lazy scores block by block "
                                                "(spe.count_dask); or call .compute() if it fits in memory"))


def _pandas_column(column) -> np.ndarray:
    kind = getattr(column.dtype, "kind", "O")
    if kind in "iuf":
        return column.to_numpy(dtype=float, na_value=np.nan)
    if kind == "b" and not column.isna().any():
        return column.to_numpy(dtype=bool)
    return column.to_numpy(dtype=object, na_value=None)


def _column(x, library) -> np.ndarray:
    if library == "pandas":
        return _pandas_column(x)
    if library == "pyarrow":
        return x.to_numpy(zero_copy_only=False)
    return x.to_numpy()  # polars: nulls become NaN in numbers, None in booleans and text


def _frame_columns(x, library) -> list | None:
    """The columns of a pandas or polars DataFrame or a pyarrow Table; None for a column."""
    if library == "pandas" and getattr(x, "ndim", 1) == 2:
        return [x.iloc[:, j] for j in range(x.shape[1])]
    if library == "polars" and hasattr(x, "get_columns"):
        return list(x.get_columns())
    if library == "pyarrow" and hasattr(x, "column_names"):
        return list(x.columns)
    return None


def eager_values(x):
    """``x`` as a NumPy array when it is a pandas, polars or pyarrow column or frame (a
    frame: one column per class or model, (N, K)); anything else unchanged.

    Examples
    --------
    >>> import pandas as pd
    >>> from spe.scores import eager_values
    >>> eager_values(pd.Series([0.5, None]))
    array([0.5, nan])
    >>> eager_values(pd.DataFrame({"a": [1, 2], "b": [3, 4]}))
    array([[1., 3.],
           [2., 4.]])
    """
    library = _library(x)
    if library not in ("pandas", "polars", "pyarrow"):
        return x
    columns = _frame_columns(x, library)
    if columns is None:
        return _column(x, library)
    if not columns:
        return np.empty((0, 0))
    values = [_column(c, library) for c in columns]
    kinds = {v.dtype.kind for v in values}
    return np.column_stack(values) if kinds <= set("iufb") else np.column_stack([v.astype(object) for v in values])


def frame_models(x) -> dict | None:
    """{column name: values} of a pandas or polars DataFrame or a pyarrow Table (one column
    per model, for :func:`spe.fit_many`); None for anything else."""
    library = _library(x)
    if library not in ("pandas", "polars", "pyarrow") or _frame_columns(x, library) is None:
        return None
    names = list(x.column_names) if library == "pyarrow" else list(x.columns)
    return {str(name): _column(col, library) for name, col in zip(names, _frame_columns(x, library))}
