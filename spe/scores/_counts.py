"""Scores reduced to mergeable counts: the form of data larger than memory.

Every score model sees the scores only through *groups* (:mod:`spe.scores`): distinct
scores with their counts, or fine bins of them when there are many. :class:`ScoreCounts`
is that reduction computed in one pass over chunks, and two reductions of different
chunks merge into the reduction of both, so it runs over the row groups of a Parquet
dataset, the blocks of a Dask array or the machines of a Dask cluster
(``_sources``) in any order, and gives the same counts as one pass over all items
(the sums of scores up to floating-point rounding): a chunk never needs a coarser binning
than the union of all chunks, and the merge coarsens to the finest binning that fits.

Per key it keeps the number of items, the sum of their scores (for the bin mean), and
their smallest and largest score. Keys are the exact scores while there are at most
``max_keys`` distinct ones. Beyond that, scores are binned by dropping low mantissa bits
of their float64 representation: a bin then spans a relative width of 2^-bits, which is
monotone in the score (bins are contiguous ranges), range-free (no first pass for the
minimum and maximum) and composes (coarsening a binned reduction equals binning the raw
scores at the coarser width), which is what makes merging exact. ``bits`` is lowered
one at a time until the keys fit.

The labeled items, few by the premise of the package, are kept exactly: their scores and
labels.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._columns import eager_values, refuse_lazy
from ._validation import as_labels

#: Keys kept before scores are binned (then ~32 MiB of counts).
DEFAULT_MAX_KEYS = 1 << 20
_MANTISSA_BITS = 52


def quantize(scores, bits: int | None) -> np.ndarray:
    """The bin key of each score: the float64 with all but ``bits`` mantissa bits dropped
    (``None``: the score itself)."""
    s = np.asarray(scores, dtype=np.float64)
    if bits is None:
        return s
    mask = np.uint64(~((1 << (_MANTISSA_BITS - bits)) - 1) & 0xFFFFFFFFFFFFFFFF)
    return (s.view(np.uint64) & mask).view(np.float64)


def _finite(scores, name="scores") -> np.ndarray:
    s = np.asarray(scores, dtype=np.float64).ravel()
    bad = ~np.isfinite(s)
    if bad.any():
        raise ValueError(f"{name} must be finite: {int(bad.sum())} NaN/inf value(s) in this chunk, "
                         f"first at position {int(np.flatnonzero(bad)[0])}")
    return s


@dataclass(frozen=True)
class ScoreCounts:
    """Counts of scores per key, mergeable; the labeled items kept exactly.

    Attributes
    ----------
    keys : (K,) ascending bin keys (the scores themselves while ``bits`` is None).
    count, total, low, high : (K,) items, sum of scores, smallest and largest score per key.
    bits : mantissa bits kept by the binning, or None for exact scores.
    labeled_scores, labeled_labels : the labeled items' scores and 0/1 labels.
    max_keys : keys kept before binning.

    Examples
    --------
    >>> from spe.scores import count_scores
    >>> a = count_scores([0.2, 0.9, 0.4], [0, 1, None])
    >>> b = count_scores([0.9, 0.7], [None, 1])
    >>> a.merge(b)
    ScoreCounts(5 items, 4 keys, exact, 3 labeled)
    """

    keys: np.ndarray
    count: np.ndarray
    total: np.ndarray
    low: np.ndarray
    high: np.ndarray
    bits: int | None
    labeled_scores: np.ndarray
    labeled_labels: np.ndarray
    max_keys: int = DEFAULT_MAX_KEYS

    # ---- building -----------------------------------------------------------------
    @classmethod
    def empty(cls, max_keys: int = DEFAULT_MAX_KEYS) -> "ScoreCounts":
        if not isinstance(max_keys, (int, np.integer)) or max_keys < 16:
            raise ValueError(f"max_keys must be an integer >= 16, got {max_keys!r}")
        z, f = np.empty(0), np.empty(0, np.int64)
        return cls(z, f, z, z, z, None, z, z, int(max_keys))

    @classmethod
    def from_arrays(cls, scores, labels=None, max_keys: int = DEFAULT_MAX_KEYS, bits: int | None = None
                    ) -> "ScoreCounts":
        """The reduction of one chunk: scores, and labels (1/0, NaN = unlabeled) or None.

        ``bits``: bin at once at this width (that of the reduction it will be merged into:
        the same result, less work).
        """
        s = _finite(scores)
        out = cls.empty(max_keys)
        if labels is None:
            ls, ll = np.empty(0), np.empty(0)
        else:
            y = as_labels(np.asarray(labels, dtype=np.float64).ravel(), s.size)
            known = ~np.isnan(y)
            ls, ll = s[known], y[known]
        s = np.sort(s)
        bits = _finest_bits_that_fit(s, bits, max_keys)
        return out._with(*_runs_of_sorted(quantize(s, bits), s), None if bits is None else int(bits), ls, ll)

    def merge(self, other: "ScoreCounts") -> "ScoreCounts":
        """The reduction of both chunks."""
        if not isinstance(other, ScoreCounts):
            raise TypeError(f"can only merge ScoreCounts, got {type(other).__name__}")
        bits = _coarser(self.bits, other.bits)
        a, b = self.coarsened(bits), other.coarsened(bits)
        keys = np.concatenate([a.keys, b.keys])
        order = np.argsort(keys, kind="stable")
        parts = [np.concatenate([getattr(a, f), getattr(b, f)])[order] for f in ("count", "total", "low", "high")]
        merged = _combine_equal_keys(keys[order], *parts)
        return self._with(*merged, bits, np.concatenate([self.labeled_scores, other.labeled_scores]),
                          np.concatenate([self.labeled_labels, other.labeled_labels]))._fitted_to_cap()

    def coarsened(self, bits: int | None) -> "ScoreCounts":
        """The same counts binned at ``bits`` (no finer than now)."""
        if bits == self.bits:
            return self
        if bits is not None and self.bits is not None and bits > self.bits:
            raise ValueError("cannot refine a binned reduction")
        merged = _combine_equal_keys(quantize(self.keys, bits), self.count, self.total, self.low, self.high)
        return self._with(*merged, bits, self.labeled_scores, self.labeled_labels)

    def _fitted_to_cap(self) -> "ScoreCounts":
        """Coarsened to the finest width at which the keys fit ``max_keys``."""
        return self.coarsened(_finest_bits_that_fit(self.keys, self.bits, self.max_keys))

    def _with(self, keys, count, total, low, high, bits, ls, ll) -> "ScoreCounts":
        return ScoreCounts(keys, count, total, low, high, bits, ls, ll, self.max_keys)

    # ---- reading --------------------------------------------------------------------
    @property
    def n_items(self) -> int:
        return int(self.count.sum())

    @property
    def n_labeled(self) -> int:
        return int(self.labeled_labels.size)

    @property
    def exact(self) -> bool:
        """True while every key is one distinct score."""
        return self.bits is None

    @property
    def means(self) -> np.ndarray:
        """The mean score of each key's items (the score itself when exact)."""
        return self.total / self.count

    @property
    def minimum(self) -> float:
        return float(self.low[0])

    @property
    def maximum(self) -> float:
        return float(self.high[-1])

    def key_of(self, scores) -> np.ndarray:
        """Index of the key whose range [low, high] holds each score (which must have been counted)."""
        s = np.asarray(scores, dtype=np.float64)
        idx = np.clip(np.searchsorted(self.high, s), 0, max(self.keys.size - 1, 0))
        if self.keys.size == 0 or np.any((self.low[idx] > s) | (self.high[idx] < s)):
            raise ValueError("a labeled score is not among the counted scores: count every item, "
                             "labeled or not, in the same reduction")
        return idx

    def reversed_scores(self, probabilities: bool) -> "ScoreCounts":
        """Counts of 1 - s (probabilities) or -s, for fitting when lower scores mean positive.
        The keys are then labels of ranges only: do not merge the result with other counts."""
        def flip(v):
            return 1.0 - v if probabilities else -v

        rev = slice(None, None, -1)
        total = self.count[rev] - self.total[rev] if probabilities else -self.total[rev]
        return ScoreCounts(flip(self.keys[rev]), self.count[rev].copy(), total, flip(self.high[rev]),
                           flip(self.low[rev]), self.bits, flip(self.labeled_scores),
                           self.labeled_labels.copy(), self.max_keys)

    def __repr__(self) -> str:
        how = "exact" if self.exact else f"binned at relative width 2^-{self.bits}"
        return (f"ScoreCounts({self.n_items} items, {self.keys.size} keys, {how}, "
                f"{self.n_labeled} labeled)")


def _coarser(a, b):
    if a is None:
        return b
    if b is None:
        return a
    return min(a, b)


def _n_distinct_sorted(v) -> int:
    return int(v.size and 1 + np.count_nonzero(v[1:] != v[:-1]))


def _finest_bits_that_fit(sorted_keys, bits, max_keys):
    """``bits`` if the sorted keys binned at it number at most ``max_keys``, else the
    largest coarser width at which they do."""
    if _n_distinct_sorted(quantize(sorted_keys, bits)) <= max_keys:
        return bits
    low, high = 0, _MANTISSA_BITS - 1 if bits is None else bits - 1
    while low < high:  # the number of keys grows with bits: bisect for the largest that fits
        mid = (low + high + 1) // 2
        if _n_distinct_sorted(quantize(sorted_keys, mid)) <= max_keys:
            low = mid
        else:
            high = mid - 1
    return low


def _runs_of_sorted(keys, s):
    """Keys, counts, sums, minima and maxima of sorted scores ``s`` over runs of equal keys
    (the minimum and maximum of a run of sorted scores are its ends: one reduction, not four)."""
    if keys.size == 0:
        return keys, np.empty(0, np.int64), s, s, s
    starts = _run_starts(keys)
    ends = np.append(starts[1:], keys.size)
    return keys[starts], ends - starts, np.add.reduceat(s, starts), s[starts], s[ends - 1]


def _run_starts(keys) -> np.ndarray:
    """Index of the first element of each run of equal values in sorted, non-empty ``keys``."""
    new = np.empty(keys.size, dtype=bool)
    new[0] = True
    np.not_equal(keys[1:], keys[:-1], out=new[1:])
    return np.flatnonzero(new)


def _combine_equal_keys(keys, count, total, low, high):
    """Sum counts and totals, take min and max, over runs of equal (sorted) keys."""
    if keys.size == 0:
        return keys, count, total, low, high
    starts = _run_starts(keys)
    return (keys[starts], np.add.reduceat(count, starts), np.add.reduceat(total, starts),
            np.minimum.reduceat(low, starts), np.maximum.reduceat(high, starts))


def count_scores(scores, labels=None, *, chunk_size: int = 1 << 22, max_keys: int = DEFAULT_MAX_KEYS) -> ScoreCounts:
    """Reduce in-memory scores (and labels) chunk by chunk into a :class:`ScoreCounts`.
    Lazy Dask collections: :func:`spe.count_dask`.

    Examples
    --------
    >>> import numpy as np
    >>> from spe.scores import count_scores
    >>> counts = count_scores(np.round(np.linspace(0, 1, 1000), 2), [1, 0] + [None] * 998)
    >>> counts.n_items, counts.keys.size, counts.labeled_labels.tolist()
    (1000, 101, [1.0, 0.0])
    """
    for values, name in ((scores, "scores"), (labels, "labels")):
        refuse_lazy(values, name, "count it where it lives with spe.count_dask(scores, labels)")
    s = np.asarray(eager_values(scores))
    y = None if labels is None else np.asarray(eager_values(labels), dtype=np.float64)
    if s.ndim != 1:
        raise ValueError(f"scores must be one-dimensional, got shape {s.shape}")
    if y is not None and y.shape != s.shape:
        raise ValueError(f"labels has length {y.size} but scores has length {s.size}")
    out = ScoreCounts.empty(max_keys)
    for start in range(0, s.size, chunk_size):
        part = slice(start, start + chunk_size)
        out = out.merge(ScoreCounts.from_arrays(s[part], None if y is None else y[part], max_keys, out.bits))
    return out
