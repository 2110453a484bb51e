"""fit_many with hard predictions: a share per value, Dawid-Skene, and beside ranked models."""

import numpy as np
import pytest
from scipy import special

import spe
from spe.several._dawid_skene import fit_dawid_skene
from spe.several._label_model import fit_label_model

#: (P(predict 1 | y = 1), P(predict 0 | y = 0)) of four conditionally independent classifiers.
RATES = {"a": (0.9, 0.8), "b": (0.75, 0.85), "c": (0.7, 0.7), "d": (0.6, 0.9)}


def _hard(seed, n=1000, prevalence=0.3, n_labels=20):
    rng = np.random.default_rng(seed)
    y = rng.random(n) < prevalence
    scores = {m: np.where(y, rng.random(n) < se, rng.random(n) > sp).astype(float) for m, (se, sp) in RATES.items()}
    return y, scores, np.where(np.arange(n) < n_labels, y, np.nan)


def _interval(draws, level=0.9):
    return np.quantile(draws, [(1 - level) / 2, (1 + level) / 2])


def test_dawid_skene_recovers_the_class_conditional_rates():
    y, scores, labels = _hard(0, n=4000)
    fit = fit_dawid_skene(scores, labels, np.random.default_rng(0), n_draws=300)
    means = {k: v.mean() for k, v in fit.draws().items()}
    for m, (se, sp) in RATES.items():
        assert means[f"P({m}=1|y=1)"] == pytest.approx(se, abs=0.05)
        assert means[f"P({m}=0|y=0)"] == pytest.approx(sp, abs=0.05)
    assert means["pi"] == pytest.approx(y.mean(), abs=0.03)
    assert fit.prob_positive(np.arange(10)).shape == (300, 10) and fit.describe()["ess"] == 300
    # no labels: the patterns alone identify the rates, the top value taken as "positive"
    unlabeled = fit_dawid_skene(scores, np.full(y.size, np.nan), np.random.default_rng(0), n_draws=300)
    assert unlabeled.pi.mean() == pytest.approx(y.mean(), abs=0.04)
    with pytest.raises(ValueError, match="two or more models"):
        fit_dawid_skene({"a": scores["a"]}, labels, np.random.default_rng(0))


def test_dawid_skene_takes_models_with_different_numbers_of_values():
    y, scores, labels = _hard(1, n=2000)
    scores["a"] = np.where(scores["a"] == 1, np.where(np.arange(y.size) % 2 == 0, 2.0, 1.0), 0.0)  # 3 values
    fit = fit_dawid_skene(scores, labels, np.random.default_rng(0), n_draws=200)
    assert [v.size for v in fit.values] == [3, 2, 2, 2]
    assert fit.phi.shape == (200, 4, 2, 3)
    np.testing.assert_allclose(fit.phi[:, 1:, :, 2], 0)  # a two-valued model has no third value
    np.testing.assert_allclose(fit.phi.sum(axis=3), 1)


def test_every_model_hard_is_evaluated_from_the_joint_model():
    y, scores, labels = _hard(2)
    res = spe.fit_many(scores, labels, n_draws=400, seed=0)
    assert res.excluded == {}
    assert set(res.label_model.fits) == set(RATES) | {"log-linear pool", "Dawid-Skene"}
    assert sum(res.model_weights.values()) == pytest.approx(1) and res.model_weights["Dawid-Skene"] > 0.3
    for m, s in scores.items():
        assert np.median(res.metric_draws(m)["accuracy"]) == pytest.approx((s == y).mean(), abs=0.05)
    assert "their Dawid-Skene model (weight" in res.summary("accuracy")
    assert "share of positives per value" in res.summary()
    again = spe.fit_many(scores, labels, n_draws=400, seed=0)
    np.testing.assert_array_equal(again.label_draws, res.label_draws)
    joint = spe.fit_many(scores, labels, n_draws=400, seed=0, label_model="joint")
    assert "the Dawid-Skene model of all models alone" in joint.summary()
    maps = spe.fit_many(scores, labels, n_draws=400, seed=0, label_model="maps")
    assert set(maps.label_model.fits) == set(RATES)


def test_one_hard_model_alone_is_its_share_per_value():
    y, scores, labels = _hard(3)
    res = spe.fit_many({"a": scores["a"]}, labels, n_draws=300, seed=0)
    assert "a's share of positives per value alone" in res.summary()
    own = spe.fit(scores["a"], labels, model="cells", n_draws=300, seed=0)
    assert res.prevalence().value == pytest.approx(own.prevalence().value, abs=0.05)


def _mixed(seed):
    y, scores, labels = _hard(seed)
    rng = np.random.default_rng(seed)
    latent = np.where(y, 1.0, -1.0)
    ranked = {"lr": special.expit(2.0 * latent + rng.normal(0, 1.2, y.size)),
              "svm": 1.5 * latent + rng.normal(0, 1.5, y.size)}
    return y, ranked, {m: scores[m] for m in "abc"}, labels


def test_hard_predictions_beside_ranked_models_are_compared_on_their_draws():
    y, ranked, hard, labels = _mixed(4)
    res = spe.fit_many(ranked | hard, labels, n_draws=400, seed=0)
    assert set(res.excluded) == set(hard) and "hard predictions" in res.excluded["a"]
    assert set(res.label_model.fits) == {"lr", "svm", "lr (calibrated)", "log-linear pool", "Gaussian copula"}
    alone = spe.fit_many(ranked, labels, n_draws=400, seed=0)
    np.testing.assert_array_equal(res.label_draws, alone.label_draws)  # the label model of the ranked models
    for m, s in (ranked | hard).items():
        truth = ((s >= res.thresholds[m]) == y).mean()
        assert np.median(res.metric_draws(m)["accuracy"]) == pytest.approx(truth, abs=0.08)


def test_the_label_model_takes_hard_and_ranked_models_together():
    """fit_label_model's own split: per-value maps for the hard models, the copula of the
    ranked ones, Dawid-Skene of the hard ones, all in one pool."""
    y, ranked, hard, labels = _mixed(5)
    scores = ranked | hard
    probabilities = {m: m != "svm" for m in scores}
    model = fit_label_model(scores, labels, probabilities, 300, tuple(np.random.default_rng([5, k]) for k in (0, 1)),
                            few_values=set(hard))
    assert set(model.fits) == set(scores) | {"log-linear pool", "Gaussian copula", "Dawid-Skene"}
    assert model.fits["Gaussian copula"].models == ["lr", "svm"] and model.fits["Dawid-Skene"].models == list(hard)
    assert model.fits["a"].name == "cells" and model.fits["log-linear pool"].models == list(scores)
    p = model.mean_prob_positive(np.arange(y.size))
    assert np.mean((p > 0.5) == y) > 0.85


@pytest.mark.statistical
def test_hard_models_accuracy_and_prevalence_cover_over_seeds():
    """20 seeds x 4 conditionally independent hard classifiers, 1000 items, 20 labels: the
    90% intervals of accuracy and prevalence cover the items' truth at a sensible rate, and
    the estimates beat the labeled items' own accuracy by far."""
    covered, errors, labeled_errors, prevalence = [], [], [], []
    for seed in range(20):
        y, scores, labels = _hard(100 + seed)
        res = spe.fit_many(scores, labels, n_draws=400, seed=seed)
        for m, s in scores.items():
            draws = res.metric_draws(m)["accuracy"]
            lo, hi = _interval(draws)
            truth = (s == y).mean()
            covered.append(lo <= truth <= hi)
            errors.append(abs(np.median(draws) - truth))
            labeled_errors.append(abs((s[:20] == y[:20]).mean() - truth))
        estimate = res.prevalence()
        prevalence.append(estimate.lower <= y.mean() <= estimate.upper)
    # 80 intervals (20 seeds share labels, so not independent): 0.8 is ~3 binomial SEs below 0.9
    assert np.mean(covered) >= 0.8 and np.mean(prevalence) >= 0.75
    assert np.mean(errors) < 0.5 * np.mean(labeled_errors)


@pytest.mark.statistical
def test_the_joint_model_alone_covers_when_it_is_the_truth():
    """label_model="joint" keeps Dawid-Skene alone, the true model here: sharper than the
    stack, and still covering."""
    covered, errors = [], []
    for seed in range(15):
        y, scores, labels = _hard(200 + seed)
        res = spe.fit_many(scores, labels, n_draws=400, seed=seed, label_model="joint")
        for m, s in scores.items():
            draws = res.metric_draws(m)["accuracy"]
            lo, hi = _interval(draws)
            covered.append(lo <= (s == y).mean() <= hi)
            errors.append(abs(np.median(draws) - (s == y).mean()))
    assert np.mean(covered) >= 0.8 and np.mean(errors) < 0.02
