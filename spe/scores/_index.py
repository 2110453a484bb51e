"""The caller's item index: pandas inputs are matched on their index, outputs carry it back.

A pandas Series or DataFrame carries an index; two of them that share an index in different
orders describe the same items, and matching them by position would pair the wrong items
silently. :func:`align_on_index` reorders every indexed input to the first one's index (or
refuses a mismatch), and :class:`ItemIndex` puts that index back on per-item outputs.
pandas is never imported unless an input is already a pandas object.
"""

from __future__ import annotations

import numpy as np

from ..exceptions import InputError

_EXAMPLES = 3


def _is_pandas_indexed(x) -> bool:
    """A pandas Series or DataFrame (not a bare Index): recognised by module, no import."""
    return (type(x).__module__.split(".")[0] == "pandas" and hasattr(x, "index")
            and getattr(x, "ndim", 0) in (1, 2))


def _examples(values) -> str:
    shown = ", ".join(repr(v) for v in list(values[:_EXAMPLES]))
    return shown + (", ..." if len(values) > _EXAMPLES else "")


class ItemIndex:
    """The caller's item index (a pandas Index) or None when arrays came in.

    Per-item outputs go through it: a pandas Series or DataFrame when the caller gave one,
    the plain array otherwise, so NumPy users see no change.

    Parameters
    ----------
    index : pandas.Index or None, default=None
        The items' labels, in the order the fit holds them.

    Attributes
    ----------
    index : pandas.Index or None

    See Also
    --------
    align_on_index : builds one from the inputs of a fit.

    Examples
    --------
    >>> import numpy as np
    >>> from spe.scores import ItemIndex
    >>> ItemIndex().wrap(np.array([0.2, 0.9]))
    array([0.2, 0.9])
    >>> ItemIndex().labels([1])
    array([1])
    >>> import pandas as pd
    >>> items = ItemIndex(pd.Index(["a", "b"]))
    >>> items.wrap(np.array([0.2, 0.9]), name="p").to_dict()
    {'a': 0.2, 'b': 0.9}
    >>> items.labels([1])
    ['b']
    """

    __slots__ = ("index",)

    def __init__(self, index=None):
        self.index = index

    def __repr__(self) -> str:
        return "ItemIndex(None)" if self.index is None else f"ItemIndex({len(self.index)} labels)"

    def __len__(self) -> int:
        return 0 if self.index is None else len(self.index)

    def __getstate__(self):
        return {"index": self.index}

    def __setstate__(self, state):
        self.index = state["index"]

    @property
    def is_pandas(self) -> bool:
        """True when outputs are pandas objects (a pandas input came in)."""
        return self.index is not None

    def _check_length(self, n: int, what: str) -> None:
        if n != len(self.index):
            raise ValueError(f"{what} has {n} rows but the item index has {len(self.index)} labels")

    def wrap(self, values, name=None):
        """A 1-D per-item array as a pandas Series on the index, or the array unchanged.

        Parameters
        ----------
        values : array-like of shape (n_items,)
        name : str, optional
            The Series' name.

        Returns
        -------
        pandas.Series or numpy.ndarray

        Examples
        --------
        >>> import numpy as np
        >>> from spe.scores import ItemIndex
        >>> ItemIndex().wrap([1.0, 2.0])
        array([1., 2.])
        """
        values = np.asarray(values)
        if self.index is None:
            return values
        import pandas as pd

        self._check_length(values.shape[0], "values")
        return pd.Series(values, index=self.index, name=name)

    def wrap_frame(self, values2d, columns):
        """An (n_items, k) array as a pandas DataFrame on the index, or the array unchanged.

        Parameters
        ----------
        values2d : array-like of shape (n_items, k)
        columns : sequence of length k
            Column names of the DataFrame.

        Returns
        -------
        pandas.DataFrame or numpy.ndarray

        Examples
        --------
        >>> import pandas as pd
        >>> from spe.scores import ItemIndex
        >>> ItemIndex(pd.Index([7, 3])).wrap_frame([[0.1, 0.9], [0.6, 0.4]], ["a", "b"])
             a    b
        7  0.1  0.9
        3  0.6  0.4
        """
        values2d = np.asarray(values2d)
        if self.index is None:
            return values2d
        import pandas as pd

        self._check_length(values2d.shape[0], "values")
        return pd.DataFrame(values2d, index=self.index, columns=list(columns))

    def labels(self, positions):
        """Item positions (0-based) as the caller's index labels, or the positions unchanged.

        Parameters
        ----------
        positions : array-like of int

        Returns
        -------
        list or numpy.ndarray
            A list of index labels with a pandas index; an integer array otherwise.

        Examples
        --------
        >>> import pandas as pd
        >>> from spe.scores import ItemIndex
        >>> ItemIndex(pd.Index(["x", "y", "z"])).labels([2, 0])
        ['z', 'x']
        """
        positions = np.asarray(positions, dtype=int).reshape(-1)
        if self.index is None:
            return positions
        return self.index[positions].tolist()

    def positions(self, labels) -> np.ndarray:
        """The caller's index labels as item positions (the inverse of :meth:`labels`).

        Parameters
        ----------
        labels : sequence
            Index labels (pandas index) or positions (no index).

        Returns
        -------
        numpy.ndarray of int

        Raises
        ------
        KeyError
            A label not in the index.

        Examples
        --------
        >>> import pandas as pd
        >>> from spe.scores import ItemIndex
        >>> ItemIndex(pd.Index(["x", "y", "z"])).positions(["z", "x"])
        array([2, 0])
        """
        if self.index is None:
            return np.asarray(labels, dtype=int).reshape(-1)
        found = self.index.get_indexer(list(labels))
        if (found < 0).any():
            missing = [lab for lab, f in zip(labels, found) if f < 0]
            raise KeyError(f"{len(missing)} label(s) not in the item index: {_examples(missing)}")
        return found.astype(int)


def _mismatch(index, other_index, name: str, primary: str) -> str | None:
    """None when ``other_index`` holds exactly the labels of ``index``; else the reason."""
    for idx, who in ((index, primary), (other_index, name)):
        if idx.has_duplicates:
            dup = idx[idx.duplicated()].unique()
            return (f"the index of {who} has {len(dup)} duplicated label(s) ({_examples(dup)}), so "
                    f"{name} cannot be matched to {primary} by index")
    missing = index[~index.isin(other_index)]
    extra = other_index[~other_index.isin(index)]
    if len(missing) == 0 and len(extra) == 0:
        return None
    parts = []
    if len(missing):
        parts.append(f"{len(missing)} label(s) of {primary} missing from {name} ({_examples(missing)})")
    if len(extra):
        parts.append(f"{len(extra)} extra label(s) in {name} ({_examples(extra)})")
    return f"the index of {name} differs from that of {primary}: " + "; ".join(parts)


def _align_one(index, other, name: str, primary: str):
    if other is None or not _is_pandas_indexed(other) or other.index.equals(index):
        return other
    reason = _mismatch(index, other.index, name, primary)
    if reason is not None:
        raise InputError(f"{reason}. Give {name} the same index labels as {primary}, or match them "
                         f"by position with {name}.to_numpy()")
    return other.reindex(index)


def align_on_index(primary, *others, names=None):
    """Match inputs on the first one's pandas index; arrays are matched by position.

    Parameters
    ----------
    primary : array-like, pandas Series or DataFrame, or None
        Its index (if it is a pandas Series or DataFrame) becomes the item index.
    *others : array-like, pandas Series or DataFrame, or None
        Each one with a pandas index is reordered to ``primary``'s index. Inputs without an
        index (NumPy arrays, lists, polars, pyarrow) and None pass through unchanged, to be
        matched by position by the usual length checks.
    names : sequence of str, optional
        Names of ``primary`` and ``others`` for messages; default "scores", "labels",
        then "input 2", "input 3", ...

    Returns
    -------
    tuple
        ``(ItemIndex, primary, *others)``, the others reordered.

    Raises
    ------
    InputError
        An indexed input whose index labels differ from ``primary``'s (counts and up to 3
        examples of missing and extra labels), or an index with duplicated labels where
        the order differs.

    See Also
    --------
    ItemIndex : carries the index back onto per-item outputs.

    Examples
    --------
    >>> import pandas as pd
    >>> from spe.scores import align_on_index
    >>> scores = pd.Series([0.9, 0.1, 0.5], index=["a", "b", "c"])
    >>> labels = pd.Series([0, 1], index=["b", "a"]).reindex(["c", "b", "a"])
    >>> items, s, y = align_on_index(scores, labels)
    >>> y.tolist()
    [1.0, 0.0, nan]
    >>> items.labels([0])
    ['a']
    """
    default = ["scores", "labels"] + [f"input {i}" for i in range(2, len(others) + 1)]
    names = list(names or []) + default[len(names or []):]
    if not _is_pandas_indexed(primary):
        return (ItemIndex(None), primary, *others)
    index = primary.index
    aligned = [_align_one(index, other, names[i + 1], names[0]) for i, other in enumerate(others)]
    return (ItemIndex(index), primary, *aligned)
