"""Arms: the attribute combinations present among the items, and each item's arm.

An *arm* (the AAA paper's word, after bandits) is one combination of attribute values,
e.g. (Female, Hispanic, 25 - 45). Attributes arrive as a pandas/polars DataFrame, a dict
``name -> (N,) values`` or an ``(N, A)`` array; they are checked here once and encoded as
integer level codes, so everything downstream works on small integer arrays.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

import numpy as np

from ..scores import eager_values, frame_models, refuse_lazy
from ._levels import bin_values, categorical_order, is_continuous, ordered_codes
from ._uncertain import UncertainAttribute

#: pandas' missing-value markers, by type name (pandas is not imported here).
_NA_TYPES = ("NAType", "NaTType")

_LAZY_HINT = ("count it chunk by chunk with spe.surface.count_arms, merge the counts and fit them with "
              "spe.surface.surface_from_counts; or call .compute() if it fits in memory")


@dataclass(frozen=True)
class Arms:
    """The attribute combinations present among N items.

    Attributes
    ----------
    names : tuple of str
        Attribute names, in order.
    levels : tuple of numpy arrays
        The values each attribute takes, sorted; ``codes`` index into them.
    codes : ndarray of shape (M, A)
        Level codes of each arm (one row per combination present).
    item_arm : ndarray of shape (N,)
        The arm of each item (a row of ``codes``).

    Examples
    --------
    >>> from spe.surface import encode_arms
    >>> arms = encode_arms({"sex": ["F", "M", "F"], "age": ["<25", "<25", "25+"]})
    >>> arms.n_arms, arms.item_arm.tolist()
    (3, [1, 2, 0])
    >>> {k: v.tolist() for k, v in arms.values([0]).items()}
    {'sex': ['F'], 'age': ['25+']}
    """

    names: tuple
    levels: tuple
    codes: np.ndarray
    item_arm: np.ndarray

    @property
    def n_arms(self) -> int:
        return self.codes.shape[0]

    @property
    def n_attributes(self) -> int:
        return self.codes.shape[1]

    def values(self, arm=None) -> dict:
        """Attribute values of the arms (all, or the given indices): ``name -> array``."""
        rows = self.codes if arm is None else self.codes[np.asarray(arm)]
        return {name: lv[rows[:, j]] for j, (name, lv) in enumerate(zip(self.names, self.levels))}


def attribute_columns(attributes, n: int | None = None, min_levels: int = 2, bins=None,
                      orders: dict | None = None) -> dict:
    """Attributes as an ordered ``name -> (N,) array`` dict, checked.

    Accepts a pandas or polars DataFrame (by duck typing: ``.columns`` and item access), a
    mapping of names to 1-D arrays or :class:`~spe.surface.UncertainAttribute` (passed
    through), or a 2-D array (columns named ``attr0``, ``attr1``, ...). Continuous
    attributes are cut into bins (``bins``: a number of quantile bins for every continuous
    attribute, or a dict name -> number or edges; see ``_levels``); the order of each
    ordered attribute's levels (ordered Categorical, bins) is put in ``orders``.
    """
    if attributes is None:
        raise ValueError("attributes are required: a DataFrame, a dict name -> values, or an (N, A) array")
    refuse_lazy(attributes, "attributes", _LAZY_HINT)
    given_orders = {}
    if type(attributes).__module__.startswith("pandas") and hasattr(attributes, "columns"):
        given_orders = {str(c): categorical_order(attributes[c]) for c in attributes.columns}
    frame = frame_models(attributes)
    if frame is not None:
        columns = frame
    elif isinstance(attributes, Mapping):
        columns = {str(k): v for k, v in attributes.items()}
    elif hasattr(attributes, "columns") and not isinstance(attributes, np.ndarray):
        columns = {str(c): attributes[c] for c in attributes.columns}
    else:
        arr = np.asarray(attributes, dtype=object)
        if arr.ndim == 1:
            arr = arr[:, None]
        if arr.ndim != 2:
            raise ValueError(f"attributes as an array must be 2-D (N items x A attributes), got shape {arr.shape}")
        columns = {f"attr{j}": arr[:, j] for j in range(arr.shape[1])}
    if not columns:
        raise ValueError("attributes are empty: give at least one attribute")
    per_name = bins if isinstance(bins, Mapping) else {}
    unknown = set(per_name) - set(map(str, columns))
    if unknown:
        raise ValueError(f"bins names attribute(s) {sorted(unknown)} that are not among the attributes "
                         f"{list(columns)}")
    orders = {} if orders is None else orders
    out = {}
    for name, values in columns.items():
        if isinstance(values, UncertainAttribute):
            out[name] = values
            orders[name] = values.levels  # its levels in the order the classifier gives them
            continue
        arr = _column(values, name, min_levels)
        order = given_orders.get(name)
        order = categorical_order(values) if order is None else order
        if name in per_name or (order is None and is_continuous(arr)):
            arr, order = bin_values(arr, name, per_name.get(name, None if per_name else bins))
        if order is not None:
            orders[name] = order
        out[name] = arr
    lengths = {name: column_length(v) for name, v in out.items()}
    first = next(iter(lengths.values()))
    if len(set(lengths.values())) > 1:
        raise ValueError(f"attributes have different lengths: {lengths}")
    if n is not None and first != n:
        raise ValueError(f"attributes describe {first} items but there are {n} items (correct/confidence)")
    return out


def column_length(column) -> int:
    """The number of items of a checked attribute column (values or an UncertainAttribute)."""
    return (column.probs if isinstance(column, UncertainAttribute) else column).shape[0]


def _column(values, name, min_levels=2) -> np.ndarray:
    refuse_lazy(values, f"attribute {name!r}", _LAZY_HINT)
    values = eager_values(values)
    if hasattr(values, "to_numpy"):
        values = values.to_numpy()
    arr = np.asarray(values)
    if arr.ndim != 1:
        raise ValueError(f"attribute {name!r} must be one value per item (1-D), got shape {arr.shape}")
    if arr.size == 0:
        raise ValueError(f"attribute {name!r} is empty")
    missing = _missing(arr)
    if missing.any():
        raise ValueError(f"attribute {name!r} has {int(missing.sum())} missing value(s) (first at item "
                         f"{int(np.flatnonzero(missing)[0])}); give them a level of their own, e.g. 'unknown'")
    if arr.dtype == object:
        kinds = {"text" if isinstance(v, str) else "number" if isinstance(v, (int, float, np.number)) else "other"
                 for v in arr.tolist()}
        if len(kinds) > 1:
            raise ValueError(f"attribute {name!r} mixes value types ({', '.join(sorted(kinds))}): 1 and '1' would "
                             "become one level; give it values of one type")
        arr = arr.astype(str)
    if np.unique(arr).size < min_levels:
        value = arr[0].item() if isinstance(arr[0], np.generic) else arr[0]
        raise ValueError(f"attribute {name!r} takes a single value ({value!r}): it splits nothing; leave it out")
    return arr


def _missing(arr) -> np.ndarray:
    if arr.dtype.kind == "f":
        return np.isnan(arr)
    if arr.dtype.kind == "M":
        return np.isnat(arr)
    if arr.dtype == object:
        return np.array([v is None or (isinstance(v, float) and np.isnan(v)) or type(v).__name__ in _NA_TYPES
                         for v in arr.tolist()])
    return np.zeros(arr.shape, dtype=bool)


def encode_arms(attributes, n: int | None = None, order: dict | None = None, bins=None) -> Arms:
    """Encode attributes as arms: level codes per attribute, then the combinations present.

    Parameters
    ----------
    attributes : DataFrame, dict name -> (N,) values, or (N, A) array
    n : int, optional
        The number of items expected.
    order : dict name -> sequence, optional
        The order of an attribute's levels (default: an ordered Categorical's or a binned
        attribute's order, else sorted).
    bins : int or dict, optional
        How continuous attributes are cut (see :func:`spe.accuracy_surface`).

    Returns
    -------
    Arms

    Examples
    --------
    >>> arms = encode_arms({"size": ["small", "large", "small"], "colour": ["red", "red", "blue"]},
    ...                    order={"size": ["small", "large"]})
    >>> arms.levels[0].tolist(), arms.n_arms
    (['small', 'large'], 3)
    """
    found = {}
    columns = attribute_columns(attributes, n, min_levels=1, bins=bins, orders=found)
    found.update(order or {})
    levels, item_codes = [], []
    for name, values in columns.items():
        lv, inv = ordered_codes(values, found.get(name))
        levels.append(lv)
        item_codes.append(inv.astype(np.int64))
    item_codes = np.stack(item_codes, axis=1)
    codes, item_arm = np.unique(item_codes, axis=0, return_inverse=True)
    return Arms(tuple(columns), tuple(levels), codes, item_arm.ravel().astype(np.int64))
