"""One model of a :func:`spe.fit_many` result, with every accessor of :func:`spe.fit`'s result.

``res["lr"]`` is an :class:`~spe.report.SPEResult` whose label draws are the shared
ones: under each shared labelling of the items, the positives in each of model "lr"'s
score groups. Its curves, metrics, thresholds and summary are therefore computed on the
same labellings as every other model's (paired comparisons) and as
``res.metric_draws("lr")``: with at most ``max_groups`` distinct scores the numbers are
identical. What differs from :func:`spe.fit`'s result:

* the label posterior is the shared one (``_binary``), which reads every
  model's score of an item, so it is evaluated at items, not at scores: ``group_prob`` is
  its mean over each score group's unlabeled items, and :meth:`ModelResult.prob_positive`
  is the shared P(y_i = 1), the same for every model;
* ``kind="population"`` is the population the items come from, with the items
  bootstrapped (``_population``), the same weights as
  ``ManyResult.metric_draws(name, kind="population")``; ``spe.fit``'s takes the items'
  scores as given;
* :meth:`ModelResult.calibrate` refuses new scores: a new item needs every model's score;
* no score mixture is fitted, so ``plot_fit`` and the mixture's attributes refuse.
"""

from __future__ import annotations

from functools import cached_property

import numpy as np

from ..metrics import check_kind
from ..report import SPEResult, Summary
from ._population import population_sweep

#: Items per block when a posterior is evaluated at items, so memory stays (draws x block).
_BLOCK_CELLS = 4_000_000


def group_sums(values, items, group, n_groups: int, n_rows: int) -> np.ndarray:
    """(n_rows, n_groups) sums over ``items`` in each group of ``values(block)`` ((n_rows, b)
    for a block of item indices), evaluated block by block."""
    order = items[np.argsort(group[items], kind="stable")]
    g = group[order]
    out = np.zeros((n_rows, n_groups))
    step = max(1, _BLOCK_CELLS // max(n_rows, 1))
    for start in range(0, order.size, step):
        gb = g[start:start + step]
        starts = np.flatnonzero(np.r_[True, gb[1:] != gb[:-1]])
        out[:, gb[starts]] += np.add.reduceat(values(order[start:start + step]), starts, axis=1)
    return out


def item_mean_probabilities(model, n_items: int) -> np.ndarray:
    """(N,) posterior-mean P(y_i = 1) of every item under ``model`` (evaluated at items)."""
    step = max(1, _BLOCK_CELLS // max(model.n_draws, 1))
    return np.concatenate([model.weights @ model.prob_positive(np.arange(i, min(n_items, i + step)))
                           for i in range(0, n_items, step)])


class ModelResult(SPEResult):
    """One model of a :class:`~spe.several.ManyResult` (``res[name]``): the accessors of
    :class:`~spe.report.SPEResult` on the shared label draws (see the module docstring).

    Attributes
    ----------
    name : the model's name in :func:`spe.fit_many`'s dict.
    excluded : why the model was kept out of the label model ('' when it is in).

    Examples
    --------
    >>> import numpy as np
    >>> import spe
    >>> rng = np.random.default_rng(0)
    >>> y = rng.random(300) < 0.3
    >>> scores = {"a": np.clip(0.3 + 0.4 * y + rng.normal(0, 0.2, 300), 0, 1),
    ...           "b": np.clip(0.3 + 0.3 * y + rng.normal(0, 0.2, 300), 0, 1)}
    >>> labels = np.where(np.arange(300) < 30, y, np.nan)
    >>> res = spe.fit_many(scores, labels, n_draws=200, seed=0)
    >>> r = res["a"]
    >>> r.name, r.excluded
    ('a', '')
    >>> bool(np.array_equal(r.prob_positive(), res.prob_positive()))
    True
    """

    def __init__(self, name, data, label_posterior, label_draws, shared_probabilities, seeds, excluded="",
                 population_seed=0, items=None):
        label_seed, export_seed, check_seed = seeds
        super().__init__(data, label_posterior, label_seed, export_seed, check_seed=check_seed, items=items)
        self.name = name
        self.excluded = excluded
        self._population_seed = population_seed
        self._label_draws = label_draws  # (draws, N) bool, shared by every model
        self._shared_probabilities = shared_probabilities  # () -> (N,) shared P(y_i = 1)

    @property
    def mixture(self):
        """None: the shared label model has no score mixture."""
        return None

    @property
    def _labeled_inputs(self) -> np.ndarray:
        """The shared label models take item indices, not one model's scores."""
        return np.flatnonzero(self.data.is_labeled)

    @cached_property
    def positive_counts(self) -> np.ndarray:
        """(draws, groups) positives per score group under each shared labelling."""
        d = self.data
        return group_sums(lambda items: self._label_draws[:, items].astype(float), np.arange(d.n_items), d.group,
                          d.n_groups, self._label_draws.shape[0]).astype(np.int64)

    def _sweep_of(self, kind):
        """As :meth:`SPEResult._sweep_of`; the population kind bootstraps the items too."""
        if check_kind(kind) == "population" and kind not in self._sweeps:
            d = self.data
            self._sweeps[kind] = population_sweep(self.label_posterior, d.labels, d.group, d.n_groups,
                                                  self._population_seed)
        return super()._sweep_of(kind)

    def _group_prob_of(self, model) -> np.ndarray:
        """(draws, groups) mean P(y = 1) under ``model`` of each group's unlabeled items (a
        group of labeled items only: of those, what a new item there would be like)."""
        d = self.data
        labeled = d.is_labeled
        out = group_sums(model.prob_positive, np.flatnonzero(~labeled), d.group, d.n_groups, model.n_draws)
        out /= np.maximum(d.n_unlabeled, 1)
        only_labeled = d.n_unlabeled == 0
        if only_labeled.any():
            sums = group_sums(model.prob_positive, np.flatnonzero(labeled), d.group, d.n_groups, model.n_draws)
            out[:, only_labeled] = sums[:, only_labeled] / (d.n_neg + d.n_pos)[only_labeled]
        return out

    def prob_positive(self):
        """Posterior P(y_i = 1 | every model's scores, the labels) per item (labeled items:
        their label): the shared label model's, the same for every model (a pandas Series
        on the caller's index when the scores came with one)."""
        return self.items.wrap(self._shared_probabilities().copy(), "prob_positive")

    def calibrate(self, scores) -> np.ndarray:
        """Refused: the shared label model needs every model's score of an item."""
        raise ValueError(f"res[{self.name!r}].calibrate(scores) is not defined: spe.fit_many's label model reads "
                         "every model's score of an item, not one model's. These items' probabilities: "
                         f"res[{self.name!r}].prob_positive(); one model's own recalibration of new scores: "
                         "spe.fit(scores, labels).calibrate(new_scores)")

    def summary(self, level=0.9) -> Summary:
        """As :meth:`SPEResult.summary`, headed by the model's name; the "score models" are
        the shared label models of every model, and the metrics this model's."""
        inner = super().summary(level)
        first, rest = inner.text.split("\n", 1)
        note = f"; excluded from the label model: {self.excluded}" if self.excluded else ""
        head = (f"{first}\n  model {self.name!r} of spe.fit_many: metrics on the label draws shared by every model"
                f"{note}")
        return Summary(f"{head}\n{rest}", inner.data | {"model": self.name, "excluded": self.excluded})

    def __repr__(self):
        return (f"<SPEResult of model {self.name!r} on spe.fit_many's shared label draws: {self.data.n_items} items, "
                f"{self.data.n_labeled} labeled; call .summary()>")
