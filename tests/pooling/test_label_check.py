"""The posterior predictive check of the labeled items, per score model."""

import warnings
from dataclasses import dataclass

import numpy as np
import pytest

import spe
from spe.exceptions import LabelCheckWarning
from spe.pooling import check_labels, warn_if_contradicted


@dataclass
class FixedModel:
    """A score model whose every draw says P(y = 1 | s) = p."""

    p: float
    n_draws: int = 400

    @property
    def weights(self):
        return np.full(self.n_draws, 1.0 / self.n_draws)

    def prob_positive(self, scores, draws=None):
        rows = self.n_draws if draws is None else len(draws)
        return np.full((rows, np.size(scores)), self.p)


def test_check_flags_a_model_whose_class_balance_the_labels_contradict():
    scores, labels = np.linspace(0, 1, 20), np.ones(20)
    bad = check_labels(FixedModel(0.05), scores, labels, np.random.default_rng(0))
    assert bad.observed == 20 and bad.expected == pytest.approx(1.0)
    assert bad.p_value < 0.01 and bad.verdict == "contradicted by the labels"
    assert "20 of 20 positive" in bad.describe()
    good = check_labels(FixedModel(0.95), scores, labels, np.random.default_rng(0))
    assert good.p_value > 0.05 and good.verdict.startswith("too few labels of one class")  # 20 positive, 0 negative
    assert good.lower <= good.expected <= good.upper
    mixed = check_labels(FixedModel(0.5), scores, np.r_[np.ones(10), np.zeros(10)], np.random.default_rng(0))
    assert mixed.p_value > 0.05 and mixed.verdict == "not contradicted by the labels"


def test_one_labeled_positive_cannot_confirm_a_model_and_the_summary_says_so():
    """The digits case of the corpus issue: 1 positive in 10 labels read "agrees"."""
    import spe

    scores, truth = spe.datasets.load_demo()
    labels = np.full(scores.size, np.nan)
    picked = np.random.default_rng(1).choice(scores.size, 10, replace=False)
    labels[picked] = truth[picked]
    assert labels[picked].sum() == 1
    # families: the pair the default search picks here (the same numbers, without the search)
    text = str(spe.fit(scores, labels, seed=0, families=("truncnorm", "truncnorm")).summary())
    assert "agrees" not in text and "too few labels of one class to test it" in text
    assert "rests on 1 labeled item(s) of the rarer class" in text


@pytest.mark.statistical
def test_check_p_values_are_not_small_when_the_model_is_right():
    # labels drawn from calibrated probabilities; the Platt map's check must rarely fire
    small = []
    for seed in range(25):
        rng = np.random.default_rng(seed)
        s = rng.beta(2, 2, 400)
        y = (rng.random(s.size) < s).astype(float)
        labels = np.full(s.size, np.nan)
        i = rng.choice(s.size, 20, replace=False)
        labels[i] = y[i]
        res = spe.fit(s, labels, model="platt", seed=seed, n_draws=400)
        small.append(res.label_checks["platt"].p_value < 0.05)
    assert np.mean(small) <= 0.12


def test_contradicted_models_with_weight_are_warned_about_and_others_not():
    checks = {k: check_labels(FixedModel(0.05), np.zeros(20), np.ones(20), np.random.default_rng(1))
              for k in ("mixture", "spline")}
    with pytest.warns(LabelCheckWarning, match="'mixture' \\(weight 0.40\\) is contradicted"):
        warn_if_contradicted(checks, {"mixture": 0.4, "spline": 0.05})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warn_if_contradicted(checks, {"mixture": 0.01, "spline": 0.05})


def test_results_report_a_check_per_model_in_the_summary_and_none_without_labels():
    rng = np.random.default_rng(3)
    s = rng.beta(2, 2, 300)
    y = (rng.random(s.size) < s).astype(float)
    labels = np.full(s.size, np.nan)
    labels[:15] = y[:15]
    picked = ("normal", "normal")  # the pair the default search picks here: the same numbers, without the search
    res = spe.fit(s, labels, seed=0, n_draws=300, families=picked)
    assert set(res.label_checks) == set(res.fits)
    summary = res.summary()
    assert str(summary).count("labels: ") == len(res.fits)
    for name in res.fits:
        assert summary.to_dict()["score_models"][name]["label_check"]["observed"] == int(y[:15].sum())
    again = spe.fit(s, labels, seed=0, n_draws=300, families=picked).label_checks
    assert {k: v.p_value for k, v in again.items()} == {k: v.p_value for k, v in res.label_checks.items()}
    assert spe.fit(s, None, seed=0, n_draws=100, model="platt").label_checks == {}
