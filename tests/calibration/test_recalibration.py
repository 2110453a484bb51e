"""Recalibration: the probability statements mean what they say on model data."""

import numpy as np
import pytest

import spe

from tests.helpers import MIXTURE_ON_MODEL_DATA, hide_labels, simulate_scores

THETA = [0.3, 2.0, 0.1, 0.68, 0.12]


def true_rates(scores, y, t):
    pred = scores >= t
    tp = np.sum(pred & (y == 1))
    precision = tp / max(pred.sum(), 1)
    return precision, tp / y.sum()


@pytest.mark.statistical
def test_chosen_threshold_meets_constraints_at_stated_rate():
    met, feasible = [], 0
    for seed in range(40):
        z, y = simulate_scores("gamma", "truncnorm", THETA, 2000, seed)
        res = spe.fit(z, hide_labels(y, 30, seed), families=("gamma", "truncnorm"),
                      seed=seed, n_draws=400, **MIXTURE_ON_MODEL_DATA)
        dec = res.choose_threshold(min_precision=0.9, min_recall=0.8, confidence=0.9)
        if not dec.feasible:
            continue
        feasible += 1
        assert dec.probability >= 0.9
        p, r = true_rates(z, y, dec.threshold)
        met.append(p >= 0.9 and r >= 0.8)
    assert feasible >= 30
    assert np.mean(met) >= 0.85


def expected_calibration_error(p, y, n_bins=10):
    bins = np.minimum((p * n_bins).astype(int), n_bins - 1)
    return sum(
        abs(p[bins == b].mean() - y[bins == b].mean()) * np.mean(bins == b)
        for b in range(n_bins) if np.any(bins == b)
    )


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_prob_positive_and_calibrate_are_calibrated(seed):
    # Data from the model *including its frame*: both supports are exactly [0, 1].
    z, y = simulate_scores("truncnorm", "truncnorm", [0.3, 0.3, 0.12, 0.68, 0.12], 5000, seed)
    labels = hide_labels(y, 20, seed=seed)
    res = spe.fit(z, labels, seed=seed, n_draws=500, score_range=(0, 1), families=("truncnorm", "truncnorm"),
                  **MIXTURE_ON_MODEL_DATA)  # the families the data are drawn from, which the default search picks
    p = res.prob_positive()
    unl = np.isnan(labels)
    assert expected_calibration_error(p[unl], y[unl]) <= 0.03
    labeled = ~unl
    np.testing.assert_array_equal(p[labeled], labels[labeled])
    # calibrate() on the same scores equals prob_positive() for unlabeled items
    np.testing.assert_allclose(res.calibrate(z[unl][:50]), p[unl][:50], rtol=1e-10)
    assert np.all((res.calibrate([-5.0, 0.5, 5.0]) >= 0) & (res.calibrate([-5.0, 0.5, 5.0]) <= 1))


def test_infeasible_constraints_are_reported_not_raised():
    rng = np.random.default_rng(0)
    y = (rng.random(1500) < 0.4).astype(float)
    z = np.where(y == 1, rng.normal(0.55, 0.15, 1500), rng.normal(0.45, 0.15, 1500))  # weak
    res = spe.fit(z, hide_labels(y, 20, 0), seed=0, n_draws=300, families=("normal", "normal"))  # the search's pick
    dec = res.choose_threshold(min_precision=0.999, min_recall=0.99, confidence=0.9)
    assert not dec.feasible
    assert dec.best_probability < 0.9 and np.isfinite(dec.threshold)
    assert "INFEASIBLE" in str(dec)


@pytest.fixture(scope="module")
def gamma_normal_fit(gamma_normal_data):
    """spe.fit of gamma_normal_data, made once for the tests that only read it: (scores, result)."""
    z, y, labels = gamma_normal_data
    return z, spe.fit(z, labels, seed=0, n_draws=300, families=("gamma", "truncnorm"))  # the default search's pick


def test_condition_probability_shape_monotone_pieces_and_validation(gamma_normal_fit):
    z, res = gamma_normal_fit
    t, prob = res.condition_probability(min_recall=0.5)
    assert t.shape == prob.shape and np.all((prob >= 0) & (prob <= 1))
    # recall only falls as the threshold rises, so P(recall >= r) is non-increasing in t
    order = np.argsort(t)
    assert np.all(np.diff(prob[order]) <= 1e-12)
    with pytest.raises(ValueError, match="at least one constraint"):
        res.condition_probability()
    with pytest.raises(ValueError, match="min_precision must lie in"):
        res.choose_threshold(min_precision=1.5)
    with pytest.raises(ValueError, match="level must be strictly between"):
        res.choose_threshold(min_precision=0.9, confidence=1.0)


def test_objective_thresholds_beat_alternatives(gamma_normal_fit):
    z, res = gamma_normal_fit
    best = res.best_fbeta_threshold(beta=1.0)
    other = res.metrics_at(np.quantile(z, 0.2))["f1"].mean
    assert res.metrics_at(best.threshold)["f1"].mean >= other
    cheap_fn = res.min_cost_threshold(cost_fp=1, cost_fn=20)
    cheap_fp = res.min_cost_threshold(cost_fp=20, cost_fn=1)
    assert cheap_fn.threshold <= cheap_fp.threshold  # costly misses -> lower threshold
