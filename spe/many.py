"""Several classifiers scored on the same items: one label posterior, paired comparisons.

The models' scores are all evidence about the same unknown labels, so the label model
uses every one of them. Each model is first recalibrated by its own Bayesian Platt
posterior (:mod:`spe.calibration_maps`; prior centred on "calibrated" for probabilities),
giving log-odds x_ij on the scale its labels support; then the label model is a
log-linear pool of those log-odds with weights learned from the labels,

    P(y_i = 1) = sigmoid(c + sum_j beta_j x_ij),

prior centred on the equal-weight pool (beta_j ~ N(1/J, 1/sqrt(J)), c ~ N(0, 1.5)),
posterior by importance sampling around the mode (Student-t proposal, PSIS). The labels
enter twice (each model's recalibration, then the pool), which makes the pool somewhat
over-confident with very few labels.
Every model's metrics are computed from the *same* label draws, so comparisons are
paired: P(model A beats model B) is the share of draws in which it does.

A degenerate model never enters the label model: fewer than 3 distinct scores (nothing
to rank) or scores the labels say run the wrong way (P(AUROC < 0.5) > 0.95 from the
labeled items alone). It is reported in ``excluded`` with the reason; its metrics are
still computed from the shared draws when it has scores to rank.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
from scipy import special

from . import curves as C
from . import sweeps as SW
from . import plot
from .label_posterior import systematic_resample
from .posterior import KHAT_THRESHOLD, Proposal, SamplingWarning, adaptive_importance_draws
from .calibration_maps import fit_calibration_map
from .seeds import child_generators
from .threads import one_blas_thread
from .frame import PROBABILITY_EPS, looks_like_probabilities
from .orientation import ORIENTATION_PROBABILITY, reversed_probability
from .scores import MIN_DISTINCT_SCORES, as_labels, as_score_array

INTERCEPT_SD = 1.5
METRICS = ("AUROC", "average precision", "accuracy", "max F1")


def _recalibrated_log_odds(s, labels, probabilities, rng):
    """Logit of the model's own Bayesian Platt posterior-mean P(y = 1 | s).

    Recalibrating each model first (prior centred on "calibrated" for probabilities)
    puts every model on the log-odds scale its labels support: an over-confident
    model's exact 0s and 1s (logits of +-14) are tempered instead of outvoting the rest.
    """
    fit = fit_calibration_map("platt", s, labels, probabilities=probabilities, n_draws=400, rng=rng)
    p = fit.weights @ fit.prob_positive(s)
    return special.logit(np.clip(p, PROBABILITY_EPS, 1 - PROBABILITY_EPS))


@dataclass
class JointLabelModel:
    """Weighted posterior draws of (c, beta) over the included models' features."""

    names: list
    theta: np.ndarray
    weights: np.ndarray
    khat: float
    ess: float

    def prob_positive(self, x, rows) -> np.ndarray:
        """(len(rows), n) P(y = 1) of items with features ``x`` under draws ``rows``."""
        th = self.theta[rows]
        return special.expit(th[:, :1] + th[:, 1:] @ x.T)


def _prior(n_models):
    """c ~ N(0, 1.5); beta_j ~ N(1/J, 1/sqrt(J)): centred on the log-linear pool with equal weights."""
    mean = np.r_[0.0, np.full(n_models, 1.0 / n_models)]
    sd = np.r_[INTERCEPT_SD, np.full(n_models, 1.0 / np.sqrt(n_models))]
    return mean, sd


def _log_posterior(theta, x, y, mean, sd):
    eta = theta[:, :1] + theta[:, 1:] @ x.T
    return np.sum(y * eta - np.logaddexp(0.0, eta), axis=1) - 0.5 * np.sum(((theta - mean) / sd) ** 2, axis=1)


def _mode(x, y, mean, sd, iterations=100):
    """Newton's method for the (log-concave) logistic posterior."""
    theta = mean.copy()
    design = np.column_stack([np.ones(y.size), x])
    for _ in range(iterations):
        p = special.expit(design @ theta)
        grad = design.T @ (y - p) - (theta - mean) / sd**2
        precision = (design * (p * (1 - p))[:, None]).T @ design + np.diag(1 / sd**2)
        step = np.linalg.solve(precision, grad)
        theta = theta + step
        if np.max(np.abs(step)) < 1e-10:
            break
    p = special.expit(design @ theta)
    precision = (design * (p * (1 - p))[:, None]).T @ design + np.diag(1 / sd**2)
    return theta, precision


def fit_joint_model(x, labels, names, n_draws, rng) -> JointLabelModel:
    mean, sd = _prior(x.shape[1])
    known = ~np.isnan(labels)
    if not known.any():
        theta = mean + rng.standard_normal((n_draws, mean.size)) * sd
        return JointLabelModel(names, theta, np.full(n_draws, 1.0 / n_draws), float("nan"), float(n_draws))
    mode, precision = _mode(x[known], labels[known], mean, sd)
    cov = np.linalg.inv(precision)
    q = Proposal("student_t", mode, 0.5 * (cov + cov.T))
    theta, weights, khat, _ = adaptive_importance_draws(
        lambda t: _log_posterior(t, x[known], labels[known], mean, sd), q, n_draws, rng)
    if khat > KHAT_THRESHOLD:
        warnings.warn(f"joint label model: importance weights are unreliable (Pareto k-hat = {khat:.2f})",
                      SamplingWarning, stacklevel=3)
    return JointLabelModel(names, theta, weights, float(khat), float(1.0 / np.sum(weights**2)))


class ManyResult:
    """Result of :func:`fit_many`: shared label draws and every model's metrics from them."""

    def __init__(self, scores: dict, labels, label_model: JointLabelModel, label_draws, excluded: dict,
                 thresholds: dict):
        self.scores = scores
        self.labels = labels
        self.label_model = label_model
        self.label_draws = label_draws  # (draws, N) bool, labeled items fixed
        self.excluded = excluded
        self.thresholds = thresholds
        self._metric_draws = {}

    @property
    def names(self) -> list:
        return list(self.scores)

    def metric_draws(self, name) -> dict:
        """{metric: (draws,) values} for one model, from the shared label draws."""
        if name not in self.scores:
            raise ValueError(f"no model {name!r}; models: {', '.join(self.scores)}")
        if name not in self._metric_draws:
            sweep = SW.draws_sweep(self.scores[name], self.label_draws)
            predicted = self.scores[name] >= self.thresholds[name]
            correct = (self.label_draws == predicted).mean(axis=1)
            self._metric_draws[name] = {"AUROC": SW.sample_auroc(sweep),
                                        "average precision": SW.sample_average_precision(sweep),
                                        "accuracy": correct, "max F1": SW.sample_max_f1(sweep)}
        return self._metric_draws[name]

    def prevalence(self, level=0.9) -> C.Estimate:
        """Fraction of positives among these items, from the shared label draws."""
        draws = self.label_draws.mean(axis=1)
        return C.Estimate.from_draws("prevalence", draws, np.full(draws.size, 1.0 / draws.size), level)

    def metrics(self, level=0.9) -> list[dict]:
        """One row per model: each metric's posterior median and interval."""
        rows = []
        for name in self.names:
            draws = self.metric_draws(name)
            m = next(iter(draws.values())).size
            rows.append({"model": name, "excluded": self.excluded.get(name, "")} |
                        {k: C.Estimate.from_draws(k, v, np.full(m, 1.0 / m), level) for k, v in draws.items()})
        return rows

    def _check_metric(self, metric):
        if metric not in METRICS:
            raise ValueError(f"metric must be one of {METRICS}, got {metric!r}")

    def prob_beats(self, metric="AUROC") -> np.ndarray:
        """(J, J) P(row model's metric > column model's) over the shared draws (ties count half)."""
        self._check_metric(metric)
        v = np.stack([self.metric_draws(n)[metric] for n in self.names])
        return np.mean((v[:, None, :] > v[None, :, :]) + 0.5 * (v[:, None, :] == v[None, :, :]), axis=2)

    def prob_best(self, metric="AUROC") -> dict:
        """P(each model has the highest metric), ties shared."""
        self._check_metric(metric)
        v = np.stack([self.metric_draws(n)[metric] for n in self.names])
        best = v == v.max(axis=0)
        return dict(zip(self.names, (best / best.sum(axis=0)).mean(axis=1)))

    def ranking(self, metric="AUROC", level=0.9) -> list[dict]:
        """Models by posterior median of ``metric``, with P(best)."""
        best = self.prob_best(metric)
        rows = [{"model": r["model"], metric: r[metric], "P(best)": best[r["model"]], "excluded": r["excluded"]}
                for r in self.metrics(level)]
        return sorted(rows, key=lambda r: -r[metric].value)

    def summary(self, metric="AUROC", level=0.9) -> str:
        n_lab = int(np.sum(~np.isnan(self.labels)))
        prev = self.prevalence(level)
        lines = [f"SPE (several models): {len(self.names)} models on {self.labels.size} items, {n_lab} labeled",
                 f"  prevalence {prev.value:.3f} [{prev.lower:.3f}, {prev.upper:.3f}]",
                 f"  ranking by {metric} (median [{100 * level:g}% interval], P(best)):"]
        for r in self.ranking(metric, level):
            e = r[metric]
            note = f"  excluded from the label model: {r['excluded']}" if r["excluded"] else ""
            lines.append(f"    {r['model']:24s} {e.value:.3f} [{e.lower:.3f}, {e.upper:.3f}]  {r['P(best)']:.2f}{note}")
        return "\n".join(lines)

    def plot_comparison(self, ax=None, *, metric="AUROC", level=0.9):
        """Each model's metric with its interval and P(best); see :func:`spe.plot.plot_comparison`."""
        self._check_metric(metric)
        return plot.plot_comparison(self, ax, metric=metric, level=level)

    def __repr__(self):
        return f"<ManyResult {len(self.names)} models, {self.labels.size} items>"


@one_blas_thread
def fit_many(scores, labels=None, *, n_draws=1000, seed=None, higher_is_positive=True) -> ManyResult:
    """Evaluate several classifiers scored on the same items, from shared labels.

    Parameters
    ----------
    scores : dict of name -> array-like of shape (N,)
        Each model's scores for the same N items (probabilities or any real scale;
        higher means positive).
    labels : array-like of shape (N,), optional
        As in :func:`spe.fit` (1/0, yes/no, NaN/None/blank = unlabeled).
    n_draws : int
        Posterior draws of the label model, and labellings drawn from them.
    seed : int, numpy Generator or None

    Returns
    -------
    ManyResult
    """
    if not isinstance(scores, dict) or len(scores) < 1:
        raise TypeError("scores must be a dict {model name: scores}")
    arrays = {str(k): as_score_array(v, f"scores[{k!r}]") for k, v in scores.items()}
    sizes = {a.size for a in arrays.values()}
    if len(sizes) != 1:
        raise ValueError(f"every model must score the same items; got lengths {sorted(sizes)}")
    n = sizes.pop()
    y = as_labels(labels, n)
    n_draws = C.check_n_draws(n_draws)
    if not higher_is_positive:
        arrays = {k: (1 - a if looks_like_probabilities(a) else -a) for k, a in arrays.items()}
    fit_rng, draw_rng, map_rng = child_generators(seed, 3)
    excluded, features, thresholds = {}, {}, {}
    for name, s in arrays.items():
        probabilities = looks_like_probabilities(s)
        thresholds[name] = 0.5 if probabilities else 0.0
        if np.unique(s).size < MIN_DISTINCT_SCORES:
            excluded[name] = f"fewer than {MIN_DISTINCT_SCORES} distinct scores"
            continue
        if reversed_probability(s, y) > ORIENTATION_PROBABILITY:
            excluded[name] = "the labels say its scores run the wrong way (P(AUROC < 0.5) > 0.95)"
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", SamplingWarning)
            features[name] = _recalibrated_log_odds(s, y, probabilities, map_rng)
    if not features:
        raise ValueError("no model can inform the labels: " + "; ".join(f"{k}: {v}" for k, v in excluded.items()))
    x = np.column_stack(list(features.values()))
    model = fit_joint_model(x, y, list(features), n_draws, fit_rng)
    rows = systematic_resample(model.weights, n_draws, draw_rng)
    draws = np.empty((rows.size, n), dtype=bool)
    step = max(1, 4_000_000 // n)
    for start in range(0, rows.size, step):
        block = rows[start : start + step]
        draws[start : start + block.size] = draw_rng.random((block.size, n)) < model.prob_positive(x, block)
    known = ~np.isnan(y)
    draws[:, known] = y[known] == 1
    return ManyResult(arrays, y, model, draws, excluded, thresholds)
