"""The weak ranker: a slope of either sign near 0 on the rank feature, its posterior against
known parameters, and what it lets spe.fit say of a classifier at chance."""

import numpy as np
import pytest
from scipy import special, stats

import spe
from spe.calibration import RankFeature, WeakRankerPrior, fit_weak_ranker

PRIOR = WeakRankerPrior(weight=0.1, slope_sd=0.3, c_mean=-0.5, c_sd=1.0)


def test_the_rank_feature_is_the_normal_score_of_mid_ranks_and_interpolates_between_scores():
    feature = RankFeature.for_scores([1.0, 2.0, 3.0, 4.0])
    z = feature([1.0, 2.0, 3.0, 4.0])[:, 0]
    np.testing.assert_allclose(z, special.ndtri([0.125, 0.375, 0.625, 0.875]))
    assert feature([2.5])[0, 0] == pytest.approx(0.0)
    assert feature([-10.0, 10.0])[:, 0].tolist() == [z[0], z[-1]]  # held at the ends
    weighted = RankFeature.for_scores([1.0, 2.0], weights=[3, 1])  # counts: 1 1 1 2
    np.testing.assert_allclose(weighted([1.0, 2.0])[:, 0], special.ndtri([0.375, 0.875]))


def test_a_negative_slope_is_recovered_from_many_labels():
    rng = np.random.default_rng(3)
    scores = rng.random(3000)
    z = RankFeature.for_scores(scores)(scores)[:, 0]
    labels = (rng.random(3000) < special.expit(-0.8 - 0.3 * z)).astype(float)
    fit = fit_weak_ranker(scores, labels, prior=PRIOR, n_draws=1000, rng=rng)
    b = fit.slopes[:, 0]
    mean, sd = fit.weights @ b, np.sqrt(fit.weights @ (b - fit.weights @ b) ** 2)
    assert abs(mean + 0.3) < 3 * sd and mean + 2 * sd < 0  # the sign the labels show
    assert fit.weights @ fit.c == pytest.approx(-0.8, abs=0.15)


def test_without_labels_the_draws_are_the_prior():
    rng = np.random.default_rng(0)
    fit = fit_weak_ranker(rng.random(200), np.full(200, np.nan), prior=PRIOR, n_draws=4000, rng=rng)
    assert fit.describe()["inference"] == "prior draws (no labels)"
    assert np.std(fit.slopes[:, 0]) == pytest.approx(0.3, rel=0.05)
    assert np.mean(fit.c) == pytest.approx(-0.5, abs=0.05)


@pytest.mark.statistical
def test_intervals_of_the_slope_cover_at_their_level_over_draws_from_the_prior():
    rng = np.random.default_rng(11)
    hits = []
    for _ in range(150):
        c, b = rng.normal(PRIOR.c_mean, PRIOR.c_sd), rng.normal(0.0, PRIOR.slope_sd)
        scores = rng.random(400)
        z = RankFeature.for_scores(scores)(scores)[:, 0]
        labels = np.full(400, np.nan)
        labels[:30] = rng.random(30) < special.expit(c + b * z[:30])
        fit = fit_weak_ranker(scores, labels, prior=PRIOR, n_draws=800, rng=rng)
        order = np.argsort(fit.slopes[:, 0])
        cdf = np.cumsum(fit.weights[order])
        low, high = fit.slopes[order, 0][np.searchsorted(cdf, [0.05, 0.95])]
        hits.append(low <= b <= high)
    assert 0.84 <= np.mean(hits) <= 0.96


def test_bad_prior_values_are_refused():
    with pytest.raises(ValueError, match="probability"):
        WeakRankerPrior(weight=1.5, slope_sd=0.1, c_mean=0.0, c_sd=1.0)
    with pytest.raises(ValueError, match="positive"):
        WeakRankerPrior(weight=0.1, slope_sd=0.0, c_mean=0.0, c_sd=1.0)


def test_fit_with_the_weak_ranker_reaches_an_auroc_below_one_half_where_the_map_cannot():
    """Scores that rank the positives slightly *below* the negatives on these items (not so
    clearly that the labels say the scores run the wrong way): the monotone map's interval
    stays above the truth, the weak ranker's (with a prior that allows such slopes) covers it."""
    rng = np.random.default_rng(5)
    y = (rng.random(2000) < 0.35).astype(float)
    scores = rng.normal(-0.12 * y, 1.0)
    ranks = stats.rankdata(scores)
    n_pos = y.sum()
    truth = (ranks[y == 1].sum() - n_pos * (n_pos + 1) / 2) / (n_pos * (y.size - n_pos))
    labels = np.where(np.arange(2000) < 150, y, np.nan)
    shipped = spe.learned.default_prior()
    anti = spe.learned.ClassifierPrior(shipped.maps, "test: slopes of either sign up to about 1",
                                       weak_ranker=shipped.weak_ranker | {"slope_sd": 1.0})
    weak = spe.fit(scores, labels, model="weak", prior=anti, seed=0, progress=False).auroc()
    spline = spe.fit(scores, labels, model="spline", seed=0, progress=False).auroc()
    assert truth < 0.5
    assert weak.lower <= truth <= weak.upper and weak.lower < 0.5
    assert spline.lower > truth
