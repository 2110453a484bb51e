import numpy as np
import pytest

from spe.scores import ScoreFrame
from spe.scores import as_labels, as_scores
from spe.scores import prepare


def test_exact_compression_keeps_every_count():
    s = np.array([0.3, 0.1, 0.3, 0.9, 0.1, 0.1, 0.5])
    y = np.array([1, np.nan, np.nan, 1, 0, np.nan, np.nan])
    with pytest.warns(UserWarning, match="only 7 items"):
        d = prepare(s, y)
    assert d.exact and d.n_groups == 4
    np.testing.assert_array_equal(d.threshold, [0.1, 0.3, 0.5, 0.9])
    np.testing.assert_array_equal(d.n_unlabeled, [2, 1, 1, 0])
    np.testing.assert_array_equal(d.n_neg, [1, 0, 0, 0])
    np.testing.assert_array_equal(d.n_pos, [0, 1, 0, 1])
    np.testing.assert_allclose(d.frame.from_unit(d.z), d.threshold)
    np.testing.assert_array_equal(d.threshold[d.group], s)


def test_pooling_bounds_groups_and_keeps_totals():
    rng = np.random.default_rng(0)
    s = rng.normal(size=50_000)
    d = prepare(s, None, max_groups=1000)
    assert not d.exact
    assert d.n_groups <= 1000
    assert d.n_total.sum() == s.size
    assert np.all(np.diff(d.z) > 0)
    # each group holds at most ~2/max_groups of the items and of the range
    assert d.n_total.max() <= 2 * s.size / 1000 + 1
    # thresholds are real scores, and every item lies at or above its group's threshold
    assert np.all(s >= d.threshold[d.group])


def test_user_score_range_is_used_and_checked():
    with pytest.warns(UserWarning, match="only 3 items"):
        d = prepare([0.0, 0.5, 1.0], None, score_range=(0, 1))
    assert d.frame.source == "user"
    assert 0 < d.z[0] < d.z[-1] < 1  # bounds are nudged so open supports stay finite
    with pytest.raises(ValueError, match="outside the given score_range"):
        prepare(np.linspace(0, 2, 20), None, score_range=(0, 1))
    with pytest.raises(ValueError, match="lower < upper"):
        ScoreFrame.from_scores(np.array([0.0, 1.0]), (1, 0))


@pytest.mark.parametrize(
    "bad, err, match",
    [
        ([], ValueError, "empty"),
        ([1.0, np.nan], ValueError, "finite"),
        ([1.0, np.inf], ValueError, "finite"),
        (["a", "b"], TypeError, "real numbers"),
        ([[1, 2], [3, 4]], ValueError, "one-dimensional"),
        ([2.0, 2.0, 2.0], ValueError, "all 3 scores are equal"),
        (np.array([True, False]), TypeError, "boolean"),
        (None, ValueError, "required"),
    ],
)
def test_bad_scores_are_named(bad, err, match):
    with pytest.raises(err, match=match):
        as_scores(bad)


def test_labels_accept_none_bool_and_reject_other_values():
    np.testing.assert_array_equal(as_labels([True, False], 2), [1.0, 0.0])
    out = as_labels([1, None, 0], 3)
    assert out[0] == 1 and np.isnan(out[1]) and out[2] == 0
    assert np.all(np.isnan(as_labels(None, 4)))
    with pytest.raises(ValueError, match="length 2 but scores has length 3"):
        as_labels([1, 0], 3)
    with pytest.raises(ValueError, match="item 0: 2 is not a label"):
        as_labels([2, -1, 0], 3)
    with pytest.raises(ValueError, match=r"\[-1.0, 2.0\] \(first at item 0\)"):
        as_labels(np.array([2.0, -1.0, 0.0]), 3)
    # the CLI's tokens, one parser for both (issue: the API refused what the CLI accepted)
    np.testing.assert_array_equal(as_labels(["yes", "no"], 2), [1.0, 0.0])
    with pytest.raises(ValueError, match="item 1: 'perhaps' is not a label"):
        as_labels(["yes", "perhaps"], 2)
