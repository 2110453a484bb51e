"""Mergeable counts per arm and confidence cell: everything an accuracy surface needs.

The surface's likelihood and its draws depend on the items only through, per arm and per
narrow bin of the classifier's confidence (on the logit scale), the number of items, of
labeled items and of those the classifier got right, and the mean logit-confidence.
Counts of two chunks of data merge exactly (:meth:`ArmCounts.merge`), so data larger than
memory is counted chunk by chunk, like :func:`spe.count_scores`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import special

from ..calibration import rounding_clips
from ..scores import eager_values, refuse_lazy
from ._arms import attribute_columns, encode_arms

#: Width of a confidence cell on the logit scale: within one cell P(correct) moves by at
#: most ~1% at the steepest point of a calibration map of slope 1.
CELL_WIDTH = 0.05


def as_correct(correct, n: int | None = None) -> np.ndarray:
    """Correctness in [0, 1] per item (1 right, 0 wrong, a fraction for graded correctness
    such as a BLEU score), NaN where not labeled; checked."""
    if correct is None:
        raise ValueError("correct is required: 1 where the classifier was right, 0 where wrong (or a graded "
                         "score in [0, 1]), NaN if not labeled")
    refuse_lazy(correct, "correct")
    correct = eager_values(correct)
    arr = np.asarray(correct)
    if arr.dtype == object:
        arr = np.array([np.nan if v is None else v for v in arr.tolist()])
    if arr.dtype.kind not in "biuf":
        raise TypeError(f"correct must be 1, 0 or NaN per item, got dtype {arr.dtype}")
    arr = arr.astype(float).ravel()
    if n is not None and arr.size != n:
        raise ValueError(f"correct has {arr.size} values but there are {n} items (attributes)")
    known = ~np.isnan(arr)
    bad = known & ~((arr >= 0) & (arr <= 1))
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ValueError(f"correct must lie in [0, 1] (1 right, 0 wrong, or a graded score) or be NaN "
                         f"(not labeled); item {i} is {arr[i]!r}")
    return arr


def as_confidence(confidence, n: int) -> np.ndarray | None:
    """The classifier's confidence in its prediction per item, in [0, 1], or None."""
    if confidence is None:
        return None
    refuse_lazy(confidence, "confidence")
    confidence = eager_values(confidence)
    try:
        arr = np.asarray(confidence, dtype=float).ravel()
    except (TypeError, ValueError):
        raise TypeError("confidence must be numbers in [0, 1], one per item") from None
    if arr.size != n:
        raise ValueError(f"confidence has {arr.size} values but there are {n} items")
    if not np.isfinite(arr).all():
        raise ValueError(f"confidence must be finite: {int((~np.isfinite(arr)).sum())} NaN/inf value(s)")
    if arr.min() < 0 or arr.max() > 1:
        raise ValueError(f"confidence must lie in [0, 1] (a probability of the predicted class); got "
                         f"values in [{arr.min():.4g}, {arr.max():.4g}]")
    return arr


def logit_confidence(confidence: np.ndarray) -> np.ndarray:
    """logit of the confidence; exact 0s and 1s (rounded values) sit half-way to the nearest
    other confidence, as spe's calibration maps place them (not at 1e-6 of the ends, where
    a few thousand of them would drag the recalibration's slope)."""
    low, high = rounding_clips(confidence)
    return special.logit(np.clip(confidence, low, high))


@dataclass(frozen=True)
class ArmCounts:
    """Counts per (arm, confidence cell).

    Attributes
    ----------
    names, levels : attribute names and their sorted values
    codes : ndarray (M, A), the arms present, as level codes
    cell_arm : ndarray (C,), the arm of each cell
    x_sum : ndarray (C,), sum of the items' logit-confidence (0 without confidence)
    n_items, n_labeled, n_correct : ndarray (C,), items, labeled items, labeled and right
    has_confidence : bool

    Examples
    --------
    >>> import numpy as np
    >>> from spe.surface import count_arms
    >>> counts = count_arms({"g": np.array(["a", "a", "b"])}, np.array([1.0, np.nan, 0.0]))
    >>> counts.n_arms, counts.arm_items.tolist(), counts.arm_labeled.tolist(), counts.arm_correct.tolist()
    (2, [2.0, 1.0], [1.0, 1.0], [1.0, 0.0])
    """

    names: tuple
    levels: tuple
    codes: np.ndarray
    cell_arm: np.ndarray
    x_sum: np.ndarray
    n_items: np.ndarray
    n_labeled: np.ndarray
    n_correct: np.ndarray
    has_confidence: bool

    @property
    def n_arms(self) -> int:
        return self.codes.shape[0]

    @property
    def cell_x(self) -> np.ndarray:
        """Mean logit-confidence of each cell."""
        return self.x_sum / np.maximum(self.n_items, 1e-300)

    def per_arm(self, values: np.ndarray) -> np.ndarray:
        """Sum a per-cell quantity over each arm's cells."""
        return np.bincount(self.cell_arm, weights=values, minlength=self.n_arms)

    @property
    def arm_items(self) -> np.ndarray:
        return self.per_arm(self.n_items)

    @property
    def arm_labeled(self) -> np.ndarray:
        return self.per_arm(self.n_labeled)

    @property
    def arm_correct(self) -> np.ndarray:
        return self.per_arm(self.n_correct)

    def values(self) -> dict:
        """Attribute values of each arm, ``name -> (M,) array``."""
        return {n: lv[self.codes[:, j]] for j, (n, lv) in enumerate(zip(self.names, self.levels))}

    def merge(self, other: "ArmCounts") -> "ArmCounts":
        """Counts of both chunks together (exact)."""
        if tuple(self.names) != tuple(other.names):
            raise ValueError(f"cannot merge counts of different attributes: {self.names} vs {other.names}")
        if self.has_confidence != other.has_confidence:
            raise ValueError("cannot merge counts with and without confidence")
        left, right = self.values(), other.values()
        arm_values = {n: np.concatenate([left[n][self.cell_arm], right[n][other.cell_arm]]) for n in self.names}
        bins = np.concatenate([self.cell_bins(), other.cell_bins()])
        stacked = [np.concatenate([getattr(self, f), getattr(other, f)])
                   for f in ("x_sum", "n_items", "n_labeled", "n_correct")]
        order = {n: np.concatenate([a, np.array([v for v in b.tolist() if v not in set(a.tolist())], dtype=b.dtype)])
                 for n, a, b in zip(self.names, self.levels, other.levels)}
        return _aggregate(arm_values, bins, *stacked, self.has_confidence, order=order)[0]

    def cell_bins(self) -> np.ndarray:
        return np.floor(self.cell_x / CELL_WIDTH).astype(np.int64) if self.has_confidence else np.zeros(
            self.cell_arm.size, dtype=np.int64)

    def __repr__(self) -> str:
        return (f"ArmCounts({self.n_arms} arms over {list(self.names)}, {self.n_items.sum():.0f} items, "
                f"{self.n_labeled.sum():.0f} labeled, {self.cell_arm.size} cells)")


def _aggregate(arm_values: dict, bins, x, n, n_lab, n_cor, has_confidence, order=None) -> tuple[ArmCounts, np.ndarray]:
    """Counts per (arm, cell) of rows with the given arm values, and each row's arm."""
    arms = encode_arms(arm_values, order=order)
    key = arms.item_arm * (bins.max() - bins.min() + 1) + (bins - bins.min())
    cells, cell_of = np.unique(key, return_inverse=True)
    first = np.zeros(cells.size, dtype=np.int64)
    first[cell_of[::-1]] = np.arange(key.size)[::-1]

    def total(v):
        return np.bincount(cell_of, weights=v, minlength=cells.size)

    counts = ArmCounts(arms.names, arms.levels, arms.codes, arms.item_arm[first], total(x), total(n),
                       total(n_lab), total(n_cor), has_confidence)
    return counts, arms.item_arm


def count_arms(attributes, correct, confidence=None, weights=None, return_item_arm=False, *, bins=None,
               order=None):
    """Count items per arm and confidence cell (one chunk; merge chunks with ``merge``).

    Parameters
    ----------
    attributes : DataFrame, dict name -> (N,) values, or (N, A) array
    correct : (N,) 1 right, 0 wrong, a graded score in [0, 1], NaN not labeled
    confidence : (N,) in [0, 1], optional
    weights : (N,) nonnegative, optional
        Fractional item counts (an item split across arms by uncertain attributes).
    return_item_arm : bool
        Also return each item's arm (its row in ``codes``).
    bins : int or dict name -> int or edges, optional
        How continuous attributes are cut (see :func:`spe.accuracy_surface`); counting in
        chunks, give edges, so that every chunk is cut alike.
    order : dict name -> sequence, optional
        The order of attributes' levels (default: ordered Categoricals' and bins' order).

    Returns
    -------
    ArmCounts, or (ArmCounts, item_arm)

    Raises
    ------
    ValueError
        Attributes, correctness or confidence of the wrong length or out of range.

    See Also
    --------
    spe.surface.surface_from_counts : fit a surface to (merged) counts.

    Examples
    --------
    >>> import numpy as np
    >>> from spe.surface import count_arms
    >>> rng = np.random.default_rng(0)
    >>> attrs = {"g": rng.choice(["a", "b"], 100)}
    >>> correct = np.where(rng.random(100) < 0.5, 1.0, np.nan)
    >>> first, second = count_arms({"g": attrs["g"][:50]}, correct[:50]), count_arms({"g": attrs["g"][50:]}, correct[50:])
    >>> merged = first.merge(second)
    >>> merged.arm_items.tolist() == count_arms(attrs, correct).arm_items.tolist()
    True
    """
    found = {}
    # a chunk may hold one level; fits check the whole
    columns = attribute_columns(attributes, min_levels=1, bins=bins, orders=found)
    found.update(order or {})
    n = next(iter(columns.values())).shape[0]
    y = as_correct(correct, n)
    conf = as_confidence(confidence, n)
    x = np.zeros(n) if conf is None else logit_confidence(conf)
    cells = np.floor(x / CELL_WIDTH).astype(np.int64) if conf is not None else np.zeros(n, dtype=np.int64)
    w = np.ones(n) if weights is None else np.asarray(weights, dtype=float)
    labeled = ~np.isnan(y)
    counts, item_arm = _aggregate(columns, cells, w * x, w, w * labeled, w * np.where(labeled, y, 0.0),
                                  conf is not None, order=found)
    return (counts, item_arm) if return_item_arm else counts
