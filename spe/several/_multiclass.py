"""Several multiclass classifiers scored on the same items: shared class draws, paired comparisons.

The label posterior stacks candidate label models, each fitted to the labels once, with
weights from the leave-one-out predictive densities of the labeled items (pseudo-BMA with
the Bayesian bootstrap, as :func:`spe.fit_multiclass` stacks its own and ``_binary``
stacks binary ones):

* each model's own label model (:func:`spe.fit_multiclass`'s stack of temperature
  scaling and the top-label map), on that model's probabilities alone;
* the log-linear pool of all models' log-probabilities (``_class_pool``), each
  model first recalibrated by its own temperature, which uses the models' agreement.

Neither kind is honest alone: classes drawn from one model's map ignore the other
models, so a model with independent information looks worse than it is, and the pool
spends the labels twice (recalibration, then pool), so alone its intervals are too narrow.
Stacked, the labels decide how far to trust the agreement (``label_model="maps"`` or
``"pool"`` keep one kind, to compare; evidence: docs/method.md 9b and
``benchmarks/several_multiclass.py``). Every model's metrics (top-1 accuracy, macro AP,
macro F1) come from the same class draws, so comparisons are paired.

A degenerate model never enters the label model: probabilities identical for every item
(nothing to rank), or a top-1 class the labels say is right less often than chance
(P(accuracy < 1/K) > 0.95 from the labeled items' Beta posterior). It is reported in
``excluded``; its metrics are still computed from the shared draws.
"""

from __future__ import annotations

import warnings

import numpy as np
from scipy import special, stats

from .._util.seeds import child_generators
from ..exceptions import SamplingWarning
from ..metrics import check_kind
from ..multiclass import (MulticlassResult, StackedLabelModel, as_class_labels, as_class_scores, draw_classes,
                          fit_label_models, model_weights)
from ..scores import ItemIndex
from . import _class_pool as class_pool
from ._comparison import SharedDrawsComparison, equal_weight_estimate

METRICS = ("accuracy", "macro AP", "macro F1")
LABEL_MODELS = ("stack", "maps", "pool")
#: Labeled top-1 accuracy below chance with this posterior probability excludes a model.
BELOW_CHANCE_PROBABILITY = 0.95


class ManyMulticlassResult(SharedDrawsComparison):
    """Result of :func:`spe.fit_many` on class probabilities: one :class:`MulticlassResult`
    per model (``res[name]``), all on the same class draws, and paired comparisons
    (metrics, prob_beats, prob_best, ranking, to_frame, plot_comparison:
    ``_comparison``).

    Examples
    --------
    >>> import numpy as np
    >>> import spe
    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(0, 3, 200)
    >>> probs = {m: np.exp(s * np.eye(3)[y] + rng.normal(0, 1, (200, 3))) for m, s in (("a", 2.0), ("b", 1.0))}
    >>> probs = {m: p / p.sum(axis=1, keepdims=True) for m, p in probs.items()}
    >>> res = spe.fit_many(probs, np.where(np.arange(200) < 20, y, -1), n_draws=100, seed=0)
    >>> res
    <ManyMulticlassResult 2 models, 200 items>
    >>> res.to_frame()["metric"].unique().tolist()
    ['accuracy', 'macro AP', 'macro F1']
    """

    METRICS = METRICS

    def __init__(self, results: dict, excluded: dict, fits: dict, model_weights: dict, items=None):
        self.results = results
        self.item_index = items if items is not None else ItemIndex()
        self.excluded = excluded
        self.fits = fits
        self.model_weights = model_weights
        self._metric_draws = {}

    @property
    def names(self) -> list:
        return list(self.results)

    def _result(self, name) -> MulticlassResult:
        return self.results[name]

    @property
    def labels(self) -> np.ndarray:
        return next(iter(self.results.values())).labels

    @property
    def n_labeled(self) -> int:
        return int(np.sum(self.labels >= 0))

    @property
    def class_draws(self) -> np.ndarray:
        return next(iter(self.results.values())).class_draws

    def metric_draws(self, name, kind="sample") -> dict:
        """{metric: (draws,) values} for one model, from the shared class draws: on these
        items (class probabilities have no population kind yet)."""
        if name not in self.results:
            raise ValueError(f"no model {name!r}; models: {', '.join(self.results)}")
        if check_kind(kind) != "sample":
            raise ValueError("kind='population' is available for one score per item; several multiclass models "
                             "give the metrics of these items only (kind='sample')")
        if name not in self._metric_draws:
            r = self.results[name]
            self._metric_draws[name] = {"accuracy": r.accuracy().draws, "macro AP": r.macro_average_precision().draws,
                                        "macro F1": r.macro_f1().draws}
        return self._metric_draws[name]

    def summary(self, metric="accuracy", level=0.9) -> str:
        n_items, k = self.class_draws.shape[1], next(iter(self.results.values())).n_classes
        lines = [f"SPE (several multiclass models): {len(self.names)} models, {k} classes, {n_items} items, "
                 f"{self.n_labeled} labeled",
                 "  label model (weight: share of the class draws): "
                 + ", ".join(f"{n} {w:.2f}" for n, w in self.model_weights.items()),
                 f"  ranking by {metric} (median [{100 * level:g}% interval], P(best)):",
                 *self._ranking_lines(metric, level)]
        return "\n".join(lines)

    def accuracy_difference(self, a, b, level=0.9):
        """Top-1 accuracy of model ``a`` minus model ``b``, paired over the shared draws."""
        d = self.metric_draws(a)["accuracy"] - self.metric_draws(b)["accuracy"]
        return equal_weight_estimate(f"accuracy {a} - {b}", d, level)

    def __repr__(self):
        return f"<ManyMulticlassResult {len(self.names)} models, {self.class_draws.shape[1]} items>"


def degenerate_reason(f, labels) -> str:
    """Why a model must stay out of the label model ('' if it may enter)."""
    if np.all(np.ptp(f, axis=0) == 0):
        return "the same probabilities for every item"
    known = labels >= 0
    if known.any():
        k = f.shape[1]
        right = int(np.sum(np.argmax(f[known], axis=1) == labels[known]))
        if stats.beta.cdf(1.0 / k, right + 1, known.sum() - right + 1) > BELOW_CHANCE_PROBABILITY:
            return f"the labels say its top-1 class is right less often than chance (1/{k})"
    return ""


def recalibrate(f, temperature_fit) -> np.ndarray:
    """Log-probabilities after the model's own temperature (1/T at the posterior mean of
    log 1/T), so the pool weighs recalibrated models: an over-confident model does not
    dominate the product."""
    a = np.exp(temperature_fit.weights @ temperature_fit.theta[:, 0])
    return a * f - special.logsumexp(a * f, axis=1, keepdims=True)


def fit_many_multiclass(probs: dict, labels=None, *, n_draws: int, seed=None, label_model="stack", items=None):
    """Several multiclass models on the same items (called by :func:`spe.fit_many` when
    every model gives an (N, K) matrix; see there)."""
    if label_model not in LABEL_MODELS:
        raise ValueError(f"label_model must be one of {LABEL_MODELS}, got {label_model!r}")
    if class_pool.NAME in probs:
        raise ValueError(f"{class_pool.NAME!r} names the pool of all models; rename that model")
    scores, kinds = {}, {}
    for name, p in probs.items():
        try:
            scores[name], kinds[name] = as_class_scores(p)
        except (TypeError, ValueError) as exc:
            raise type(exc)(f"scores[{name!r}]: {exc}") from None
    shapes = {f.shape for f in scores.values()}
    if len(shapes) != 1:
        raise ValueError(f"every model must score the same items and classes; got shapes {sorted(shapes)}")
    n, k = shapes.pop()
    y = as_class_labels(labels, n, k)
    excluded = {name: why for name, f in scores.items() if (why := degenerate_reason(f, y))}
    included = {name: f for name, f in scores.items() if name not in excluded}
    if not included:
        raise ValueError("no model can inform the labels: " + "; ".join(f"{a}: {b}" for a, b in excluded.items()))
    fit_rng, weight_rng, draw_rng = child_generators(seed, 3)
    fits, inputs, own = {}, {}, {}
    *model_rngs, pool_rng = child_generators(fit_rng, len(included) + 1)
    pool_only = label_model == "pool" and len(included) > 1
    for (name, f), rng in zip(included.items(), model_rngs):
        with warnings.catch_warnings():  # as in spe.several.many: a model's own maps are candidates, reported by weight
            warnings.simplefilter("ignore", SamplingWarning)
            own[name] = fit_label_models(f, y, "temperature" if pool_only else "stack", n_draws, rng)
        if not pool_only:
            fits[name] = StackedLabelModel(own[name], model_weights(own[name], dict.fromkeys(own[name], f), y, rng))
            inputs[name] = f
    if label_model != "maps" and len(included) > 1:
        recalibrated = np.stack([recalibrate(f, own[name]["temperature"]) for name, f in included.items()])
        fits[class_pool.NAME] = class_pool.fit_class_pool(list(included), recalibrated, y, n_draws, pool_rng)
        inputs[class_pool.NAME] = recalibrated
    weights = model_weights(fits, inputs, y, weight_rng)
    draws = draw_classes(fits, weights, inputs, y, n_draws, draw_rng)
    results = {name: MulticlassResult(f, y, kinds[name], fits, weights, draws, items=items)
               for name, f in scores.items()}
    return ManyMulticlassResult(results, excluded, fits, weights, items)
