"""The score frame: the map between user scores and unit scores z in [0, 1].

Scores are mapped linearly onto ``z`` through a :class:`ScoreFrame` (the observed range
padded by a little, or a user-given range), so families and priors work in units of the
score range whatever the classifier emits. Probability scores can be framed on the logit
scale, where exact 0s and 1s are censored rather than infinite.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import special

FRAME_PADDING = 0.01


#: Probability scores are clipped to [EPS, 1 - EPS] on the logit scale; scores beyond
#: (real files hold thousands of exact 0s and 1s) are censored there: they say only
#: "at most EPS" (or "at least 1 - EPS"), and enter the likelihood as that interval.
PROBABILITY_EPS = 1e-6
TRANSFORMS = ("identity", "logit")


@dataclass(frozen=True)
class ScoreFrame:
    """The map between user scores and unit scores z in [0, 1].

    ``transform="identity"``: z is linear in the score. ``"logit"`` (probability
    scores): z is linear in logit(clip(s, EPS, 1 - EPS)), and scores at or beyond the
    clip are *censored* (see :meth:`censoring`).

    Examples
    --------
    >>> import numpy as np
    >>> from spe.scores import ScoreFrame
    >>> frame = ScoreFrame(0.0, 2.0, "observed range")
    >>> frame.to_unit(np.array([0.5, 1.0]))
    array([0.25, 0.5 ])
    >>> frame.from_unit(np.array([0.25]))
    array([0.5])
    """

    lower: float
    upper: float
    source: str  # "observed (padded)" or "user"
    transform: str = "identity"

    @classmethod
    def from_scores(cls, scores, score_range=None, padding=FRAME_PADDING, transform="identity"):
        if transform not in TRANSFORMS:
            raise ValueError(f"transform must be one of {TRANSFORMS}, got {transform!r}")
        if transform == "logit":
            if not looks_like_probabilities(scores):
                raise ValueError("a logit frame needs probability scores in [0, 1]")
            v = forward(scores, transform)
            lo, hi = float(np.min(v)), float(np.max(v))
            pad = padding * max(hi - lo, 1e-9)
            return cls(lo - pad, hi + pad, "logit of probabilities, observed (padded)", transform)
        lo, hi = float(np.min(scores)), float(np.max(scores))
        if score_range is None:
            pad = padding * (hi - lo)
            if not np.isfinite((hi + pad) - (lo - pad)):
                raise ValueError(f"scores span [{lo:g}, {hi:g}], too wide to represent: rescale them")
            return cls(lo - pad, hi + pad, "observed (padded)")
        try:
            a, b = (float(v) for v in score_range)
        except (TypeError, ValueError):
            raise ValueError("score_range must be a pair (lower, upper) of numbers") from None
        if not (np.isfinite(a) and np.isfinite(b) and a < b):
            raise ValueError(f"score_range must satisfy lower < upper, got {score_range!r}")
        if lo < a or hi > b:
            raise ValueError(
                f"scores span [{lo:g}, {hi:g}], outside the given score_range [{a:g}, {b:g}]"
            )
        pad = 1e-6 * (b - a)  # a score exactly on a bound has zero density under open supports
        return cls(a - pad, b + pad, "user")

    @property
    def width(self) -> float:
        return self.upper - self.lower

    def forward(self, scores):
        """The score on the modelled scale (itself, or its clipped logit)."""
        return forward(scores, self.transform)

    def to_unit(self, scores):
        return (self.forward(scores) - self.lower) / self.width

    def from_unit(self, z):
        v = self.lower + np.asarray(z, dtype=float) * self.width
        return special.expit(v) if self.transform == "logit" else v

    def censoring(self, scores) -> np.ndarray:
        """-1 for scores at or below the clip (left-censored), +1 at or above it, else 0."""
        s = np.asarray(scores, dtype=float)
        if self.transform != "logit":
            return np.zeros(s.shape, dtype=np.int8)
        return (np.where(s >= 1 - PROBABILITY_EPS, 1, 0) - np.where(s <= PROBABILITY_EPS, 1, 0)).astype(np.int8)


#: Probabilities written by real pipelines overshoot [0, 1] by rounding or smoothing
#: (one public file holds values up to 1 + 1e-5); such scores still count as probabilities.
PROBABILITY_TOLERANCE = 1e-3


def looks_like_probabilities(scores) -> bool:
    """True when every score lies in [0, 1] (up to ``PROBABILITY_TOLERANCE``).

    Examples
    --------
    >>> from spe.scores import looks_like_probabilities
    >>> looks_like_probabilities([0.1, 0.7, 1.0]), looks_like_probabilities([-2.0, 3.1])
    (True, False)
    """
    s = np.asarray(scores, dtype=float)
    return bool(s.min() >= -PROBABILITY_TOLERANCE and s.max() <= 1 + PROBABILITY_TOLERANCE)


def forward(scores, transform):
    s = np.asarray(scores, dtype=float)
    if transform == "logit":
        return special.logit(np.clip(s, PROBABILITY_EPS, 1 - PROBABILITY_EPS))
    return s
