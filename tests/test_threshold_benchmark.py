"""The threshold benchmark's helpers (benchmarks/thresholds.py), on cases with known answers."""

import sys
from pathlib import Path

import numpy as np
import pytest

from spe.metrics import thresholds as R

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
bench = pytest.importorskip("thresholds")


def test_targets_oracle_and_kept_on_a_known_ranking():
    s = np.array([0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.2])
    y = np.array([1, 1, 0, 1, 1, 0, 0, 0], float)
    # recall 0.5 is reached by the top 2 items (precision 1.0): target 0.95
    cons = bench.targets(s, y)
    assert cons["precision"] == {"min_precision": 0.95}
    assert bench.meets(s, y, 0.8, cons["precision"]) and not bench.meets(s, y, 0.6, cons["precision"])
    assert bench.oracle(s, y, cons["precision"]) == pytest.approx(0.5)  # best recall at precision >= 0.95
    # recall >= 0.8 needs the top 5 (precision 0.8); the oracle maximises precision there
    assert bench.oracle(s, y, cons["recall"]) == pytest.approx(0.8)
    assert bench.kept(s, y, 0.4, cons["recall"], 0.8) == pytest.approx((4 / 6) / 0.8)
    assert bench.oracle(s, y, {"min_precision": 1.0, "min_recall": 0.9}) is None
    assert bench.kept(s, y, None, cons["precision"], 0.5) is None


def _rates(precision):
    """A Rates object with given per-draw precision (M, T) at ascending thresholds."""
    p = np.asarray(precision, float)
    t = np.arange(p.shape[1], dtype=float)
    recall = np.broadcast_to(np.linspace(1.0, 0.1, p.shape[1]), p.shape)  # falls as t rises
    zeros = np.zeros_like(p)
    return R.Rates(t, p, recall, zeros, zeros, zeros, zeros)


def test_monotone_choice_is_the_rule_when_draws_are_monotone_and_stricter_when_not():
    rng = np.random.default_rng(0)
    # monotone: precision rises with the threshold in every draw
    prec = np.sort(rng.uniform(0.6, 1.0, (200, 12)), axis=1)
    rates, w = _rates(prec), np.full(200, 1 / 200)
    cons = {"min_precision": 0.8}
    for level in (0.5, 0.8, 0.9):
        d = R.choose(rates, w, cons, level, "sample")
        assert bench.monotone_choice(rates, w, cons, level) == (d.threshold if d.feasible else None)
    # half the draws dip below the target at threshold 2 and recover below it: the rule may
    # take threshold 0, the monotone event (from the most probable threshold, 3) cannot pass the dip
    prec = np.full((10, 4), 0.9)
    prec[:5, 2] = 0.5
    prec[9, :2] = 0.7
    rates, w = _rates(prec), np.full(10, 0.1)
    assert R.choose(rates, w, cons, 0.9, "sample").threshold == 0.0
    assert bench.monotone_choice(rates, w, cons, 0.9) == 3.0


def test_platt_1999_recovers_a_sigmoid_and_survives_separable_labels():
    rng = np.random.default_rng(1)
    s = rng.uniform(0.01, 0.99, 4000)
    truth = 1 / (1 + np.exp(-(2.0 * np.log(s / (1 - s)) - 0.5)))
    y = (rng.random(s.size) < truth).astype(float)
    fitted = bench.platt_1999(s, np.arange(s.size), y)
    assert np.mean(np.abs(fitted - truth)) < 0.02
    # perfectly separated labels: Platt's smoothed targets keep the slope finite
    idx = np.array([0, 1, 2, 3])
    s2, y2 = np.array([0.1, 0.2, 0.8, 0.9]), np.array([0.0, 0.0, 1.0, 1.0])
    p = bench.platt_1999(s2, idx, y2)
    assert np.all(np.isfinite(p)) and 0.5 < p[3] < 1.0 and 0.0 < p[0] < 0.5


def test_generated_cases_are_drawn_afresh_per_seed_and_reproducibly():
    a = bench.generated_case("generated calibrated", 0)
    b = bench.generated_case("generated calibrated", 0)
    c = bench.generated_case("generated calibrated", 1)
    np.testing.assert_array_equal(a[0], b[0])
    assert not np.array_equal(a[0], c[0])
    z, y, options = bench.generated_case("generated mixture", 0)
    assert z.size == y.size == 2000 and z.max() < 1.0 and options["probabilities"] is False
    # twice as confident as the truth: the labels are less extreme than the scores say
    p, y_over, _ = bench.generated_case("generated over-confident", 0)
    high = p > 0.9
    assert y_over[high].mean() < p[high].mean() - 0.05
