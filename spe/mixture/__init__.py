"""The SPE score mixture: class-conditional score densities (families), their prior, the
MAP fit and the choice of families, posterior draws, and the misfit to the scores.

:func:`fit_mixture` takes a :class:`~spe.scores.ScoreData` and returns a
:class:`MixtureFit`, one of the score models :func:`spe.fit` pools.
"""

from . import _priors as priors
from ._families import SCORE_FAMILIES, Family, get_component, register_family
from ..exceptions import FitError
from ._map import MapFit, fit_map
from ._misfit import Misfit
from ._fit import MixtureFit, fit_mixture
from ._model import MixtureModel
from ._posterior import Posterior, sample_posterior
from ._selection import candidate_pairs, select_families

# Names the rooms above import (not in __all__: internal, may change without notice)
from ._posterior import DEFAULT_PROPOSAL, PROPOSALS


__all__ = [
    "fit_mixture", "MixtureFit", "MixtureModel", "Misfit", "FitError", "MapFit", "fit_map",
    "candidate_pairs", "select_families", "Posterior", "sample_posterior",
    "SCORE_FAMILIES", "Family", "get_component", "register_family", "priors",
]
