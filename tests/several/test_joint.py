"""The Gaussian copula of several models' scores (``spe.several._joint``): what the within-class
dependence does to the posterior, and its place in fit_many's stack."""

import warnings

import numpy as np
import pytest
from scipy import special

import spe
from spe.several._joint import NAME, _class_normal_scores, fit_gaussian_copula
from spe.several._log_linear_pool import platt_fits


def world(n=1500, shared=0.0, seed=0):
    """Three models reading one latent log-odds; ``shared``: the error they share."""
    rng = np.random.default_rng(seed)
    eta = -1.0 + 2.0 * rng.standard_normal(n)
    y = (rng.random(n) < special.expit(eta)).astype(float)
    common = shared * rng.standard_normal(n)
    return {f"m{j}": special.expit(eta + common + rng.standard_normal(n)) for j in range(3)}, y


def fit(scores, labels, seed=0):
    rng = np.random.default_rng(seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        maps = platt_fits(scores, labels, dict.fromkeys(scores, True), rng)
        return fit_gaussian_copula(scores, labels, maps, rng, n_draws=100), maps


def test_class_normal_scores_are_mid_ranks_through_the_normal_quantile():
    s = np.array([0.1, 0.5, 0.5, 0.9])
    z = _class_normal_scores(s, np.ones((1, 4)))[0]
    np.testing.assert_allclose(z, special.ndtri(np.array([0.5, 2.0, 2.0, 3.5]) / 4))
    heavy = _class_normal_scores(s, np.array([[0.0, 0.0, 0.0, 1.0]]))[0]
    assert heavy[3] == pytest.approx(0.0) and heavy[0] == pytest.approx(special.ndtri(0.5 / 4))


def test_near_copies_of_one_model_are_discounted():
    """Three near-copies of one model (a small error of their own on a shared one): under
    independence their evidence would add up (log-odds 3x one model's); the copula's stay
    within 1.6x. (Exact copies are a singular limit where it does not: docs/user_guide/several.md.)"""
    rng = np.random.default_rng(1)
    n = 1500
    eta = -1.0 + 2.0 * rng.standard_normal(n)
    y = (rng.random(n) < special.expit(eta)).astype(float)
    base = eta + rng.standard_normal(n)
    scores = {f"m{j}": special.expit(base + 0.3 * rng.standard_normal(n)) for j in range(3)}
    model, maps = fit(scores, np.where(np.arange(n) < 60, y, np.nan))
    one = np.mean([special.logit(maps[m].weights @ maps[m].prob_positive(scores[m])) for m in scores], axis=0)
    joint = special.logit(np.clip(model.prob_positive(np.arange(n)).mean(axis=0), 1e-9, 1 - 1e-9))
    assert 0.8 < np.polyfit(one, joint, 1)[0] < 1.6
    assert model.correlation.mean(axis=0)[:, 0, 1].min() > 0.9


def test_a_shared_error_shows_as_within_class_correlation():
    """Given the class, scores correlate through the latent log-odds; an error the models
    share adds to that, and the copula's correlation follows."""
    corr = {}
    for shared in (0.0, 3.0):
        scores, y = world(shared=shared, seed=2)
        labels = np.where(np.arange(y.size) < 60, y, np.nan)
        model, _ = fit(scores, labels)
        corr[shared] = model.correlation.mean(axis=0)[:, 0, 1]
    assert np.all(corr[3.0] > corr[0.0] + 0.1)
    assert model.describe()["model"].startswith("Gaussian copula")


def test_the_stack_weighs_the_copula_by_the_labels_and_joint_alone_runs():
    scores, y = world(shared=1.0, seed=3, n=400)
    labels = np.where(np.arange(y.size) < 40, y, np.nan)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = spe.fit_many(scores, labels, n_draws=200, seed=0, calibrated=False)
        alone = spe.fit_many(scores, labels, n_draws=200, seed=0, label_model="joint")
    assert NAME in res.model_weights and sum(res.model_weights.values()) == pytest.approx(1.0)
    assert list(alone.label_model.fits) == [NAME]
    assert "Gaussian copula of all models alone" in alone.summary()
    assert "Gaussian copula (weight" in res.summary()
    p = alone.prob_positive()
    assert ((p >= 0) & (p <= 1)).all() and np.corrcoef(p, y)[0, 1] > 0.5


def test_joint_is_refused_for_class_probabilities():
    probs = {"a": np.full((10, 3), 1 / 3) + np.eye(3)[np.arange(10) % 3] * 0.1}
    with pytest.raises(ValueError, match="label_model must be one of"):
        spe.fit_many(probs, label_model="joint")


def test_a_tuple_of_kinds_stacks_those_kinds_only():
    """``label_model=("maps", "pool")`` is the stack without the copula; as the copula is
    fitted last, every other candidate is the same fit as in the full stack."""
    scores, y = world(shared=1.0, seed=4, n=300)
    labels = np.where(np.arange(y.size) < 30, y, np.nan)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        full = spe.fit_many(scores, labels, n_draws=100, seed=0, calibrated=False)
        without = spe.fit_many(scores, labels, n_draws=100, seed=0, calibrated=False, label_model=("maps", "pool"))
    assert set(without.label_model.fits) == set(full.label_model.fits) - {NAME}
    for m in without.label_model.fits:
        np.testing.assert_array_equal(without.label_model.fits[m].prob_positive(np.arange(5)),
                                      full.label_model.fits[m].prob_positive(np.arange(5)))
    for bad in ((), ("maps", "copula"), "maps only", ["stack"]):
        with pytest.raises(ValueError, match="label_model must be one of"):
            spe.fit_many(scores, labels, label_model=bad)
