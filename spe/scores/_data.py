"""Validated scores and labels compressed into score groups: the :class:`ScoreData`
that everything downstream trusts (the checks themselves: ``_validation``).

Scores are mapped onto the *unit score* ``z`` in [0, 1] through a
:class:`~spe.scores.ScoreFrame` (``_frame``), so families and priors work in units
of the score range whatever the classifier emits (probabilities, logits, margins).

Items are compressed into *groups*: every distinct score is a group, with its counts of
unlabeled, negative and positive items. This is exact. When there are more distinct
scores than ``max_groups`` (say a million continuous scores), consecutive scores are
pooled into fine bins (each bin at most ~1/``max_groups`` of the items *and* of the
range) represented by their mean; the results object reports this.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from ._frame import ScoreFrame
from ._validation import FEW_ITEMS, MIN_DISTINCT_SCORES, as_labels, as_scores

#: Bins hold at most 1/2,500 of the items and of the range (mass and width bins, half each):
#: finer than any threshold a user picks, and the label draws of the curves cost draws x groups.
DEFAULT_MAX_GROUPS = 5_000


@dataclass(frozen=True)
class ScoreData:
    """Validated scores and labels, compressed into score-sorted groups.

    Attributes
    ----------
    scores, labels : (N,) arrays as given (labels NaN where unknown); None when built from
        :class:`~spe.scores.ScoreCounts` (data larger than memory), which keeps only the
        labeled items (``labeled_items``) and the counts per group.
    frame : ScoreFrame
    z : (G,) representative unit score of each group, ascending.
    threshold : (G,) the lowest user score in each group; predicting "positive" for
        scores >= threshold[g] selects groups g, g+1, ... exactly.
    n_unlabeled, n_neg, n_pos : (G,) integer counts per group.
    group : (N,) the group of each item.
    exact : True when every group holds a single distinct score.
    censored : (G,) -1 / 0 / +1 per group (see :meth:`ScoreFrame.censoring`).

    Examples
    --------
    >>> import numpy as np
    >>> from spe.scores import prepare
    >>> scores = np.linspace(0.01, 0.99, 60)
    >>> labels = np.where(np.arange(60) % 10 == 0, (scores > 0.5) * 1.0, np.nan)
    >>> data = prepare(scores, labels)
    >>> data.n_items, data.n_labeled, data.n_groups
    (60, 6, 60)
    >>> int(data.n_pos.sum()), int(data.n_neg.sum())
    (3, 3)
    """

    scores: np.ndarray
    labels: np.ndarray
    frame: ScoreFrame
    z: np.ndarray
    threshold: np.ndarray
    n_unlabeled: np.ndarray
    n_neg: np.ndarray
    n_pos: np.ndarray
    group: np.ndarray | None
    exact: bool
    censored: np.ndarray | None = None
    labeled_items: tuple[np.ndarray, np.ndarray] | None = None

    @property
    def item_level(self) -> bool:
        """True when every item's score is held (not only counts per group)."""
        return self.scores is not None

    @property
    def n_items(self) -> int:
        return self.scores.size if self.item_level else int(self.n_total.sum())

    @property
    def labeled_scores(self) -> np.ndarray:
        return self.scores[self.is_labeled] if self.item_level else self.labeled_items[0]

    @property
    def labeled_labels(self) -> np.ndarray:
        return self.labels[self.is_labeled] if self.item_level else self.labeled_items[1]

    def score_distribution(self) -> tuple[np.ndarray, np.ndarray | None]:
        """(scores, weights) of every item: the items themselves (weights None), or each
        group's mean score weighted by its count."""
        if self.item_level:
            return self.scores, None
        return self.frame.from_unit(self.z), self.n_total.astype(float)

    def require_items(self, what: str) -> None:
        """Refuse an output that needs every item's score when only counts are held."""
        if not self.item_level:
            raise ValueError(f"{what} needs every item's score, but this fit holds only counts of "
                             f"{self.n_items} scores (spe.count_scores, read_parquet, count_dask); call it on a "
                             "result fitted from an array, or use res.calibrate(scores) on the items you need")

    @property
    def n_groups(self) -> int:
        return self.z.size

    @property
    def n_labeled(self) -> int:
        return int(self.n_neg.sum() + self.n_pos.sum())

    @property
    def n_total(self) -> np.ndarray:
        return self.n_unlabeled + self.n_neg + self.n_pos

    @cached_property
    def count_layout(self) -> "CountLayout":
        """The groups as the likelihood sees them (:class:`CountLayout`; computed once: the
        log likelihood is evaluated thousands of times on the same data)."""
        return CountLayout.of(self.z, self.censored, self.n_unlabeled, self.n_neg, self.n_pos)

    @property
    def is_labeled(self) -> np.ndarray:
        self.require_items("a per-item mask of labeled items")
        return ~np.isnan(self.labels)


@dataclass(frozen=True)
class CountLayout:
    """The groups as the likelihood sees them: distinct (unit score, censoring) points with
    their counts summed, and the points holding unlabeled, negative and positive items.

    Censored groups beyond one frame edge become one point: their scores differ (and
    rank differently on a curve), but each says only "beyond the edge". Files with
    thousands of distinct scores below the logit clip have thousands of such groups.
    ``unlabeled`` is None when every point holds unlabeled items (no indexing needed).

    Examples
    --------
    >>> import numpy as np
    >>> from spe.scores import prepare
    >>> data = prepare(np.repeat([0.2, 0.5, 0.8], 20), np.r_[0, 1, [np.nan] * 58])
    >>> layout = data.count_layout
    >>> layout.z.size, int(layout.n_unlabeled.sum()), int(layout.n_neg.sum()), int(layout.n_pos.sum())
    (3, 58, 1, 1)
    """

    z: np.ndarray
    censored: np.ndarray | None
    unlabeled: np.ndarray | None
    n_unlabeled: np.ndarray
    neg: np.ndarray
    n_neg: np.ndarray
    pos: np.ndarray
    n_pos: np.ndarray

    @classmethod
    def of(cls, z, censored, n_unlabeled, n_neg, n_pos) -> "CountLayout":
        side = np.zeros(z.size) if censored is None else censored.astype(float)
        points, where = np.unique(np.stack([z, side]), axis=1, return_inverse=True)
        where = where.ravel()
        n_unl, n_0, n_1 = (np.bincount(where, weights=n, minlength=points.shape[1]) for n in (n_unlabeled, n_neg, n_pos))
        unl, neg, pos = (np.flatnonzero(n > 0) for n in (n_unl, n_0, n_1))
        every = unl.size == n_unl.size
        return cls(points[0], None if censored is None else points[1].astype(censored.dtype),
                   None if every else unl, n_unl[unl], neg, n_0[neg], pos, n_1[pos])


def _pool(unique_z, counts, max_groups):
    """Group ids pooling consecutive distinct scores into fine mass-and-width bins."""
    half = max(max_groups // 2, 1)
    before = np.cumsum(counts) - counts
    mass_bin = np.floor(before * half / counts.sum()).astype(np.int64)
    width_bin = np.floor(unique_z * half).astype(np.int64)
    new = np.ones(unique_z.size, dtype=bool)
    new[1:] = (np.diff(mass_bin) != 0) | (np.diff(width_bin) != 0)
    return np.cumsum(new) - 1


def pooled(data: ScoreData, max_groups: int) -> ScoreData:
    """``data`` with its groups pooled into at most ~``max_groups`` fine bins.

    The bins follow the same mass-and-width rule as :func:`prepare`; censored groups are
    never pooled with uncensored ones. Returns ``data`` itself when it is small enough.
    Used to search for the MAP cheaply before polishing it on the exact data.

    Examples
    --------
    >>> import numpy as np
    >>> from spe.scores import pooled, prepare
    >>> data = prepare(np.linspace(0.0, 1.0, 1000))
    >>> pooled(data, 50).n_groups < data.n_groups
    True
    """
    if data.n_groups <= max_groups:
        return data
    total = data.n_total
    to_pooled = _pool(data.z, total, max_groups)
    censored = data.censored if data.censored is not None else np.zeros(data.n_groups, np.int8)
    new = np.ones(data.n_groups, dtype=bool)
    new[1:] = (np.diff(to_pooled) != 0) | (np.diff(censored) != 0)
    to_pooled = np.cumsum(new) - 1
    n = int(to_pooled[-1]) + 1

    def summed(counts):
        return np.bincount(to_pooled, weights=counts, minlength=n).astype(np.int64)

    first = np.flatnonzero(new)
    return ScoreData(
        scores=data.scores, labels=data.labels, frame=data.frame,
        z=np.bincount(to_pooled, weights=total * data.z, minlength=n) / summed(total),
        threshold=data.threshold[first], n_unlabeled=summed(data.n_unlabeled),
        n_neg=summed(data.n_neg), n_pos=summed(data.n_pos),
        group=None if data.group is None else to_pooled[data.group],
        exact=False, censored=censored[first], labeled_items=data.labeled_items,
    )


def prepare(scores, labels=None, *, score_range=None, max_groups=DEFAULT_MAX_GROUPS,
            transform="identity") -> ScoreData:
    """Validate user input and build the compressed :class:`ScoreData`.

    Examples
    --------
    >>> import numpy as np
    >>> from spe.scores import prepare
    >>> data = prepare(np.linspace(-3, 3, 80), [1, 0] + [None] * 78)
    >>> data.n_items, data.n_labeled, data.frame.transform
    (80, 2, 'identity')
    """
    s = as_scores(scores)
    return build_score_data(s, as_labels(labels, s.size), score_range=score_range, max_groups=max_groups,
                            transform=transform)


def build_score_data(s: np.ndarray, y: np.ndarray, *, score_range=None, max_groups=DEFAULT_MAX_GROUPS,
                     transform="identity") -> ScoreData:
    """:class:`ScoreData` from scores and labels already validated at the boundary
    (``as_scores``, ``as_labels``: float arrays, labels 0/1/NaN), e.g. by :func:`spe.fit`."""
    if not isinstance(max_groups, (int, np.integer)) or max_groups < 2:
        raise ValueError(f"max_groups must be an integer >= 2, got {max_groups!r}")
    labeled = ~np.isnan(y)
    if labeled.all() and np.unique(y).size == 1:
        cls = "positive" if y[0] == 1 else "negative"
        raise ValueError(
            f"every item is labeled and all are {cls}: precision, recall and the curves are undefined"
        )
    if s.size < FEW_ITEMS:
        warnings.warn(
            f"only {s.size} items (fewer than {FEW_ITEMS}): the score distribution says little about the "
            "two classes, so results lean on the priors and the labels and bands are wide",
            UserWarning,
            stacklevel=3,
        )
    frame = ScoreFrame.from_scores(s, score_range, transform=transform)
    unique_s, item_to_unique, counts = np.unique(s, return_inverse=True, return_counts=True)
    unique_z = frame.to_unit(unique_s)
    exact = unique_s.size <= max_groups
    if exact:
        unique_to_group = np.arange(unique_s.size)
    else:
        unique_to_group = _pool(unique_z, counts, max_groups)
    n_groups = int(unique_to_group[-1]) + 1
    group = unique_to_group[item_to_unique]
    total = np.bincount(unique_to_group, weights=counts, minlength=n_groups)
    z = np.bincount(unique_to_group, weights=counts * unique_z, minlength=n_groups) / total
    first_of_group = np.searchsorted(unique_to_group, np.arange(n_groups))
    n_pos = np.bincount(group[labeled], weights=y[labeled], minlength=n_groups)
    n_lab = np.bincount(group[labeled], minlength=n_groups)
    return ScoreData(
        scores=s,
        labels=y,
        frame=frame,
        z=z,
        threshold=unique_s[first_of_group],
        n_unlabeled=(total - n_lab).astype(np.int64),
        n_neg=(n_lab - n_pos).astype(np.int64),
        n_pos=n_pos.astype(np.int64),
        group=group,
        exact=exact,
        censored=frame.censoring(unique_s[first_of_group]),
    )


def prepare_counts(counts, *, score_range=None, max_groups=DEFAULT_MAX_GROUPS, transform="identity") -> ScoreData:
    """:class:`ScoreData` from a :class:`~spe.scores.ScoreCounts` (data larger than memory).

    The same groups as :func:`prepare` on the items themselves when the counts are exact;
    binned counts are pooled further by the same mass-and-width rule.

    Examples
    --------
    >>> import numpy as np
    >>> from spe.scores import count_scores, prepare_counts
    >>> counts = count_scores(np.linspace(0.01, 0.99, 100), [0, 1] + [None] * 98)
    >>> data = prepare_counts(counts)
    >>> data.n_items, data.n_labeled, data.item_level
    (100, 2, False)
    """
    if not isinstance(max_groups, (int, np.integer)) or max_groups < 2:
        raise ValueError(f"max_groups must be an integer >= 2, got {max_groups!r}")
    if counts.n_items == 0:
        raise ValueError("the score counts are empty: no scores were read")
    if counts.keys.size < MIN_DISTINCT_SCORES:
        raise ValueError(f"all {counts.n_items} scores are equal: a constant score carries no information "
                         "about performance")
    y = counts.labeled_labels
    if y.size == counts.n_items and np.unique(y).size == 1:
        raise ValueError("every item is labeled and all are of one class: the curves are undefined")
    frame = ScoreFrame.from_scores(np.array([counts.minimum, counts.maximum]), score_range, transform=transform)
    # exact keys are the scores themselves; their sum / count can differ from them in the last bit
    unique_z = frame.to_unit(counts.keys if counts.exact else counts.means)
    exact = counts.exact and counts.keys.size <= max_groups
    unique_to_group = np.arange(counts.keys.size) if exact else _pool(unique_z, counts.count, max_groups)
    n_groups = int(unique_to_group[-1]) + 1
    total = np.bincount(unique_to_group, weights=counts.count, minlength=n_groups)
    z = np.bincount(unique_to_group, weights=counts.count * unique_z, minlength=n_groups) / total
    first = np.searchsorted(unique_to_group, np.arange(n_groups))
    labeled_group = unique_to_group[counts.key_of(counts.labeled_scores)]
    n_pos = np.bincount(labeled_group, weights=y, minlength=n_groups)
    n_lab = np.bincount(labeled_group, minlength=n_groups)
    threshold = counts.low[first]
    return ScoreData(
        scores=None, labels=None, frame=frame, z=z, threshold=threshold,
        n_unlabeled=(total - n_lab).astype(np.int64), n_neg=(n_lab - n_pos).astype(np.int64),
        n_pos=n_pos.astype(np.int64), group=None, exact=exact, censored=frame.censoring(threshold),
        labeled_items=(counts.labeled_scores.copy(), y.copy()),
    )
