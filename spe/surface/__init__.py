"""Accuracy surfaces: a classifier's accuracy over every combination of attributes (AAA).

Data flow: attributes -> arms (:mod:`.arms`) -> counts per arm and confidence cell
(:mod:`.counts`, mergeable) -> estimators of each arm's accuracy (:class:`.ArmEstimate`).
"""

from .arms import Arms, encode_arms
from .counts import ArmCounts, count_arms
from .estimate import ArmEstimate

__all__ = ["Arms", "encode_arms", "ArmCounts", "count_arms", "ArmEstimate"]
