"""Active Bayesian assessment (Ji et al.), fed by SPE posteriors as informative priors.

Data flow: items -> groups (:mod:`.groups`) -> priors per group (:mod:`.priors`, from
nothing, from scores, or from an SPE result) -> Bayesian group metrics
(:mod:`.metrics`) -> which item to label next (:mod:`.strategies`) -> a labeling
session that survives restarts (:mod:`.assessor`); :mod:`.simulate` replays it against
an oracle.
"""

from .assessor import Assessor, StateError
from .groups import bin_groups, class_groups, encode_groups
from .metrics import BetaGroups, DirichletColumns, rope_probabilities
from .priors import multiclass_informed_prior, score_informed_prior, spe_informed_prior, uninformative_prior

__all__ = [
    "Assessor", "StateError", "BetaGroups", "DirichletColumns", "rope_probabilities",
    "bin_groups", "class_groups", "encode_groups",
    "uninformative_prior", "score_informed_prior", "spe_informed_prior", "multiclass_informed_prior",
]
