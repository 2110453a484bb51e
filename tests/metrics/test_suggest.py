"""Which items to label next (spe.suggest, SPEResult.suggest_labels)."""

import numpy as np
import pytest

import spe
from spe.metrics._suggest import pick_items, variance_reduction


def test_variance_reduction_is_the_law_of_total_variance():
    """The closed form equals Var(E[Q | y]) written out: the weighted means of Q given
    y = 1 and y = 0 (draws weighted by their share positive), around the overall mean."""
    rng = np.random.default_rng(0)
    m, g = 400, 5
    share = rng.beta(1, 1, (m, g))
    q = np.c_[share[:, 0] * 2 + rng.normal(0, 0.3, m), rng.normal(0, 1, m)]  # Q depends on group 0
    w = rng.dirichlet(np.ones(m))
    got = variance_reduction(q, w, share)
    for j in range(g):
        p1 = w @ share[:, j]
        mean = w @ q
        m1 = (w * share[:, j]) @ q / p1
        m0 = (w * (1 - share[:, j])) @ q / (1 - p1)
        expected = p1 * np.sum((m1 - mean) ** 2) + (1 - p1) * np.sum((m0 - mean) ** 2)
        assert got[j] == pytest.approx(expected, rel=1e-10)
    assert got[0] > 5 * got[1:].max()  # only group 0 informs Q (others: Monte Carlo noise)


def test_settled_groups_are_worth_nothing():
    share = np.c_[np.zeros(50), np.ones(50), np.linspace(0, 1, 50)]
    q = np.linspace(0, 1, 50)
    got = variance_reduction(q, np.full(50, 1 / 50), share)
    assert got[0] == 0 and got[1] == 0 and got[2] > 0


def test_pick_items_one_per_group_first_and_never_a_labeled_item():
    group = np.array([0, 0, 0, 1, 1, 2])
    value = np.array([5.0, 5.0, 5.0, 3.0, 3.0, 1.0])
    labeled = np.array([False, True, False, False, False, False])
    picked = pick_items(value, group, labeled, 4, np.random.default_rng(0))
    assert len(set(picked)) == 4 and not labeled[picked].any()
    assert list(group[picked][:3]) == [0, 1, 2]
    with pytest.raises(ValueError, match="only 5 items are unlabeled"):
        pick_items(value, group, labeled, 6, np.random.default_rng(0))


@pytest.fixture(scope="module")
def res():
    rng = np.random.default_rng(5)
    s = np.r_[rng.normal(0, 1, 600), rng.normal(2.0, 1, 200)]
    y = np.full(s.size, np.nan)
    y[[0, 1, 2, 3, 600, 601, 602]] = [0, 0, 0, 0, 1, 1, 1]
    # spe 0.2's prior; the picks sit up the ranking, where the PR band is widest, not at
    # P(positive) = 1/2: what a label teaches about the curve, not the item's own doubt.
    # families: the pair the default search picks here, so the very numbers of the default fit, without the search
    return spe.fit(s, y, n_draws=400, seed=0, prior="wide", families=("truncnorm", "truncnorm"))


def test_suggest_labels_picks_the_items_whose_labels_teach_most(res):
    picked = res.suggest_labels(10, random_share=0.0)
    assert picked.size == 10 and np.unique(picked).size == 10
    assert not res.data.is_labeled[picked].any()
    np.testing.assert_array_equal(picked, res.suggest_labels(10, random_share=0.0))  # seeded by the fit
    mixed = res.suggest_labels(10)  # default: 3 of the 10 at random, after the 7 best
    np.testing.assert_array_equal(mixed[:7], picked[:7])
    assert np.unique(mixed).size == 10 and not res.data.is_labeled[mixed].any()
    worth = res.label_values("pr")[~res.data.is_labeled]
    assert res.label_values("pr")[picked].min() >= np.quantile(worth, 0.95)  # each among the top 5%
    p = res.prob_positive()
    assert np.all(np.abs(p[picked] - 0.5) < 0.49)  # never an item the posterior has settled
    values = res.label_values("ap")
    assert values.shape == (800,) and np.all(values[res.data.is_labeled] == 0) and values.max() > 0


@pytest.mark.parametrize("call, match", [
    (lambda r: r.suggest_labels(0), "positive integer"),
    (lambda r: r.suggest_labels(2.5), "positive integer"),
    (lambda r: r.suggest_labels(3, target="f1"), "target must be one of"),
    (lambda r: r.suggest_labels(10_000), "unlabeled"),
    (lambda r: r.suggest_labels(5, random_share=1.5), "random_share must be"),
    (lambda r: r.suggest_labels(5, target="threshold"), "needs threshold="),
    (lambda r: r.suggest_labels(5, threshold=1.0), "needs target='threshold'"),
])
def test_suggest_labels_rejects_bad_arguments(res, call, match):
    with pytest.raises(ValueError, match=match):
        call(res)


def test_threshold_target_asks_about_items_near_the_decision(res):
    """Precision and recall at t change only through items whose label the draws disagree
    on; the picked items sit nearer t than the unlabeled items do on average."""
    t = 1.0
    values = res.label_values("threshold", threshold=t)
    assert values.shape == (800,) and np.all(values[res.data.is_labeled] == 0) and values.max() > 0
    picked = res.suggest_labels(10, target="threshold", threshold=t, random_share=0.0)
    s = res.data.scores
    unl = ~res.data.is_labeled
    assert np.median(np.abs(s[picked] - t)) < np.median(np.abs(s[unl] - t))
    # the closed form equals the conditional-mean form for this two-column target
    from spe.metrics._suggest import target_values, unlabeled_share, variance_reduction

    sweep = res._sweep_of("sample")
    q = target_values("threshold", sweep, res.data.threshold, t)
    share = unlabeled_share(res.positive_counts, res.data)
    g = int(res.data.group[picked[0]])
    w = res.weights
    a = share[:, g]
    p = w @ a
    mean_if_pos = (w * a) @ q / p
    mean_if_neg = (w * (1 - a)) @ q / (1 - p)
    direct = p * np.sum((mean_if_pos - w @ q) ** 2) + (1 - p) * np.sum((mean_if_neg - w @ q) ** 2)
    assert variance_reduction(q, w, share)[g] == pytest.approx(direct, rel=1e-9)
