"""Multiclass classifiers: an (N, K) matrix of probabilities (or logits) and a few labels.

Score model: Bayesian temperature scaling (Guo et al. 2017), optionally with a bias per
class (vector scaling with one shared temperature), on the classifier's log-probabilities
f_ik:

    P(y_i = k | f_i) = (1 - epsilon) softmax_k(a f_ik + b_k) + epsilon / K,    a = exp(t) = 1 / T

The prior is centred on "the classifier is calibrated": t ~ N(0, 1) (inverse temperatures
0.19-5.2 at 90%), b_k ~ N(0, 1). The outlier share epsilon (label noise, items a model
gets confidently wrong: real probability files hold exact 0s for the true class) keeps
one such label from dragging the temperature: without it, a labeled item whose true
class has probability 1e-6 forces the map to soften every item's probabilities. The labeled items give the likelihood; the posterior is
drawn by importance sampling around its mode (multivariate Student-t proposal, PSIS
weights, Pareto k-hat reported), or from the prior with no labels.

Each posterior draw then draws one class for every unlabeled item (Gumbel-max), so the
draws are *coherent*: every item has exactly one class in every draw. Every metric is a
function of those label draws on all N items (labeled items keep their label), so
accuracy, per-class rates, the confusion matrix and one-vs-rest curves agree with each
other draw by draw. Memory is draws x items (one small integer each), never x K.
"""

from __future__ import annotations

import numbers
import warnings
from dataclasses import dataclass
from functools import cached_property

import numpy as np
from scipy import optimize, special

from . import curves as C
from . import sweeps as SW
from .label_posterior import systematic_resample
from .posterior import KHAT_THRESHOLD, Proposal, SamplingWarning, adaptive_importance_draws
from .seeds import child_generators
from .threads import one_blas_thread
from .frame import PROBABILITY_EPS, PROBABILITY_TOLERANCE, looks_like_probabilities

MULTICLASS_MODELS = ("temperature", "vector")
#: Vector scaling has K + 1 parameters; importance sampling in more dimensions than this
#: from tens of labels is not trustworthy, so larger K use temperature scaling.
MAX_VECTOR_CLASSES = 50
PRIOR_SD = 1.0
#: Outlier share epsilon = expit(e), e ~ N(-6, 1.5): median 0.25%, 90% within 0.02%-3%.
OUTLIER_PRIOR = (-6.0, 1.5)
_BLOCK_ELEMENTS = 4_000_000


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


# ---- the score model ----------------------------------------------------------------------
def _prior_mean_sd(dim):
    mean = np.zeros(dim)
    sd = np.full(dim, PRIOR_SD)
    mean[1], sd[1] = OUTLIER_PRIOR
    return mean, sd


def _log_lik_terms(theta, f, y, vector: bool):
    """Per-item likelihood pieces: r_i = P(y_i | f_i), softmax q, model share w_i, epsilon."""
    a, eps = np.exp(theta[0]), special.expit(theta[1])
    eta = a * f + (theta[2:] if vector else 0.0)
    q = special.softmax(eta, axis=1)
    q_y = q[np.arange(y.size), y]
    r = (1.0 - eps) * q_y + eps / f.shape[1]
    return a, eps, q, q_y, r


def _log_posterior_and_grad(theta, f, y, vector: bool):
    """Log posterior of one parameter vector (t, e, b_1..b_K) and its gradient."""
    a, eps, q, q_y, r = _log_lik_terms(theta, f, y, vector)
    share = (1.0 - eps) * q_y / r  # P(item i follows the map, not the outlier term)
    resid = -q * share[:, None]
    resid[np.arange(y.size), y] += share
    grad = [a * np.sum(resid * f), eps * (1.0 - eps) * np.sum((1.0 / f.shape[1] - q_y) / r)]
    if vector:
        grad += list(resid.sum(axis=0))
    mean, sd = _prior_mean_sd(theta.size)
    grad = np.array(grad) - (theta - mean) / sd**2
    return float(np.sum(np.log(r))) - 0.5 * float(np.sum(((theta - mean) / sd) ** 2)), grad


def _log_posterior_rows(thetas, f, y, vector: bool):
    """Log posterior of each parameter row (for the importance weights)."""
    mean, sd = _prior_mean_sd(thetas.shape[1])
    loglik = np.array([np.sum(np.log(_log_lik_terms(th, f, y, vector)[4])) for th in thetas])
    return loglik - 0.5 * np.sum(((thetas - mean) / sd) ** 2, axis=1)


def _hessian(theta, f, y, vector, eps=1e-5):
    """Symmetrised finite-difference Hessian of the exact gradient."""
    d = theta.size
    hess = np.empty((d, d))
    for j in range(d):
        step = np.zeros(d)
        step[j] = eps
        hess[j] = (_log_posterior_and_grad(theta + step, f, y, vector)[1]
                   - _log_posterior_and_grad(theta - step, f, y, vector)[1]) / (2 * eps)
    return 0.5 * (hess + hess.T)


@dataclass
class MulticlassFit:
    """Weighted posterior draws of (t, b) and the class probabilities they imply."""

    form: str
    theta: np.ndarray
    weights: np.ndarray
    khat: float
    ess: float
    n_labeled: int

    @property
    def inverse_temperature(self) -> np.ndarray:
        """a = exp(t) = 1 / T per draw: > 1 sharpens the classifier's probabilities, < 1 softens them."""
        return np.exp(self.theta[:, 0])

    def logits(self, rows, f) -> np.ndarray:
        """(len(rows), n, K) calibrated logits of items ``f`` under draws ``rows``."""
        th = self.theta[rows]
        out = np.exp(th[:, 0])[:, None, None] * f[None]
        return out + th[:, None, 2:] if self.form == "vector" else out

    @property
    def outlier_share(self) -> np.ndarray:
        """epsilon per draw: the share of items whose class ignores the scores (label noise)."""
        return special.expit(self.theta[:, 1])

    def describe(self) -> dict:
        w = self.weights
        return {
            "model": ("Bayesian temperature scaling" if self.form == "temperature" else
                      "Bayesian vector scaling (shared temperature, bias per class)"),
            "posterior_mean_inverse_temperature": float(w @ self.inverse_temperature),
            "posterior_mean_outlier_share": float(w @ self.outlier_share),
            "inference": "prior draws (no labels)" if self.n_labeled == 0 else "importance sampling",
            "pareto_khat": None if np.isnan(self.khat) else self.khat,
            "ess": self.ess,
        }


def fit_class_map(f, labels, form, n_draws, rng) -> MulticlassFit:
    """Posterior draws of the calibration map from the labeled rows of ``f``."""
    vector = form == "vector"
    dim = 2 + (f.shape[1] if vector else 0)
    mean, sd = _prior_mean_sd(dim)
    known = labels >= 0
    if not known.any():
        theta = mean + rng.standard_normal((n_draws, dim)) * sd
        return MulticlassFit(form, theta, np.full(n_draws, 1.0 / n_draws), float("nan"), float(n_draws), 0)
    fk, yk = f[known], labels[known]
    res = optimize.minimize(lambda th: tuple(-v for v in _log_posterior_and_grad(th, fk, yk, vector)),
                            mean, jac=True, method="L-BFGS-B")
    precision = -_hessian(res.x, fk, yk, vector)
    low = np.linalg.eigvalsh(precision).min()
    cov = np.linalg.inv(precision) if low > 0 else np.diag(sd**2)
    q = Proposal("student_t", res.x, 0.5 * (cov + cov.T))
    theta, weights, khat, _ = adaptive_importance_draws(
        lambda t: _log_posterior_rows(t, fk, yk, vector), q, n_draws, rng)
    if khat > KHAT_THRESHOLD:
        warnings.warn(f"{form} scaling: importance weights are unreliable (Pareto k-hat = {khat:.2f} > "
                      f"{KHAT_THRESHOLD}); its draws are approximate", SamplingWarning, stacklevel=3)
    return MulticlassFit(form, theta, weights, float(khat), float(1.0 / np.sum(weights**2)), int(known.sum()))


def draw_classes(fit: MulticlassFit, f, labels, n_label_draws, rng) -> np.ndarray:
    """(n_label_draws, N) classes: one coherent labelling per resampled posterior draw."""
    rows = systematic_resample(fit.weights, n_label_draws, rng)
    n, k = f.shape
    dtype = np.int16 if k < 2**15 else np.int32
    out = np.empty((rows.size, n), dtype=dtype)
    step = max(1, _BLOCK_ELEMENTS // (n * k))
    for start in range(0, rows.size, step):
        block = rows[start : start + step]
        gumbel = rng.gumbel(size=(block.size, n, k))
        classes = np.argmax(fit.logits(block, f) + gumbel, axis=2)
        outlier = rng.random((block.size, n)) < fit.outlier_share[block][:, None]
        classes[outlier] = rng.integers(0, k, size=int(outlier.sum()))
        out[start : start + block.size] = classes
    known = labels >= 0
    out[:, known] = labels[known]
    return out


# ---- results --------------------------------------------------------------------------------
class MulticlassResult:
    """Result of :func:`fit_multiclass`: coherent label draws and everything derived.

    ``predicted`` is the classifier's top-1 class per item; ``class_draws`` the
    (draws, N) drawn classes (labeled items fixed). Metrics are posterior medians with
    equal-tailed intervals (:class:`~spe.curves.Estimate`).
    """

    def __init__(self, f, labels, kind, fit: MulticlassFit, class_draws):
        self.log_probs = f
        self.labels = labels
        self.score_kind = kind
        self.fit = fit
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

    def summary(self, level=0.9) -> str:
        d = self.fit.describe()
        khat = "n/a" if d["pareto_khat"] is None else f"{d['pareto_khat']:.2f}"
        lines = [
            "SPE (multiclass): performance of a classifier from its class probabilities and few labels",
            f"  items: {self.n_items}, classes: {self.n_classes}, labeled: {self.n_labeled}",
            f"  score model: {d['model']} on the {self.score_kind}; posterior mean 1/T "
            f"{d['posterior_mean_inverse_temperature']:.3g} ({d['inference']}, ESS {d['ess']:.0f}, "
            f"Pareto k-hat {khat})",
            f"  metrics on these items (median [{100 * level:g}% interval]), {self.class_draws.shape[0]} draws:",
        ]
        for est in (self.accuracy(level), self.macro_f1(level)):
            lines.append(f"    {est.name:18s} {est.value:.3f} [{est.lower:.3f}, {est.upper:.3f}]")
        return "\n".join(lines)

    def __repr__(self):
        return f"<MulticlassResult {self.n_items} items, {self.n_classes} classes, {self.n_labeled} labeled>"


@one_blas_thread
def fit_multiclass(scores, labels=None, *, model="temperature", n_draws=1000, seed=None) -> MulticlassResult:
    """Fit a multiclass calibration posterior and draw the unknown classes.

    Parameters
    ----------
    scores : array-like of shape (N, K)
        Predicted class probabilities (rows sum to 1; exact 0s are fine) or logits.
    labels : array-like of shape (N,), optional
        Class indices 0..K-1; -1, NaN or None for unlabeled. ``None``: no labels.
    model : "temperature" or "vector"
        Temperature scaling (one parameter) or vector scaling (a shared temperature
        and one bias per class; K <= 50).
    n_draws : int
        Posterior draws of the map, and labellings of the items drawn from them.
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
    fit_rng, draw_rng = child_generators(seed, 2)
    fit = fit_class_map(f, y, model, n_draws, fit_rng)
    return MulticlassResult(f, y, kind, fit, draw_classes(fit, f, y, n_draws, draw_rng))
