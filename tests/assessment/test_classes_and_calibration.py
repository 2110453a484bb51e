"""Issue #45: one class index for the confusion matrix's rows and columns, no empty-group
priors, and the Bayesian expected calibration error with its reliability diagram."""

import numpy as np
import pytest

from spe.assessment import (Assessor, BetaGroups, CalibrationError, DirichletColumns, class_groups, class_order,
                            expected_calibration_error, score_informed_prior, uninformative_prior)
from spe.assessment._calibration import confidence_bins
from spe.assessment._simulate import true_accuracy


# ---- one class index -------------------------------------------------------------------
def test_class_order_is_numeric_for_numbers_and_as_declared_otherwise():
    assert class_order([10, 2, 11, 1]) == [1, 2, 10, 11]
    assert class_order(["10", "2", 2]) == ["2", "10"]  # text and numbers match by their text
    assert class_order(["dog", "cat", "10"]) == ["10", "cat", "dog"]
    assert class_order(["b"], classes=["c", "b", "a"]) == ["c", "b", "a"]
    with pytest.raises(ValueError, match="not in classes"):
        class_order(["d"], classes=["a", "b"])
    with pytest.raises(ValueError, match="distinct"):
        class_order([], classes=["a", "a"])
    assert class_groups(np.array([10, 2, 11]))[0].tolist() == [1, 0, 2]


@pytest.mark.parametrize("as_text", [False, True])
def test_twelve_classes_all_labeled_correct_are_all_nearly_surely_correct(as_text):
    """Rows were sorted as text ("10" < "2") and columns numerically: P(correct) was 0.004
    for classes 2-11 (0.956 after the fix)."""
    pred = np.repeat(np.arange(12), 20)
    pred = pred.astype(str) if as_text else pred
    groups, names = class_groups(pred)
    a = Assessor(groups, pred, seed=0)
    for i in range(pred.size):
        a.update(i, str(pred[i]) if as_text else int(pred[i]))
    assert [str(c) for c in a.classes] == [str(k) for k in range(12)]
    assert np.all(np.diag(a.confusion_posterior().mean()) >= 0.9)


def test_columns_follow_the_predicted_class_whatever_the_group_codes():
    pred = np.array([3, 3, 1, 1])
    a = Assessor(np.array([0, 0, 1, 1]), pred)  # group 0 = class 3, not class 1
    for i in range(4):
        a.update(i, int(pred[i]))
    mean = a.confusion_posterior().mean()
    assert a.classes == [1, 3] and mean[0, 0] > 0.6 and mean[1, 1] > 0.6


def test_a_never_predicted_true_class_keeps_its_mass():
    pred = np.array(["a"] * 10 + ["b"] * 10)
    truth = np.array(["a"] * 4 + ["c"] * 6 + ["b"] * 10)
    groups, _ = class_groups(pred)
    a = Assessor(groups, pred, seed=0)
    for i in range(20):
        a.update(i, truth[i])
    assert a.classes == ["a", "b", "c"]
    post = a.confusion_posterior(pseudo_count=3)  # 1 pseudo-count per cell
    counts = post.alpha - 1.0
    np.testing.assert_allclose(counts[:, 0], [4, 0, 6])  # all 10 answers of predicted "a", 6 of them "c"
    acc = a.posterior  # group "a": 4 correct, 6 wrong
    assert (acc.alpha[0] - 1, acc.beta[0] - 1) == (counts[0, 0], counts[1:, 0].sum())
    assert post.mean()[0, 0] == pytest.approx(acc.mean()[0], abs=0.05)  # 0.385 vs 0.417 (was 0.9)
    cost = 1 - np.eye(3)
    assert post.expected_cost(cost, np.random.default_rng(0), 4000).mean(0)[0] > 0.5


def test_declared_classes_fix_the_cost_matrix_and_survive_a_round_trip(tmp_path):
    pred = np.array(["cat", "dog", "cat", "dog"])
    groups, _ = class_groups(pred)
    cost = np.array([[0, 1, 5], [1, 0, 5], [1, 1, 0]])  # rows: true cat, dog, fox
    a = Assessor(groups, pred, strategy="ts-costliest", cost=cost, classes=["cat", "dog", "fox"], seed=0)
    a.update(0, "fox")
    assert a.confusion_posterior().alpha.shape == (3, 3) and len(a.next_items(2)) == 2
    with pytest.raises(ValueError, match="not one of the declared classes"):
        a.update(1, "cow")
    a.save(tmp_path / "s.json")
    b = Assessor.load(tmp_path / "s.json", groups, pred)
    assert b.classes == ["cat", "dog", "fox"]
    np.testing.assert_array_equal(b.next_items(2), a.next_items(2))
    with pytest.raises(ValueError, match="3 x 3 matrix"):
        Assessor(groups, pred, strategy="ts-costliest", cost=np.eye(2), classes=["cat", "dog", "fox"]).next_items()
    with pytest.raises(ValueError, match="several predicted classes"):
        Assessor(np.zeros(4, dtype=int), pred, strategy="ts-costliest", cost=np.eye(2)).next_items()
    with pytest.raises(ValueError, match="needs predicted classes"):
        Assessor(groups, None, classes=["cat", "dog"])


def test_a_class_never_predicted_is_never_among_the_costliest():
    pred = np.array(["cat", "dog", "cat", "dog"])
    groups, _ = class_groups(pred)
    a = Assessor(groups, pred, classes=["cat", "dog", "fox"], seed=0)
    a.update(0, "cat")
    a.update(1, "fox")
    cost = np.array([[0, 1, 50], [1, 0, 50], [1, 1, 50]])  # predicting fox would cost most, but nothing is
    ident = a.costliest(cost, m=1)
    assert ident.top.tolist() == [1] and ident.prob_top[2] == 0 and np.isnan(ident.mean[2])
    assert ident.order.tolist()[-1] == 2 and a.expected_cost(cost)["mean"][2] > 40  # the column's prior, unused


# ---- no NaN prior ----------------------------------------------------------------------
def test_an_empty_group_is_refused_and_no_nan_prior_is_accepted():
    with pytest.raises(ValueError, match=r"group code\(s\) \[1\] have no items"):
        score_informed_prior([0.9, 0.8], np.array([0, 2]))
    with pytest.raises(ValueError, match="no items"):
        true_accuracy(np.array([0, 2]), [1, 0])
    with pytest.raises(ValueError, match="finite and positive.*NaN"):
        BetaGroups([1.0, np.nan], [1.0, 1.0])
    with pytest.raises(ValueError, match="finite and positive"):
        BetaGroups([1.0, np.inf], [1.0, 1.0])
    with pytest.raises(ValueError, match="finite and positive"):
        DirichletColumns(np.full((2, 2), np.nan))


# ---- expected calibration error ----------------------------------------------------------
def _overconfident(seed, n_items=2000, n_labels=200, shift=0.15):
    """Three groups: 0 overconfident by ``shift``, 1 calibrated, 2 by ``shift`` x confidence."""
    rng = np.random.default_rng(seed)
    groups = rng.integers(0, 3, n_items)
    conf = rng.uniform(0.4, 1.0, n_items)
    acc = np.clip(conf - shift * (groups == 0) - shift * conf * (groups == 2), 0, 1)
    correct = (rng.random(n_items) < acc).astype(int)
    a = Assessor(groups, None, strategy="random", confidence=conf, seed=seed)
    for i in rng.choice(n_items, n_labels, replace=False):
        a.update(int(i), int(correct[i]))
    return a, groups, conf, correct


def _ece(conf, correct, n_bins=10):
    b = confidence_bins(conf, n_bins)
    return np.abs(np.bincount(b, weights=correct, minlength=n_bins) - np.bincount(b, weights=conf, minlength=n_bins)
                  ).sum() / conf.size


def test_expected_calibration_error_function_validates_and_computes_the_sample_ece():
    post = BetaGroups([90.0, 40.0], [10.0, 60.0])
    draws = expected_calibration_error(post, [1, 1], [0.9, 0.6], seed=0)
    assert draws.mean() == pytest.approx(0.5 * 0.0 + 0.5 * 0.2, abs=0.03)
    fixed = expected_calibration_error(post, [10, 10], [0.9, 0.6], seed=0, counts=([10, 10], [10, 10], [9, 4]))
    np.testing.assert_allclose(fixed, 0.1)  # every item labeled: the ECE is known exactly
    with pytest.raises(TypeError, match="BetaGroups"):
        expected_calibration_error([1, 2], [1, 1], [0.5, 0.5])
    with pytest.raises(ValueError, match="one value per bin"):
        expected_calibration_error(post, [1], [0.5])
    with pytest.raises(ValueError, match="counts"):
        expected_calibration_error(post, [1, 1], [0.9, 0.6], counts=([1, 1], [2, 0], [0, 0]))


def test_calibration_error_method_overall_and_per_group():
    a, groups, conf, correct = _overconfident(0, n_labels=600)
    ece = a.calibration_error()
    assert isinstance(ece, CalibrationError) and ece.bins.n_bins == 10  # Ji et al.'s 10 bins
    assert ece.group_draws.shape == (10_000, 3) and "ECE (sample, 10 bins)" in str(ece)
    per = ece.per_group
    assert per["median"][1] < per["median"][0] and per["median"][1] < per["median"][2]  # group 1 is calibrated
    o = ece.overall
    assert o["lower"] <= _ece(conf, correct) <= o["upper"]
    with pytest.raises(ValueError, match="needs confidence="):
        Assessor(groups, None).calibration_error()
    with pytest.raises(ValueError, match="probabilities in \\[0, 1\\]"):
        a.calibration_error(confidence=conf + 1)
    with pytest.raises(ValueError, match="kind"):
        a.calibration_error(kind="both")
    with pytest.raises(ValueError, match="n_bins"):
        a.calibration_error(n_bins=0)


def test_every_item_labeled_gives_the_exact_sample_ece():
    rng = np.random.default_rng(3)
    conf = rng.uniform(0.5, 1, 300)
    correct = (rng.random(300) < conf - 0.1).astype(int)
    a = Assessor(np.zeros(300, dtype=int), None, confidence=conf)
    for i in range(300):
        a.update(i, int(correct[i]))
    np.testing.assert_allclose(a.calibration_error(n=200).draws, _ece(conf, correct))


def test_a_given_prior_informs_calibration_and_ts_least_calibrated():
    """Without labels, a prior saying group 1's accuracy is its confidence minus 0.3 puts its
    ECE near 0.3, and Thompson sampling for the least calibrated group goes there."""
    rng = np.random.default_rng(0)
    groups = np.repeat([0, 1], 300)
    conf = rng.uniform(0.6, 0.95, 600)
    mean = np.array([conf[:300].mean(), conf[300:].mean() - 0.3])
    prior = BetaGroups(mean * 400, (1 - mean) * 400)
    a = Assessor(groups, None, prior, strategy="ts-least-calibrated", confidence=conf, seed=0)
    per = a.calibration_error().per_group
    assert per["median"][1] == pytest.approx(0.3, abs=0.04) and per["median"][0] < 0.1
    picks = np.concatenate([a.next_items(1) for _ in range(20)])
    assert np.mean(groups[picks] == 1) > 0.9
    flat = Assessor(groups, None, uninformative_prior(2), confidence=conf).calibration_error().per_group
    assert abs(flat["median"][1] - per["median"][1]) > 0.05  # the prior changed the answer


def test_reliability_diagram_draws_a_posterior_per_bin():
    import matplotlib

    matplotlib.use("Agg")
    a, groups, conf, correct = _overconfident(1)
    ax = a.plot_reliability(true_correct=correct)
    assert ax.get_title().startswith("ECE") and len(ax.containers) >= 2  # the bars and the error bars
    with pytest.raises(ValueError, match="true_correct"):
        a.calibration_error().plot(true_correct=correct, confidence=conf[:5])


@pytest.mark.statistical
def test_ece_interval_covers_the_truth_over_seeds():
    """90% intervals of the sample ECE (overall, and per miscalibrated group) cover the ECE
    computed from every label in >= 85% (80%) of 100 seeds; 200 labels of 2000 items.
    Measured: 0.95 overall, 0.92 per miscalibrated group."""
    hits, group_hits = [], []
    for seed in range(100):
        a, groups, conf, correct = _overconfident(seed)
        ece = a.calibration_error(n=2000, seed=seed)
        hits.append(ece.overall["lower"] <= _ece(conf, correct) <= ece.overall["upper"])
        per = ece.per_group
        for g in (0, 2):
            truth = _ece(conf[groups == g], correct[groups == g])
            group_hits.append(per["lower"][g] <= truth <= per["upper"][g])
    assert np.mean(hits) >= 0.85, np.mean(hits)
    assert np.mean(group_hits) >= 0.8, np.mean(group_hits)
