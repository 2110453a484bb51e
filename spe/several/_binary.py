"""Several classifiers scored on the same items: one label posterior, paired comparisons.

The label posterior (``_label_model``) stacks candidate label models of the items, each
fitted to the labels once, weighted by the labels' leave-one-out predictive densities.

Every model's metrics are computed from the *same* label draws, so comparisons are
paired: P(model A beats model B) is the share of draws in which it does.

Which models inform the label model is ``_informants``'s rule: not one with one score for
every item or whose scores the labels say run the wrong way, nor hard predictions beside
a model with more scores; when every model gives hard predictions they are the label
model. A model kept out is reported in ``excluded`` with the reason; its metrics still come
from the shared draws.
"""

from __future__ import annotations

import warnings

import numpy as np

from .._util.seeds import child_generators, child_seeds
from .._util.threads import one_blas_thread
from ..metrics import (Estimate, check_kind, check_n_draws, draws_sweep, sample_auroc, sample_average_precision,
                       sample_max_f1)
from ..learned import resolve_prior
from ..multiclass import LAZY_HINT as CLASS_LAZY_HINT
from ..pooling import LabelPosterior
from ..scores import (ItemIndex, as_labels, as_score_array, eager_values, frame_models, looks_like_probabilities,
                      prepare, refuse_lazy)
from ._comparison import SharedDrawsComparison, equal_weight_estimate
from ._dawid_skene import NAME as DAWID_SKENE_NAME
from ._informants import has_few_values, split_models
from ._inputs import align_models
from ._joint import NAME as JOINT_NAME
from ._label_model import calibrated_name, draw_labels, fit_label_model, stacked_kinds
from ._log_linear_pool import NAME as POOL_NAME
from ._model_result import ModelResult, item_mean_probabilities
from ._multiclass import fit_many_multiclass
from ._population import population_accuracy, population_sweep

METRICS = ("AUROC", "average precision", "accuracy", "max F1")
#: The label models of all models together, whose names no model may take.
JOINT_KINDS = (POOL_NAME, JOINT_NAME, DAWID_SKENE_NAME)
#: Why a lazy collection is refused: the shared labels are drawn item by item.
LAZY_HINT = ("fit_many draws every item's label for all models jointly, so it needs every score in memory: "
             "call .compute() if they fit, or evaluate each model alone from counts with "
             "spe.fit(spe.count_dask(scores, labels)) (no paired comparisons)")


class ManyResult(SharedDrawsComparison):
    """Result of :func:`fit_many`: shared label draws and every model's metrics from them
    (metrics, prob_beats, prob_best, ranking, to_frame, plot_comparison:
    :mod:`spe.several`); ``res[name]`` is that model's
    :class:`~spe.several.ModelResult`, with every accessor of :func:`spe.fit`'s
    result on the shared draws; ``item_index`` is the caller's item index
    (:class:`~spe.scores.ItemIndex`), which per-item outputs carry.

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
    >>> res.names, res.n_labeled
    (['a', 'b'], 30)
    >>> round(sum(res.prob_best("AUROC").values()), 6)
    1.0
    """

    METRICS = METRICS

    def __init__(self, scores: dict, labels, label_model: LabelPosterior, label_draws, excluded: dict,
                 thresholds: dict, seed=0, items=None):
        self.scores = scores
        self.item_index = items if items is not None else ItemIndex()
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
        excluded; a hard-prediction model's is its share of positives per value), the
        probability models' "name (calibrated)" maps (unless ``calibrated=False`` or the
        model's map prior holds that hypothesis already), and, with two or more models, their
        log-linear pool and the joint models of their scores (the Gaussian copula of the
        models with many scores, Dawid-Skene of the hard-prediction models)."""
        fitted = self.label_model.model_weights
        pool = {k: fitted[k] for k in JOINT_KINDS if k in fitted}
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
            self._results[name] = ModelResult(name, data, self.label_model, self.label_draws, self._item_probabilities,
                                              child_seeds(np.random.SeedSequence([self._seed, k]), 3),
                                              self.excluded.get(name, ""), self.population_seed, self.item_index)
        return self._results[name]

    def _item_probabilities(self) -> np.ndarray:
        if self._prob_positive is None:
            p = item_mean_probabilities(self.label_model, self.labels.size)
            known = ~np.isnan(self.labels)
            p[known] = self.labels[known]
            self._prob_positive = p
        return self._prob_positive.copy()

    def prob_positive(self):
        """Posterior P(y_i = 1 | every model's scores, the labels) per item; labeled items:
        their label.

        Returns
        -------
        numpy.ndarray of shape (N,), or a pandas Series on the caller's index when the
        scores came with one.

        Examples
        --------
        >>> import numpy as np
        >>> import spe
        >>> rng = np.random.default_rng(0)
        >>> y = rng.random(300) < 0.3
        >>> scores = {"a": np.clip(0.3 + 0.4 * y + rng.normal(0, 0.2, 300), 0, 1),
        ...           "b": np.clip(0.3 + 0.3 * y + rng.normal(0, 0.2, 300), 0, 1)}
        >>> labels = np.where(np.arange(300) < 30, y, np.nan)
        >>> p = spe.fit_many(scores, labels, n_draws=200, seed=0).prob_positive()
        >>> p.shape, bool(((p >= 0) & (p <= 1)).all())
        ((300,), True)
        """
        return self.item_index.wrap(self._item_probabilities(), "prob_positive")

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
            together = {POOL_NAME: "the log-linear pool of all models", JOINT_NAME: "the Gaussian copula of all models",
                        DAWID_SKENE_NAME: "the Dawid-Skene model of all models"}
            only = together[fits[0]] if fits[0] in together else f"{fits[0]}'s {self._own_map(fits[0])}"
            return [f"  label model: {only} alone"]
        pool = f", their log-linear pool (weight {weights[POOL_NAME]:.2f})" if POOL_NAME in fits else ""
        pool += f", their Gaussian copula (weight {weights[JOINT_NAME]:.2f})" if JOINT_NAME in fits else ""
        dawid_skene = weights.get(DAWID_SKENE_NAME, 0.0)
        pool += f", their Dawid-Skene model (weight {dawid_skene:.2f})" if DAWID_SKENE_NAME in fits else ""
        nearly = [calibrated_name(n) for n in self.names if calibrated_name(n) in weights]
        extra = ([f"    with {len(nearly)} models' 'calibrated' maps (total weight "
                  f"{sum(weights[k] for k in nearly):.2f})"] if nearly else [])
        hard = any(has_few_values(self.scores[n]) for n in self.names if n in fits)
        own = "own map (hard predictions: a share of positives per value)" if hard else "calibration map"
        return [f"  label model: each model's {own}{pool},", *extra, f"    stacked by {self.label_model.weighting}"]

    def _own_map(self, name) -> str:
        """What model ``name``'s own label model is."""
        return "share of positives per value" if has_few_values(self.scores[name]) else "calibration map"

    def __repr__(self):
        return f"<ManyResult {len(self.names)} models, {self.labels.size} items>"


def model_priors(prior, models) -> dict:
    """{model name: ClassifierPrior} from ``fit_many``'s ``prior`` (one for all, or a dict per
    model; models a dict does not name are left out: they take the default)."""
    if not isinstance(prior, dict):
        return dict.fromkeys(models, resolve_prior(prior))
    unknown = sorted(set(map(str, prior)) - set(models))
    if unknown:
        raise ValueError(f"prior names models that are not among the scores: {unknown}; models: {sorted(models)}")
    return {str(name): resolve_prior(p) for name, p in prior.items()}


@one_blas_thread
def fit_many(scores, labels=None, *, n_draws=1000, seed=None, higher_is_positive=True,
             label_model="stack", calibrated=None, prior=None) -> ManyResult:
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
        DataFrame (or pyarrow Table) gives one model per column. pandas inputs are matched
        on their index: the first indexed model (or the DataFrame) sets the item order, every
        other indexed column and the labels are reordered to it, and per-item outputs
        (``prob_positive``, ``suggest_labels``) carry it. Lazy Dask collections are
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
    label_model : {"stack", "maps", "pool", "joint"} or tuple of them
        ``"stack"`` (default): every model's own label model (its calibration map under
        the corpus-learned map prior of its score kind, as in :func:`spe.fit`), the
        log-linear pool of all models and their Gaussian copula (the joint distribution of the scores given the
        class, for models that share their errors), weighted by the labels' leave-one-out
        densities. ``"maps"``, ``"pool"`` or ``"joint"`` keep one kind, to compare; none
        is honest alone (docs/method.md 9; class probabilities have no ``"joint"``). A
        tuple stacks those kinds only, e.g. ``("maps", "pool")`` the stack without the
        copula (one score per item only). When every model gives fewer than 3 distinct
        scores (hard predictions), each model's own map is a share of positives per value
        (as ``spe.fit``'s ``model="cells"``), the pool takes them recalibrated by it, and
        ``"joint"`` is Dawid-Skene's model (the models' values independent given the class,
        fitted to the labels and to the unlabeled items' agreement); beside a model with
        more scores they are kept out of the label model (``excluded``; docs/method.md 9).
    calibrated : bool or None
        Also stack each probability model's "calibrated" map (Platt with a tight prior at
        "its probabilities are right", :mod:`spe.calibration`; models with more than
        20 distinct scores), weighted by the labels like the others. ``None`` (default):
        on for one score per item, off for class probabilities (where True is an error).
        On the real sets of several models measured it helps; where every model is
        miscalibrated 20 labels cannot expose it and it hurts (docs/method.md 9;
        ``benchmarks/ssme_shared.py`` runs both). ``False`` bets on no model being
        calibrated. A model whose ``prior`` already holds "calibrated" as a map prior
        component with a learned share (``spe.learn_prior(sets, components=("wide",
        "calibrated"))``) gets no stacked one: its own map weighs the hypothesis by that
        share, and a second candidate would count it twice.
    prior : ClassifierPrior, str or dict, optional
        The prior over classifiers each model's calibration map starts from, as in
        :func:`spe.fit`: None (the default prior), a ClassifierPrior, ``"wide"`` or a
        classifier family (``"naive_bayes"``) for every model, or a dict {model name: any
        of those} (a model it does not name takes the default). One score per item only;
        hard predictions' per-value map has a fixed prior.

    Returns
    -------
    ManyResult or ManyMulticlassResult

    Raises
    ------
    TypeError
        ``scores`` is not a dict or DataFrame of models, or ``calibrated`` not a bool.
    ValueError
        Models of different lengths, an unknown ``label_model``, a model named like a
        label model, or no model that can inform the labels (each gives one score for every
        item, or scores the labels say run the wrong way).
    spe.exceptions.InputError
        A pandas input whose index labels differ from the first indexed model's (a
        ValueError; the message counts the missing and extra labels).

    See Also
    --------
    spe.fit : one model.

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
    >>> res
    <ManyResult 2 models, 300 items>
    >>> [r["model"] for r in res.ranking("AUROC")]
    ['a', 'b']
    """
    items, scores, labels = align_models(scores, labels)
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
        if prior is not None:
            raise ValueError("prior applies to one score per item, not to class probabilities")
        return fit_many_multiclass({str(k): v for k, v in scores.items()}, labels, n_draws=check_n_draws(n_draws),
                                   seed=seed, label_model=label_model, items=items)
    arrays = {str(k): as_score_array(v, f"scores[{k!r}]") for k, v in scores.items()}
    stacked_kinds(label_model)
    for taken in JOINT_KINDS:
        if taken in arrays:
            raise ValueError(f"{taken!r} names a label model of all models; rename that model")
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
    probabilities = {name: looks_like_probabilities(s) for name, s in arrays.items()}
    thresholds = {name: 0.5 if probabilities[name] else 0.0 for name in arrays}
    included, excluded, few_values = split_models(arrays, y)
    model = fit_label_model(included, y, probabilities, n_draws, (map_rng, fit_rng), label_model, calibrated,
                            model_priors(prior, arrays), few_values)
    draws = draw_labels(model, y, draw_rng)
    # drawn after the labels, so the seeds of each model's result leave every number above as it was
    return ManyResult(arrays, y, model, draws, excluded, thresholds, seed=int(draw_rng.integers(2**63 - 1)),
                      items=items)
