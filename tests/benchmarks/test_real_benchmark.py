"""The real-score benchmark (benchmarks/real.py) and the harness's metric functions, on
cases with known answers."""

import numpy as np
import pytest

import spe
from benchmarks import label_information as info
from benchmarks import real
from benchmarks.harness import metrics
from benchmarks.real_report import aggregate


def test_metrics_on_known_answers():
    truth = np.linspace(1.0, 0.5, metrics.GRID.size)
    assert metrics.pr_area(truth, truth) == 0.0
    assert metrics.pr_area(truth + 0.1, truth) == pytest.approx(0.1)
    assert metrics.band_coverage(truth - 0.01, truth + 0.01, truth) == 1.0
    assert metrics.band_coverage(truth + 0.01, truth + 0.02, truth) == 0.0
    # interval score: width when covered, width + 2/alpha x miss when not
    assert metrics.interval_score(truth - 0.05, truth + 0.05, truth) == pytest.approx(0.1)
    assert metrics.interval_score(truth + 0.1, truth + 0.2, truth) == pytest.approx(0.1 + 20 * 0.1)
    assert metrics.ece(np.array([0.9, 0.9, 0.1, 0.1]), np.array([1, 1, 0, 0])) == pytest.approx(0.1)
    assert metrics.accuracy_at(np.array([0.2, 0.7]), np.array([0, 1]), 0.5) == 1.0


def test_every_item_labeled_gives_error_zero_width_zero_coverage_one():
    rng = np.random.default_rng(0)
    y = (rng.random(400) < 0.3).astype(float)
    s = np.where(y == 1, rng.normal(1.5, 1, 400), rng.normal(-1, 1, 400))
    res = spe.fit(s, y, seed=0, n_draws=100, families=("truncnorm", "truncnorm"))  # the default search's pick
    curve = res.pr_curve(metrics.GRID)
    truth = spe.exact_precision_at_recall(s, y, metrics.GRID)
    assert metrics.pr_area(curve.precision, truth) == pytest.approx(0.0, abs=1e-12)
    assert np.all(curve.upper - curve.lower == 0)
    assert metrics.band_coverage(curve.lower, curve.upper, truth) == 1.0
    row = real.spe_trial("spe", s, y, y, 0, 0.0, truth,
                         {"prevalence": y.mean(), "ap": metrics.exact_ap(s, y), "accuracy": metrics.accuracy_at(s, y, 0.0)})
    assert row["err"] == pytest.approx(0.0, abs=1e-12) and row["cov"] == 1.0 and row["width"] == 0.0
    assert row["prevalence_cov"] and row["ap_cov"] and row["accuracy_cov"]


def test_aggregation_ratio_and_win_rate():
    trials = [("c", 10, t, {"spe": {"err": e, "cov": 1.0, "s": 0.5}, "naive": {"err": n, "cov": 0.5}})
              for t, (e, n) in enumerate([(0.1, 0.2), (0.3, 0.2)])]
    (row,) = aggregate(trials, ("spe", "naive"))
    assert row["spe_ratio"] == pytest.approx(0.2 / 0.2)
    assert row["spe_win"] == pytest.approx(0.5)  # 0.1 <= 0.21 wins, 0.3 > 0.21 loses
    assert row["spe_cov"] == 1.0 and row["naive_cov"] == 0.5


def test_label_information_generating_maps_are_recovered():
    rng = np.random.default_rng(3)
    s = rng.uniform(0.001, 0.999, 20_000)
    x = info.platt_feature(s)
    y = (rng.random(s.size) < 1 / (1 + np.exp(-(-1.0 + 0.4 * x)))).astype(float)
    assert info.platt_mle(x, y) == pytest.approx([-1.0, 0.4], abs=0.05)
    p = rng.dirichlet(np.ones(4), 5_000)
    q = p**2.0 / (p**2.0).sum(axis=1, keepdims=True)  # inverse temperature 2
    y = (rng.random(q.shape[0])[:, None] > np.cumsum(q, axis=1)).sum(axis=1)
    assert info.temperature_mle(info.class_logp(p), y) == pytest.approx(2.0, rel=0.05)


def test_label_information_known_map_with_every_label_is_exact():
    rng = np.random.default_rng(4)
    s = rng.random(300)
    y = (rng.random(300) < s).astype(float)
    est = info.known_map_metrics(s, s, y, seed=0)
    exact = metrics.exact_metrics(s, y)
    assert est == {k: pytest.approx(exact[k]) for k in info.KEYS}


def test_label_information_median_metrics_and_generating_models():
    rng = np.random.default_rng(5)
    y = (rng.random(200) < 0.4).astype(float)
    scores = np.column_stack([np.clip(0.5 * y + 0.5 * rng.random(200), 0, 1), rng.random(200),
                              (rng.random(200) < 0.5).astype(float)])  # the last: hard predictions
    assert info.generating_models(scores) == [0, 1]
    # every draw the same labelling: the medians are that labelling's exact metrics, model by model
    got = info.median_metrics(scores, np.tile(y == 1, (5, 1)))
    for j, per in enumerate(got):
        exact = metrics.exact_metrics(scores[:, j], y)
        assert per == {k: pytest.approx(exact[k]) for k in info.KEYS}
    assert got[0]["auc"] > 0.9 > got[1]["auc"]
