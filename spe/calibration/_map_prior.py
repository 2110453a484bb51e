"""The calibration map's prior, and what the scores' shape says about it before any label.

c ~ N(c_mean, c_sd) and the segments' log slopes u_j ~ N(u_mean + shift_j, u_sd), correlated
with each other and with c.
Learned across real classifiers (:mod:`spe.learned`), the slopes' means also depend on the
shape of the scores: the spread of the map's feature and how far its two end segments reach
beyond the outer knots. Real maps flatten where a classifier's scores run far out (naive
Bayes' and over-fitted models' extreme probabilities, an SVM's margins far from the
boundary), so a prior that extrapolates the same slope into a long tail promises
precision the top items do not have (method.md 2b).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

#: What the shape of the scores may shift, and where: the spread of the map's feature moves
#: every segment's log slope; each tail's length moves the slope of its end segment.
SHAPE_TERMS = ("spread", "top_tail", "bottom_tail")
#: Tails shorter than this (in the feature's units) count as this long (log of 0 otherwise).
TAIL_FLOOR = 1e-3


def score_shape(features, scores, weights=None) -> dict:
    """The shape of all items' scores in a map's feature: ``{'spread', 'top_tail',
    'bottom_tail'}`` (logs of the feature's standard deviation and of each end segment's
    reach beyond its knot; no tails for a map without knots).

    Examples
    --------
    >>> import numpy as np
    >>> from spe.calibration import Features, score_shape
    >>> scores = np.random.default_rng(0).uniform(0.01, 0.99, 500)
    >>> shape = score_shape(Features.for_scores("spline", scores, True), scores)
    >>> sorted(shape), round(shape["top_tail"], 1)
    (['bottom_tail', 'spread', 'top_tail'], 1.1)
    """
    s = np.asarray(scores, float)
    w = np.ones(s.size) if weights is None else np.asarray(weights, float)
    x = features.platt(s)
    mean = np.average(x, weights=w)
    shape = {"spread": float(np.log(max(np.sqrt(np.average((x - mean) ** 2, weights=w)), TAIL_FLOOR)))}
    if len(features.knots):
        shape["top_tail"] = float(np.log(max(x.max() - features.knots[-1], TAIL_FLOOR)))
        shape["bottom_tail"] = float(np.log(max(features.knots[0] - x.min(), TAIL_FLOOR)))
    return shape


def shape_shifts(effects, shape: dict, n_slopes: int) -> np.ndarray:
    """The log slopes' mean offsets, (n_slopes,), of ``effects`` ((term, effect, centre)
    triples) for scores of this ``shape``."""
    out = np.zeros(n_slopes)
    for term, effect, centre in effects:
        if term not in shape:
            continue
        delta = effect * (shape[term] - centre)
        if term == "spread":
            out += delta
        elif term == "top_tail":
            out[-1] += delta
        else:
            out[0] += delta
    return out


@dataclass(frozen=True)
class MapPrior:
    """Normal priors: c ~ N(c_mean, c_sd), each log slope u_j ~ N(u_mean + shift_j, u_sd), the
    log slopes correlated by ``slope_correlation`` and each with c by ``intercept_correlation``
    (a steeper map sits lower or higher at the feature's origin). ``segment_shifts`` (one per segment; empty:
    none) let the segments' typical slopes differ (steeper at the top, say). ``shape_effects``
    ((term, effect, centre) triples, terms from :data:`SHAPE_TERMS`) move the log slopes'
    means with the shape of the scores (:meth:`given_shape`, which ``fit_calibration_map``
    applies); without a shape the prior is the one of scores of the centre's shape.
    ``alternatives`` ((name, weight, MapPrior) triples) make it a mixture prior: with prior
    probability ``weight`` the map follows that Normal prior instead (:meth:`components`).

    Examples
    --------
    >>> from spe.calibration import MapPrior
    >>> mean, cov = MapPrior(0.0, 1.5, 0.0, 1.0, slope_correlation=0.5).moments(2)
    >>> mean.tolist(), cov[1:, 1:].tolist()  # (c, u_1, u_2); the log slopes correlated by 1/2
    ([0.0, 0.0, 0.0], [[1.0, 0.5], [0.5, 1.0]])
    >>> MapPrior(0.0, 1.0, 0.0, 1.0, intercept_correlation=-0.4).moments(1)[1].tolist()
    [[1.0, -0.4], [-0.4, 1.0]]
    >>> tails = MapPrior(0.0, 1.5, 0.0, 1.0, shape_effects=(("top_tail", -1.0, 0.0),))
    >>> tails.given_shape({"top_tail": 1.0}, 2).moments(2)[0].tolist()  # a long top tail: a flatter top
    [0.0, 0.0, -1.0]
    """

    c_mean: float
    c_sd: float
    u_mean: float
    u_sd: float
    slope_correlation: float = 0.0
    segment_shifts: tuple = ()
    shape_effects: tuple = ()
    alternatives: tuple = ()
    intercept_correlation: float = 0.0

    def __post_init__(self):
        if not -1.0 < self.intercept_correlation < 1.0:
            raise ValueError(f"intercept_correlation is a correlation in (-1, 1), got {self.intercept_correlation}")
        object.__setattr__(self, "segment_shifts", tuple(float(v) for v in self.segment_shifts))
        effects = tuple((str(t), float(e), float(c)) for t, e, c in self.shape_effects)
        unknown = sorted({t for t, _, _ in effects} - set(SHAPE_TERMS))
        if unknown:
            raise ValueError(f"unknown shape terms {unknown}; choose from {SHAPE_TERMS}")
        object.__setattr__(self, "shape_effects", effects)
        alternatives = tuple((str(n), float(w), p) for n, w, p in self.alternatives if w)
        weights = [w for _, w, _ in alternatives]
        if any(w < 0 for w in weights) or sum(weights) >= 1.0:
            raise ValueError(f"the alternatives' weights are prior probabilities summing to less than 1, got {weights}")
        if any(not isinstance(p, MapPrior) or p.alternatives for _, _, p in alternatives):
            raise TypeError("each alternative is a MapPrior of its own (without alternatives)")
        object.__setattr__(self, "alternatives", alternatives)

    def with_alternatives(self, alternatives) -> MapPrior:
        """This prior as one component of a mixture: with probability ``w`` the map follows
        ``prior`` instead, for each ``(name, w, prior)`` of ``alternatives`` (the rest stays
        on this one; see :func:`fit_calibration_map`)."""
        return replace(self, alternatives=tuple(alternatives))

    def components(self) -> list[tuple[str, float, MapPrior]]:
        """(name, prior probability, Normal prior) of each mixture component: this prior
        ("learned") first, then its alternatives."""
        rest = 1.0 - sum(w for _, w, _ in self.alternatives)
        return [("learned", rest, replace(self, alternatives=())), *self.alternatives]

    def normal_fields(self) -> dict:
        """The fields of the learned Normal component alone (what a saved prior stores and a
        fit describes; the alternatives are attached on use)."""
        return {k: v for k, v in vars(self).items() if k != "alternatives"}

    def with_correlation(self, rho: float) -> MapPrior:
        return replace(self, slope_correlation=rho)

    def shifts_for(self, n_slopes: int) -> np.ndarray:
        """The segment shifts of a map of ``n_slopes`` segments: the learned ones when the map
        has as many segments as they were learned for (fewer distinct scores make fewer), else 0."""
        return np.array(self.segment_shifts) if len(self.segment_shifts) == n_slopes else np.zeros(n_slopes)

    @property
    def reads_shape(self) -> bool:
        """Whether the scores' shape moves this prior: its own shape effects or an alternative's."""
        return bool(self.shape_effects) or any(p.shape_effects for _, _, p in self.alternatives)

    def given_shape(self, shape: dict, n_slopes: int) -> MapPrior:
        """The prior for scores of this ``shape`` (:func:`score_shape`) and a map of
        ``n_slopes`` segments: the shape effects folded into the segment shifts (each
        alternative's own too)."""
        if not self.reads_shape:
            return self
        alternatives = tuple((name, w, p.given_shape(shape, n_slopes)) for name, w, p in self.alternatives)
        shifts = self.shifts_for(n_slopes) + shape_shifts(self.shape_effects, shape, n_slopes)
        return replace(self, segment_shifts=tuple(shifts), shape_effects=(), alternatives=alternatives)

    def moments(self, n_slopes: int) -> tuple[np.ndarray, np.ndarray]:
        """Mean and covariance of (c, u_1, ..., u_J), with :meth:`shifts_for` the segments."""
        mean = np.r_[self.c_mean, self.u_mean + self.shifts_for(n_slopes)]
        rho = self.slope_correlation
        cov_u = self.u_sd**2 * ((1.0 - rho) * np.eye(n_slopes) + rho * np.ones((n_slopes, n_slopes)))
        cov = np.zeros((n_slopes + 1, n_slopes + 1))
        cov[0, 0] = self.c_sd**2
        cov[1:, 1:] = cov_u
        cov[0, 1:] = cov[1:, 0] = self._intercept_correlation(n_slopes) * self.c_sd * self.u_sd
        return mean, cov

    def _intercept_correlation(self, n_slopes: int) -> float:
        # c's correlation with J equicorrelated slopes is valid while r^2 J / (1 + (J - 1) rho) < 1:
        # a prior learned on four segments stays a covariance on maps with fewer or more of them.
        rho = self.slope_correlation
        bound = np.sqrt(max(1.0 + (n_slopes - 1) * rho, 0.0) / max(n_slopes, 1))
        return float(np.clip(self.intercept_correlation, -0.99 * bound, 0.99 * bound))


#: Prior of a probability score's map: centred on calibrated, temperatures 0.2-5 at 90%.
CALIBRATED_PRIOR = MapPrior(0.0, 1.5, 0.0, 1.0)
#: "The probabilities are right": odds within a factor 1.5, temperature 0.72-1.39, at 90%.
NEARLY_CALIBRATED_PRIOR = MapPrior(0.0, 0.25, 0.0, 0.2)
#: Prior of other scores' maps, per standard deviation of the score: weak.
WEAK_PRIOR = MapPrior(0.0, 2.0, float(np.log(2.0)), 1.0)
#: Nearly flat, for summarising a set's likelihood (:func:`likelihood_summary`).
VERY_WEAK_PRIOR = MapPrior(0.0, 10.0, 0.0, 5.0)
#: Correlation of the spline's segment log slopes (neighbours differ as Platt's temperature may).
SPLINE_SLOPE_CORRELATION = 0.5
#: A probability map's "the probabilities are right" component: :data:`NEARLY_CALIBRATED_PRIOR`
#: with the segments' log slopes moving together (one temperature near 1, not four).
CALIBRATED_COMPONENT = NEARLY_CALIBRATED_PRIOR.with_correlation(0.9)
