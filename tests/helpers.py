"""Simulation helpers shared by the tests."""

import numpy as np

from spe.mixture import get_component
from spe.mixture import MixtureModel


def simulate_scores(neg, pos, theta, n, seed):
    """Scores and labels drawn from the SPE model itself (unit-score units)."""
    model = MixtureModel(get_component(neg), get_component(pos))
    rng = np.random.default_rng(seed)
    z, y = model.simulate(np.asarray(theta, float), n, rng)
    return z, y


#: spe.fit options for the score mixture alone on scores drawn from itself: unit scores
#: are not probabilities, so the model sees them on their own (identity) scale.
MIXTURE_ON_MODEL_DATA = {"model": "mixture", "probabilities": False}


def hide_labels(y, n_labeled, seed):
    """Keep n_labeled random labels, NaN elsewhere."""
    rng = np.random.default_rng(seed)
    out = np.full(y.shape, np.nan)
    idx = rng.choice(y.size, n_labeled, replace=False)
    out[idx] = y[idx]
    return out
