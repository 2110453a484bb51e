"""Accuracy surfaces: a classifier's accuracy on every combination of attributes (AAA).

Data flow: attributes -> arms (``_arms``; continuous attributes binned and ordered levels
kept in order, ``_levels``; uncertain ones split by ``_uncertain``) -> counts per arm and
confidence cell (``_counts``, mergeable) -> the multilevel model of correctness with the recalibrated
confidence (``_effects``, ``_laplace``, ``_model``) -> draws of each arm's
realised accuracy (``_realised``) -> :class:`AccuracySurface` (tables, marginals,
which items to label next (``_suggest``), summary and heatmap (``_summary``)).

The AAA paper's own estimators (CPredictor, Beta-I, BernGP, BetaGP, BetaGP-SL, BetaGP-SLP)
and its variance-based exploration are in :mod:`spe.aaa`; :func:`simulate_surface`
generates surfaces with a known truth.
"""

from ._arms import Arms, encode_arms
from ._counts import ArmCounts, count_arms
from ._estimate import ArmEstimate
from ._fit import accuracy_surface, surface_from_counts
from ._result import AccuracySurface
from ._simulate import SimulatedSurface, simulate_surface
from ._uncertain import UncertainAttribute, attribute_probabilities

__all__ = ["accuracy_surface", "surface_from_counts", "AccuracySurface", "Arms", "encode_arms", "ArmCounts",
           "count_arms", "ArmEstimate", "UncertainAttribute", "SimulatedSurface",
           "simulate_surface", "attribute_probabilities"]
