"""The object :func:`spe.fit_multiclass` returns: coherent class draws and every metric.

Each posterior draw holds one class for every item (labeled items keep theirs), so
accuracy, per-class rates, the confusion matrix and one-vs-rest curves agree with each
other draw by draw.
"""

from __future__ import annotations

import numbers
from functools import cached_property

import numpy as np

from ..metrics import (DEFAULT_RECALL_GRID, Estimate, PRCurve, Sweep, check_grid, check_level, draws_sweep,
                       sample_average_precision, sample_precision_at_recall)
from ..report import plot_per_class


def describe_weighted(fits: dict, weights: dict) -> dict:
    """Each label model's description with its weight."""
    return {name: {"weight": weights[name]} | fit.describe() for name, fit in fits.items()}


class MulticlassResult:
    """Result of :func:`fit_multiclass`: coherent label draws and everything derived.

    ``predicted`` is the classifier's top-1 class per item; ``class_draws`` the
    (draws, N) drawn classes (labeled items fixed); ``fits`` the label models by name and
    ``model_weights`` each one's share of the draws. Metrics are posterior medians with
    equal-tailed intervals (:class:`~spe.metrics.Estimate`).
    """

    def __init__(self, f, labels, kind, fits: dict, model_weights: dict, class_draws):
        self.log_probs = f
        self.labels = labels
        self.score_kind = kind
        self.fits = fits
        self.model_weights = model_weights
        self.class_draws = class_draws
        self.predicted = np.argmax(f, axis=1)

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
        """Top-1 accuracy of the classifier on these N items."""
        return self._estimate("accuracy", np.mean(self.class_draws == self.predicted, axis=1), level)

    def top_k_accuracy(self, k, level=0.9) -> Estimate:
        """Share of items whose class is among the classifier's k highest scores."""
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

    def per_class(self, level=0.9) -> list[dict]:
        """Per class: precision (= accuracy of the items predicted as it), recall, F1, prevalence."""
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
        tp, pred, actual = self._per_class_counts
        f1 = np.where(pred + actual > 0, 2 * tp / np.maximum(pred + actual, 1), 0.0)
        return self._estimate("macro F1", f1.mean(axis=1), level)

    def confusion_matrix(self, level=0.9) -> dict:
        """Counts of (true class, predicted class): posterior median, lower, upper (K x K)."""
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
        """One-vs-rest PR curve of class ``c`` (score = its probability) with a band."""
        grid = check_grid(recall, DEFAULT_RECALL_GRID, "recall")
        draws = sample_precision_at_recall(self._one_vs_rest_sweep(c), grid)
        m = draws.shape[0]
        return PRCurve.from_draws(grid, draws, np.full(m, 1.0 / m), level, "sample")

    def average_precision(self, c, level=0.9) -> Estimate:
        return self._estimate(f"AP of class {c}", sample_average_precision(self._one_vs_rest_sweep(c)), level)

    def macro_average_precision(self, level=0.9) -> Estimate:
        aps = np.mean([sample_average_precision(self._one_vs_rest_sweep(c)) for c in range(self.n_classes)],
                      axis=0)
        return self._estimate("macro AP", aps, level)

    def plot_per_class(self, ax=None, *, metric="precision", level=0.9, truth=None):
        """Each class's ``metric`` with its interval; see :func:`spe.report.plot_per_class`."""
        return plot_per_class(self, ax, metric=metric, level=level, truth=truth)

    def describe_models(self) -> dict:
        """Each label model's description with its weight."""
        return describe_weighted(self.fits, self.model_weights)

    def summary(self, level=0.9) -> str:
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
            lines.append(f"    {est.name:18s} {est.value:.3f} [{est.lower:.3f}, {est.upper:.3f}]")
        return "\n".join(lines)

    def __repr__(self):
        return f"<MulticlassResult {self.n_items} items, {self.n_classes} classes, {self.n_labeled} labeled>"

