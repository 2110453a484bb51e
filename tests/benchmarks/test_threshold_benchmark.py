"""The threshold benchmark's helpers (benchmarks/thresholds.py), on cases with known answers."""

import numpy as np
import pytest

from benchmarks import thresholds as bench
from benchmarks import thresholds_report as rep
from benchmarks.thresholds_diagnosis import exact_posterior_trial
from spe.metrics import _thresholds as R


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


def test_generated_targets_and_fixed_thresholds_come_from_the_population_not_the_trial():
    name = "generated calibrated"
    p, at = bench.population(name)
    for seed in (0, 1):
        s, y, _ = bench.generated_case(name, seed)
        cons = bench.targets(s, y, name)
        assert cons["precision"]["min_precision"] == cons["both"]["min_precision"] == round(p, 4)
    # a real case keeps the target of its own (fixed) labels
    s = np.array([0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.2])
    y = np.array([1, 1, 0, 1, 1, 0, 0, 0], float)
    assert bench.targets(s, y, "imdb ovr") == bench.targets(s, y)
    # fixed thresholds fall as the population's recall rises
    assert all(at[a] >= at[b] for a, b in zip(bench.FIXED_RECALLS, bench.FIXED_RECALLS[1:]))


def _exact_trials(believe_sharper, reps=100, n=400, p_min=0.75):
    """The package's rule fed label draws from P(y = 1 | score) = the score (or a sharper
    belief): per level, the stated probabilities, P(met) at the chosen threshold under fresh
    exact draws, and whether one truth met it."""
    rng = np.random.default_rng(37)
    out = {0.8: [], 0.9: []}
    for _ in range(reps):
        q = rng.beta(0.6, 1.4, n)
        truth = (rng.random(n) < q).astype(float)
        idx = rng.choice(n, 20, replace=False)
        believed = 1 / (1 + np.exp(-2.0 * np.log(q / (1 - q)))) if believe_sharper else None
        fresh = (rng.random((1000, n)) < q).astype(float)
        fresh[:, idx] = truth[idx]
        for level, (stated, t, _) in exact_posterior_trial(q, truth, idx, {"min_precision": p_min}, out, rng,
                                                         believed).items():
            if t is not None:
                sel = q >= t
                p_true = np.mean(fresh[:, sel].sum(1) / sel.sum() >= p_min)
                out[level].append((stated, p_true, bench.meets(q, truth, t, {"min_precision": p_min})))
    return {level: np.array(v, float) for level, v in out.items()}


@pytest.mark.statistical
def test_the_rule_keeps_its_promise_when_the_label_posterior_is_exact():
    # the diagnosis of benchmarks/thresholds.py: choosing the most permissive threshold whose
    # probability clears the bar does not select on Monte Carlo noise enough to matter
    for level, v in _exact_trials(False).items():
        stated, p_true, met = v.T
        assert len(v) >= 90 and stated.min() >= level - 1e-9
        assert stated.mean() - p_true.mean() < 0.01
        assert met.mean() >= level - 3 * np.sqrt(level * (1 - level) / len(v))


@pytest.mark.statistical
def test_no_rule_rescues_a_wrong_label_model():
    # the same rule on draws from a belief twice as confident as the truth: the promise breaks
    # (what the generated over-confident case shows), so the shortfall lives in the label model
    for level, v in _exact_trials(True).items():
        stated, p_true, met = v.T
        assert p_true.mean() < level - 0.3 and met.mean() < level - 0.2


def test_report_says_when_ltt_never_answers_and_judges_only_where_it_does():
    silent = {"labels": 10, "spe_met": 0.9, "spe_recall": 0.5, "ltt_feasible": 0.0, "ltt_met": float("nan"),
              "ltt_recall": 0.0}
    assert "never returns a threshold" in rep.peer_text(silent) and "nan" not in rep.peer_text(silent)
    assert rep.peer_holds(silent)
    answers = silent | {"ltt_feasible": 0.1, "ltt_met": 1.0, "ltt_recall": 0.08}
    assert not rep.peer_holds(answers)  # LTT met more often where it answered
    assert rep.peer_holds(answers | {"spe_met": 1.0})
    assert rep.group_of("exact posterior") == "exact" and rep.group_of("generated mixture") == "generated"
