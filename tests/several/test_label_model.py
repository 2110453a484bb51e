"""fit_many's label model (``spe.several._label_model``): the priors its candidates take."""

import warnings
from dataclasses import replace

import numpy as np
import pytest

import spe

from spe.calibration import Features, score_shape
from spe.learned import WIDE, default_prior
from spe.several._label_model import fit_label_model, holds_calibrated


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


def with_calibrated_share(prior, share):
    """``prior`` with "the probabilities are right" learned as a share of probability maps."""
    weights = dict(prior.component_weights)
    weights["probability"] = dict(weights.get("probability", {})) | {"calibrated": share}
    return replace(prior, component_weights=weights)


def test_the_calibrated_hypothesis_enters_once():
    """A map prior that holds "calibrated" as a learned component weighs it inside the model's
    own map; fit_many then stacks no second "calibrated" map for that model (it would count the
    hypothesis twice), and keeps it for a model whose prior does not hold it."""
    rng = np.random.default_rng(3)
    y = rng.random(400) < 0.3
    scores = {m: np.clip(0.3 + 0.35 * y + rng.normal(0, 0.2, 400), 0.01, 0.99) for m in ("a", "b")}
    labels = np.where(np.arange(400) < 20, y, np.nan)
    shared = with_calibrated_share(default_prior(), 0.2)
    assert holds_calibrated(shared.map_prior("probability"))
    assert not holds_calibrated(default_prior().map_prior("probability"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = spe.fit_many(scores, labels, n_draws=300, seed=0, prior={"a": shared})
        both = spe.fit_many(scores, labels, n_draws=300, seed=0)
    assert set(res.label_model.fits) == {"a", "b", "b (calibrated)", "log-linear pool", "Gaussian copula"}
    assert {"a (calibrated)", "b (calibrated)"} <= set(both.label_model.fits)
    assert sum(res.model_weights.values()) == pytest.approx(1.0)
    assert "a (calibrated)" not in res.model_weights and res.model_weights["b (calibrated)"] >= 0
    # the learned share moves a's own map towards "calibrated" where 20 labels leave it open
    means = {}
    for name, fit in (("shared", res.label_model.fits["a"].fit), ("learned", both.label_model.fits["a"].fit)):
        means[name] = fit.weights @ np.log(fit.draws()["b1"])
    assert abs(means["shared"]) < abs(means["learned"])
