"""The object :func:`spe.fit_multiclass` returns: coherent class draws and every metric.

Each posterior draw holds one class for every item (labeled items keep theirs), so
accuracy, per-class rates, the confusion matrix and one-vs-rest curves agree with each
other draw by draw.
"""

from __future__ import annotations

import numbers
from functools import cached_property

import numpy as np

from .._util.digits import format_interval
from ..metrics import (DEFAULT_RECALL_GRID, Estimate, PRCurve, Sweep, check_grid, check_level, draws_sweep,
                       sample_average_precision, sample_precision_at_recall)
from ..report import plot_per_class, records_frame
from ..scores import ItemIndex
from ._frames import confusion_records, per_class_records
from . import _outputs


def describe_weighted(fits: dict, weights: dict) -> dict:
    """Each label model's description with its weight."""
    return {name: {"weight": weights[name]} | fit.describe() for name, fit in fits.items()}


class MulticlassResult:
    """Result of :func:`fit_multiclass`: coherent label draws and everything derived.

    ``predicted`` is the classifier's top-1 class per item; ``class_draws`` the
    (draws, N) drawn classes (labeled items fixed); ``fits`` the label models by name and
    ``model_weights`` each one's share of the draws. Metrics are posterior medians with
    equal-tailed intervals (:class:`~spe.metrics.Estimate`). ``classes`` names the classes
    (a DataFrame's column names, else 0..K-1); ``items`` is the caller's item index
    (:class:`~spe.scores.ItemIndex`), which per-item outputs carry.

    Examples
    --------
    >>> import numpy as np
    >>> import spe
    >>> rng = np.random.default_rng(0)
    >>> probs = rng.dirichlet([1, 1, 1], size=200)
    >>> labels = np.full(200, -1)
    >>> labels[:20] = [int(np.argmax(p)) for p in probs[:20]]
    >>> res = spe.fit_multiclass(probs, labels, n_draws=200, seed=0)
    >>> res
    <MulticlassResult 200 items, 3 classes, 20 labeled>
    >>> res.to_frame().columns.tolist()
    ['metric', 'class', 'estimate', 'lower', 'upper', 'level']
    """

    def __init__(self, f, labels, kind, fits: dict, model_weights: dict, class_draws, *, classes=None,
                 items=None):
        self.log_probs = f
        self.labels = labels
        self.score_kind = kind
        self.fits = fits
        self.model_weights = model_weights
        self.class_draws = class_draws
        self.predicted = np.argmax(f, axis=1)
        self.classes = list(range(f.shape[1])) if classes is None else list(classes)
        self.items = items if items is not None else ItemIndex()

    @property
    def n_items(self) -> int:
        return self.labels.size

    @property
    def n_classes(self) -> int:
        return self.log_probs.shape[1]

    @property
    def n_labeled(self) -> int:
        return int(np.sum(self.labels >= 0))

    def _estimate(self, name, values, level):
        values = np.asarray(values, float)
        return Estimate.from_draws(name, values, np.full(values.size, 1.0 / values.size), level)

    def accuracy(self, level=0.9) -> Estimate:
        """Top-1 accuracy of the classifier on these N items.

        Examples
        --------
        >>> import numpy as np
        >>> import spe
        >>> probs = np.random.default_rng(1).dirichlet([2, 2, 2], size=100)
        >>> res = spe.fit_multiclass(probs, model="temperature", n_draws=100, seed=0)
        >>> est = res.accuracy()
        >>> 0 <= est.lower <= est.value <= est.upper <= 1
        True
        """
        return self._estimate("accuracy", np.mean(self.class_draws == self.predicted, axis=1), level)

    def top_k_accuracy(self, k, level=0.9) -> Estimate:
        """Share of items whose class is among the classifier's k highest scores.

        Examples
        --------
        >>> import numpy as np
        >>> import spe
        >>> probs = np.random.default_rng(1).dirichlet([2, 2, 2], size=100)
        >>> res = spe.fit_multiclass(probs, model="temperature", n_draws=100, seed=0)
        >>> res.top_k_accuracy(3).value  # every item's class is among all 3
        1.0
        """
        if not isinstance(k, numbers.Integral) or not 1 <= k <= self.n_classes:
            raise ValueError(f"k must be an integer in 1..{self.n_classes}, got {k!r}")
        top = np.argpartition(-self.log_probs, k - 1, axis=1)[:, :k]
        hit = np.zeros((self.class_draws.shape[0], self.n_items), dtype=bool)
        for j in range(k):
            hit |= self.class_draws == top[:, j]
        return self._estimate(f"top-{k} accuracy", hit.mean(axis=1), level)

    @cached_property
    def _per_class_counts(self):
        """(draws, K) true positives, predicted and actual counts of each class."""
        m, k = self.class_draws.shape[0], self.n_classes
        hit = self.class_draws == self.predicted
        tp = np.stack([np.bincount(self.predicted[h], minlength=k) for h in hit])
        actual = np.stack([np.bincount(d, minlength=k) for d in self.class_draws])
        predicted = np.broadcast_to(np.bincount(self.predicted, minlength=k), (m, k))
        return tp, predicted, actual

    def per_class(self, level=0.9, as_frame=False):
        """Per class: precision (= accuracy of the items predicted as it), recall, F1, prevalence.

        Parameters
        ----------
        level : float, default=0.9
            Level of the equal-tailed intervals.
        as_frame : bool, default=False
            False: a list of dicts, one per class (``class``: its index, ``n_predicted``,
            and an :class:`~spe.metrics.Estimate` or None per metric). True: a tidy pandas
            DataFrame, one row per class and metric, columns ``metric``, ``class`` (its
            name), ``estimate``, ``lower``, ``upper``, ``level``, ``n_predicted`` (NaN
            estimates where a class has no predicted or no drawn items).

        Returns
        -------
        list of dict or pandas.DataFrame

        Raises
        ------
        ImportError
            ``as_frame=True`` without pandas.

        Examples
        --------
        >>> import numpy as np
        >>> import spe
        >>> probs = np.random.default_rng(1).dirichlet([2, 2, 2], size=100)
        >>> res = spe.fit_multiclass(probs, model="temperature", n_draws=100, seed=0)
        >>> sorted(res.per_class()[0])
        ['class', 'f1', 'n_predicted', 'precision', 'prevalence', 'recall']
        >>> res.per_class(as_frame=True).shape
        (12, 7)
        """
        if as_frame:
            return records_frame(per_class_records(self, level), "per_class(as_frame=True)")
        tp, pred, actual = self._per_class_counts
        with np.errstate(invalid="ignore", divide="ignore"):
            precision = np.where(pred > 0, tp / np.maximum(pred, 1), np.nan)
            recall = np.where(actual > 0, tp / np.maximum(actual, 1), np.nan)
            f1 = np.where(pred + actual > 0, 2 * tp / np.maximum(pred + actual, 1), 0.0)
        out = []
        for c in range(self.n_classes):
            row = {"class": c, "n_predicted": int(pred[0, c])}
            for name, values in (("precision", precision[:, c]), ("recall", recall[:, c]), ("f1", f1[:, c]),
                                 ("prevalence", actual[:, c] / self.n_items)):
                ok = values[~np.isnan(values)]
                row[name] = self._estimate(name, ok, level) if ok.size else None
            out.append(row)
        return out

    def macro_f1(self, level=0.9) -> Estimate:
        """The classes' F1 scores averaged with equal weight (a class never predicted nor drawn: 0).

        Examples
        --------
        >>> import numpy as np
        >>> import spe
        >>> probs = np.random.default_rng(1).dirichlet([2, 2, 2], size=100)
        >>> res = spe.fit_multiclass(probs, model="temperature", n_draws=100, seed=0)
        >>> res.macro_f1().name
        'macro F1'
        """
        tp, pred, actual = self._per_class_counts
        f1 = np.where(pred + actual > 0, 2 * tp / np.maximum(pred + actual, 1), 0.0)
        return self._estimate("macro F1", f1.mean(axis=1), level)

    def confusion_matrix(self, level=0.9, as_frame=False):
        """Counts of (true class, predicted class): posterior median and interval.

        Parameters
        ----------
        level : float, default=0.9
            Level of the equal-tailed intervals.
        as_frame : bool, default=False
            False: a dict of (K, K) arrays ``median``, ``lower``, ``upper`` (rows: true
            class, columns: predicted) and ``level``. True: a tidy pandas DataFrame, one
            row per cell, columns ``true``, ``predicted`` (class names), ``estimate`` (the
            median count), ``lower``, ``upper``, ``level``; ``.pivot(index="true",
            columns="predicted", values="estimate")`` gives the K x K table.

        Returns
        -------
        dict or pandas.DataFrame

        Raises
        ------
        ValueError
            More than 200 classes (use :meth:`per_class`).
        ImportError
            ``as_frame=True`` without pandas.

        Examples
        --------
        >>> import numpy as np
        >>> import spe
        >>> probs = np.random.default_rng(1).dirichlet([2, 2, 2], size=100)
        >>> res = spe.fit_multiclass(probs, model="temperature", n_draws=100, seed=0)
        >>> res.confusion_matrix()["median"].shape
        (3, 3)
        >>> cm = res.confusion_matrix(as_frame=True)
        >>> cm.pivot(index="true", columns="predicted", values="estimate").shape
        (3, 3)
        """
        if as_frame:
            return records_frame(confusion_records(self, level), "confusion_matrix(as_frame=True)")
        k = self.n_classes
        if k > 200:
            raise ValueError(f"a {k} x {k} confusion matrix per draw is too large; use per_class()")
        cells = self.class_draws.astype(np.int64) * k + self.predicted
        counts = np.stack([np.bincount(row, minlength=k * k) for row in cells]).reshape(-1, k, k)
        level = check_level(level)  # plain quantiles here, not curves.band
        lo, med, hi = np.quantile(counts, [(1 - level) / 2, 0.5, (1 + level) / 2], axis=0)
        return {"median": med, "lower": lo, "upper": hi, "level": level}

    def _one_vs_rest_sweep(self, c) -> Sweep:
        if not isinstance(c, numbers.Integral) or not 0 <= c < self.n_classes:
            raise ValueError(f"class must be an integer in 0..{self.n_classes - 1}, got {c!r}")
        return draws_sweep(self.log_probs[:, c], self.class_draws == c)

    def pr_curve(self, c, recall=None, level=0.9) -> PRCurve:
        """One-vs-rest PR curve of class ``c`` (score = its probability) with a band.

        Examples
        --------
        >>> import numpy as np
        >>> import spe
        >>> probs = np.random.default_rng(1).dirichlet([2, 2, 2], size=100)
        >>> res = spe.fit_multiclass(probs, model="temperature", n_draws=100, seed=0)
        >>> res.pr_curve(0, recall=[0.5]).precision.shape
        (1,)
        """
        grid = check_grid(recall, DEFAULT_RECALL_GRID, "recall")
        draws = sample_precision_at_recall(self._one_vs_rest_sweep(c), grid)
        m = draws.shape[0]
        return PRCurve.from_draws(grid, draws, np.full(m, 1.0 / m), level, "sample")

    def average_precision(self, c, level=0.9) -> Estimate:
        """One-vs-rest average precision of class ``c`` (score = its probability).

        Examples
        --------
        >>> import numpy as np
        >>> import spe
        >>> probs = np.random.default_rng(1).dirichlet([2, 2, 2], size=100)
        >>> res = spe.fit_multiclass(probs, model="temperature", n_draws=100, seed=0)
        >>> res.average_precision(2).name
        'AP of class 2'
        """
        return self._estimate(f"AP of class {c}", sample_average_precision(self._one_vs_rest_sweep(c)), level)

    def macro_average_precision(self, level=0.9) -> Estimate:
        """The classes' one-vs-rest average precisions averaged with equal weight.

        Examples
        --------
        >>> import numpy as np
        >>> import spe
        >>> probs = np.random.default_rng(1).dirichlet([2, 2, 2], size=100)
        >>> res = spe.fit_multiclass(probs, model="temperature", n_draws=100, seed=0)
        >>> res.macro_average_precision().name
        'macro AP'
        """
        aps = np.mean([sample_average_precision(self._one_vs_rest_sweep(c)) for c in range(self.n_classes)],
                      axis=0)
        return self._estimate("macro AP", aps, level)

    def plot_per_class(self, ax=None, *, metric="precision", level=0.9, truth=None):
        """Each class's ``metric`` with its interval; see :func:`spe.report.plot_per_class`.

        Examples
        --------
        >>> import numpy as np
        >>> import spe
        >>> probs = np.random.default_rng(1).dirichlet([2, 2, 2], size=100)
        >>> res = spe.fit_multiclass(probs, model="temperature", n_draws=100, seed=0)
        >>> ax = res.plot_per_class()  # doctest: +SKIP
        """
        return plot_per_class(self, ax, metric=metric, level=level, truth=truth)

    # per-item outputs on the caller's index, and tables (_outputs)
    class_probabilities = _outputs.class_probabilities
    predicted_class = _outputs.predicted_class
    to_records = _outputs.to_records
    to_frame = _outputs.to_frame

    def describe_models(self) -> dict:
        """Each label model's description with its weight.

        Examples
        --------
        >>> import numpy as np
        >>> import spe
        >>> probs = np.random.default_rng(1).dirichlet([2, 2, 2], size=100)
        >>> res = spe.fit_multiclass(probs, model="temperature", n_draws=100, seed=0)
        >>> sorted(res.describe_models())
        ['temperature']
        """
        return describe_weighted(self.fits, self.model_weights)

    def summary(self, level=0.9) -> str:
        """The fit in plain language: data, label models and their weights, accuracy and macro F1.

        Examples
        --------
        >>> import numpy as np
        >>> import spe
        >>> probs = np.random.default_rng(1).dirichlet([2, 2, 2], size=100)
        >>> res = spe.fit_multiclass(probs, model="temperature", n_draws=100, seed=0)
        >>> print(res.summary())  # doctest: +ELLIPSIS
        SPE (multiclass): performance of a classifier from its class probabilities and few labels
          items: 100, classes: 3, labeled: 0
        ...
        """
        lines = [
            "SPE (multiclass): performance of a classifier from its class probabilities and few labels",
            f"  items: {self.n_items}, classes: {self.n_classes}, labeled: {self.n_labeled}",
            f"  label models on the {self.score_kind} (weight: share of the draws):",
        ]
        for name, d in self.describe_models().items():
            khat = "n/a" if d["pareto_khat"] is None else f"{d['pareto_khat']:.2f}"
            inverse_t = d.get("posterior_mean_inverse_temperature")
            temperature = "" if inverse_t is None else f"; posterior mean 1/T {inverse_t:.3g}"
            lines.append(f"    {name:12s} {d['weight']:.2f}  {d['model']}{temperature} ({d['inference']}, "
                         f"ESS {d['ess']:.0f}, Pareto k-hat {khat})")
        lines.append(f"  metrics on these items (median [{100 * level:g}% interval]), {self.class_draws.shape[0]} draws:")
        for est in (self.accuracy(level), self.macro_f1(level)):
            lines.append(f"    {est.name:18s} {format_interval(est.value, est.lower, est.upper)}")
        return "\n".join(lines)

    def __repr__(self):
        return f"<MulticlassResult {self.n_items} items, {self.n_classes} classes, {self.n_labeled} labeled>"

