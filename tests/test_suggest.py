"""Which items to label next (spe.suggest, SPEResult.suggest_labels)."""

import numpy as np
import pytest

import spe
from spe.suggest import pick_items, variance_reduction


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
    return spe.fit(s, y, n_draws=400, seed=0)


def test_suggest_labels_targets_the_uncertain_middle(res):
    picked = res.suggest_labels(10, random_share=0.0)
    assert picked.size == 10 and np.unique(picked).size == 10
    assert not res.data.is_labeled[picked].any()
    np.testing.assert_array_equal(picked, res.suggest_labels(10, random_share=0.0))  # seeded by the fit
    mixed = res.suggest_labels(10)  # default: 3 of the 10 at random, after the 7 best
    np.testing.assert_array_equal(mixed[:7], picked[:7])
    assert np.unique(mixed).size == 10 and not res.data.is_labeled[mixed].any()
    p = res.prob_positive()
    assert np.median(np.abs(p[picked] - 0.5)) < np.median(np.abs(p[~res.data.is_labeled] - 0.5))
    values = res.label_values("ap")
    assert values.shape == (800,) and np.all(values[res.data.is_labeled] == 0) and values.max() > 0


@pytest.mark.parametrize("call, match", [
    (lambda r: r.suggest_labels(0), "positive integer"),
    (lambda r: r.suggest_labels(2.5), "positive integer"),
    (lambda r: r.suggest_labels(3, target="f1"), "target must be one of"),
    (lambda r: r.suggest_labels(10_000), "unlabeled"),
    (lambda r: r.suggest_labels(5, random_share=1.5), "random_share must be"),
])
def test_suggest_labels_rejects_bad_arguments(res, call, match):
    with pytest.raises(ValueError, match=match):
        call(res)
