"""Accuracy surfaces: a classifier's accuracy on every combination of attributes (AAA).

Data flow: attributes -> arms (:mod:`.arms`) -> counts per arm and confidence cell
(:mod:`.counts`, mergeable) -> the multilevel model of correctness with the recalibrated
confidence (:mod:`.effects`, :mod:`.laplace`, :mod:`.model`) -> draws of each arm's
realised accuracy (:mod:`.realised`) -> :class:`AccuracySurface` (tables, marginals,
which items to label next (:mod:`.suggest`), summary and heatmap (:mod:`.report`)).

The AAA paper's own estimators (CPredictor, Beta-I, BernGP, BetaGP, BetaGP-SL, BetaGP-SLP)
are in :data:`.ladder.LADDER`, its variance-based exploration in :mod:`.explore`;
:func:`.simulate.simulate_surface` generates surfaces with a known truth.
"""

from .arms import Arms, encode_arms
from .counts import ArmCounts, count_arms
from .estimate import ArmEstimate
from .fit import accuracy_surface, surface_from_counts
from .ladder import LADDER, realised
from .result import AccuracySurface
from .simulate import SimulatedSurface, simulate_surface
from .uncertain import UncertainAttribute

__all__ = ["accuracy_surface", "surface_from_counts", "AccuracySurface", "Arms", "encode_arms", "ArmCounts",
           "count_arms", "ArmEstimate", "UncertainAttribute", "LADDER", "realised", "SimulatedSurface",
           "simulate_surface"]
