"""Several classifiers scored on the same items: one label posterior, paired comparisons.

The models' scores are all evidence about the same unknown labels. The label posterior
stacks several candidate label models, each fitted to the labels once, with weights from
the leave-one-out predictive densities of the labeled items (pseudo-BMA with the
Bayesian bootstrap, :mod:`spe.pooling`, exactly as :func:`spe.fit` pools its score
models; equal weights with no labels):

* each model's own Bayesian calibration map (:mod:`spe.calibration`, the package's
  default piecewise Platt map, prior centred on "calibrated" for probabilities);
* the log-linear pool of all models' recalibrated log-odds (:mod:`spe.several`),
  which uses their agreement: models with independent errors together say more about an
  item than any one alone;
* each probability model's "calibrated" map (its probabilities taken as nearly right;
  ``calibrated=False`` leaves these out). Labels drawn from a calibrated model's own
  probabilities do not attenuate the other models the way a map learned from 20 labels
  does.

Neither kind is honest alone. Drawn from one model's map, labels are independent of the
other models' scores given that model's, so a second model with independent information
looks worse than it is. The log-linear pool spends the labels twice (recalibration, then
pool), so alone its intervals are too narrow with few labels. Stacked, the labels decide
how far to trust the agreement. ``benchmarks/ssme_shared.py`` measures the coverage of
the stack and of each kind alone (``label_model=``).

Every model's metrics are computed from the *same* label draws, so comparisons are
paired: P(model A beats model B) is the share of draws in which it does.

A degenerate model never enters the label model: fewer than 3 distinct scores (nothing
to rank) or scores the labels say run the wrong way (P(AUROC < 0.5) > 0.95 from the
labeled items alone). It is reported in ``excluded`` with the reason; its metrics are
still computed from the shared draws when it has scores to rank.
"""

from __future__ import annotations

import warnings

import numpy as np

from .._util.seeds import child_generators, child_seeds
from .._util.threads import one_blas_thread
from ..calibration import MAX_CELLS, NEARLY_CALIBRATED, fit_calibration_map
from ..exceptions import SamplingWarning
from ..metrics import (Estimate, check_kind, check_n_draws, draws_sweep, sample_auroc, sample_average_precision,
                       sample_max_f1)
from ..multiclass import LAZY_HINT as CLASS_LAZY_HINT
from ..pooling import LabelPosterior, combine
from ..scores import (ORIENTATION_PROBABILITY, as_labels, as_score_array, eager_values, frame_models,
                      looks_like_probabilities, prepare, refuse_lazy, reversed_probability)
from ._comparison import SharedDrawsComparison, equal_weight_estimate
from ._log_linear_pool import NAME as POOL_NAME
from ._log_linear_pool import fit_log_linear_pool
from ._model_result import ModelResult, item_mean_probabilities
from ._multiclass import fit_many_multiclass
from ._population import population_accuracy, population_sweep

#: Each model's calibration map (the package default) and its number of posterior draws.
MAP_FORM = "spline"
MAP_DRAWS = 1000
METRICS = ("AUROC", "average precision", "accuracy", "max F1")
LABEL_MODELS = ("stack", "maps", "pool")
#: A model informs the shared labels only with this many distinct scores: hard predictions
#: are compared on the shared draws but add no calibration map to the label model.
MIN_DISTINCT_EVIDENCE = 3
#: Items per block when labels are drawn, so memory stays (draws x block).
_DRAW_CELLS = 4_000_000
#: Why a lazy collection is refused: the shared labels are drawn item by item.
LAZY_HINT = ("fit_many draws every item's label for all models jointly, so it needs every score in memory: "
             "call .compute() if they fit, or evaluate each model alone from counts with "
             "spe.fit(spe.count_dask(scores, labels)) (no paired comparisons)")


class ItemScoreModel:
    """One model's calibration posterior, evaluated at item indices.

    The score-model seam of :mod:`spe.pooling` takes scores; models scored on the
    same items pool through the items themselves, each looking up its own scores.
    """

    def __init__(self, fit, scores):
        self.fit = fit
        self.scores = scores

    @property
    def name(self) -> str:
        return self.fit.name

    @property
    def weights(self) -> np.ndarray:
        return self.fit.weights

    @property
    def n_draws(self) -> int:
        return self.fit.n_draws

    def prob_positive(self, items, draws=None) -> np.ndarray:
        """(M, n) P(y = 1) of the items at indices ``items`` under each draw."""
        return self.fit.prob_positive(self.scores[np.asarray(items, dtype=np.intp)], draws)

    def draws(self) -> dict:
        return self.fit.draws()

    def describe(self) -> dict:
        return self.fit.describe()

    def chain_index(self) -> None:
        return None


def calibrated_name(name) -> str:
    return f"{name} (calibrated)"


def fit_label_model(scores: dict, labels, probabilities: dict, n_draws: int, rngs, kind="stack",
                    calibrated=False) -> LabelPosterior:
    """Each model's calibration map and (with two or more models) their log-linear pool,
    stacked by the labels (see above); ``kind="maps"`` or ``"pool"`` keeps one kind only.
    ``calibrated``: each probability model with more than MAX_CELLS distinct scores also
    adds its "calibrated" map (the probabilities taken as nearly right) to the maps."""
    map_rng, pool_rng = rngs
    with_pool = kind != "maps" and len(scores) > 1
    with_maps = kind != "pool" or not with_pool
    def item_map(form, s, is_probability):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", SamplingWarning)
            fit = fit_calibration_map(form, s, labels, probabilities=is_probability, n_draws=MAP_DRAWS, rng=map_rng)
        return ItemScoreModel(fit, s)

    fits = {}
    for name, s in scores.items() if with_maps else ():
        fits[name] = item_map(MAP_FORM, s, probabilities[name])
    if with_pool:
        fits[POOL_NAME] = fit_log_linear_pool(scores, labels, probabilities, MAP_DRAWS, map_rng)
    for name, s in scores.items() if calibrated and with_maps else ():
        if probabilities[name] and np.unique(s).size > MAX_CELLS:
            fits[calibrated_name(name)] = item_map(NEARLY_CALIBRATED, s, True)
    known = np.flatnonzero(~np.isnan(labels))
    # every labelling counts once, so a lone label model's importance weights are resampled away
    return combine(fits, known, labels[known], n_draws=n_draws, rng=pool_rng).equally_weighted(n_draws, pool_rng)


def draw_labels(model: LabelPosterior, labels, rng) -> np.ndarray:
    """(draws, N) bool labellings, one per pooled draw; labeled items keep their label."""
    n = labels.size
    out = np.empty((model.n_draws, n), dtype=bool)
    step = max(1, _DRAW_CELLS // model.n_draws)
    for start in range(0, n, step):
        items = np.arange(start, min(n, start + step))
        out[:, items] = rng.random((model.n_draws, items.size)) < model.prob_positive(items)
    known = ~np.isnan(labels)
    out[:, known] = labels[known] == 1
    return out


class ManyResult(SharedDrawsComparison):
    """Result of :func:`fit_many`: shared label draws and every model's metrics from them
    (metrics, prob_beats, prob_best, ranking, to_frame, plot_comparison:
    :mod:`spe.several`); ``res[name]`` is that model's
    :class:`~spe.several.ModelResult`, with every accessor of :func:`spe.fit`'s
    result on the shared draws."""

    METRICS = METRICS

    def __init__(self, scores: dict, labels, label_model: LabelPosterior, label_draws, excluded: dict,
                 thresholds: dict, seed=0):
        self.scores = scores
        self.labels = labels
        self.label_model = label_model
        self.label_draws = label_draws  # (draws, N) bool, labeled items fixed
        self.excluded = excluded
        self.thresholds = thresholds
        self._seed = seed
        self._metric_draws = {}
        self._results = {}
        self._prob_positive = None

    @property
    def names(self) -> list:
        return list(self.scores)

    @property
    def n_labeled(self) -> int:
        return int(np.sum(~np.isnan(self.labels)))

    @property
    def model_weights(self) -> dict:
        """Each label model's share of the label draws: every model's own map (0 when
        excluded), the probability models' "name (calibrated)" maps (unless
        ``calibrated=False``), and, with two or more models, their log-linear pool."""
        fitted = self.label_model.model_weights
        pool = {POOL_NAME: fitted[POOL_NAME]} if POOL_NAME in fitted else {}
        nearly = {calibrated_name(n): fitted[calibrated_name(n)] for n in self.names if calibrated_name(n) in fitted}
        return {n: fitted.get(n, 0.0) for n in self.names} | nearly | pool

    def metric_draws(self, name, kind="sample") -> dict:
        """{metric: (draws,) values} for one model, from the shared label draws:
        ``kind="sample"`` on these items, ``"population"`` on the population they come from
        (:mod:`spe.several`)."""
        if name not in self.scores:
            raise ValueError(f"no model {name!r}; models: {', '.join(self.scores)}")
        key = (name, check_kind(kind))
        if key not in self._metric_draws:
            if kind == "sample":
                sweep = draws_sweep(self.scores[name], self.label_draws)
                correct = (self.label_draws == (self.scores[name] >= self.thresholds[name])).mean(axis=1)
            else:
                unique, group = np.unique(self.scores[name], return_inverse=True)
                sweep = population_sweep(self.label_model, self.labels, group, unique.size, self.population_seed)
                correct = population_accuracy(sweep, unique >= self.thresholds[name])
            self._metric_draws[key] = {"AUROC": sample_auroc(sweep),
                                       "average precision": sample_average_precision(sweep),
                                       "accuracy": correct, "max F1": sample_max_f1(sweep)}
        return self._metric_draws[key]

    @property
    def population_seed(self) -> int:
        """The seed of the items' Bayesian bootstrap, shared by every model's population kind."""
        return int(np.random.SeedSequence([self._seed, len(self.names)]).generate_state(1, np.uint64)[0])

    def _result(self, name) -> ModelResult:
        if name not in self._results:
            k = self.names.index(name)
            with warnings.catch_warnings():  # fit_many has warned about the data once already
                warnings.simplefilter("ignore", UserWarning)
                try:
                    data = prepare(self.scores[name], self.labels)
                except ValueError as exc:
                    raise ValueError(f"model {name!r}: {exc}") from None
            self._results[name] = ModelResult(name, data, self.label_model, self.label_draws, self.prob_positive,
                                              child_seeds(np.random.SeedSequence([self._seed, k]), 3),
                                              self.excluded.get(name, ""), self.population_seed)
        return self._results[name]

    def prob_positive(self) -> np.ndarray:
        """Posterior P(y_i = 1 | every model's scores, the labels) per item; labeled items:
        their label."""
        if self._prob_positive is None:
            p = item_mean_probabilities(self.label_model, self.labels.size)
            known = ~np.isnan(self.labels)
            p[known] = self.labels[known]
            self._prob_positive = p
        return self._prob_positive.copy()

    def prevalence(self, level=0.9) -> Estimate:
        """Fraction of positives among these items, from the shared label draws."""
        return equal_weight_estimate("prevalence", self.label_draws.mean(axis=1), level)

    def summary(self, metric="AUROC", level=0.9) -> str:
        n_lab = self.n_labeled
        prev = self.prevalence(level)
        weights = self.model_weights
        lines = [f"SPE (several models): {len(self.names)} models on {self.labels.size} items, {n_lab} labeled",
                 f"  prevalence {prev.value:.3f} [{prev.lower:.3f}, {prev.upper:.3f}]",
                 *self._label_model_lines(weights),
                 f"  ranking by {metric} (median [{100 * level:g}% interval], P(best), weight in the label model):",
                 *self._ranking_lines(metric, level, lambda name: f"{weights[name]:.2f}")]
        return "\n".join(lines)

    def _label_model_lines(self, weights) -> list[str]:
        fits = list(self.label_model.fits)
        if len(fits) == 1:
            only = "the log-linear pool of all models" if fits[0] == POOL_NAME else f"{fits[0]}'s calibration map"
            return [f"  label model: {only} alone"]
        pool = f" and their log-linear pool (weight {weights[POOL_NAME]:.2f})" if POOL_NAME in fits else ""
        nearly = [calibrated_name(n) for n in self.names if calibrated_name(n) in weights]
        extra = ([f"    with {len(nearly)} models' 'calibrated' maps (total weight "
                  f"{sum(weights[k] for k in nearly):.2f})"] if nearly else [])
        return [f"  label model: each model's calibration map{pool},", *extra,
                f"    stacked by {self.label_model.weighting}"]

    def __repr__(self):
        return f"<ManyResult {len(self.names)} models, {self.labels.size} items>"


@one_blas_thread
def fit_many(scores, labels=None, *, n_draws=1000, seed=None, higher_is_positive=True,
             label_model="stack", calibrated=None) -> ManyResult:
    """Evaluate several classifiers scored on the same items, from shared labels.

    Parameters
    ----------
    scores : dict of name -> array-like of shape (N,) or (N, K), or a DataFrame
        Each model's scores for the same N items (probabilities or any real scale;
        higher means positive), or every model's (N, K) class probabilities (or logits)
        for the same K classes: then the result is a
        :class:`~spe.several.ManyMulticlassResult` (top-1 accuracy, macro AP,
        macro F1 per model from shared class draws). Values may be NumPy arrays or pandas,
        polars or pyarrow columns (or frames of class probabilities); a pandas or polars
        DataFrame (or pyarrow Table) gives one model per column. Lazy Dask collections are
        refused (every item's label is drawn): ``.compute()`` them, or fit one model from
        counts with ``spe.fit(spe.count_dask(...))``.
    labels : array-like of shape (N,), optional
        As in :func:`spe.fit` (1/0, yes/no, NaN/None/blank = unlabeled); for class
        probabilities, class indices 0..K-1 (-1/NaN/None = unlabeled).
    n_draws : int
        Posterior draws of the label model, and labellings drawn from them.
    seed : int, numpy Generator or None
    higher_is_positive : bool
        False when lower scores mean positive (every model).
    label_model : {"stack", "maps", "pool"}
        ``"stack"`` (default): every model's own label model and the log-linear pool of
        all models, weighted by the labels. ``"maps"`` or ``"pool"`` keep one kind, to
        compare; neither is honest alone (module docstring; for class probabilities,
        :mod:`spe.several`).
    calibrated : bool or None
        Also stack each probability model's "calibrated" map (Platt with a tight prior at
        "its probabilities are right", :mod:`spe.calibration`; models with more than
        20 distinct scores), weighted by the labels like the others. ``None`` (default):
        on for one score per item, off for class probabilities (where True is an error).
        On the real sets of several models measured it helps; where every model is
        miscalibrated 20 labels cannot expose it and it hurts (docs/method.md 9;
        ``benchmarks/ssme_shared.py`` runs both). ``False`` bets on no model being
        calibrated.

    Returns
    -------
    ManyResult or ManyMulticlassResult
    """
    scores = frame_models(scores) or scores  # a DataFrame: one column per model
    if not isinstance(scores, dict) or len(scores) < 1:
        raise TypeError("scores must be a dict {model name: scores} (or a pandas/polars DataFrame, "
                        "one column per model)")
    for name, values in [*scores.items(), ("labels", labels)]:
        hint = CLASS_LAZY_HINT if getattr(values, "ndim", 1) == 2 else LAZY_HINT
        refuse_lazy(values, "labels" if name == "labels" else f"scores[{name!r}]", hint)
    scores = {k: eager_values(v) for k, v in scores.items()}
    if calibrated is not None and not isinstance(calibrated, (bool, np.bool_)):
        raise TypeError(f"calibrated must be True, False or None, got {calibrated!r}")
    matrices = [np.ndim(v) == 2 for v in scores.values()]
    if any(matrices):
        if not all(matrices):
            raise ValueError("give every model either one score per item or an (N, K) matrix of class "
                             "probabilities, not a mix")
        if not higher_is_positive:
            raise ValueError("higher_is_positive applies to one score per item, not to class probabilities")
        if calibrated:
            raise ValueError("calibrated=True applies to one score per item, not to class probabilities")
        return fit_many_multiclass({str(k): v for k, v in scores.items()}, labels, n_draws=check_n_draws(n_draws),
                                   seed=seed, label_model=label_model)
    arrays = {str(k): as_score_array(v, f"scores[{k!r}]") for k, v in scores.items()}
    if label_model not in LABEL_MODELS:
        raise ValueError(f"label_model must be one of {LABEL_MODELS}, got {label_model!r}")
    if POOL_NAME in arrays:
        raise ValueError(f"{POOL_NAME!r} names the pool of all models; rename that model")
    calibrated = calibrated is None or bool(calibrated)
    clash = [k for k in arrays if calibrated and calibrated_name(k) in arrays]
    if clash:
        raise ValueError(f"{calibrated_name(clash[0])!r} names {clash[0]!r}'s calibrated map; rename that model")
    sizes = {a.size for a in arrays.values()}
    if len(sizes) != 1:
        raise ValueError(f"every model must score the same items; got lengths {sorted(sizes)}")
    n = sizes.pop()
    y = as_labels(labels, n)
    n_draws = check_n_draws(n_draws)
    if not higher_is_positive:
        arrays = {k: (1 - a if looks_like_probabilities(a) else -a) for k, a in arrays.items()}
    fit_rng, draw_rng, map_rng = child_generators(seed, 3)
    excluded, included, probabilities, thresholds = {}, {}, {}, {}
    for name, s in arrays.items():
        probabilities[name] = looks_like_probabilities(s)
        thresholds[name] = 0.5 if probabilities[name] else 0.0
        if np.unique(s).size < MIN_DISTINCT_EVIDENCE:
            excluded[name] = f"fewer than {MIN_DISTINCT_EVIDENCE} distinct scores"
        elif reversed_probability(s, y) > ORIENTATION_PROBABILITY:
            excluded[name] = "the labels say its scores run the wrong way (P(AUROC < 0.5) > 0.95)"
        else:
            included[name] = s
    if not included:
        raise ValueError("no model can inform the labels: " + "; ".join(f"{k}: {v}" for k, v in excluded.items()))
    model = fit_label_model(included, y, probabilities, n_draws, (map_rng, fit_rng), label_model, calibrated)
    draws = draw_labels(model, y, draw_rng)
    # drawn after the labels, so the seeds of each model's result leave every number above as it was
    return ManyResult(arrays, y, model, draws, excluded, thresholds, seed=int(draw_rng.integers(2**63 - 1)))
