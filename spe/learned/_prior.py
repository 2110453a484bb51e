"""A prior over classifiers: how real classifiers' scores map to P(y = 1), per score kind.

A Bayesian promise ("P(precision >= 0.9) = 0.9") holds on average over its prior, so the
prior must describe the classifiers users bring. :class:`ClassifierPrior` holds, for each
score kind (:data:`~spe.learned.KINDS`), the prior of the piecewise-Platt calibration map
(``spe.fit``'s default map): c ~ Normal, log slopes jointly Normal. The one spe ships was
learned across a corpus of real classification tasks (:func:`default_prior`);
:func:`~spe.learned.learn_prior` learns one from a user's own past evaluations;
:data:`WIDE` is the hand-set prior spe used before 0.3.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

from ..calibration import (
    CALIBRATED_COMPONENT,
    CALIBRATED_PRIOR,
    SPLINE_SLOPE_CORRELATION,
    WEAK_PRIOR,
    MapPrior,
    WeakRankerPrior,
)
from ._kinds import KINDS, PROBABILITY_KINDS
from ._weak import as_prior

FORMAT = "spe.ClassifierPrior"
SHIPPED = "classifier_prior.json"


@dataclass(frozen=True)
class ClassifierPrior:
    """Calibration-map priors per score kind, and where they come from.

    Attributes
    ----------
    maps : dict
        Score kind -> :class:`~spe.calibration.MapPrior` of the piecewise-Platt map
        (intercept c and the segments' log slopes, in the map's own features: the logit of
        a probability, or the standardised score).
    source : str
        What the prior was learned from, in words (shown by ``summary()``).
    n_sets : dict
        Score kind -> how many labeled sets informed it (0: the hand-set prior stands in).
    meta : dict
        Provenance: corpus version and hash, date, script, commit.
    mixture_weight : dict
        Score kind -> prior probability that the score mixture, not the calibration map, is
        the right model (missing: no preference). The labels' leave-one-out evidence multiplies it.
    weak_ranker : dict
        The share of classifiers that rank their items at chance and the spread of their
        slopes (``spe.calibration.fit_weak_ranker``'s prior; learned with the maps, see
        :mod:`spe.learned`); empty: no weak ranker in the pool (spe 0.2's behaviour).
    component_weights : dict
        Score kind -> ``{name: prior probability}`` of the map prior's other components
        (:data:`COMPONENTS`): "wide", spe 0.2's hand-set prior (:data:`WIDE`), for a classifier
        unlike those the prior was learned from; "calibrated" (probability kinds only), "the
        probabilities are right" (:data:`spe.calibration.CALIBRATED_COMPONENT`). The learned
        prior keeps the rest; the labels' evidence moves the shares (empty: the learned prior
        alone).

    Examples
    --------
    >>> import spe
    >>> prior = spe.learned.default_prior()
    >>> sorted(prior.maps) == sorted(spe.learned.KINDS)
    True
    >>> spe.learned.WIDE.map_prior("margin").u_sd
    1.0

    See Also
    --------
    learn_prior, default_prior, score_kind
    """

    maps: dict
    source: str
    n_sets: dict = field(default_factory=dict)
    meta: dict = field(default_factory=dict)
    mixture_weight: dict = field(default_factory=dict)
    weak_ranker: dict = field(default_factory=dict)
    component_weights: dict = field(default_factory=dict)

    def __post_init__(self):
        missing = [k for k in KINDS if k not in self.maps]
        if missing:
            raise ValueError(f"a ClassifierPrior needs a map prior for every score kind; missing {missing}")
        bad = {k: w for k, w in self.mixture_weight.items() if not 0.0 <= float(w) <= 1.0}
        if bad:
            raise ValueError(f"mixture weights are prior probabilities in [0, 1], got {bad}")
        for kind, weights in self.component_weights.items():
            unknown = sorted(set(weights) - set(COMPONENTS))
            if unknown:
                raise ValueError(f"unknown map prior components {unknown} for {kind!r}; choose from {COMPONENTS}")
            if any(not 0.0 <= float(w) < 1.0 for w in weights.values()) or sum(weights.values()) >= 1.0:
                raise ValueError(f"component weights are prior probabilities summing to less than 1, got {weights}")

    def prior_weight_of_mixture(self, kind: str) -> float | None:
        """The prior probability that the score mixture is the right model for scores of
        this kind; None: no preference (every score model weighs the same a priori)."""
        return None if kind not in self.mixture_weight else float(self.mixture_weight[kind])

    def weak_ranker_prior(self) -> WeakRankerPrior | None:
        """The weak ranker's prior, with its prior weight in the pool (None: not in the pool)."""
        return as_prior(self.weak_ranker)

    def map_prior(self, kind: str) -> MapPrior:
        """The calibration map's prior for scores of this kind."""
        if kind not in self.maps:
            raise ValueError(f"unknown score kind {kind!r}; choose from {KINDS}")
        weights = self.component_weights.get(kind, {})
        return self.maps[kind].with_alternatives((name, float(weights[name]), component_prior(name, kind))
                                                 for name in COMPONENTS if weights.get(name))

    def describe(self, kind: str | None = None, weak_ranker: bool = True) -> str:
        """One line naming the prior (and, with ``kind``, the part of it that applies;
        ``weak_ranker``: whether the fit pooled the weak ranker, whose share it then names)."""
        if kind is None:
            return self.source
        n = self.n_sets.get(kind, 0)
        chance = (f"; the weak ranker (a classifier at chance here) {self.weak_ranker['weight']:.0%} of the pool "
                  "before labels" if self.weak_ranker and weak_ranker else "")
        return f"{self.source}; '{kind}' scores" + (f" ({n} labeled sets)" if n else " (hand-set)") + chance

    def to_dict(self) -> dict:
        return {"format": FORMAT, "version": 1, "source": self.source, "n_sets": dict(self.n_sets),
                "meta": dict(self.meta), "maps": {k: v.normal_fields() for k, v in self.maps.items()},
                "mixture_weight": dict(self.mixture_weight), "weak_ranker": dict(self.weak_ranker)} | (
                    {"component_weights": {k: dict(w) for k, w in self.component_weights.items()}}
                    if self.component_weights else {})

    @classmethod
    def from_dict(cls, d: dict) -> ClassifierPrior:
        if not isinstance(d, dict) or d.get("format") != FORMAT:
            raise ValueError(f"not a saved ClassifierPrior (expected format {FORMAT!r})")
        try:
            maps = {k: MapPrior(**v) for k, v in d["maps"].items()}
            # A prior saved before a kind existed (spe 0.3's "score") keeps the hand-set prior there.
            maps |= {k: WIDE.maps[k] for k in KINDS if k not in maps}
            return cls(maps, str(d["source"]), dict(d.get("n_sets", {})), dict(d.get("meta", {})),
                       {k: float(v) for k, v in d.get("mixture_weight", {}).items()},
                       {k: float(v) for k, v in d.get("weak_ranker", {}).items()},
                       {k: {n: float(w) for n, w in v.items()} for k, v in d.get("component_weights", {}).items()})
        except (KeyError, TypeError) as exc:
            raise ValueError(f"a saved ClassifierPrior with a missing or unknown field: {exc}") from None

    def save(self, path) -> Path:
        """Write the prior as JSON (atomically)."""
        from .._util.state_files import atomic_write

        path = Path(path)
        atomic_write(path, json.dumps(self.to_dict(), indent=1, sort_keys=True) + "\n")
        path.chmod(0o644)  # a temporary file's private mode would follow the rename
        return path

    @classmethod
    def load(cls, path) -> ClassifierPrior:
        try:
            return cls.from_dict(json.loads(Path(path).read_text()))
        except json.JSONDecodeError as exc:
            raise ValueError(f"{path}: not JSON ({exc})") from None


def _spline(prior: MapPrior) -> MapPrior:
    return prior.with_correlation(SPLINE_SLOPE_CORRELATION)


#: The hand-set prior of spe 0.2: probabilities centred on "calibrated" with the spread of
#: miscalibration seen in practice, other scores weak (docs/method.md 2b).
WIDE = ClassifierPrior(
    maps={"probability": _spline(CALIBRATED_PRIOR), "saturated": _spline(CALIBRATED_PRIOR),
          "few-values": _spline(CALIBRATED_PRIOR), "margin": _spline(WEAK_PRIOR), "score": _spline(WEAK_PRIOR)},
    source="hand-set (spe 0.2): centred on 'calibrated' for probabilities, weak for other scores",
)


#: The map prior's components besides the learned one (:attr:`ClassifierPrior.component_weights`).
COMPONENTS = ("wide", "calibrated")


def component_prior(name: str, kind: str) -> MapPrior:
    """The Normal prior of component ``name`` (:data:`COMPONENTS`) for scores of ``kind``.

    Examples
    --------
    >>> from spe.learned import component_prior
    >>> component_prior("calibrated", "probability").c_sd
    0.25
    """
    if name == "wide":
        return WIDE.maps[kind]
    if name == "calibrated" and kind in PROBABILITY_KINDS:
        return CALIBRATED_COMPONENT
    raise ValueError(f"no map prior component {name!r} for {kind!r} scores; components: wide (every kind), "
                     "calibrated (probabilities)")


@functools.lru_cache(maxsize=1)
def default_prior() -> ClassifierPrior:
    """The prior spe ships: learned across a corpus of real classification tasks
    (``benchmarks/corpus``; its provenance in ``meta``). Loaded once.

    See Also
    --------
    learn_prior : the same machinery on your own past evaluations.

    Examples
    --------
    >>> from spe.learned import default_prior
    >>> prior = default_prior()
    >>> prior.source.startswith("learned from"), prior.n_sets["margin"] > 0
    (True, True)
    """
    text = resources.files("spe").joinpath("data", SHIPPED).read_text()
    return ClassifierPrior.from_dict(json.loads(text))
