"""The object ``spe.fit`` returns: the pooled label posterior and everything derived.

Curves, metrics, thresholds and plots are computed on demand from the pooled draws of
P(y = 1 | score) (:class:`~spe.label_posterior.LabelPosterior`) and the labels drawn from
them, and cached. Nothing here refits.
"""

from __future__ import annotations

import json
import warnings
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from . import curves as C
from . import thresholds as R
from .label_posterior import LabelPosterior, systematic_resample
from .labels import draw_positive_counts
from .posterior import SamplingWarning
from .scores import ScoreData, as_score_array
from .stacking import import_arviz, pointwise_log_likelihood

KINDS = ("sample", "population")


def _check_kind(kind):
    if kind not in KINDS:
        raise ValueError(f"kind must be 'sample' or 'population', got {kind!r}")
    return kind


@dataclass
class Summary:
    """What ``SPEResult.summary()`` returns: prints as text, exports as a dict."""

    text: str
    data: dict

    def __str__(self):
        return self.text

    __repr__ = __str__

    def to_dict(self):
        return self.data

    def to_json(self, **kwargs):
        return json.dumps(self.data, **kwargs)


class SPEResult:
    """Result of :func:`spe.fit`.

    Attributes
    ----------
    label_posterior : :class:`~spe.label_posterior.LabelPosterior`, the pooled draws of
        P(y = 1 | score) that every curve, metric and threshold is computed from.
    fits : the score models that were fitted, by name (``"mixture"``, ``"platt"``).
    model_weights : each score model's weight (from the labeled items' LOO predictive
        densities, or the prior weights with no labels).
    data : the validated, compressed :class:`~spe.scores.ScoreData`.

    The mixture's own details (``families``, ``params``, ``selection``, ``starts``,
    ``posterior``, ``misfit``) are available when a mixture was fitted.
    """

    def __init__(self, data: ScoreData, label_posterior: LabelPosterior, label_seed, export_seed=0,
                 errors=None):
        self.data = data
        self.label_posterior = label_posterior
        self._label_seed = label_seed
        self._export_seed = export_seed
        #: score models that could not be fitted, with the reason (excluded from the pool)
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

    def _mixture(self):
        if self.mixture is None:
            raise AttributeError("no score mixture was fitted (model='platt'?)")
        return self.mixture

    @property
    def model(self):
        return self._mixture().model

    @property
    def map_fit(self):
        return self._mixture().map_fit

    @property
    def posterior(self):
        """The mixture's parameter posterior (:class:`~spe.posterior.Posterior`)."""
        return self._mixture().posterior

    @property
    def misfit(self):
        return self._mixture().misfit

    @property
    def families(self) -> tuple[str, str]:
        return self.model.spec

    @property
    def params(self) -> dict:
        return self.map_fit.params

    @property
    def log_posterior(self) -> float:
        return self.map_fit.log_posterior

    @property
    def starts(self):
        return self.map_fit.starts

    @property
    def selection(self):
        return self._mixture().selection

    @property
    def n_draws(self) -> int:
        return self.label_posterior.n_draws

    @property
    def weights(self) -> np.ndarray:
        return self.label_posterior.weights

    def selection_table(self) -> list[dict]:
        return [r.__dict__.copy() for r in self.selection]

    # ---- label draws and sweeps (cached) -----------------------------------------------
    @cached_property
    def group_prob(self) -> np.ndarray:
        """(draws, groups) P(y = 1) of an unlabeled item in each score group, per draw."""
        return self.label_posterior.prob_positive(self.data.frame.from_unit(self.data.z))

    @cached_property
    def positive_counts(self) -> np.ndarray:
        """(draws, groups) number of positives per score group under each draw."""
        return draw_positive_counts(self.group_prob, self.data, np.random.default_rng(self._label_seed))

    @cached_property
    def _sweep(self) -> C.Sweep:
        """Sample kind: the items' own scores with drawn labels."""
        return C.Sweep(self.positive_counts, self.data.n_total)

    @cached_property
    def _expected_sweep(self) -> C.Sweep:
        """Population kind: expected positives per score group (no label-draw noise)."""
        return C.Sweep(self.data.n_pos + self.group_prob * self.data.n_unlabeled, self.data.n_total)

    def _sweep_of(self, kind) -> C.Sweep:
        return self._sweep if _check_kind(kind) == "sample" else self._expected_sweep

    # ---- curves ----------------------------------------------------------------------
    def pr_curve(self, recall=None, level=0.9, kind="sample") -> C.PRCurve:
        """Precision at each recall in ``recall`` with an equal-tailed ``level`` band.

        Precision at recall r is the precision at the highest threshold whose recall is
        >= r. ``kind="sample"`` is performance on these items (labels drawn);
        ``"population"`` that of the score model (expected labels, no draw noise).
        """
        grid = C.check_grid(recall, C.DEFAULT_RECALL_GRID, "recall")
        level = C.check_level(level)
        draws = C.sample_precision_at_recall(self._sweep_of(kind), grid)
        curve = C.PRCurve.from_draws(grid, draws, self.weights, level, kind)
        self._warn_if_collapsed(curve)
        return curve

    def _warn_if_collapsed(self, curve):
        """A zero-width band while labels are missing is overconfidence, never a result."""
        inner = (curve.x >= 0.05) & (curve.x <= 0.95)
        n_unl = int(self.data.n_unlabeled.sum())
        if curve.kind == "sample" and n_unl and inner.any() and np.all(curve.upper[inner] == curve.lower[inner]):
            warnings.warn(
                f"the PR band has zero width although {n_unl} items are unlabeled: the score models are "
                "certain of every label, which is overconfidence, not knowledge; see summary() diagnostics",
                SamplingWarning, stacklevel=3)

    def roc_curve(self, fpr=None, level=0.9, kind="sample") -> C.ROCCurve:
        """TPR at each FPR in ``fpr`` (lowest threshold whose FPR <= f) with a band."""
        grid = C.check_grid(fpr, C.DEFAULT_FPR_GRID, "fpr")
        level = C.check_level(level)
        draws = C.sample_tpr_at_fpr(self._sweep_of(kind), grid)
        return C.ROCCurve.from_draws(grid, draws, self.weights, level, kind)

    # ---- scalar metrics --------------------------------------------------------------
    def _estimate(self, name, fn, level, kind):
        level = C.check_level(level)
        return C.Estimate.from_draws(name, fn(self._sweep_of(kind)), self.weights, level)

    def prevalence(self, level=0.9, kind="sample") -> C.Estimate:
        """Fraction of positives among these items (population: expected fraction)."""
        return self._estimate("prevalence", lambda sw: sw.n_pos / sw.n_items, level, kind)

    def average_precision(self, level=0.9, kind="sample") -> C.Estimate:
        return self._estimate("average precision", C.sample_average_precision, level, kind)

    def auroc(self, level=0.9, kind="sample") -> C.Estimate:
        return self._estimate("AUROC", C.sample_auroc, level, kind)

    def max_f1(self, level=0.9, kind="sample") -> C.Estimate:
        return self._estimate("max F1", C.sample_max_f1, level, kind)

    def _rates(self, thresholds, kind) -> R.Rates:
        return R.sample_rates(self._sweep_of(kind), self.data.threshold, thresholds)

    def metrics_at(self, threshold, level=0.9, kind="sample") -> dict:
        """Precision, recall, FPR, F1 and accuracy when predicting positive at score >= threshold."""
        t = self._check_thresholds(threshold)
        if t.size != 1:
            raise ValueError("metrics_at takes a single threshold")
        level = C.check_level(level)
        rates = self._rates(t, kind)
        sweep = self._sweep_of(kind)
        tn = sweep.n_neg - rates.fp[:, 0]
        values = {"precision": rates.precision[:, 0], "recall": rates.recall[:, 0],
                  "fpr": rates.fpr[:, 0], "f1": R.fbeta(rates, 1.0)[:, 0],
                  "accuracy": (rates.tp[:, 0] + tn) / sweep.n_items}
        return {k: C.Estimate.from_draws(k, v, self.weights, level) for k, v in values.items()}

    # ---- recalibration ---------------------------------------------------------------
    def prob_positive(self) -> np.ndarray:
        """Posterior P(y_i = 1 | data) for every item (labeled items: their label)."""
        out = (self.weights @ self.group_prob)[self.data.group]
        labeled = self.data.is_labeled
        out[labeled] = self.data.labels[labeled]
        return out

    def calibrate(self, scores) -> np.ndarray:
        """Recalibrated P(y = 1 | score), posterior-averaged over draws and score models.

        The mixture clamps scores outside its frame to the frame's edge (it has not seen
        scores there); the Platt model extrapolates its sigmoid.
        """
        s = as_score_array(scores)
        step = max(1, 2_000_000 // max(self.n_draws, 1))
        return np.concatenate([self.label_posterior.mean_prob_positive(s[i : i + step])
                               for i in range(0, s.size, step)])

    def _check_thresholds(self, thresholds):
        try:
            t = np.atleast_1d(np.asarray(thresholds, dtype=float))
        except (TypeError, ValueError):
            raise TypeError("thresholds must be numbers (in score units)") from None
        if t.ndim != 1 or t.size == 0 or not np.all(np.isfinite(t)):
            raise ValueError("thresholds must be a non-empty 1-D array of finite numbers")
        return t

    def default_thresholds(self) -> np.ndarray:
        """The distinct scores (lowest score of each group), thinned to at most 2000."""
        t = self.data.threshold
        if t.size > R.MAX_DEFAULT_THRESHOLDS:
            idx = np.unique(np.linspace(0, t.size - 1, R.MAX_DEFAULT_THRESHOLDS).round().astype(int))
            t = t[idx]
        return t

    def condition_probability(self, thresholds=None, *, min_precision=None, min_recall=None,
                              max_fpr=None, kind="sample"):
        """Posterior probability that all constraints hold, per threshold.

        Returns ``(thresholds, probability)`` arrays.
        """
        constraints = R.check_constraints(min_precision, min_recall, max_fpr)
        t = self.default_thresholds() if thresholds is None else self._check_thresholds(thresholds)
        rates = self._rates(t, kind)
        return t, self.weights @ R.holds(rates, constraints)

    def choose_threshold(self, *, min_precision=None, min_recall=None, max_fpr=None,
                         confidence=0.9, kind="sample") -> R.ThresholdDecision:
        """Pick a threshold meeting the constraints with probability >= ``confidence``.

        See :mod:`spe.thresholds` for the rule among feasible thresholds. Infeasible
        constraints give a decision with ``feasible=False`` and the best probability.
        """
        constraints = R.check_constraints(min_precision, min_recall, max_fpr)
        confidence = C.check_level(confidence)
        rates = self._rates(self.default_thresholds(), kind)
        return R.choose(rates, self.weights, constraints, confidence, kind)

    def best_fbeta_threshold(self, beta=1.0, kind="sample") -> R.ThresholdDecision:
        """The threshold maximising the posterior expected F-beta."""
        if not (isinstance(beta, (int, float)) and beta > 0):
            raise ValueError(f"beta must be a positive number, got {beta!r}")
        rates = self._rates(self.default_thresholds(), kind)
        return R.best_by_score(rates, self.weights, R.fbeta(rates, beta), f"max expected F{beta:g}", kind)

    def min_cost_threshold(self, cost_fp=1.0, cost_fn=1.0, kind="sample") -> R.ThresholdDecision:
        """The threshold minimising expected cost_fp * FP + cost_fn * FN on these items."""
        for name, c in (("cost_fp", cost_fp), ("cost_fn", cost_fn)):
            if not (isinstance(c, (int, float)) and c >= 0 and np.isfinite(c)):
                raise ValueError(f"{name} must be a non-negative number, got {c!r}")
        rates = self._rates(self.default_thresholds(), kind)
        cost = cost_fp * rates.fp + cost_fn * (rates.n_pos - rates.tp)
        return R.best_by_score(rates, self.weights, cost, "min expected cost", kind, maximise=False)

    # ---- export ----------------------------------------------------------------------
    def resample(self, seed=None, model=None) -> np.ndarray:
        """Indices of draws resampled in proportion to their weights (systematic).

        ``model`` names a score model to resample its own draws; the default resamples
        the pooled draws. ``seed=None`` uses the fit's seed, so repeated calls agree.
        """
        weights = self.weights if model is None else self._fit(model).weights
        rng = np.random.default_rng(self._export_seed if seed is None else seed)
        return systematic_resample(weights, weights.size, rng)

    def _fit(self, model):
        if model not in self.fits:
            raise ValueError(f"no score model {model!r}; fitted: {', '.join(self.fits)}")
        return self.fits[model]

    def to_inference_data(self, model=None, resample=True, seed=None):
        """A score model's posterior draws as an ``arviz.InferenceData``/``DataTree``.

        Groups: ``posterior`` (the model's parameters), ``log_likelihood`` (log P(y_i | s_i)
        of each labeled item, so ``az.loo`` works) and ``observed_data``. With several
        score models and ``model=None``, a dict ``{name: InferenceData}`` is returned,
        ready for ``az.compare``. ``resample=False`` keeps the raw importance draws and
        adds their ``log_weight`` to ``sample_stats``.
        """
        if model is None and len(self.fits) > 1:
            return {k: self.to_inference_data(k, resample, seed) for k in self.fits}
        name = model or next(iter(self.fits))
        fit = self._fit(name)
        idx = self.resample(seed, name) if resample else np.arange(fit.n_draws)
        groups = {"posterior": {k: v[idx][None, :] for k, v in fit.draws().items()}}
        lab = self.data.is_labeled
        if lab.any():
            s, y = self.data.scores[lab], self.data.labels[lab]
            groups["log_likelihood"] = {"y": pointwise_log_likelihood(fit.prob_positive(s)[idx], y)[None]}
            groups["observed_data"] = {"y": y}
        if not resample:
            groups["sample_stats"] = {"log_weight": np.log(fit.weights)[None, :]}
        az = import_arviz()
        if int(az.__version__.split(".")[0]) >= 1:  # pragma: no cover - ArviZ 1.x only
            return az.from_dict(groups)
        return az.from_dict(**groups)

    # ---- plots (see spe.plot) ---------------------------------------------------------
    def plot_fit(self, ax=None, **kwargs):
        """Score histogram with fitted components and bands; see :func:`spe.plot.plot_fit`."""
        from .plot import plot_fit

        return plot_fit(self, ax, **kwargs)

    def plot_pr(self, ax=None, **kwargs):
        """PR curve with band; see :func:`spe.plot.plot_pr`."""
        from .plot import plot_pr

        return plot_pr(self, ax, **kwargs)

    def plot_roc(self, ax=None, **kwargs):
        """ROC curve with band; see :func:`spe.plot.plot_roc`."""
        from .plot import plot_roc

        return plot_roc(self, ax, **kwargs)

    def plot_conditions(self, ax=None, **kwargs):
        """P(constraints hold) vs threshold; see :func:`spe.plot.plot_conditions`."""
        from .plot import plot_conditions

        return plot_conditions(self, ax, **kwargs)

    def plot_reliability(self, ax=None, **kwargs):
        """Reliability diagram; see :func:`spe.plot.plot_reliability`."""
        from .plot import plot_reliability

        return plot_reliability(self, ax, **kwargs)

    # ---- reporting -------------------------------------------------------------------
    def summary(self, level=0.9) -> Summary:
        """Data, score models and their weights, diagnostics, metrics with intervals."""
        level = C.check_level(level)
        d = self.data
        metrics = [self.prevalence(level), self.average_precision(level), self.auroc(level),
                   self.max_f1(level)]
        models = {k: f.describe() for k, f in self.fits.items()}
        lines = [
            "SPE: semisupervised performance evaluation",
            f"  items: {d.n_items} ({d.n_labeled} labeled: {int(d.n_pos.sum())} positive, "
            f"{int(d.n_neg.sum())} negative)",
            f"  score frame: [{d.frame.lower:.6g}, {d.frame.upper:.6g}] ({d.frame.source}); "
            + ("exact compression" if d.exact else f"scores pooled into {d.n_groups} fine bins"),
            "  score models (weight; " + self.label_posterior.weighting + "):",
        ]
        for name, info in models.items():
            lines.append(f"    {name:8s} {self.model_weights[name]:.3f}  {info['model']}")
            lines += ["             " + line for line in _describe_lines(name, info, len(self.selection)
                                                                         if name == "mixture" else 0)]
        lines += [f"    {name:8s} not fitted: {why}" for name, why in self.errors.items()]
        lines.append(f"  metrics on these items (median [{100 * level:g}% interval]), {self.n_draws} draws:")
        lines += [f"    {m.name:18s} {m.value:.3f} [{m.lower:.3f}, {m.upper:.3f}]" for m in metrics]
        data = {
            "n_items": d.n_items,
            "n_labeled": d.n_labeled,
            "n_labeled_positive": int(d.n_pos.sum()),
            "score_frame": {"lower": d.frame.lower, "upper": d.frame.upper, "source": d.frame.source},
            "exact_compression": d.exact,
            "model_weights": dict(self.model_weights),
            "weighting": self.label_posterior.weighting,
            "score_models": models,
            "not_fitted": dict(self.errors),
            "metrics": {m.name: m.as_dict() for m in metrics},
        }
        if self.mixture is not None:
            data["families"] = models["mixture"]["families"]
            data["family_selection"] = self.selection_table()
        return Summary("\n".join(lines), data)

    def __repr__(self):
        models = ", ".join(f"{k} {w:.2f}" for k, w in self.model_weights.items())
        return (f"<SPEResult {self.data.n_items} items, {self.data.n_labeled} labeled, "
                f"score models: {models}; call .summary()>")


def _describe_lines(name, info, n_pairs):
    """Plain-language lines for one score model's ``describe()`` dict."""
    khat = info.get("pareto_khat")
    khat = "n/a" if khat is None else f"{khat:.2f}"
    if name != "mixture":
        mean = ", ".join(f"{k} {v:.3g}" for k, v in info["posterior_mean"].items())
        return [f"on the {info['feature']}; posterior mean {mean}",
                f"inference: {info['inference']}, ESS {info['ess']:.0f}, Pareto k-hat {khat}"]
    fam = info["families"]
    mis = info["misfit"]
    chosen = f" (chosen by BIC from {n_pairs} pairs)" if n_pairs > 1 else ""
    inference = info["inference"] + (f" ({info['proposal']} proposal)" if info["proposal"] else "")
    if info["inference"] == "emcee" and info["importance_khat"] is not None:
        inference += f" after importance k-hat {info['importance_khat']:.2f}"
    return [
        f"families: negative {fam['negative']}, positive {fam['positive']}{chosen}",
        f"fit to the score distribution: {mis['verdict']} (KL {mis['kl']:.4f}, noise level "
        f"{mis['null_kl']:.4f}, zeta {mis['zeta']:.3g})",
        f"inference: {inference}, ESS {info['ess']:.0f}, Pareto k-hat {khat}, "
        f"MAP start spread {info['map_start_spread']:.3g}",
    ]
