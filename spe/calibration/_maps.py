"""Calibration-form score models: Bayesian monotone maps from a score to P(y = 1).

logit P(y = 1 | s) = c + sum_j exp(u_j) x_j(s); only the labels inform it. ``platt``: x = logit(s)
(probabilities) or the standardised score (origin at the score's own zero, a margin's decision
boundary, when the scores straddle it; else at their median); ``beta``: (log s, -log(1 - s)), or
the standardised score below and above its origin; ``spline``: Platt's x cut at its quartiles; ``calibrated``: Platt with a tight
prior at "calibrated". Priors and posterior (Newton mode, Student-t IS, PSIS): the method, 2b.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import special

from ..scores import PROBABILITY_EPS
from ._map_posterior import (
    _allocate,
    _component,
    _component_draws,
    _gradient_hessian,
    _mode,
    _prior_moments,
)
from ._map_prior import (
    CALIBRATED_PRIOR,
    NEARLY_CALIBRATED_PRIOR,
    SPLINE_SLOPE_CORRELATION,
    VERY_WEAK_PRIOR,
    WEAK_PRIOR,
    MapPrior,
    score_shape,
)

#: The calibration maps :func:`fit_calibration_map` fits (besides :data:`NEARLY_CALIBRATED`).
MAPS = ("platt", "beta", "spline")
#: Platt's feature with a tight prior at "calibrated" (probability scores only).
NEARLY_CALIBRATED = "calibrated"
SPLINE_SEGMENTS = 4
#: A score whose zero lies between these quantiles of all items' scores has its map's origin
#: there: a margin's zero is its classifier's boundary, where P(y = 1) sits near 1/2 whatever
#: the share of positives, while the median item of a rare class is a clear negative.
ZERO_ORIGIN_QUANTILES = (0.01, 0.99)


@dataclass(frozen=True)
class Features:
    """x(s) for one calibration map: the columns whose positive slopes are fitted."""

    form: str
    probabilities: bool
    center: float = 0.0
    scale: float = 1.0
    knots: tuple[float, ...] = ()
    low: float = PROBABILITY_EPS  # where probabilities at or below it sit (see rounding_clips)
    high: float = 1.0 - PROBABILITY_EPS

    @classmethod
    def for_scores(cls, form, scores, probabilities: bool, weights=None) -> "Features":
        """The features for these scores (``weights``: counts per score, when scores are
        group representatives rather than items)."""
        if form not in MAPS:
            raise ValueError(f"unknown calibration map {form!r}; choose from {MAPS}")
        s = np.asarray(scores, float)
        w = np.ones(s.size) if weights is None else np.asarray(weights, float)
        if probabilities:
            base = cls(form, True, low=(clips := rounding_clips(s))[0], high=clips[1])
        else:
            mean = np.average(s, weights=w)
            sd = float(np.sqrt(np.average((s - mean) ** 2, weights=w)))
            origin = 0.0 if straddles_zero(s, w) else float(_weighted_quantiles(s, w, [0.5])[0])
            base = cls(form, False, origin, sd or 1.0)
        if form != "spline":
            return base
        inside = (s > base.low) & (s < base.high) if probabilities else np.ones(s.size, bool)
        return cls(form, base.probabilities, base.center, base.scale,
                   _quartile_knots(base.platt(s)[inside], w[inside]), base.low, base.high)

    def platt(self, s) -> np.ndarray:
        """The Platt feature: logit of the clipped probability, or the standardised score."""
        if self.probabilities:
            return special.logit(np.clip(s, self.low, self.high))
        return (s - self.center) / self.scale

    def __call__(self, scores) -> np.ndarray:
        """(n, J) feature matrix."""
        s = np.asarray(scores, float)
        if self.form == "platt":
            return self.platt(s)[:, None]
        if self.form == "spline":
            edges = np.r_[-np.inf, self.knots, np.inf]
            x = self.platt(s)[:, None]
            low, high = edges[:-1], edges[1:]
            return np.clip(x, low, high) - np.clip(0.0, low, high)
        if self.probabilities:
            p = np.clip(s, self.low, self.high)
            return np.stack([np.log(p), -np.log1p(-p)], axis=1)
        x = self.platt(s)
        return np.stack([np.minimum(x, 0.0), np.maximum(x, 0.0)], axis=1)

    @property
    def n_slopes(self) -> int:
        return {"platt": 1, "beta": 2}.get(self.form, len(self.knots) + 1)

    def _clip_note(self) -> str:
        ends = [f"exact 0s at {self.low:.3g}" if self.low > PROBABILITY_EPS else "",
                f"exact 1s at {self.high:.6g}" if self.high < 1.0 - PROBABILITY_EPS else ""]
        ends = [e for e in ends if e]
        return f" ({', '.join(ends)}: half-way to the nearest other score)" if ends else ""

    def describe(self) -> str:
        base = ("logit of the probability" + self._clip_note() if self.probabilities
                else f"standardised score (s - {self.center:.4g}) / {self.scale:.4g}")
        if self.form == "platt":
            return base
        if self.form == "spline":
            return f"{base}, split at {', '.join(f'{k:.3g}' for k in self.knots)}"
        return "log s and -log(1 - s)" if self.probabilities else f"{base}, below and above 0"


def straddles_zero(scores, weights=None) -> bool:
    """Whether 0 lies strictly between the scores' :data:`ZERO_ORIGIN_QUANTILES` (``weights``:
    items per score): a margin whose zero can be its classifier's decision boundary.

    Examples
    --------
    >>> from spe.calibration import straddles_zero
    >>> straddles_zero([-2.0, -0.5, 0.3, 1.8]), straddles_zero([3.0, 4.5, 6.0])
    (True, False)
    """
    s = np.asarray(scores, float)
    w = np.ones(s.size) if weights is None else np.asarray(weights, float)
    low, high = _weighted_quantiles(s, w, list(ZERO_ORIGIN_QUANTILES))
    return bool(low < 0.0 < high)


def _weighted_quantiles(x, w, q) -> np.ndarray:
    """Quantiles of values ``x`` repeated ``w`` times (np.quantile's default rule when the
    weights are whole counts)."""
    order = np.argsort(x, kind="stable")
    x, w = x[order], w[order]
    position = np.asarray(q) * (w.sum() - 1)  # 0-based position among the repeated values
    ends = np.cumsum(w) - 1  # position of each value's last copy
    below = np.searchsorted(ends, np.floor(position))
    above = np.searchsorted(ends, np.ceil(position))
    return x[below] + (position - np.floor(position)) * (x[above] - x[below])


def _quartile_knots(x, w) -> tuple[float, ...]:
    """Interior knots at the weighted quartiles of the feature ``x`` (over the items not at
    a probability clip, which only says "beyond"); fewer when it has few distinct values."""
    if not x.size:
        return ()
    qs = _weighted_quantiles(x, w, np.arange(1, SPLINE_SEGMENTS) / SPLINE_SEGMENTS)
    return tuple(float(k) for k in np.unique(qs))


def rounding_clips(scores) -> tuple[float, float]:
    """Exact 0s and 1s sit half-way to the nearest other score, at most ``PROBABILITY_EPS`` from the ends."""
    s = np.asarray(scores, float)
    low, high = PROBABILITY_EPS, 1.0 - PROBABILITY_EPS
    interior = s[(s > 0.0) & (s < 1.0)]
    if not interior.size:  # hard 0/1 predictions: no scale to place them on
        return low, high
    if np.any(s <= 0.0):
        low = max(low, float(interior.min()) / 2)
    if np.any(s >= 1.0):
        high = min(high, (1.0 + float(interior.max())) / 2)
    return low, high


@dataclass
class CalibrationFit:
    """Weighted posterior draws of (c, slopes), from :func:`fit_calibration_map`.

    Examples
    --------
    >>> import numpy as np
    >>> from spe.calibration import fit_calibration_map
    >>> fit = fit_calibration_map("platt", [0.1, 0.4, 0.6, 0.9], [0, 1, 0, 1], probabilities=True,
    ...                           n_draws=200, rng=np.random.default_rng(0))
    >>> fit.name, fit.n_draws, fit.prob_positive([0.5]).shape
    ('platt', 200, (200, 1))
    """

    features: Features
    prior: MapPrior
    c: np.ndarray
    slopes: np.ndarray
    weights: np.ndarray
    khat: float
    ess: float
    n_labeled: int
    map_name: str = ""
    #: (name, prior, posterior probability) of each component of a mixture prior (empty: one).
    component_shares: tuple = ()
    #: log p(labels | scores) under the prior (Laplace; 0 without labels): compares priors or
    #: feature choices on the same labels.
    log_evidence: float = 0.0

    @property
    def name(self) -> str:
        return self.map_name or self.features.form

    @property
    def n_draws(self) -> int:
        return self.c.size

    def chain_index(self) -> None:
        """Importance draws: no chains."""
        return None

    def prob_positive(self, scores, draws=None) -> np.ndarray:
        """(M, n) P(y = 1 | s) under each draw (or the draws indexed by ``draws``)."""
        rows = slice(None) if draws is None else draws
        return special.expit(self.c[rows, None] + self.slopes[rows] @ self.features(scores).T)

    def draws(self) -> dict[str, np.ndarray]:
        n = self.features.n_slopes
        names = {"platt": ["b"], NEARLY_CALIBRATED: ["b"], "beta": ["b_low", "b_high"]}.get(
            self.name, [f"b{j + 1}" for j in range(n)])
        return {"c": self.c} | {n: self.slopes[:, j] for j, n in enumerate(names)}

    def describe(self) -> dict:
        w = self.weights
        title = {"platt": "Bayesian Platt scaling: P(y=1|s) = sigmoid(c + b x(s))",
                 NEARLY_CALIBRATED: "Bayesian Platt scaling near 'calibrated': P(y=1|s) = sigmoid(c + b x(s)), "
                                    "c ~ N(0, 0.25), log b ~ N(0, 0.2)",
                 "beta": "Bayesian beta calibration: P(y=1|s) = sigmoid(c + b1 x1(s) + b2 x2(s))",
                 "spline": "Bayesian piecewise Platt: P(y=1|s) = sigmoid(c + sum_j b_j x_j(s)), "
                           "a slope per segment of x"}[self.name]
        return {
            "model": title,
            "feature": self.features.describe(),
            "prior": self.prior.normal_fields(),
            "prior_components": {name: {"prior": w, "posterior": after} for name, w, after in self.component_shares},
            "posterior_mean": {k: float(w @ v) for k, v in self.draws().items()},
            "inference": "prior draws (no labels)" if self.n_labeled == 0 else "importance sampling",
            "pareto_khat": None if np.isnan(self.khat) else self.khat,
            "ess": self.ess,
        }


def fit_calibration_map(form, scores, labels, *, probabilities: bool, n_draws: int, rng,
                        prior: MapPrior | None = None, reference=None) -> CalibrationFit:
    """Posterior draws of one calibration map from all scores (feature scaling) and the labels.


    Parameters
    ----------
    form : {"platt", "beta", "spline", "calibrated"}
    scores, labels : array-like of shape (n,); labels NaN for unlabeled items
    prior, reference : the map's prior (default: hand-set for the scale); (scores, weights) of all items
    probabilities : bool
    n_draws : int
    rng : numpy.random.Generator

    Returns
    -------
    CalibrationFit

    Raises
    ------
    ValueError
        ``form="calibrated"`` with scores that are not probabilities.

    See Also
    --------
    fit_cells, spe.mixture.fit_mixture : the other score models.

    Examples
    --------
    >>> import numpy as np
    >>> from spe.calibration import fit_calibration_map
    >>> rng = np.random.default_rng(0); scores = rng.uniform(0.01, 0.99, 200)  # calibrated, 40 labeled
    >>> labels = np.where(np.arange(200) < 40, rng.uniform(size=200) < scores, np.nan)
    >>> fit = fit_calibration_map("platt", scores, labels, probabilities=True, n_draws=500, rng=rng)
    >>> fit.n_labeled, sorted(fit.draws()), (fit.weights @ fit.prob_positive([0.2, 0.8])).round(1)
    (40, ['b', 'c'], array([0.2, 0.8]))
    """
    scores = np.asarray(scores, float)
    labels = np.asarray(labels, float)
    ref_scores, ref_weights = (scores, None) if reference is None else reference
    map_name = form
    if form == NEARLY_CALIBRATED:
        if not probabilities:
            raise ValueError("the 'calibrated' map needs probability scores: 'calibrated' means nothing for "
                             "scores on another scale")
        form, prior = "platt", prior or NEARLY_CALIBRATED_PRIOR
    features = Features.for_scores(form, ref_scores, probabilities, ref_weights)
    if prior is None:
        prior = CALIBRATED_PRIOR if probabilities else WEAK_PRIOR
        if form == "spline":
            prior = prior.with_correlation(SPLINE_SLOPE_CORRELATION)
    if prior.reads_shape:
        prior = prior.given_shape(score_shape(features, ref_scores, ref_weights), features.n_slopes)
    known = ~np.isnan(labels)
    x, y = features(scores[known]), labels[known]
    components = prior.components()
    fitted = [_component(x, y, part, features.n_slopes) for _, _, part in components]
    log_post = np.log([w for _, w, _ in components]) + np.array([log_z for *_, log_z in fitted])
    share = np.exp(log_post - log_post.max())
    share /= share.sum()
    counts = _allocate(n_draws, share)
    kept = [(w, _component_draws(x, y, part, fit, k, rng, map_name))
            for (_, _, part), fit, k, w in zip(components, fitted, counts, share) if k]
    u = np.concatenate([draws for _, (draws, _, _) in kept])
    weights = kept[0][1][1] if len(kept) == 1 else np.concatenate([w * part_w for w, (_, part_w, _) in kept])
    khat = max(k for _, (_, _, k) in kept)  # NaN without labels: prior draws
    return CalibrationFit(
        features=features, prior=prior, c=u[:, 0], slopes=np.exp(u[:, 1:]), weights=weights,
        khat=float(khat), ess=float(1.0 / np.sum(weights**2)), n_labeled=int(known.sum()), map_name=map_name,
        component_shares=tuple((name, w, float(after)) for (name, w, _), after in zip(components, share))
        if len(components) > 1 else (),
        log_evidence=float(np.logaddexp.reduce(log_post)),
    )


def likelihood_summary(form, scores, labels, *, probabilities: bool, reference=None):
    """The labels' log-likelihood as a Gaussian in (c, u_1..u_J): ``(features, h, P)`` with log L(u)
    ~ h'u - u'Pu/2 + const, P the observed information (made PSD) at the mode under a very weak
    prior. For learning a prior across sets (``spe.learned``): their evidence has a closed form.

    Examples
    --------
    >>> from spe.calibration import likelihood_summary
    >>> _, h, P = likelihood_summary("platt", [0.1, 0.3, 0.6, 0.9], [0, 1, 0, 1], probabilities=True)
    >>> h.shape, P.shape  # (c, u) of Platt's map
    ((2,), (2, 2))
    """
    scores, labels = np.asarray(scores, float), np.asarray(labels, float)
    ref_scores, ref_weights = (scores, None) if reference is None else reference
    features = Features.for_scores(form, ref_scores, probabilities, ref_weights)
    known = ~np.isnan(labels)
    x, y = features(scores[known]), labels[known]
    weak = VERY_WEAK_PRIOR
    with np.errstate(over="ignore", invalid="ignore"):  # separable classes: the weak prior lets slopes grow until exp overflows
        mode = _mode(x, y, weak)
        mean, precision0 = _prior_moments(weak, features.n_slopes)
        _, hess = _gradient_hessian(mode, x, y, weak)
    values, vectors = np.linalg.eigh(-hess - precision0)
    info = (vectors * np.clip(values, 0.0, None)) @ vectors.T
    grad_loglik = precision0 @ (mode - mean)  # the posterior's gradient is 0 at its mode
    return features, grad_loglik + info @ mode, info
