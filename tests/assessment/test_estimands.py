"""Ji et al.'s other estimands: confusion matrix (with its priors), expected cost,
identification (MRR), ROPE comparison, the Bayesian UCB / epsilon-greedy baselines, and
the tidy frame."""

from types import SimpleNamespace

import numpy as np
import pytest
from scipy import stats

from spe.assessment import (STRATEGIES, Assessor, BetaGroups, DirichletColumns, Identification, class_groups,
                            multiclass_confusion_prior, multiclass_informed_prior, mrr, rope_probabilities,
                            score_confusion_prior, uniform_confusion_prior)
from spe.assessment._metrics import rope_quadrature
from spe.assessment._strategies import confusion_reward, dirichlet_total_variance


def calibrated_world(seed, n=1500, k=4):
    """Class probabilities q per item and a true class drawn from q (a calibrated model)."""
    rng = np.random.default_rng(seed)
    logits = rng.normal(0, 1, (n, k)) + 2.5 * np.eye(k)[rng.integers(0, k, n)]
    q = np.exp(logits)
    q /= q.sum(1, keepdims=True)
    y = (rng.random(n)[:, None] > np.cumsum(q, 1)).sum(1)
    return q, np.minimum(y, k - 1)


def true_confusion(y, pred, k):
    m = np.zeros((k, k))
    np.add.at(m, (y, pred), 1)
    return m / np.maximum(m.sum(0), 1)


# ---- confusion priors --------------------------------------------------------------------
def test_score_confusion_prior_is_ji_et_al_and_a_never_predicted_class_is_uniform():
    probs = np.array([[0.7, 0.2, 0.1], [0.5, 0.4, 0.1], [0.2, 0.6, 0.2]])
    prior = score_confusion_prior(probs, strength=1.0)
    np.testing.assert_allclose(prior.alpha[:, 0], [0.6, 0.3, 0.1])
    np.testing.assert_allclose(prior.alpha[:, 1], [0.2, 0.6, 0.2])
    np.testing.assert_allclose(prior.alpha[:, 2], [1 / 3] * 3)  # class 2 is never predicted
    np.testing.assert_allclose(uniform_confusion_prior(3, 2.0).alpha, np.full((3, 3), 2 / 3))
    assert np.all(score_confusion_prior([[1.0, 0.0], [0.0, 1.0]]).alpha > 0)  # exact zeros are floored
    with pytest.raises(ValueError, match="probs"):
        score_confusion_prior([[0.5, np.nan]])
    with pytest.raises(ValueError, match="strength"):
        score_confusion_prior(probs, strength=0)


def test_multiclass_confusion_prior_matches_the_draws_moments():
    rng = np.random.default_rng(0)
    k, n = 3, 300
    predicted = rng.integers(0, k, n)
    draws = np.where(rng.random((400, n)) < 0.8, predicted, rng.integers(0, k, (400, n)))
    res = SimpleNamespace(n_classes=k, predicted=predicted, class_draws=draws, n_labeled=10,
                          log_probs=np.log(np.full((n, k), 1 / k)))
    prior = multiclass_confusion_prior(res)
    per_draw = np.stack([true_confusion(d, predicted, k) for d in draws])
    m = stats.trim_mean(per_draw, 0.25, axis=0)
    m /= m.sum(axis=0)  # the draws' interquartile mean per entry, each column rescaled to sum to 1
    np.testing.assert_allclose(prior.mean(), m, atol=1e-9)
    d = np.arange(k)
    diag = m[d, d]
    var = np.mean((per_draw[:, d, d] - diag) ** 2, axis=0)  # E(theta_kk - m_kk)^2 = m_kk (1 - m_kk) / (s + 1)
    size = np.bincount(predicted, minlength=k)  # a column is worth at most its items
    np.testing.assert_allclose(prior.alpha.sum(0), np.minimum(diag * (1 - diag) / var - 1, size), rtol=1e-9)
    assert np.any(diag * (1 - diag) / var - 1 < size)  # the formula, not only the cap, is checked
    free = diag * (1 - diag) / var - 1 < size  # where no cap binds, the diagonal marginal's variance is the draws'
    post_diag = prior.alpha[d, d] / prior.alpha.sum(0)
    np.testing.assert_allclose((post_diag * (1 - post_diag) / (prior.alpha.sum(0) + 1))[free], var[free], rtol=1e-6)


def test_multiclass_confusion_prior_diagonal_agrees_with_the_accuracy_prior():
    """Draws that move a column's mass between the diagonal and the rest together (a
    temperature): the confusion prior's P(correct | predicted k) is the accuracy prior's
    Beta, where matching the column's total variance would make it tighter than the draws."""
    rng = np.random.default_rng(1)
    k, n = 4, 400
    predicted = np.repeat(np.arange(k), n // k)
    keep = rng.uniform(0.5, 0.95, (300, 1))  # one "temperature" per draw, shared by every item
    draws = np.where(rng.random((300, n)) < keep, predicted, (predicted + rng.integers(1, k, (300, n))) % k)
    res = SimpleNamespace(n_classes=k, predicted=predicted, class_draws=draws, n_labeled=10,
                          log_probs=np.log(np.full((n, k), 1 / k)))
    conf, acc = multiclass_confusion_prior(res), multiclass_informed_prior(res)
    d = np.arange(k)
    np.testing.assert_allclose(conf.alpha.sum(0), acc.alpha + acc.beta, rtol=0.05)  # centres differ by a rescaling
    np.testing.assert_allclose(conf.alpha[d, d] / conf.alpha.sum(0), acc.mean(), atol=0.01)
    per_draw = np.stack([true_confusion(row, predicted, k) for row in draws])
    centre = conf.mean()
    total = (centre * (1 - centre)).sum(0) / np.mean(np.sum((per_draw - centre) ** 2, axis=1), axis=0) - 1
    assert np.all(total > 1.5 * conf.alpha.sum(0))  # the total-variance match is much tighter


def test_a_confusion_prior_is_used_and_answers_it_holds_are_not_counted_twice(tmp_path):
    probs = np.array([[0.9, 0.1], [0.8, 0.2], [0.3, 0.7], [0.1, 0.9]])
    pred = probs.argmax(1)
    prior = score_confusion_prior(probs)
    a = Assessor(pred, pred, classes=[0, 1], confusion_prior=prior, prior_labels=[0])
    a.update(0, 1)  # held by the prior
    a.update(2, 0)
    expect = prior.alpha.copy()
    expect[0, 1] += 1
    np.testing.assert_allclose(a.confusion_posterior().alpha, expect)
    a.save(tmp_path / "s.json")
    b = Assessor.load(tmp_path / "s.json", pred, pred)
    np.testing.assert_allclose(b.confusion_posterior().alpha, expect)
    with pytest.raises(ValueError, match="declare classes"):
        Assessor(pred, pred, confusion_prior=uniform_confusion_prior(3)).confusion_posterior()
    with pytest.raises(TypeError, match="DirichletColumns"):
        Assessor(pred, pred, confusion_prior=np.ones((2, 2)))


# ---- the confusion reward and the baselines ------------------------------------------------
def test_confusion_reward_is_the_expected_variance_reduction():
    alpha = np.array([2.0, 0.5, 1.5])
    theta = np.array([0.6, 0.1, 0.3])
    direct = dirichlet_total_variance(alpha) - sum(
        t * dirichlet_total_variance(alpha + np.eye(3)[j]) for j, t in enumerate(theta))
    assert confusion_reward(alpha, theta, 0.5) == pytest.approx(0.5 * direct)
    draws = DirichletColumns(np.tile(alpha[:, None], (1, 3))).sample(np.random.default_rng(0), 200_000)[:, :, 0]
    assert dirichlet_total_variance(alpha) == pytest.approx(draws.var(0).sum(), rel=0.02)


def test_ts_confusion_labels_the_uncertain_column_most():
    """Three equal columns, one 50% right: the variance-optimal share of its labels is ~0.64
    (random: 1/3). Measured over seeds 0-5 with 60 labels: 23-31 of 60."""
    rng = np.random.default_rng(0)
    predicted = np.repeat([0, 1, 2], 300)
    truth = np.where(rng.random(900) < np.where(predicted == 0, 0.5, 0.98), predicted, (predicted + 1) % 3)
    a = Assessor(predicted, predicted, strategy="ts-confusion", classes=[0, 1, 2], seed=0)
    for _ in range(60):
        i = a.next_items(1)[0]
        a.update(i, int(truth[i]))
    assert np.bincount(predicted[list(a.labels)], minlength=3)[0] >= 21  # random: 20 on average


@pytest.mark.parametrize("strategy", ["ucb-worst", "epsilon-greedy-worst", "ts-confusion"])
def test_new_strategies_label_distinct_items_until_exhausted(strategy):
    groups = np.repeat(np.arange(3), [5, 3, 2])
    a = Assessor(groups, groups, strategy=strategy, seed=0)
    seen = []
    while (idx := a.next_items(2)).size:
        for i in idx:
            a.update(i, int(groups[i]))
            seen.append(int(i))
    assert sorted(seen) == list(range(10)) and strategy in STRATEGIES


def test_ucb_picks_the_lowest_lower_quantile_and_epsilon_greedy_the_lowest_mean():
    groups = np.repeat(np.arange(3), 100)
    a = Assessor(groups, None, strategy="ucb-worst", seed=0)
    for i, ok in [(0, 1), (1, 1), (100, 0), (101, 1), (200, 0)]:
        a.update(i, ok)
    assert groups[a.next_items(1)[0]] == 2  # Beta(1, 2) has the lowest 2.5% quantile
    b = Assessor(groups, None, strategy="epsilon-greedy-worst", epsilon=0.0, seed=0)
    b.labels = dict(a.labels)
    assert groups[b.next_items(1)[0]] == 2


# ---- identification --------------------------------------------------------------------
def test_mrr_follows_ji_et_al():
    assert mrr([0.1, 0.2, 0.3, 0.4], [0.1, 0.2, 0.3, 0.4], m=2) == 1.0
    assert mrr([0.2, 0.1, 0.3, 0.4], [0.1, 0.2, 0.3, 0.4], m=2) == 1.0  # order within the top ignored
    assert mrr([0.3, 0.2, 0.1, 0.4], [0.1, 0.2, 0.3, 0.4], m=2) == 0.5  # group 2 is ahead of both
    assert mrr([0.1, 0.3, 0.2, 0.4], [0.1, 0.2, 0.3, 0.4], m=2) == 0.75
    assert mrr([5, 1, 3], [5, 1, 3], lowest=False) == 1.0
    with pytest.raises(ValueError, match="m must"):
        mrr([1, 2], [1, 2], m=3)


def prior_predictive_groups(seed, n_groups=6, per_group=200, labels=60):
    """Group accuracies drawn from the uniform prior, then random labels: the Beta(1, 1)
    posterior is then exactly calibrated."""
    rng = np.random.default_rng(seed)
    theta = rng.uniform(0, 1, n_groups)
    groups = np.repeat(np.arange(n_groups), per_group)
    a = Assessor(groups, None, strategy="random", seed=seed)
    for i in a.next_items(labels):
        a.update(i, int(rng.random() < theta[groups[i]]))
    return a, theta


@pytest.mark.statistical
def test_identification_rank_intervals_cover_and_top_probabilities_are_calibrated():
    """Measured (300 seeds, 6 groups, 60 labels): rank 90% intervals cover the true rank of
    0.98 of groups (ranks are discrete: the interval is widened to whole ranks); P(among the
    2 worst) is calibrated within 0.02 in each third (0.135 / 0.50 / 0.78 stated, 0.138 /
    0.49 / 0.79 observed)."""
    covered, probs, hits = [], [], []
    for seed in range(300):
        a, theta = prior_predictive_groups(seed)
        ident = a.least_accurate(m=2, n=2000, seed=seed)
        rank = np.argsort(np.argsort(theta))
        covered += list((ident.rank_lower <= rank) & (rank <= ident.rank_upper))
        probs += list(ident.prob_top)
        hits += list(rank < 2)
    probs, hits = np.array(probs), np.array(hits)
    assert np.mean(covered) >= 0.87, np.mean(covered)
    for lo, hi in [(0, 1 / 3), (1 / 3, 2 / 3), (2 / 3, 1.01)]:
        sel = (probs >= lo) & (probs < hi)
        assert abs(hits[sel].mean() - probs[sel].mean()) < 0.06, (lo, hits[sel].mean(), probs[sel].mean())


def test_identification_from_draws_and_costliest_and_least_calibrated():
    ident = Identification.from_draws(np.array([[0.1, 0.5, 0.3], [0.2, 0.4, 0.35]]), m=2)
    assert ident.top.tolist() == [0, 2] and ident.rank_mean.tolist() == [0, 2, 1]
    assert ident.mrr([0.0, 1.0, 0.5]) == 1.0
    predicted = np.repeat([0, 1, 2], 50)
    a = Assessor(predicted, predicted, classes=[0, 1, 2], seed=0)
    for i in range(0, 150, 3):
        a.update(i, 0 if predicted[i] == 2 else int(predicted[i]))  # class 2 predictions are really 0
    cost = np.ones((3, 3)) - np.eye(3)
    cost[0, 2] = 10.0
    assert a.costliest(cost).top.tolist() == [2]
    assert a.least_accurate().top.tolist() == [2]


# ---- comparison --------------------------------------------------------------------------
@pytest.mark.statistical
def test_comparison_interval_covers_and_the_region_probability_is_calibrated():
    """Measured (400 seeds, accuracies from the prior, 30 labels per group): the 90% interval
    of the difference covers it in 0.91 of seeds; the stated confidence of the chosen region
    (mean 0.849) matches how often it is the true region (0.845)."""
    covered, conf, right = [], [], []
    for seed in range(400):
        rng = np.random.default_rng(seed)
        theta = rng.uniform(0, 1, 2)
        groups = np.repeat([0, 1], 100)
        a = Assessor(groups, None, seed=seed)
        for i in [*range(30), *range(100, 130)]:
            a.update(i, int(rng.random() < theta[groups[i]]))
        c = a.compare(0, 1, epsilon=0.05, n=4000, seed=seed)
        d = theta[0] - theta[1]
        covered.append(c.lower <= d <= c.upper)
        conf.append(c.confidence)
        right.append(c.region == ("below" if d < -0.05 else "above" if d > 0.05 else "equivalent"))
    assert 0.86 <= np.mean(covered) <= 0.94, np.mean(covered)
    assert abs(np.mean(right) - np.mean(conf)) < 0.04, (np.mean(right), np.mean(conf))


def test_rope_quadrature_matches_monte_carlo():
    for a in [(30, 10, 20, 12), (300, 100, 290, 110), (2, 1, 1, 2), (700, 20, 650, 60)]:
        mc = rope_probabilities(BetaGroups([a[0], a[2]], [a[1], a[3]]), 0, 1, 0.05, 0, 200_000)
        np.testing.assert_allclose(rope_quadrature(*a), mc, atol=0.005)


def test_compare_validates_and_prints():
    a = Assessor(np.repeat([0, 1], 5), None)
    with pytest.raises(ValueError, match="two different group"):
        a.compare(0, 0)
    assert "ROPE" in str(a.compare(0, 1))


# ---- confusion and cost: coverage of the truth -------------------------------------------
@pytest.mark.statistical
@pytest.mark.parametrize("prior_kind", ["uniform", "score"])
def test_confusion_and_cost_intervals_cover_the_full_test_set_values(prior_kind):
    """A calibrated 4-class model, 1,000 items, 150 labels by ts-confusion; truth = the
    confusion matrix and cost per predicted class of all 1,000 items. Measured (40 seeds):
    entries covered 0.93 (uniform prior) / 0.90 (score-informed); costs 0.94 / 0.89."""
    cost = np.ones((4, 4)) - np.eye(4)
    cost[0, 1:] = 5.0
    entries, costs = [], []
    for seed in range(40):
        probs, y = calibrated_world(seed, n=1000)
        pred = probs.argmax(1)
        prior = score_confusion_prior(probs) if prior_kind == "score" else None
        a = Assessor(pred, pred, classes=[0, 1, 2, 3], confusion_prior=prior, strategy="ts-confusion", seed=seed)
        for _ in range(150):
            i = a.next_items(1)[0]
            a.update(i, int(y[i]))
        truth = true_confusion(y, pred, 4)
        c = a.confusion(0.9)
        entries += list(((c["lower"] <= truth) & (truth <= c["upper"])).ravel())
        ec = a.expected_cost(cost, 0.9, n=4000, seed=seed)
        true_cost = np.einsum("jk,jk->k", cost, truth)
        costs += list((ec["lower"] <= true_cost) & (true_cost <= ec["upper"]))
    assert np.mean(entries) >= 0.85, np.mean(entries)
    assert np.mean(costs) >= 0.85, np.mean(costs)


def test_to_frame_is_tidy_and_n_labeled_counts_answers():
    groups, names = class_groups(["b", "a", "b", "c"])
    a = Assessor(groups, None)
    a.update(0, 1)
    a.update(2, 0)
    frame = a.to_frame(level=0.8, names=names)
    assert list(frame.columns) == ["group", "estimand", "estimate", "lower", "upper", "n_labeled", "n_items"]
    assert frame["group"].tolist() == ["a", "b", "c"] and frame["n_labeled"].tolist() == [0, 2, 0]
    assert np.all(frame["lower"] <= frame["estimate"]) and np.all(frame["estimate"] <= frame["upper"])
    with pytest.raises(ValueError, match="one name per group"):
        a.to_frame(names=["x"])
