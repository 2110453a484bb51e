"""fit_many's label model (``spe.several._label_model``): the priors its candidates take."""

import warnings

import numpy as np

from spe.calibration import Features, score_shape
from spe.learned import WIDE, default_prior
from spe.several._label_model import fit_label_model


def own_map_means(scores, prior):
    """Posterior means of the intercept and log slopes of model "a"'s own map, no labels,
    every model under ``prior`` (None: the default)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = fit_label_model(scores, np.full(scores["a"].size, np.nan), dict.fromkeys(scores, True), 400,
                                (np.random.default_rng(1), np.random.default_rng(2)), "maps",
                                prior=None if prior is None else dict.fromkeys(scores, prior))
    fit = model.fits["a"].fit
    draws = fit.draws()
    return np.r_[fit.weights @ draws["c"], [fit.weights @ np.log(draws[f"b{j}"]) for j in range(1, 5)]]


def test_own_maps_take_the_corpus_learned_map_prior_of_their_score_kind():
    """As spe.fit does: without labels a model's own map is the learned prior (its
    probabilities typically flatter than stated), not the hand-set "calibrated" centre."""
    rng = np.random.default_rng(0)
    scores = {"a": rng.uniform(0.01, 0.99, 300), "b": rng.uniform(0.01, 0.99, 300)}
    learned = default_prior().map_prior("probability")
    features = Features.for_scores("spline", scores["a"], True, None)
    mean, _ = learned.given_shape(score_shape(features, scores["a"], None), features.n_slopes).moments(4)
    np.testing.assert_allclose(own_map_means(scores, None), mean, atol=0.1)
    assert mean[1:].mean() < -0.2  # so the check can tell the learned prior from the hand-set one
    np.testing.assert_allclose(own_map_means(scores, WIDE), 0.0, atol=0.12)
