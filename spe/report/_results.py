"""The object ``spe.fit`` returns: the pooled label posterior and everything derived.

Curves, metrics, thresholds and plots are computed on demand from the pooled draws of
P(y = 1 | score) (:class:`~spe.pooling.LabelPosterior`) and the labels drawn from
them, and cached. Nothing here refits.
"""

from __future__ import annotations

from functools import cached_property

import numpy as np

from ..calibration import calibrate, item_probabilities
from ..metrics import (DEFAULT_FPR_GRID, DEFAULT_RECALL_GRID, RANDOM_SHARE, Estimate, PRCurve, Rates, ROCCurve,
                       Sweep, ThresholdDecision, best_by_score, build_sweep, check_beta, check_constraints,
                       check_costs, check_grid, check_kind, check_level, check_thresholds, choose, fbeta, holds,
                       label_values, rates_at, sample_auroc, sample_average_precision, sample_max_f1,
                       sample_precision_at_recall, sample_rates, sample_tpr_at_fpr, suggest, thinned,
                       warn_if_collapsed)
from ..pooling import LabelPosterior, check_labels, draw_positive_counts, systematic_resample
from ..scores import ScoreData
from ._export import export_draws
from ._result_methods import metric_method as _metric
from ._result_methods import mixture_attribute as _mixture_attribute
from ._result_methods import plot_method as _plot
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

    The mixture's own details (``families``, ``params``, ``selection``, ``starts``,
    ``posterior``, ``misfit``) are available when a mixture was fitted.
    """

    def __init__(self, data: ScoreData, label_posterior: LabelPosterior, label_seed, export_seed=0,
                 errors=None, check_seed=0, prior_note=""):
        self.data = data
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
        """
        grid = check_grid(recall, DEFAULT_RECALL_GRID, "recall")
        draws = sample_precision_at_recall(self._sweep_of(kind), grid)
        curve = PRCurve.from_draws(grid, draws, self.weights, level, kind)
        warn_if_collapsed(curve, int(self.data.n_unlabeled.sum()))
        return curve

    def roc_curve(self, fpr=None, level=0.9, kind="sample") -> ROCCurve:
        """TPR at each FPR in ``fpr`` (lowest threshold whose FPR <= f) with a band."""
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
        """Precision, recall, FPR, F1 and accuracy when predicting positive at score >= threshold."""
        t = check_thresholds(threshold)
        if t.size != 1:
            raise ValueError("metrics_at takes a single threshold")
        values = rates_at(self._sweep_of(kind), self.data.threshold, t[0])
        return {k: Estimate.from_draws(k, v, self.weights, level) for k, v in values.items()}

    # ---- recalibration ---------------------------------------------------------------
    def prob_positive(self) -> np.ndarray:
        """Posterior P(y_i = 1 | data) for every item (labeled items: their label)."""
        return item_probabilities(self.weights @ self.group_prob, self.data)

    def calibrate(self, scores) -> np.ndarray:
        """Recalibrated P(y = 1 | score) for new scores (see :func:`spe.calibration.calibrate`)."""
        return calibrate(self.label_posterior, scores)

    def default_thresholds(self) -> np.ndarray:
        """The distinct scores (lowest score of each group), thinned to at most 2000."""
        return thinned(self.data.threshold)

    def condition_probability(self, thresholds=None, *, min_precision=None, min_recall=None,
                              max_fpr=None, kind="sample"):
        """Posterior probability that all constraints hold, per threshold.

        Returns ``(thresholds, probability)`` arrays.
        """
        constraints = check_constraints(min_precision, min_recall, max_fpr)
        t = self.default_thresholds() if thresholds is None else check_thresholds(thresholds)
        return t, self.weights @ holds(self._rates(t, kind), constraints)

    def choose_threshold(self, *, min_precision=None, min_recall=None, max_fpr=None,
                         confidence=0.9, kind="sample") -> ThresholdDecision:
        """Pick a threshold meeting the constraints with probability >= ``confidence``.

        See ``_thresholds`` for the rule among feasible thresholds. Infeasible
        constraints give a decision with ``feasible=False`` and the best probability.
        """
        constraints = check_constraints(min_precision, min_recall, max_fpr)
        confidence = check_level(confidence)
        rates = self._rates(None, kind)
        return choose(rates, self.weights, constraints, confidence, kind)

    def best_fbeta_threshold(self, beta=1.0, kind="sample") -> ThresholdDecision:
        """The threshold maximising the posterior expected F-beta."""
        check_beta(beta)
        rates = self._rates(None, kind)
        return best_by_score(rates, self.weights, fbeta(rates, beta), f"max expected F{beta:g}", kind)

    def min_cost_threshold(self, cost_fp=1.0, cost_fn=1.0, kind="sample") -> ThresholdDecision:
        """The threshold minimising expected cost_fp * FP + cost_fn * FN on these items."""
        check_costs(cost_fp, cost_fn)
        rates = self._rates(None, kind)
        cost = cost_fp * rates.fp + cost_fn * (rates.n_pos - rates.tp)
        return best_by_score(rates, self.weights, cost, "min expected cost", kind, maximise=False)

    # ---- what to label next (see spe.suggest) -----------------------------------------
    def label_values(self, target="pr", threshold=None) -> np.ndarray:
        """(N,) expected reduction of ``target``'s posterior variance from labeling each item
        (``"pr"``, ``"ap"``, ``"auroc"``, ``"max_f1"``, ``"prevalence"``, or ``"threshold"``
        with ``threshold=t``: precision and recall when predicting positive at score >= t;
        0 if labeled)."""
        self.data.require_items("label_values / suggest_labels (which items to label)")
        return label_values(self._sweep_of("sample"), self.weights, self.positive_counts, self.data, target,
                              threshold)

    def suggest_labels(self, k=10, target="pr", random_share=RANDOM_SHARE, seed=None,
                       threshold=None) -> np.ndarray:
        """Indices of ``k`` unlabeled items to label next (see :func:`spe.metrics.suggest`);
        ``seed=None`` uses the fit's seed; ``threshold`` with ``target="threshold"``."""
        rng = np.random.default_rng(self._export_seed if seed is None else seed)
        return suggest(self.label_values(target, threshold), self.data, k, random_share, rng)

    # ---- export ----------------------------------------------------------------------
    def resample(self, seed=None, model=None) -> np.ndarray:
        """Indices of the pooled draws (or ``model``'s own) resampled by weight (systematic);
        ``seed=None`` uses the fit's seed, so repeated calls agree."""
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
    def summary(self, level=0.9) -> Summary:
        """Data, score models and their weights, diagnostics, metrics with intervals."""
        return summarize(self, level)

    def __repr__(self):
        models = ", ".join(f"{k} {w:.2f}" for k, w in self.model_weights.items())
        return (f"<SPEResult {self.data.n_items} items, {self.data.n_labeled} labeled, "
                f"score models: {models}; call .summary()>")

