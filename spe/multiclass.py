"""Multiclass classifiers: an (N, K) matrix of probabilities (or logits) and a few labels.

Label models, each a small module, each a posterior over P(y_i = k | f_i) from the
classifier's log-probabilities f_ik and the labels:

* ``temperature`` / ``vector`` (:mod:`spe.class_maps`): Bayesian temperature scaling
  (Guo et al. 2017), optionally with a bias per class, and an outlier share for label
  noise; prior centred on "the classifier is calibrated";
* ``top-label`` (:mod:`spe.top_label`): a piecewise Platt map of the top-1 probability
  (is the predicted class right?) times temperature scaling among the other classes.

The default, ``stack``, weights temperature scaling, the top-label model and (K <= 50)
vector scaling by their leave-one-out predictive densities on the labeled items
(pseudo-BMA with the Bayesian bootstrap, :mod:`spe.stacking`, as :func:`spe.fit` weights
its score models; equal weights with no labels), and each contributes that share of the
draws. Vector scaling is there for label shift: when the classes' shares differ from
those the classifier learned, a calibrated classifier's probabilities need a bias per
class (log of the ratio of shares), which neither a temperature nor the top-label map
has; without it, a class's prevalence interval can miss the truth every time.

Each posterior draw then draws one class for every unlabeled item (Gumbel-max), so the
draws are *coherent*: every item has exactly one class in every draw. Every metric is a
function of those label draws on all N items (labeled items keep their label), so
accuracy, per-class rates, the confusion matrix and one-vs-rest curves agree with each
other draw by draw. Memory is draws x items (one small integer each), never x K.
"""

from __future__ import annotations

import numbers
from functools import cached_property

import numpy as np
from scipy import special

from . import curves as C
from . import plot
from . import sweeps as SW
from . import top_label
from .class_maps import fit_class_map
from .frame import PROBABILITY_EPS, PROBABILITY_TOLERANCE, looks_like_probabilities
from .label_posterior import LOO_DRAWS, allocate
from .seeds import child_generators
from .stacking import stacking_weights
from .threads import one_blas_thread

MULTICLASS_MODELS = ("stack", "temperature", "vector", top_label.NAME)
#: The label models the default ``stack`` weighs against each other (vector scaling only
#: while K <= MAX_VECTOR_CLASSES).
STACKED = ("temperature", top_label.NAME, "vector")
#: Vector scaling has K + 1 parameters; importance sampling in more dimensions than this
#: from tens of labels is not trustworthy, so larger K use temperature scaling.
MAX_VECTOR_CLASSES = 50


# ---- input boundary ---------------------------------------------------------------------
def as_class_scores(scores) -> tuple[np.ndarray, str]:
    """(log-probabilities or logits as an (N, K) float array, "probabilities" or "logits")."""
    try:
        arr = np.asarray(scores, dtype=float)
    except (TypeError, ValueError):
        raise TypeError("class scores must be an (N, K) array of numbers") from None
    if arr.ndim != 2 or arr.shape[1] < 2 or arr.shape[0] < 2:
        raise ValueError(f"class scores must be an (N, K) array with N >= 2 items and K >= 2 classes, "
                         f"got shape {arr.shape}")
    bad = ~np.isfinite(arr)
    if bad.any():
        row = int(np.flatnonzero(bad.any(axis=1))[0])
        raise ValueError(f"class scores must be finite: {int(bad.sum())} NaN/inf value(s), first in row {row}")
    rows = arr.sum(axis=1)
    # float32 files hold probabilities like 1.00001: rounding, not logits
    in_unit_range = looks_like_probabilities(arr)
    if in_unit_range and np.allclose(rows, 1.0, atol=PROBABILITY_TOLERANCE):
        return np.log(np.clip(arr, PROBABILITY_EPS, 1.0)), "probabilities"
    if in_unit_range:
        raise ValueError("class scores lie in [0, 1] but rows do not sum to 1 (largest deviation "
                         f"{np.abs(rows - 1).max():.3g}): pass probabilities that sum to 1 per row, or logits")
    return arr - special.logsumexp(arr, axis=1, keepdims=True), "logits"


def as_class_labels(labels, n: int, k: int) -> np.ndarray:
    """Class indices as int64, -1 for unlabeled (given as -1, NaN or None)."""
    if labels is None:
        return np.full(n, -1, dtype=np.int64)
    arr = np.asarray(labels, dtype=object).ravel() if not hasattr(labels, "dtype") else np.asarray(labels).ravel()
    if arr.shape[0] != n:
        raise ValueError(f"labels has length {arr.shape[0]} but the class scores have {n} rows")
    out = np.empty(n, dtype=np.int64)
    for i, v in enumerate(arr.tolist()):
        if v is None or (isinstance(v, float) and np.isnan(v)):
            out[i] = -1
            continue
        if isinstance(v, (bool, np.bool_)) or not isinstance(v, numbers.Real) or float(v) != int(v):
            raise ValueError(f"labels, item {i}: {v!r} is not a class index (0..{k - 1}; -1/NaN/None = unlabeled)")
        out[i] = int(v)
    wrong = (out < -1) | (out >= k)
    if wrong.any():
        i = int(np.flatnonzero(wrong)[0])
        raise ValueError(f"labels, item {i}: class {out[i]} outside 0..{k - 1} (-1 = unlabeled)")
    return out


# ---- results --------------------------------------------------------------------------------
class MulticlassResult:
    """Result of :func:`fit_multiclass`: coherent label draws and everything derived.

    ``predicted`` is the classifier's top-1 class per item; ``class_draws`` the
    (draws, N) drawn classes (labeled items fixed); ``fits`` the label models by name and
    ``model_weights`` each one's share of the draws. Metrics are posterior medians with
    equal-tailed intervals (:class:`~spe.curves.Estimate`).
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
        return C.Estimate.from_draws(name, values, np.full(values.size, 1.0 / values.size), level)

    def accuracy(self, level=0.9) -> C.Estimate:
        """Top-1 accuracy of the classifier on these N items."""
        return self._estimate("accuracy", np.mean(self.class_draws == self.predicted, axis=1), level)

    def top_k_accuracy(self, k, level=0.9) -> C.Estimate:
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

    def macro_f1(self, level=0.9) -> C.Estimate:
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
        level = C.check_level(level)  # plain quantiles here, not curves.band
        lo, med, hi = np.quantile(counts, [(1 - level) / 2, 0.5, (1 + level) / 2], axis=0)
        return {"median": med, "lower": lo, "upper": hi, "level": level}

    def _one_vs_rest_sweep(self, c) -> SW.Sweep:
        if not isinstance(c, numbers.Integral) or not 0 <= c < self.n_classes:
            raise ValueError(f"class must be an integer in 0..{self.n_classes - 1}, got {c!r}")
        return SW.draws_sweep(self.log_probs[:, c], self.class_draws == c)

    def pr_curve(self, c, recall=None, level=0.9) -> C.PRCurve:
        """One-vs-rest PR curve of class ``c`` (score = its probability) with a band."""
        grid = C.check_grid(recall, C.DEFAULT_RECALL_GRID, "recall")
        draws = SW.sample_precision_at_recall(self._one_vs_rest_sweep(c), grid)
        m = draws.shape[0]
        return C.PRCurve.from_draws(grid, draws, np.full(m, 1.0 / m), level, "sample")

    def average_precision(self, c, level=0.9) -> C.Estimate:
        return self._estimate(f"AP of class {c}", SW.sample_average_precision(self._one_vs_rest_sweep(c)), level)

    def macro_average_precision(self, level=0.9) -> C.Estimate:
        aps = np.mean([SW.sample_average_precision(self._one_vs_rest_sweep(c)) for c in range(self.n_classes)],
                      axis=0)
        return self._estimate("macro AP", aps, level)

    def plot_per_class(self, ax=None, *, metric="precision", level=0.9, truth=None):
        """Each class's ``metric`` with its interval; see :func:`spe.plot.plot_per_class`."""
        return plot.plot_per_class(self, ax, metric=metric, level=level, truth=truth)

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


def fit_label_models(f, y, model: str, n_draws: int, rng) -> dict:
    """The label models ``model`` names (``stack``: all of :data:`STACKED` that fit K), fitted."""
    k = f.shape[1]
    names = tuple(n for n in STACKED if n != "vector" or k <= MAX_VECTOR_CLASSES) if model == "stack" else (model,)
    out = {}
    for name, child in zip(names, child_generators(rng, len(names))):
        if name == top_label.NAME:
            out[name] = top_label.fit_top_label(f, y, n_draws, child)
        else:
            out[name] = fit_class_map(f, y, name, n_draws, child)
    return out


def model_weights(fits: dict, inputs: dict, y, rng) -> dict:
    """Pseudo-BMA weights (Bayesian bootstrap) of the label models' LOO predictive
    densities on the labeled items; equal weights with no labels or one model.
    ``inputs``: each model's own scores (items and classes on the last two axes)."""
    known = y >= 0
    if len(fits) == 1 or not known.any():
        return {name: 1.0 / len(fits) for name in fits}
    log_lik = {name: fit.log_likelihood(inputs[name][..., known, :], y[known], LOO_DRAWS, rng)
               for name, fit in fits.items()}
    return stacking_weights(log_lik, "BB-pseudo-BMA", seed=int(rng.integers(2**31 - 1)))


def draw_classes(fits: dict, weights: dict, inputs: dict, y, n_draws: int, rng) -> np.ndarray:
    """(n_draws, N) coherent labellings, each label model contributing its weight's share;
    labeled items keep their label."""
    out = StackedLabelModel(fits, weights).draw_classes(inputs, n_draws, rng)
    known = y >= 0
    out[:, known] = y[known]
    return out


def describe_weighted(fits: dict, weights: dict) -> dict:
    """Each label model's description with its weight."""
    return {name: {"weight": weights[name]} | fit.describe() for name, fit in fits.items()}


class StackedLabelModel:
    """Label models mixed by their weights, behaving as one: each member contributes its
    weight's share of the draws. ``f`` is every member's input, or {member: its input}
    when members are fed different scores."""

    def __init__(self, fits: dict, weights: dict):
        self.fits = fits
        self.weights = weights

    def _members(self, f, n):
        shares = allocate([self.weights[k] for k in self.fits], n)
        return [(fit, f[name] if isinstance(f, dict) else f, share)
                for (name, fit), share in zip(self.fits.items(), shares) if share]

    def log_likelihood(self, f, y, n: int, rng) -> np.ndarray:
        """(n, L) log P(y_i | f_i): each member's equally weighted draws, in its share."""
        return np.concatenate([fit.log_likelihood(x, y, share, rng) for fit, x, share in self._members(f, n)])

    def draw_classes(self, f, n: int, rng) -> np.ndarray:
        return np.concatenate([fit.draw_classes(x, share, rng) for fit, x, share in self._members(f, n)], axis=0)

    def describe(self) -> dict:
        members = describe_weighted(self.fits, self.weights)
        khats = [d["pareto_khat"] for d in members.values() if d["pareto_khat"] is not None]
        return {"model": "stack of " + ", ".join(f"{k} ({w:.2f})" for k, w in self.weights.items()),
                "members": members, "inference": "stacked by LOO predictive densities",
                "pareto_khat": max(khats) if khats else None,
                "ess": float(sum(self.weights[k] * d["ess"] for k, d in members.items()))}


@one_blas_thread
def fit_multiclass(scores, labels=None, *, model="stack", n_draws=1000, seed=None) -> MulticlassResult:
    """Fit a multiclass calibration posterior and draw the unknown classes.

    Parameters
    ----------
    scores : array-like of shape (N, K)
        Predicted class probabilities (rows sum to 1; exact 0s are fine) or logits.
    labels : array-like of shape (N,), optional
        Class indices 0..K-1; -1, NaN or None for unlabeled. ``None``: no labels.
    model : "stack", "temperature", "vector" or "top-label"
        ``stack`` (default): temperature scaling, the top-label model and (K <= 50)
        vector scaling, weighted by their leave-one-out predictive densities on the
        labels. ``temperature``: one parameter; ``vector``: a shared temperature and one
        bias per class (K <= 50);
        ``top-label``: a piecewise Platt map of the top-1 probability, temperature
        scaling among the other classes.
    n_draws : int
        Posterior draws of each map, and labellings of the items drawn from them.
    seed : int, numpy Generator or None
        Seeds every random step.

    Returns
    -------
    MulticlassResult
    """
    f, kind = as_class_scores(scores)
    n, k = f.shape
    y = as_class_labels(labels, n, k)
    if model not in MULTICLASS_MODELS:
        raise ValueError(f"model must be one of {MULTICLASS_MODELS}, got {model!r}")
    if model == "vector" and k > MAX_VECTOR_CLASSES:
        raise ValueError(f"vector scaling has K + 1 = {k + 1} parameters; with K > {MAX_VECTOR_CLASSES} "
                         "use model='temperature'")
    n_draws = C.check_n_draws(n_draws)
    fit_rng, weight_rng, draw_rng = child_generators(seed, 3)
    fits = fit_label_models(f, y, model, n_draws, fit_rng)
    inputs = dict.fromkeys(fits, f)
    weights = model_weights(fits, inputs, y, weight_rng)
    return MulticlassResult(f, y, kind, fits, weights, draw_classes(fits, weights, inputs, y, n_draws, draw_rng))
