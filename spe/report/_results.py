"""The object ``spe.fit`` returns: the pooled label posterior and everything derived.

Curves, metrics, thresholds and plots are computed on demand from the pooled draws of
P(y = 1 | score) (:class:`~spe.pooling.LabelPosterior`) and the labels drawn from
them, and cached. Nothing here refits.
"""

from __future__ import annotations

from functools import cached_property

import numpy as np

from ..metrics import (DEFAULT_FPR_GRID, DEFAULT_RECALL_GRID, Estimate, PRCurve, Rates, ROCCurve, Sweep, build_sweep,
                       check_grid, check_kind, check_level, check_thresholds, rates_at, sample_auroc,
                       sample_average_precision, sample_max_f1, sample_precision_at_recall, sample_rates,
                       sample_tpr_at_fpr, warn_if_collapsed)
from ..pooling import LabelPosterior, check_labels, draw_positive_counts, systematic_resample
from ..scores import ItemIndex, ScoreData
from ._export import export_draws
from ._result_methods import metric_method as _metric
from ._result_methods import mixture_attribute as _mixture_attribute
from ._result_methods import plot_method as _plot
from . import _result_outputs as _outputs
from . import _result_thresholds as _thresholds
from ._summary import Summary, summarize


class SPEResult:
    """Result of :func:`spe.fit`.

    Attributes
    ----------
    label_posterior : :class:`~spe.pooling.LabelPosterior`, the pooled draws of
        P(y = 1 | score) that every curve, metric and threshold is computed from.
    fits : the score models that were fitted, by name (``"mixture"``, ``"spline"``, ...).
    model_weights : each score model's weight (from the labeled items' LOO predictive
        densities, or the prior weights with no labels).
    data : the validated, compressed :class:`~spe.scores.ScoreData`.
    items : :class:`~spe.scores.ItemIndex`, the caller's item index (a pandas index when
        the scores were a pandas Series; per-item outputs carry it), or ``None`` inside.

    The mixture's own details (``families``, ``params``, ``selection``, ``starts``,
    ``posterior``, ``misfit``) are available when a mixture was fitted.

    Examples
    --------
    >>> import numpy as np
    >>> import spe
    >>> from spe.datasets import load_demo
    >>> scores, truth = load_demo()
    >>> labels = np.where(np.arange(scores.size) % 60 == 0, truth, np.nan)  # 30 labels
    >>> res = spe.fit(scores, labels, model="platt", n_draws=200, seed=0, progress=False)
    >>> res
    <SPEResult 1797 items, 30 labeled, score models: platt 1.00; call .summary()>
    >>> est = res.average_precision()
    >>> est.lower < est.value < est.upper
    True
    """

    def __init__(self, data: ScoreData, label_posterior: LabelPosterior, label_seed, export_seed=0,
                 errors=None, check_seed=0, prior_note="", items=None):
        self.data = data
        self.items = items if items is not None else ItemIndex()
        #: which prior over classifiers the calibration map used, in words
        self.prior_note = prior_note
        self.label_posterior = label_posterior
        self._label_seed = label_seed
        self._export_seed = export_seed
        self._check_seed = check_seed
        self._sweeps = {}  # kind -> Sweep, built once
        self._model_estimates = {}  # level -> per-model estimates, built once
        #: score models not in the pool, with the reason: they could not be fitted, or
        #: ``model="auto"`` left them out (the mixture with no labels on probability scores)
        self.errors = dict(errors or {})

    # ---- what was fitted -------------------------------------------------------------
    @property
    def fits(self) -> dict:
        return self.label_posterior.fits

    @property
    def model_weights(self) -> dict:
        return self.label_posterior.model_weights

    @property
    def mixture(self):
        """The fitted score mixture, or None when it was not fitted."""
        return self.fits.get("mixture")

    model = _mixture_attribute("model", "The mixture's :class:`~spe.mixture.MixtureModel`.")
    map_fit = _mixture_attribute("map_fit", "The mixture's MAP fit.")
    posterior = _mixture_attribute("posterior", "The mixture's parameter posterior.")
    misfit = _mixture_attribute("misfit", "The mixture's misfit to the score distribution.")
    selection = _mixture_attribute("selection", "The family pairs tried, with their BIC.")
    families = _mixture_attribute("model.spec", "The (negative, positive) families.")
    params = _mixture_attribute("map_fit.params", "The mixture's MAP parameters.")
    log_posterior = _mixture_attribute("map_fit.log_posterior", "Log posterior density at the MAP.")
    starts = _mixture_attribute("map_fit.starts", "The MAP starts and where they ended.")

    @property
    def n_draws(self) -> int:
        return self.label_posterior.n_draws

    @property
    def weights(self) -> np.ndarray:
        return self.label_posterior.weights

    @cached_property
    def label_checks(self) -> dict:
        """Per score model, a posterior predictive check of the labeled items: observed
        positives against the model's predictive interval (``_label_check``).
        Empty without labels."""
        if self.data.n_labeled == 0:
            return {}
        rng = np.random.default_rng(self._check_seed)
        return {name: check_labels(fit, self._labeled_inputs, self.data.labeled_labels, rng)
                for name, fit in self.fits.items()}

    @property
    def _labeled_inputs(self) -> np.ndarray:
        """What the score models take for the labeled items: their scores."""
        return self.data.labeled_scores

    # ---- label draws and sweeps (cached) -----------------------------------------------
    @cached_property
    def _group_scores(self) -> np.ndarray:
        """Each score group's score on the input scale (what the score models take)."""
        return self.data.frame.from_unit(self.data.z)

    def _group_prob_of(self, model) -> np.ndarray:
        """(draws, groups) P(y = 1) of an unlabeled item in each score group under ``model``
        (the pooled posterior or one score model)."""
        return model.prob_positive(self._group_scores)

    @cached_property
    def group_prob(self) -> np.ndarray:
        """(draws, groups) P(y = 1) of an unlabeled item in each score group, per draw."""
        return self._group_prob_of(self.label_posterior)

    @cached_property
    def positive_counts(self) -> np.ndarray:
        """(draws, groups) number of positives per score group under each draw."""
        return draw_positive_counts(self.group_prob, self.data, np.random.default_rng(self._label_seed))

    def _sweep_of(self, kind) -> Sweep:
        """The sweep of ``kind`` (``_kinds``), built once."""
        if check_kind(kind) not in self._sweeps:
            self._sweeps[kind] = build_sweep(kind, self.data, self.group_prob, lambda: self.positive_counts)
        return self._sweeps[kind]

    # ---- curves ----------------------------------------------------------------------
    def pr_curve(self, recall=None, level=0.9, kind="sample") -> PRCurve:
        """Precision at each recall in ``recall`` with an equal-tailed ``level`` band.

        Precision at recall r is the precision at the highest threshold whose recall is
        >= r. ``kind="sample"`` is performance on these items (labels drawn);
        ``"population"`` that of the score model (expected labels, no draw noise).

        Examples
        --------
        >>> import numpy as np
        >>> import spe
        >>> from spe.datasets import load_demo
        >>> scores, truth = load_demo()
        >>> labels = np.where(np.arange(scores.size) % 60 == 0, truth, np.nan)  # 30 labels
        >>> res = spe.fit(scores, labels, model="platt", n_draws=200, seed=0, progress=False)
        >>> curve = res.pr_curve(recall=[0.5, 0.9])
        >>> curve.precision.shape, bool(np.all(curve.lower <= curve.upper))
        ((2,), True)
        """
        grid = check_grid(recall, DEFAULT_RECALL_GRID, "recall")
        draws = sample_precision_at_recall(self._sweep_of(kind), grid)
        curve = PRCurve.from_draws(grid, draws, self.weights, level, kind)
        warn_if_collapsed(curve, int(self.data.n_unlabeled.sum()))
        return curve

    def roc_curve(self, fpr=None, level=0.9, kind="sample") -> ROCCurve:
        """TPR at each FPR in ``fpr`` (lowest threshold whose FPR <= f) with a band.

        Examples
        --------
        >>> import numpy as np
        >>> import spe
        >>> from spe.datasets import load_demo
        >>> scores, truth = load_demo()
        >>> labels = np.where(np.arange(scores.size) % 60 == 0, truth, np.nan)  # 30 labels
        >>> res = spe.fit(scores, labels, model="platt", n_draws=200, seed=0, progress=False)
        >>> curve = res.roc_curve(fpr=[0.01, 0.1])
        >>> curve.tpr.shape
        (2,)
        """
        grid = check_grid(fpr, DEFAULT_FPR_GRID, "fpr")
        draws = sample_tpr_at_fpr(self._sweep_of(kind), grid)
        return ROCCurve.from_draws(grid, draws, self.weights, level, kind)

    # ---- scalar metrics --------------------------------------------------------------
    def _estimate(self, name, fn, level, kind):
        return Estimate.from_draws(name, fn(self._sweep_of(kind)), self.weights, level)

    prevalence = _metric("prevalence", lambda sw: sw.n_pos / sw.n_items,
                         "Fraction of positives among these items (population: expected fraction).")
    average_precision = _metric("average precision", sample_average_precision, "Average precision.")
    auroc = _metric("AUROC", sample_auroc, "Area under the ROC curve.")
    max_f1 = _metric("max F1", sample_max_f1, "The best F1 over thresholds.")

    def model_estimates(self, level=0.9) -> dict:
        """Each score model's own estimates, from its draws alone (before pooling).

        ``{model: {"prevalence": Estimate, "average precision": Estimate}}`` on these items
        (labels drawn from each model's posterior, as for the pooled metrics). Where the
        models' intervals do not overlap, the pooled interval spans assumptions the labels
        have not decided between (see :meth:`summary`).

        Examples
        --------
        >>> import numpy as np
        >>> import spe
        >>> from spe.datasets import load_demo
        >>> scores, truth = load_demo()
        >>> labels = np.where(np.arange(scores.size) % 60 == 0, truth, np.nan)  # 30 labels
        >>> res = spe.fit(scores, labels, model="platt", n_draws=200, seed=0, progress=False)
        >>> sorted(res.model_estimates()["platt"])
        ['average precision', 'prevalence']
        """
        level = check_level(level)
        if level not in self._model_estimates:
            out = {}
            for k, (name, fit) in enumerate(self.fits.items()):
                rng = np.random.default_rng([self._label_seed, k])
                counts = draw_positive_counts(self._group_prob_of(fit), self.data, rng)
                sweep = Sweep(counts, self.data.n_total)
                out[name] = {"prevalence": Estimate.from_draws("prevalence", sweep.n_pos / sweep.n_items,
                                                                 fit.weights, level),
                             "average precision": Estimate.from_draws(
                                 "average precision", sample_average_precision(sweep), fit.weights, level)}
            self._model_estimates[level] = out
        return self._model_estimates[level]

    def _rates(self, thresholds, kind) -> Rates:
        """Rates at ``thresholds`` (default: every distinct score, thinned)."""
        t = self.default_thresholds() if thresholds is None else thresholds
        return sample_rates(self._sweep_of(kind), self.data.threshold, t)

    def metrics_at(self, threshold, level=0.9, kind="sample") -> dict:
        """Precision, recall, FPR, F1 and accuracy when predicting positive at score >= threshold.

        Examples
        --------
        >>> import numpy as np
        >>> import spe
        >>> from spe.datasets import load_demo
        >>> scores, truth = load_demo()
        >>> labels = np.where(np.arange(scores.size) % 60 == 0, truth, np.nan)  # 30 labels
        >>> res = spe.fit(scores, labels, model="platt", n_draws=200, seed=0, progress=False)
        >>> sorted(res.metrics_at(0.0))
        ['accuracy', 'f1', 'fpr', 'precision', 'recall']
        """
        t = check_thresholds(threshold)
        if t.size != 1:
            raise ValueError("metrics_at takes a single threshold")
        values = rates_at(self._sweep_of(kind), self.data.threshold, t[0])
        return {k: Estimate.from_draws(k, v, self.weights, level) for k, v in values.items()}

    # ---- recalibration, and what to label next (_result_outputs) ---------------------
    prob_positive = _outputs.prob_positive
    calibrate = _outputs.calibrate
    label_values = _outputs.label_values
    _label_values = _outputs._label_values
    suggest_labels = _outputs.suggest_labels

    # ---- thresholds (_result_thresholds) ------------------------------------------------
    default_thresholds = _thresholds.default_thresholds
    condition_probability = _thresholds.condition_probability
    choose_threshold = _thresholds.choose_threshold
    best_fbeta_threshold = _thresholds.best_fbeta_threshold
    min_cost_threshold = _thresholds.min_cost_threshold

    # ---- export ----------------------------------------------------------------------
    def resample(self, seed=None, model=None) -> np.ndarray:
        """Indices of the pooled draws (or ``model``'s own) resampled by weight (systematic);
        ``seed=None`` uses the fit's seed, so repeated calls agree.

        Examples
        --------
        >>> import numpy as np
        >>> import spe
        >>> from spe.datasets import load_demo
        >>> scores, truth = load_demo()
        >>> labels = np.where(np.arange(scores.size) % 60 == 0, truth, np.nan)  # 30 labels
        >>> res = spe.fit(scores, labels, model="platt", n_draws=200, seed=0, progress=False)
        >>> res.resample().shape
        (200,)
        """
        weights = self.weights if model is None else self._fit(model).weights
        rng = np.random.default_rng(self._export_seed if seed is None else seed)
        return systematic_resample(weights, weights.size, rng)

    def _fit(self, model):
        if model not in self.fits:
            raise ValueError(f"no score model {model!r}; fitted: {', '.join(self.fits)}")
        return self.fits[model]

    def to_inference_data(self, model=None, resample=True, seed=None):
        """A score model's draws as ArviZ ``InferenceData`` (:func:`spe.report.export_draws`).

        With several score models and ``model=None``: ``{name: InferenceData}`` for
        ``az.compare``. ``resample=False`` keeps raw weighted draws (``log_weight``); emcee
        draws keep one chain per walker.

        Examples
        --------
        >>> import numpy as np
        >>> import spe
        >>> from spe.datasets import load_demo
        >>> scores, truth = load_demo()
        >>> labels = np.where(np.arange(scores.size) % 60 == 0, truth, np.nan)  # 30 labels
        >>> res = spe.fit(scores, labels, model="platt", n_draws=200, seed=0, progress=False)
        >>> idata = res.to_inference_data()
        >>> "posterior" in idata.groups()
        True
        """
        if model is None and len(self.fits) > 1:
            return {k: self.to_inference_data(k, resample, seed) for k in self.fits}
        name = model or next(iter(self.fits))
        return export_draws(self._fit(name), self.data, self.resample(seed, name) if resample else None,
                            self._labeled_inputs)

    # ---- plots (see spe.plot) ---------------------------------------------------------
    plot_fit = _plot("plot_fit", "Score histogram with fitted densities and bands.")
    plot_pr = _plot("plot_pr", "PR curve with band (and the labeled items' own curve).")
    plot_roc = _plot("plot_roc", "ROC curve with band.")
    plot_conditions = _plot("plot_conditions", "P(constraints hold) against threshold.")
    plot_reliability = _plot("plot_reliability", "Reliability of the classifier's scores, with bands.")

    # ---- reporting -------------------------------------------------------------------
    FRAME_METRICS = _outputs.FRAME_METRICS
    to_records = _outputs.to_records
    to_frame = _outputs.to_frame

    def summary(self, level=0.9) -> Summary:
        """Data, score models and their weights, diagnostics, metrics with intervals.

        Examples
        --------
        >>> import numpy as np
        >>> import spe
        >>> from spe.datasets import load_demo
        >>> scores, truth = load_demo()
        >>> labels = np.where(np.arange(scores.size) % 60 == 0, truth, np.nan)  # 30 labels
        >>> res = spe.fit(scores, labels, model="platt", n_draws=200, seed=0, progress=False)
        >>> print(res.summary())  # doctest: +ELLIPSIS
        SPE: semisupervised performance evaluation
          items: 1797 (30 labeled: ...
        """
        return summarize(self, level)

    def __repr__(self):
        models = ", ".join(f"{k} {w:.2f}" for k, w in self.model_weights.items())
        return (f"<SPEResult {self.data.n_items} items, {self.data.n_labeled} labeled, "
                f"score models: {models}; call .summary()>")

