"""The object ``spe.fit`` returns: fitted model, posterior draws, and everything derived.

Curves, metrics, thresholds and plots are computed on demand from the posterior draws
and the drawn labels, and cached. Nothing here refits.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from . import curves as C
from . import recalibration as R
from .fitting import MapFit, SelectionRow
from .labels import positive_counts
from .posterior import Posterior
from .scores import ScoreData, as_score_array

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
    families : (negative, positive) family specs in use.
    params : MAP parameters (natural scale; family parameters in unit-score units).
    log_posterior : log posterior density at the MAP (unconstrained space).
    selection : family-selection table (one row per candidate pair, best first).
    starts : every MAP starting point and where it ended.
    posterior : :class:`~spe.posterior.Posterior` with weighted parameter draws.
    data : the validated, compressed :class:`~spe.scores.ScoreData`.
    """

    def __init__(self, data: ScoreData, fit: MapFit, selection: list[SelectionRow],
                 posterior: Posterior, label_seed):
        self.data = data
        self.map_fit = fit
        self.model = fit.model
        self.selection = selection
        self.posterior = posterior
        self._label_seed = label_seed

    # ---- what was fitted -------------------------------------------------------------
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
    def n_draws(self) -> int:
        return self.posterior.n_draws

    @property
    def weights(self) -> np.ndarray:
        return self.posterior.weights

    def selection_table(self) -> list[dict]:
        return [r.__dict__.copy() for r in self.selection]

    # ---- label draws and sweeps (cached) -----------------------------------------------
    @cached_property
    def positive_counts(self) -> np.ndarray:
        """(draws, groups) number of positives per score group under each draw."""
        rng = np.random.default_rng(self._label_seed)
        return positive_counts(self.model, self.posterior.theta, self.data, rng)

    @cached_property
    def _sweep(self) -> C.Sweep:
        return C.Sweep(self.positive_counts, self.data.n_total)

    # ---- curves ----------------------------------------------------------------------
    def pr_curve(self, recall=None, level=0.9, kind="sample") -> C.PRCurve:
        """Precision at each recall in ``recall`` with an equal-tailed ``level`` band.

        Precision at recall r is the precision at the highest threshold whose recall is
        >= r. ``kind="sample"`` is performance on these items; ``"population"`` that of
        the fitted score distributions.
        """
        grid = C.check_grid(recall, C.DEFAULT_RECALL_GRID, "recall")
        level = C.check_level(level)
        if _check_kind(kind) == "sample":
            draws = C.sample_precision_at_recall(self._sweep, grid)
        else:
            draws = C.population_precision_at_recall(self.model, self.posterior.theta, grid)
        return C.PRCurve.from_draws(grid, draws, self.weights, level, kind)

    def roc_curve(self, fpr=None, level=0.9, kind="sample") -> C.ROCCurve:
        """TPR at each FPR in ``fpr`` (lowest threshold whose FPR <= f) with a band."""
        grid = C.check_grid(fpr, C.DEFAULT_FPR_GRID, "fpr")
        level = C.check_level(level)
        if _check_kind(kind) == "sample":
            draws = C.sample_tpr_at_fpr(self._sweep, grid)
        else:
            draws = C.population_tpr_at_fpr(self.model, self.posterior.theta, grid)
        return C.ROCCurve.from_draws(grid, draws, self.weights, level, kind)

    # ---- scalar metrics --------------------------------------------------------------
    def _estimate(self, name, sample_fn, population_fn, level, kind):
        level = C.check_level(level)
        if _check_kind(kind) == "sample":
            draws = sample_fn()
        else:
            draws = population_fn()
        return C.Estimate.from_draws(name, draws, self.weights, level)

    def prevalence(self, level=0.9, kind="sample") -> C.Estimate:
        """Fraction of positives (sample: among these items; population: pi)."""
        return self._estimate(
            "prevalence",
            lambda: self._sweep.n_pos / self._sweep.n_items,
            lambda: self.posterior.theta[:, 0],
            level,
            kind,
        )

    def average_precision(self, level=0.9, kind="sample") -> C.Estimate:
        return self._estimate(
            "average precision",
            lambda: C.sample_average_precision(self._sweep),
            lambda: C.population_average_precision(self.model, self.posterior.theta),
            level,
            kind,
        )

    def auroc(self, level=0.9, kind="sample") -> C.Estimate:
        return self._estimate(
            "AUROC",
            lambda: C.sample_auroc(self._sweep),
            lambda: C.population_auroc(self.model, self.posterior.theta),
            level,
            kind,
        )

    def max_f1(self, level=0.9, kind="sample") -> C.Estimate:
        return self._estimate(
            "max F1",
            lambda: C.sample_max_f1(self._sweep),
            lambda: C.population_max_f1(self.model, self.posterior.theta),
            level,
            kind,
        )

    def _rates(self, thresholds, kind) -> R.Rates:
        if _check_kind(kind) == "sample":
            return R.sample_rates(self._sweep, self.data.threshold, thresholds)
        return R.population_rates_at(self.model, self.posterior.theta, self.data.frame, thresholds)

    def metrics_at(self, threshold, level=0.9, kind="sample") -> dict:
        """Precision, recall, FPR, F1 and accuracy when predicting positive at score >= threshold."""
        t = self._check_thresholds(threshold)
        if t.size != 1:
            raise ValueError("metrics_at takes a single threshold")
        level = C.check_level(level)
        rates = self._rates(t, kind)
        p, r, f = rates.precision[:, 0], rates.recall[:, 0], rates.fpr[:, 0]
        if kind == "sample":
            n = self._sweep.n_items
            tn = self._sweep.n_neg - rates.fp[:, 0]
            acc = (rates.tp[:, 0] + tn) / n
        else:
            pi = self.posterior.theta[:, 0]
            acc = pi * r + (1 - pi) * (1 - f)
        f1 = R.fbeta(rates, 1.0)[:, 0]
        values = {"precision": p, "recall": r, "fpr": f, "f1": f1, "accuracy": acc}
        return {k: C.Estimate.from_draws(k, v, self.weights, level) for k, v in values.items()}

    # ---- recalibration ---------------------------------------------------------------
    def prob_positive(self) -> np.ndarray:
        """Posterior P(y_i = 1 | data) for every item (labeled items: their label)."""
        p_group = self._posterior_prob(self.data.z)
        out = p_group[self.data.group]
        labeled = self.data.is_labeled
        out[labeled] = self.data.labels[labeled]
        return out

    def calibrate(self, scores) -> np.ndarray:
        """Recalibrated P(y = 1 | score), posterior-averaged, for any scores.

        Scores outside the fitted frame are clamped to it (the model has not seen
        scores there).
        """
        s = as_score_array(scores)
        z = np.clip(self.data.frame.to_unit(s), 0.0, 1.0)
        return self._posterior_prob(z)

    def _posterior_prob(self, z):
        z = np.asarray(z, float)
        out = np.zeros(z.size)
        step = max(1, 2_000_000 // max(self.n_draws, 1))
        for start in range(0, z.size, step):
            p = self.model.prob_positive(self.posterior.theta, z[start : start + step])
            out[start : start + step] = self.weights @ p
        return out

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

        See :mod:`spe.recalibration` for the rule among feasible thresholds. Infeasible
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

    def min_cost_threshold(self, cost_fp=1.0, cost_fn=1.0) -> R.ThresholdDecision:
        """The threshold minimising expected cost_fp * FP + cost_fn * FN on these items."""
        for name, c in (("cost_fp", cost_fp), ("cost_fn", cost_fn)):
            if not (isinstance(c, (int, float)) and c >= 0 and np.isfinite(c)):
                raise ValueError(f"{name} must be a non-negative number, got {c!r}")
        rates = self._rates(self.default_thresholds(), "sample")
        cost = cost_fp * rates.fp + cost_fn * (rates.n_pos - rates.tp)
        return R.best_by_score(rates, self.weights, cost, "min expected cost", "sample", maximise=False)

    # ---- export ----------------------------------------------------------------------
    def resample(self, rng=None) -> np.ndarray:
        """Indices of draws resampled in proportion to their weights (systematic)."""
        rng = np.random.default_rng(rng)
        m = self.n_draws
        positions = (rng.random() + np.arange(m)) / m
        idx = np.searchsorted(np.cumsum(self.weights), positions)
        return np.minimum(idx, m - 1)

    def to_inference_data(self, resample=True, seed=None):
        """Posterior draws as an ``arviz.InferenceData``/``DataTree``.

        With ``resample=True`` (default) the weighted draws are resampled to equal
        weight; otherwise the raw draws are returned with ``log_weight`` in
        ``sample_stats``.
        """
        import warnings

        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)
            import arviz as az

        idx = self.resample(seed) if resample else np.arange(self.n_draws)
        post = {name: self.posterior.theta[idx, j][None, :] for j, name in enumerate(self.model.names)}
        groups = {"posterior": post}
        if not resample:
            groups["sample_stats"] = {"log_weight": np.log(self.weights)[None, :]}
        if int(az.__version__.split(".")[0]) >= 1:
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
        level = C.check_level(level)
        d = self.data
        post = self.posterior
        metrics = [self.prevalence(level), self.average_precision(level), self.auroc(level),
                   self.max_f1(level)]
        pct = f"{100 * level:g}%"
        lines = [
            "SPE: semisupervised performance evaluation",
            f"  items: {d.n_items} ({d.n_labeled} labeled: {int(d.n_pos.sum())} positive, "
            f"{int(d.n_neg.sum())} negative)",
            f"  score frame: [{d.frame.lower:.6g}, {d.frame.upper:.6g}] ({d.frame.source}); "
            + ("exact compression" if d.exact else f"scores pooled into {d.n_groups} fine bins"),
            f"  families: negative {self.families[0]}, positive {self.families[1]}"
            + (f" (chosen by BIC from {len(self.selection)} pairs)" if len(self.selection) > 1 else ""),
            "  MAP parameters (family parameters in units of the score frame):",
        ]
        lines += [f"    {k:14s} {v: .5g}" for k, v in self.params.items()]
        khat = "n/a" if np.isnan(post.khat) else f"{post.khat:.2f}"
        lines += [
            f"  inference: {post.method}"
            + (f" ({post.proposal} proposal)" if post.proposal else "")
            + (f" after importance k-hat {post.importance_khat:.2f}" if post.method == "emcee" else ""),
            f"  draws: {post.n_draws}, ESS {post.ess:.0f}, Pareto k-hat {khat}, "
            f"MAP start spread {self.map_fit.start_spread:.3g} (log posterior)",
            f"  metrics on these items (mean [{pct} interval]):",
        ]
        lines += [f"    {m.name:18s} {m.mean:.3f} [{m.lower:.3f}, {m.upper:.3f}]" for m in metrics]
        data = {
            "n_items": d.n_items,
            "n_labeled": d.n_labeled,
            "n_labeled_positive": int(d.n_pos.sum()),
            "score_frame": {"lower": d.frame.lower, "upper": d.frame.upper, "source": d.frame.source},
            "exact_compression": d.exact,
            "families": {"negative": self.families[0], "positive": self.families[1]},
            "family_selection": self.selection_table(),
            "map_params": self.params,
            "log_posterior_at_map": self.log_posterior,
            "diagnostics": {
                "inference": post.method,
                "proposal": post.proposal,
                "n_draws": post.n_draws,
                "ess": post.ess,
                "pareto_khat": None if np.isnan(post.khat) else post.khat,
                "importance_khat": None if np.isnan(post.importance_khat) else post.importance_khat,
                "map_start_spread": self.map_fit.start_spread,
            },
            "metrics": {m.name: m.as_dict() for m in metrics},
        }
        return Summary("\n".join(lines), data)

    def __repr__(self):
        return (
            f"<SPEResult {self.families[0]}/{self.families[1]}, {self.data.n_items} items, "
            f"{self.data.n_labeled} labeled, {self.posterior.method}; call .summary()>"
        )
