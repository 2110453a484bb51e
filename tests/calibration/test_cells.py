"""Scores with a few distinct values (hard predictions): the per-value model (spe.cells)."""

import warnings

import numpy as np
import pytest
from scipy import stats

import spe
from spe.calibration import MAX_CELLS, fit_cells
from spe.calibration._cells import PRIOR_SHAPE
from spe.scores import count_scores


def hard_predictions(rng, n=3000, prevalence=0.2, recall=0.8, fpr=0.1):
    y = (rng.random(n) < prevalence).astype(float)
    pred = np.where(y == 1, rng.random(n) < recall, rng.random(n) < fpr).astype(float)
    return pred, y


def labeled_subset(y, k, rng):
    labels = np.full(y.size, np.nan)
    idx = rng.choice(y.size, k, replace=False)
    labels[idx] = y[idx]
    return labels


def test_shares_are_the_conjugate_beta_posteriors():
    rng = np.random.default_rng(0)
    scores = np.r_[np.zeros(30), np.full(10, 0.5), np.ones(20)]
    labels = np.r_[np.ones(3), np.zeros(27), np.ones(4), np.zeros(6), np.ones(15), np.zeros(5)]
    labels[::7] = np.nan  # some unlabeled items: they inform nothing
    fit = fit_cells(scores, labels, n_draws=20000, rng=rng)
    known = ~np.isnan(labels)
    for k, v in enumerate(fit.values):
        at = known & (scores == v)
        pos = labels[at].sum()
        post = stats.beta(PRIOR_SHAPE + pos, PRIOR_SHAPE + at.sum() - pos)
        assert stats.kstest(fit.shares[:, k], post.cdf).pvalue > 0.01
    assert fit.n_labeled == known.sum()
    assert np.array_equal(fit.prob_positive([0.0, 0.5 + 1e-7, 1.0])[:, 1], fit.shares[:, 1])
    with pytest.raises(ValueError, match=r"only at the scores it was fitted on \(0, 0.5, 1\); 1 score\(s\)"):
        fit.prob_positive([0.0, 0.49])


def test_auto_fits_hard_predictions_with_the_per_value_model():
    rng = np.random.default_rng(1)
    pred, y = hard_predictions(rng)
    labels = labeled_subset(y, 40, rng)
    res = spe.fit(pred, labels, seed=0, n_draws=400)
    assert list(res.fits) == ["cells"]
    assert "2 distinct score values" in str(res.summary())
    acc = res.metrics_at(0.5)["accuracy"]
    assert acc.lower <= np.mean(pred == y) <= acc.upper
    again = spe.fit(pred, labels, seed=0, n_draws=400)
    assert np.array_equal(again.average_precision().draws, res.average_precision().draws)


@pytest.mark.statistical
def test_hard_prediction_intervals_cover_over_seeds():
    """90% intervals of precision, recall and accuracy on the fitted items, 40 labels."""
    hits, n_seeds = np.zeros(3), 40
    for seed in range(n_seeds):
        rng = np.random.default_rng(100 + seed)
        pred, y = hard_predictions(rng, n=2000, prevalence=rng.uniform(0.1, 0.4))
        res = spe.fit(pred, labeled_subset(y, 40, rng), seed=seed, n_draws=400)
        m = res.metrics_at(0.5)
        truth = (y[pred == 1].mean(), pred[y == 1].mean(), np.mean(pred == y))
        hits += [m[k].lower <= t <= m[k].upper for k, t in zip(("precision", "recall", "accuracy"), truth)]
    # 90% intervals: 40 seeds give >= 31 hits with probability 0.99 under nominal coverage
    assert np.all(hits >= 31), hits


def test_counts_give_the_item_level_result():
    rng = np.random.default_rng(2)
    pred, y = hard_predictions(rng, n=500)
    labels = labeled_subset(y, 30, rng)
    items = spe.fit(pred, labels, seed=3, n_draws=300)
    counted = spe.fit(count_scores(pred, labels), seed=3, n_draws=300)
    assert np.allclose(items.average_precision().draws, counted.average_precision().draws)


def test_model_choices_on_discrete_scores_are_checked():
    rng = np.random.default_rng(3)
    pred, y = hard_predictions(rng, n=400)
    labels = labeled_subset(y, 30, rng)
    with pytest.raises(ValueError, match="only 2 distinct values: the mixture needs at least 3"):
        spe.fit(pred, labels, model="mixture")
    many = np.round(rng.random(400), 2)
    with pytest.raises(ValueError, match=f"at most {MAX_CELLS} distinct values"):
        spe.fit(many, labels, model="cells")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = spe.fit(np.round(rng.random(400), 1), labels, model=["cells", "platt"], seed=0, n_draws=200)
    assert set(res.model_weights) == {"cells", "platt"}
    assert 0 < res.prevalence().value < 1  # exact 0s and 1s survive the logit frame's round trip
    leaves = np.round(rng.random(400), 1)  # 11 values: atoms, not a density for the mixture
    assert list(spe.fit(leaves, labels, seed=0, n_draws=200).fits) == ["spline", "weak"]
    pair = ("normal", "normal")  # the default search's pick: which models are fitted is checked, not the search
    assert list(spe.fit(np.round(rng.random(400), 2), labels, seed=0, n_draws=200, families=pair).fits) == [
        "mixture", "spline", "weak"]
