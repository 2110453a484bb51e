"""Accuracy surfaces: a classifier's accuracy over every combination of attributes (AAA).

Data flow: attributes -> arms (:mod:`.arms`) -> counts per arm and confidence cell
(:mod:`.counts`, mergeable) -> estimators of each arm's accuracy (:class:`.ArmEstimate`).
The AAA paper's estimators (CPredictor, Beta-I, BernGP, BetaGP, BetaGP-SL, BetaGP-SLP) are
in :data:`.ladder.LADDER`; :func:`.simulate.simulate_surface` generates surfaces with a
known truth; :mod:`.explore` holds the paper's variance-based exploration.
"""

from .arms import Arms, encode_arms
from .counts import ArmCounts, count_arms
from .estimate import ArmEstimate
from .ladder import LADDER, realised
from .simulate import SimulatedSurface, simulate_surface

__all__ = ["Arms", "encode_arms", "ArmCounts", "count_arms", "ArmEstimate", "LADDER", "realised",
           "SimulatedSurface", "simulate_surface"]
