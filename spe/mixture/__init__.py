"""The SPE score mixture: class-conditional score densities (families), their prior, the
MAP fit and the choice of families, posterior draws, and the misfit to the scores.

:func:`fit_mixture` takes a :class:`~spe.scores.ScoreData` and returns a
:class:`MixtureFit`, one of the score models :func:`spe.fit` pools.
"""

from . import priors
from .families import FAMILIES, Family, get_component, register_family
from .fitting import FitError, MapFit, fit_map
from .misfit import Misfit
from .mixture_fit import MixtureFit, fit_mixture
from .model import MixtureModel
from .posterior import Posterior, sample_posterior
from .selection import candidate_pairs, select_families

__all__ = [
    "fit_mixture", "MixtureFit", "MixtureModel", "Misfit", "FitError", "MapFit", "fit_map",
    "candidate_pairs", "select_families", "Posterior", "sample_posterior",
    "FAMILIES", "Family", "get_component", "register_family", "priors",
]
